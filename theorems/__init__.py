"""theorems: every claim of the catalogue as data, with its evidence.

A claim (:class:`~theorems.model.Claim`) carries its checks; each check
returns an :class:`~theorems.model.Evidence` record; the runner derives a
status per claim; reports are JSON first, Markdown from the JSON.

>>> from theorems.registry import load_claims
>>> "recall.error" in load_claims()
True

From a notebook or a script, :func:`theorems.verify` runs a selection and
returns a :class:`theorems.Run` (``.ok``, ``.counts``, ``.claims``,
``.write(out_dir)``, and an HTML table in Jupyter); see :mod:`theorems.api`.
Importing ``theorems`` stays light: the API loads on first use.
"""

from theorems.model import (
    Check,
    Claim,
    ClaimKind,
    Context,
    Evidence,
    EvidenceKind,
    EvidenceStatus,
    NegativeControl,
    Status,
)

__version__ = "0.1.0"

__all__ = [
    "Check",
    "Run",
    "Claim",
    "ClaimKind",
    "Context",
    "Evidence",
    "EvidenceKind",
    "EvidenceStatus",
    "NegativeControl",
    "Status",
    "verify",
]


def __getattr__(name: str):
    if name in ("verify", "Run"):
        from theorems import api

        return getattr(api, name)
    raise AttributeError(f"module 'theorems' has no attribute {name!r}")
