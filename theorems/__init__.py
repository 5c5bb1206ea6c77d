"""theorems: every claim of the catalogue as data, with its evidence.

A claim (:class:`~theorems.core.model.Claim`) carries its checks; each check
returns an :class:`~theorems.core.model.Evidence` record; the runner derives a
status per claim; reports are JSON first, Markdown from the JSON.

>>> from theorems.core.registry import load_claims
>>> "recall.error" in load_claims()
True

From a notebook or a script, :func:`theorems.verify` runs a selection and
returns a :class:`theorems.Run` (``.ok``, ``.counts``, ``.claims``,
``.write(out_dir)``, and an HTML table in Jupyter); see :mod:`theorems.api`.
Importing ``theorems`` stays light: the API loads on first use.
"""

from theorems.core.model import (
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


# --- the names of before the sub-packages -------------------------------------------
# ``theorems.templates``, ``theorems.kit``, ``theorems.strategies``, ``theorems.residuals``,
# ``theorems.model``, ``theorems.runner`` ... were modules of this package before it was split
# into core/, authoring/, reporting/ and scale/. They stay importable under those names (as the
# same module objects, so a monkeypatch or an isinstance check sees one module), resolved on
# first import; new code imports them from where they live.

#: old module name -> where it lives now
MOVED_MODULES = {
    "model": "core.model", "runner": "core.runner", "impl": "core.impl", "registry": "core.registry",
    "profiles": "core.profiles", "tolerance": "core.tolerance", "residuals": "core.residuals",
    "templates": "authoring.templates", "kit": "authoring.kit", "strategies": "authoring.strategies",
    "questions": "authoring.questions",
    "report": "reporting.report", "report_html": "reporting.html", "plots": "reporting.plots",
    "junit": "reporting.junit", "observe": "reporting.observe", "compare": "reporting.compare",
    "reportdir": "reporting.folder", "progress": "reporting.progress",
    "executors": "scale.executors", "sweepcache": "scale.sweepcache",
}


class _MovedModules:
    """A ``sys.meta_path`` finder that answers ``theorems.<old name>`` with the module itself."""

    @staticmethod
    def find_spec(fullname, path=None, target=None):
        prefix, _, name = fullname.partition(".")
        if prefix != __name__ or name not in MOVED_MODULES:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(fullname, _MovedModules)

    @staticmethod
    def create_module(spec):
        import importlib

        module = importlib.import_module(f"{__name__}.{MOVED_MODULES[spec.name.partition('.')[2]]}")
        spec.loader_state = module.__spec__  # the import system is about to stamp the alias's spec on it
        return module

    @staticmethod
    def exec_module(module):
        # the import system stamped the alias's spec on the real module: give it back its own
        real = module.__spec__.loader_state
        module.__spec__, module.__loader__ = real, real.loader


def _install_moved_modules() -> None:
    import sys

    if not any(f is _MovedModules for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules)  # before an editable install's finder, which maps by path


_install_moved_modules()
