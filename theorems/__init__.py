"""theorems: every claim of the catalogue as data, with its evidence.

A claim (:class:`~theorems.model.Claim`) carries its checks; each check
returns an :class:`~theorems.model.Evidence` record; the runner derives a
status per claim; reports are JSON first, Markdown from the JSON.

>>> from theorems.registry import load_claims
>>> "recall.error" in load_claims()
True
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
    "Claim",
    "ClaimKind",
    "Context",
    "Evidence",
    "EvidenceKind",
    "EvidenceStatus",
    "NegativeControl",
    "Status",
]
