"""The claim and evidence model.

A :class:`Claim` is data: an id from CLAIMS.md, a LaTeX statement, a kind, a
source, assumptions, the claims it depends on, its checks, and a negative
control (a deliberately wrong variant that must make the claim fail). A
:class:`Check` is a function of a :class:`Context` returning an
:class:`Evidence` record.
"""

from __future__ import annotations

import enum
import zlib
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

import numpy as np

from theorems.core.validate import check_fields, claim_fields, control_fields, controls_cover

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
    "CLAIM_ID_PATTERN",
    "DEFAULT_FAIL_ON",
    "derive_seed",
    "jsonable",
    "seed_sequence",
]


#: The character set of a claim id: two or more dot-separated parts of
#: lowercase ASCII letters and digits, every part after the first may also
#: hold hyphens (``recall.snr``, ``t1.cmm-threshold-8``). The ids of the
#: catalogue, of CLAIMS.md and of report.schema.json follow it; the registry
#: refuses any other id, so an id is safe in a file name, a shell command, a
#: pytest node id and every report format.
CLAIM_ID_PATTERN = r"[a-z0-9]+(?:\.[a-z0-9-]+)+"


def derive_seed(parent: int, *labels: str) -> int:
    """The one seed scheme: a 32-bit seed from a parent seed (the run seed,
    or a check's seed) and labels (claim id, check name, stream name), by
    :class:`numpy.random.SeedSequence` with the labels' CRC32 as spawn key.

    >>> derive_seed(1, "a", "b") == derive_seed(1, "a", "b") != derive_seed(1, "b", "a")
    True
    """
    return int(seed_sequence(parent, *labels).generate_state(1)[0])


def seed_sequence(parent: int, *labels: str) -> np.random.SeedSequence:
    """The SeedSequence of the stream named by ``labels`` under ``parent``
    (each label's CRC32 is one entry of the spawn key)."""
    key = tuple(zlib.crc32(label.encode()) for label in labels)
    return np.random.SeedSequence(int(parent) % 2**128, spawn_key=key)


def jsonable(x: Any) -> Any:
    """A JSON-able rendering of an input: exact rationals as strings ``"p/q"``,
    arrays as nested lists, mpmath numbers as strings."""
    if isinstance(x, np.ndarray):
        return [jsonable(e) for e in x.tolist()] if x.ndim else jsonable(x.item())
    if isinstance(x, (list, tuple)):
        return [jsonable(e) for e in x]
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, Fraction):
        return str(x) if x.denominator != 1 else x.numerator
    if isinstance(x, (bool, int, str)) or x is None:
        return x
    if isinstance(x, (float, np.floating)):
        return float(x) if np.isfinite(x) else str(x)
    if isinstance(x, np.integer):
        return int(x)
    return str(x)


class ClaimKind(str, enum.Enum):
    IDENTITY = "identity"
    INEQUALITY = "inequality"
    EXPECTATION = "expectation"
    APPROXIMATION = "approximation"
    ASYMPTOTIC = "asymptotic"
    CONJECTURE = "conjecture"
    COUNTEREXAMPLE = "counterexample"
    QUESTION = "question"
    UNDERSPECIFIED = "underspecified"


class EvidenceKind(str, enum.Enum):
    SYMBOLIC = "symbolic"
    PRECISE = "precise"
    PROPERTY = "property"
    EXPECTATION = "expectation"
    MONTECARLO = "montecarlo"
    SIMULATION = "simulation"
    COUNTEREXAMPLE = "counterexample"


#: Evidence every claim of a kind must carry (CLAIMS.md, "Kinds").
REQUIRED_EVIDENCE: dict[ClaimKind, frozenset[EvidenceKind]] = {
    ClaimKind.IDENTITY: frozenset({EvidenceKind.SYMBOLIC, EvidenceKind.PRECISE, EvidenceKind.PROPERTY}),
    ClaimKind.INEQUALITY: frozenset({EvidenceKind.PROPERTY, EvidenceKind.PRECISE}),
    ClaimKind.EXPECTATION: frozenset({EvidenceKind.EXPECTATION, EvidenceKind.MONTECARLO}),
    ClaimKind.APPROXIMATION: frozenset({EvidenceKind.SIMULATION}),
    ClaimKind.ASYMPTOTIC: frozenset({EvidenceKind.SIMULATION}),
    ClaimKind.CONJECTURE: frozenset({EvidenceKind.SIMULATION}),
    ClaimKind.COUNTEREXAMPLE: frozenset({EvidenceKind.COUNTEREXAMPLE}),
    ClaimKind.QUESTION: frozenset({EvidenceKind.SIMULATION}),
    ClaimKind.UNDERSPECIFIED: frozenset(),
}


class EvidenceStatus(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    SUPPORTED = "supported"
    NOT_SUPPORTED = "not_supported"
    #: The criterion could not be resolved at the profile's sizes with the
    #: stated power (the evidence says why and which profile can).
    INCONCLUSIVE = "inconclusive"
    #: A question decided by its criterion; the answer is in ``detail``/``data``.
    ANSWERED = "answered"


class Status(str, enum.Enum):
    VERIFIED = "VERIFIED"
    SUPPORTED = "SUPPORTED"
    ANSWERED = "ANSWERED"
    INCONCLUSIVE = "INCONCLUSIVE"
    NOT_SUPPORTED = "NOT SUPPORTED"
    FAILED = "FAILED"
    ERROR = "ERROR"
    UNDERSPECIFIED = "UNDERSPECIFIED"
    BLOCKED = "BLOCKED"

    @property
    def ok(self) -> bool:
        """Statuses a dependent claim may build on."""
        return self in (Status.VERIFIED, Status.SUPPORTED, Status.ANSWERED)


#: Statuses that make ``theorems verify`` exit 1 unless ``--fail-on`` says otherwise.
DEFAULT_FAIL_ON: frozenset[Status] = frozenset(
    {Status.FAILED, Status.ERROR, Status.BLOCKED, Status.NOT_SUPPORTED}
)


@dataclass
class Evidence:
    """What one check measured.

    ``figure`` is compared with ``threshold`` by ``comparison``: ``"<="``
    (a residual ratio, a z-score, an exact residual) or ``">="`` (a margin).
    ``counterexample`` is the minimal failing input, JSON-able; ``replay`` the
    command that reruns the check.
    """

    check: str
    kind: EvidenceKind
    status: EvidenceStatus
    figure: float | None = None
    threshold: float | None = None
    comparison: str = "<="
    cases: int = 0
    seeds: list[int] = field(default_factory=list)
    counterexample: Any = None
    detail: str = ""
    seconds: float = 0.0
    data: dict = field(default_factory=dict)
    replay: str = ""

    def to_json(self) -> dict:
        def num(x):
            if x is None:
                return None
            x = float(x)
            return x if x == x and abs(x) != float("inf") else str(x)

        return {
            "check": self.check,
            "kind": self.kind.value,
            "status": self.status.value,
            "figure": num(self.figure),
            "threshold": num(self.threshold),
            "comparison": self.comparison,
            "cases": int(self.cases),
            "seeds": [int(s) for s in self.seeds],
            "counterexample": jsonable(self.counterexample),
            "detail": self.detail,
            "seconds": round(float(self.seconds), 4),
            "data": jsonable(self.data),
            "replay": self.replay,
        }


@dataclass(frozen=True)
class Context:
    """Everything a check may use, passed to it explicitly: the formulas
    under test (``impl``), the profile, a seed derived from the run seed, the
    claim id and the check name, the run's sweep ``cache`` (``None`` under a
    negative control, whose results must never be stored or read as the true
    formulas') and the ``executor`` its sweeps run on (``None``: here)."""

    impl: Any
    profile: Any
    seed: int
    claim_id: str
    check_name: str
    run_seed: int = 0
    claims_modules: tuple[str, ...] = ()
    control: bool = False  # running a negative control: verdict only, no shrinking
    control_index: int = 0  # which of the claim's controls (Claim.controls) when ``control``
    cache: Any = None
    executor: Any = None
    hypothesis: Any = None  # theorems.evidence._common.HypothesisOptions of the run (None: the defaults)
    #: One case of the check to run alone (``theorems verify --case CHECK:CASE``):
    #: a ladder case's label, a float case's recipe as JSON; None runs them all.
    case: str | None = None

    def rng(self, salt: str = ""):
        """The Generator of the stream ``salt`` of this check: SeedSequence
        spawned from the check's seed with the label as spawn key."""
        return np.random.default_rng(seed_sequence(self.seed, salt))

    def shared_seed(self, label: str) -> int:
        """The seed of the run's stream ``label``, the same for every claim and
        check of the run (32 bits, :func:`derive_seed` of the run seed): for
        instances that several checks sweep and that one cache entry serves,
        e.g. the Gaussian pools of the finite-size crossings."""
        return derive_seed(self.run_seed, label)


@dataclass(frozen=True)
class Check:
    """One piece of evidence: ``run(ctx) -> Evidence``."""

    name: str
    kind: EvidenceKind
    run: Callable[[Context], Evidence]
    description: str = ""

    def __post_init__(self):
        check_fields(self, EvidenceKind=EvidenceKind)


@dataclass(frozen=True)
class NegativeControl:
    """A wrong variant: ``overrides`` replace formulas of the implementation
    namespace by name; under them every check the control is aimed at must
    fail (``theorems verify --controls`` records each check's result).

    ``aimed_at``: the names of the checks the control runs (empty: every
    check of the claim); a claim with several controls aims each at the
    checks it reaches. ``not_applicable``: checks the control cannot reach,
    each with the reason the report shows (e.g. a check of a table of
    constants that no formula under test computes); they are not run."""

    description: str
    overrides: Mapping[str, Callable]
    aimed_at: tuple[str, ...] = ()
    not_applicable: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)

    def __post_init__(self):
        control_fields(self)
        object.__setattr__(self, "aimed_at", tuple(self.aimed_at))
        # refused when the claim is built, not only when --controls runs it (an index
        # stub has no overrides: nothing to check, and linmem stays unimported)
        if not self.overrides:
            return
        from theorems.core.impl import formula_names

        known = formula_names()
        unknown = sorted(set(self.overrides) - known)
        if unknown:
            import difflib

            hints = "; ".join(f"{u!r}: did you mean {', '.join(map(repr, close))}?"
                              if (close := difflib.get_close_matches(u, sorted(known), n=3)) else f"{u!r}"
                              for u in unknown)
            raise ValueError(f"negative control {self.description!r} replaces formulas that linmem does not "
                             f"have: {hints}")

    def runs(self, check: str) -> bool:
        """Whether this control runs the check named ``check`` (aimed at it, not declared not applicable)."""
        return (not self.aimed_at or check in self.aimed_at) and check not in self.not_applicable


@dataclass(frozen=True)
class Claim:
    id: str
    title: str
    statement: str
    kind: ClaimKind
    source: str
    checks: tuple[Check, ...] = ()
    assumptions: tuple[str, ...] = ()
    depends_on: tuple[str, ...] = ()
    negative_control: NegativeControl | None = None
    reason: str = ""
    tags: tuple[str, ...] = ()
    #: The statement's domain: variable name -> the range the statement
    #: covers, in words or as ``[min, max]`` (``None`` for unbounded), e.g.
    #: ``{"d": [1, None], "M": [1, None]}``. Checks record what they searched
    #: in ``Evidence.data["domain"]`` under the same names, so a report can say
    #: when the statement is wider than the search. Empty: not declared.
    domain: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    #: Further negative controls beside ``negative_control``, each aimed at the
    #: checks it reaches (:class:`NegativeControl`); ``--controls`` runs them all.
    more_controls: tuple[NegativeControl, ...] = ()

    @property
    def controls(self) -> tuple[NegativeControl, ...]:
        """Every negative control of the claim, ``negative_control`` first."""
        return (() if self.negative_control is None else (self.negative_control,)) + tuple(self.more_controls)

    def __post_init__(self):
        claim_fields(self, Check=Check, ClaimKind=ClaimKind, NegativeControl=NegativeControl)  # every field's type and range, with the claim, field, value and need named
        if self.kind is ClaimKind.UNDERSPECIFIED:
            if not self.reason:
                raise ValueError(f"claim {self.id}: an underspecified claim needs a reason")
            return
        if not self.checks:
            raise ValueError(f"claim {self.id}: a checkable claim needs checks")
        have = {c.kind for c in self.checks}
        missing = REQUIRED_EVIDENCE[self.kind] - have
        if missing:
            raise ValueError(
                f"claim {self.id} of kind {self.kind.value} lacks required evidence "
                f"{sorted(m.value for m in missing)}"
            )
        names = [c.name for c in self.checks]
        if len(set(names)) != len(names):
            raise ValueError(f"claim {self.id}: duplicate check names {names}")
        if self.negative_control is None:
            raise ValueError(f"claim {self.id}: every checkable claim needs a negative control")
        controls_cover(self)

    def seed_for(self, run_seed: int, check_name: str) -> int:
        """The check's seed: :func:`derive_seed` of the run seed, the claim id
        and the check name."""
        return derive_seed(run_seed, self.id, check_name)
