"""Claim templates: a claim states its mathematics once and gets the checks
its kind needs.

An identity or an inequality gives one ``terms(impl, *args)`` function that
returns a list of terms under the residual contract of
:mod:`theorems.core.residuals` (pairs ``(lhs, rhs)`` claimed equal, and
``at_most(lhs, rhs)`` bounds), and an input family
(:class:`theorems.authoring.strategies.Inputs`). Because linmem runs the same code in
exact rationals, mpmath and float64, the one ``terms`` serves

* ``exact``: Hypothesis-generated exact inputs, residual exactly zero;
* ``ladder``: the family's labelled exact cases rounded afresh at each rung
  of the precision ladder, the residual falling with the precision (a bound
  that need not fall: its top-rung violation small against its terms);
* ``float``: Hypothesis over float64 cases, steered to the worst case (and,
  for an inequality, to the boundary of the bound): a case passes the cheap
  :func:`theorems.authoring.kit.scale` test, or its residual lies within the shared
  threshold of its sides' float64 errors measured against the same terms in
  mpmath; a case whose terms keep no digit in float64 is counted as beyond
  float64, never a counterexample.

With ``scale=`` the claim instead uses the fixed rule ``residual / (scale
* eps) <= THRESHOLD`` at every rung and float case (docs/writing-claims.md). Any further keyword (e.g. ``domain=``) goes to :class:`Claim`. An expectation gives the quantity and the claimed value for
fixed keys and gets the exact enumeration over the sign-value design and a
Monte Carlo over spherical values (:func:`theorems.authoring.kit.store` makes the
batch cheap). An expectation over any other random inputs with a finite
stand-in (spherical, sign-value or noise designs: :class:`theorems.authoring.kit.Law`)
uses :func:`design_expectation`: one quantity written for a batch of
outcomes, the claimed value, the finite laws and a sampler, and gets the
exact enumeration and the Monte Carlo. An asymptotic claim gives its sizes
per profile as data, the measured statistic and a criterion fixed before the
run.

>>> from theorems.authoring.strategies import keys
>>> claim = identity(
...     "doc.projector-symmetric", title="P is symmetric", statement="P^T = P",
...     source="doc", inputs=keys(),
...     terms=lambda impl, K: [(impl.projectors(K)[0], impl.projectors(K)[0].T)],
...     control=wrong("P replaced by K^T", projectors=lambda K: (K.T, K)))
>>> [c.name for c in claim.checks]
['exact', 'ladder', 'float']
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Mapping, Sequence

import mpmath
import numpy as np
from hypothesis import strategies as st
from hypothesis import reject, target

from theorems import numbers
from theorems.authoring import kit
from theorems.evidence import expectation as expect
from theorems.evidence import montecarlo, precise, simulation, symbolic
from theorems.evidence import property as prop
from theorems.evidence._common import IMPLEMENTATION_ERRORS, TermsError, TermsScreen, claims_module_reference
from theorems.core.impl import raised_by_formula
from theorems.core.model import Check, Claim, ClaimKind, Context, EvidenceKind, EvidenceStatus, NegativeControl
from theorems.core.validate import template_checker
from theorems.core.residuals import AtMost, at_most, diff_norm, exact_residual, exact_sq, residual, term_sizes
from theorems.authoring.strategies import Case, Inputs, exact_key_matrices, rng_seeds
from theorems.core.tolerance import FLOAT_REFERENCE_DIGITS, FLOAT_UNRESOLVED_SHARE, THRESHOLD, scaled_residual

#: Each template's arguments checked before it builds anything (theorems.core.validate).
template_arguments = template_checker(Claim=Claim, Check=Check, NegativeControl=NegativeControl)

__all__ = [
    "CROSSING_COLUMNS",
    "SweepTable",
    "array_from_json",
    "asymptotic",
    "at_most",
    "by_figures",
    "claim",
    "claim_terms",
    "controls_of",
    "counterexample",
    "crossing_check",
    "crossing_plot",
    "crossing_results",
    "design_check",
    "design_expectation",
    "exact_check",
    "expectation",
    "gram_input_projector",
    "gram_projectors",
    "identity",
    "inequality",
    "keys_and_directions",
    "montecarlo_keys",
    "montecarlo_values",
    "rebuild_case",
    "rebuild_snippet",
    "sampled_check",
    "swapped_projectors",
    "swapped_stores",
    "sweep_check",
    "sweep_claim",
    "sweep_table_check",
    "witness_check",
    "wrong",
]

Terms = Callable[..., list]


def wrong(description: str, *, aimed_at: Sequence[str] = (), not_applicable: Mapping[str, str] | None = None,
          **overrides: Callable) -> NegativeControl:
    """The negative control: formulas of ``ctx.impl`` replaced by wrong
    variants, by name, under which every check of the claim must fail
    (``theorems verify --controls`` records each check's result). A claim
    may have several (``control=(wrong(...), wrong(..., aimed_at=("float",)))``):
    ``aimed_at`` names the checks a control runs (default: all);
    ``not_applicable`` maps a check it cannot reach to the reason.

    >>> wrong("snr doubled", snr=lambda h: 2 * h).overrides.keys()
    dict_keys(['snr'])
    """
    if not overrides:
        raise ValueError("wrong needs at least one formula to replace, e.g. wrong('why', snr=bad_snr)")
    # formula names are checked by NegativeControl
    return NegativeControl(description, overrides, aimed_at=aimed_at, not_applicable=dict(not_applicable or {}))


def controls_of(control: NegativeControl | Sequence[NegativeControl] | None) -> dict:
    """A template's ``control=`` (one control or a sequence, the first the
    claim's ``negative_control``) as the Claim fields."""
    if control is None or isinstance(control, NegativeControl):
        return {"negative_control": control}
    control = tuple(control)
    return {"negative_control": control[0] if control else None, "more_controls": control[1:]}


def _default_scale(*args):
    return kit.scale(args[0], *args[1:])


class _Unformable:
    """The terms could not be formed from the formulas' outputs (a wrong
    shape from a formula makes the claim's own algebra raise): a failed
    identity with an infinite residual, never a crash of the check."""

    def __init__(self, exc: BaseException):
        self.why = f"the terms could not be formed from the formulas' outputs: {exc!r}"


def _evaluate(terms: Terms, impl, args, screen: TermsScreen, *, reference: bool = False):
    """The claim's terms on ``args``, materialised once as a list. An
    exception of the terms' own code (not of a formula under test) is an
    ERROR naming it in the main run; under a negative control it is the wrong
    variant's failing case, and for the float check's mpmath ``reference`` a
    case it could not measure (:class:`_Unformable`)."""
    try:
        items = terms(impl, *args)
    except IMPLEMENTATION_ERRORS as exc:
        if raised_by_formula(exc) is not None:
            raise  # raised inside a formula: the checker records the failing case
        screen.unformable(exc)  # the user's bug on exact or mpmath input: ERROR
        if not (reference or screen.ctx.control):
            raise TermsError(f"the terms raised {type(exc).__name__}: {exc} (on {screen.number_system} input; "
                             "an exception of the terms is a defect of the claim, not a counterexample)") from exc
        return _Unformable(exc)
    return _materialised(items)


def _materialised(items) -> list:
    """The terms as one list, read once: a bound alone becomes a list of one,
    a generator is consumed into a list. Empty terms compare nothing on this
    input (a case where the claim holds trivially); terms empty on every
    input are an ERROR (:meth:`TermsScreen.settle`).

    >>> _materialised(pair for pair in [(1, 1)])
    [(1, 1)]
    >>> _materialised(3.0)
    Traceback (most recent call last):
    ...
    theorems.evidence._common.TermsError: the terms must be a list of (lhs, rhs) pairs or at_most(lhs, rhs) bounds, got float
    >>> _materialised("lhs = rhs")
    Traceback (most recent call last):
    ...
    theorems.evidence._common.TermsError: the terms must be a list of (lhs, rhs) pairs or at_most(lhs, rhs) bounds, got str
    """
    if isinstance(items, AtMost):
        return [items]
    if isinstance(items, (str, bytes, dict, np.ndarray)) or not hasattr(items, "__iter__"):
        raise TermsError(f"the terms must be a list of (lhs, rhs) pairs or at_most(lhs, rhs) bounds, "
                         f"got {type(items).__name__}")
    return list(items)


def _in_system(terms: Terms, impl, args, screen: TermsScreen, system: str, *, reference: bool = False):
    """The terms evaluated on ``args`` in ``system`` (:mod:`theorems.numbers`):
    the arguments and the formulas' outputs are the system's arrays, the
    terms' floats its decimals."""
    items = _evaluate(terms, numbers.system_impl(impl, system), numbers.enter(args, system), screen,
                      reference=reference)
    return items if isinstance(items, _Unformable) else numbers.settle(items, system)


def _exact(inputs: Inputs, terms: Terms) -> Callable[[Context], Any]:
    def run(ctx):
        screen = TermsScreen(ctx, number_system="exact rational")
        numbers.refuse_foreign(terms, numbers.EXACT)

        def value(args):
            items = _in_system(terms, ctx.impl, args, screen, numbers.EXACT)
            if isinstance(items, _Unformable):
                return items.why
            if screen.mismatch(items):
                reject()
            return exact_residual(items)

        return screen.settle(lambda: symbolic.check_exact(ctx, inputs.exact, value, describe=inputs.describe,
                                                         explicit=inputs.exact_examples))

    return run


def _ladder(inputs: Inputs, terms: Terms, scale, boundary, falls: bool) -> Callable[[Context], Any]:
    def run(ctx):
        cases = _one_case(ctx, list(boundary) + list(inputs.precise(ctx)))
        screen = TermsScreen(ctx, number_system="mpmath")
        numbers.refuse_foreign(terms, numbers.MPMATH)

        def measure(args):
            args = numbers.enter(kit.to_mp(args), numbers.MPMATH)
            items = _in_system(terms, ctx.impl, args, screen, numbers.MPMATH)
            if isinstance(items, _Unformable):
                return math.inf, 1
            if screen.mismatch(items):
                return 0, 1  # set aside: not a counterexample
            if scale is None:
                return residual(items), max((max(a, b) for _, a, b in term_sizes(items)), default=0)
            return residual(items), scale(*args)

        ev = screen.settle(lambda: _case_replay(
            ctx, precise.check(ctx, cases, measure, falls=falls, relative=scale is None)))
        return _with_enclosure(ev, ctx, terms, cases)

    run.case_kind = "ladder"
    run.case_labels = lambda ctx: [label for label, _ in list(boundary) + list(inputs.precise(ctx))]
    return run


def _with_enclosure(ev, ctx: Context, terms: Terms, cases: list):
    """A failed ladder check's counterexample with ``enclosure``: the terms
    in ball arithmetic at the failing case's exact input
    (:func:`theorems.numbers.interval.enclose`), a residual ball that
    excludes zero making the counterexample a proof; or why none was formed."""
    cex = ev.counterexample
    if ev.status is not EvidenceStatus.FAILED or ctx.control or not isinstance(cex, dict):
        return ev
    args = next((case for label, case in cases if label == cex.get("case")), None)
    if args is not None:
        from theorems.numbers.interval import enclose

        cex["enclosure"] = enclose(terms, ctx.impl, args)
    return ev


def _one_case(ctx: Context, cases: list) -> list:
    """The ladder's cases, or only the one ``ctx.case`` names (``--case ladder:LABEL``)."""
    if ctx.case is None:
        return cases
    chosen = [(label, case) for label, case in cases if label == ctx.case]
    if not chosen:
        raise ValueError(f"case must name one of the ladder's cases ({', '.join(label for label, _ in cases)}), "
                         f"got {ctx.case!r}")
    return chosen


def _case_replay(ctx: Context, ev):
    """``ev`` with, on a failed case the check can rerun alone (a ladder
    case by its label, a float case by its recipe), the command that reruns
    just that case in ``counterexample["replay_case"]``."""
    cex = ev.counterexample
    if ev.status is EvidenceStatus.FAILED and isinstance(cex, dict) and cex.get("case") is not None:
        import shlex

        spec = f"{ctx.check_name}:{cex['case']}"
        cex["replay_case"] = f"{ev.replay} --case {shlex.quote(spec)}"
    return ev


def _steer_to_bounds(items) -> None:
    """Hypothesis ``target``: the smallest relative slack of the bounds, so
    the search moves toward inputs where a bound is tight."""
    slack = math.inf
    for t in items:
        if isinstance(t, AtMost):
            lhs, rhs = np.broadcast_arrays(np.asarray(t.lhs, dtype=float), np.asarray(t.rhs, dtype=float))
            size = np.abs(lhs) + np.abs(rhs)
            rel = np.where(size > 0, (rhs - lhs) / np.where(size > 0, size, 1), 0.0)
            slack = min(slack, float(np.min(rel))) if rel.size else slack
    if math.isfinite(slack):
        target(-slack, label="closeness to the bound")


def _float(inputs: Inputs, terms: Terms, scale, steer: bool) -> Callable[[Context], Any]:
    def run(ctx):
        screen = TermsScreen(ctx, number_system="float64")

        def measure(case: Case):
            items = _evaluate(terms, ctx.impl, case.args, screen)
            if isinstance(items, _Unformable):
                return math.inf
            if screen.mismatch(items):
                reject()
            if steer:
                _steer_to_bounds(items)
            if scale is not None:
                return scaled_residual(residual(items), scale=float(scale(*case.args)))
            quick = scaled_residual(residual(items), scale=float(_default_scale(*case.args)))
            return quick if quick <= THRESHOLD else _measured_ratio(terms, ctx, case.args, items)

        strategy, examples, explicit = inputs.floats, None, inputs.float_examples
        if ctx.case is not None:  # --case float:RECIPE: that one case alone
            strategy, examples, explicit = st.just(rebuild_case(inputs, ctx.case)), 1, ()
        describe = _float_counterexample(inputs, terms, ctx)
        return screen.settle(lambda: _case_replay(
            ctx, prop.check(ctx, strategy, measure, describe=describe, examples=examples, explicit=explicit)))

    run.case_kind, run.terms, run.inputs = "float", terms, inputs
    return run


def rebuild_case(inputs: Inputs, recipe: str | Mapping) -> Case:
    """The float case of ``inputs`` that ``recipe`` (the ``input`` of a
    float counterexample, or that mapping as JSON text) describes, rebuilt
    with the same arrays. A ValueError when the family cannot rebuild its
    cases or the recipe is not one of them.

    >>> from theorems.authoring.strategies import keys
    >>> case = rebuild_case(keys(), '{"family": "gaussian", "d": 2, "M": 3, "p": 1, "seed": 7, '
    ...                     '"cond": 1.0, "rank": null, "unit": false}')
    >>> case.args[0].shape
    (2, 3)
    """
    import json

    if inputs.rebuild is None:
        raise ValueError("this claim's float inputs cannot be rebuilt from a recipe; rerun the whole float check "
                         "(--case float)")
    if isinstance(recipe, str):
        try:
            recipe = json.loads(recipe)
        except json.JSONDecodeError as exc:
            raise ValueError(f"recipe must be the JSON of a float case's recipe, got {recipe!r} ({exc})") from None
    return inputs.rebuild(recipe)


def _array_json(a: Any) -> dict | None:
    """A float64 argument as JSON holds it exactly: shape, dtype and its
    entries (row-major) as ``float.hex`` strings; None for anything else."""
    if isinstance(a, (float, np.floating)):
        a = np.float64(a)
        return {"shape": [], "dtype": "float64", "hex": [float(a).hex()]}
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        return {"shape": list(a.shape), "dtype": "float64", "hex": [float(x).hex() for x in a.ravel()]}
    return None


def array_from_json(obj: Mapping) -> np.ndarray | float:
    """The array (a float for shape ``[]``) a counterexample's ``arrays``
    entry holds, bit for bit.

    >>> array_from_json({"shape": [1, 2], "dtype": "float64", "hex": ["0x1.999999999999ap-4", "0x1.0p+1"]})
    array([[0.1, 2. ]])
    >>> array_from_json({"shape": [], "dtype": "float64", "hex": ["0x1.8p+0"]})
    1.5
    """
    if obj.get("dtype") != "float64":
        raise ValueError(f"obj must hold a float64 array, got dtype {obj.get('dtype')!r}")
    values = np.array([float.fromhex(h) for h in obj["hex"]], dtype=np.float64)
    return float(values[0]) if list(obj["shape"]) == [] else values.reshape(obj["shape"])


def claim_terms(claim: Claim) -> Terms:
    """The ``terms(impl, *args)`` function of a claim built by :func:`identity`
    or :func:`inequality` (what a counterexample's rebuild snippet calls).

    >>> from theorems.authoring.strategies import keys
    >>> c = identity("doc.same", title="K = K", statement="K = K", source="doc", inputs=keys(),
    ...              terms=lambda impl, K: [(K, K)], control=wrong("pinv as K", pinv=lambda K: K))
    >>> claim_terms(c)(None, 2.0)
    [(2.0, 2.0)]
    """
    for check in claim.checks:
        terms = getattr(check.run, "terms", None)
        if terms is not None:
            return terms
    raise ValueError(f"claim must be built by identity or inequality to have terms, got {claim.id!r} "
                     f"(checks: {', '.join(c.name for c in claim.checks)})")


def rebuild_snippet(ctx: Context, names: Sequence[str], arrays: Mapping[str, dict], measured: float) -> str:
    """Python that rebuilds a float counterexample from its exact arrays,
    loads the claim (the run's ``--claims`` modules too), evaluates its terms
    with the formulas the check used (a negative control's wrong variant
    under ``--controls``) and prints the residual, ``measured`` when the code
    is unchanged."""
    modules = [claims_module_reference(m) for m in ctx.claims_modules]
    lines = [f"# rebuilds the float64 counterexample of {ctx.claim_id} (check {ctx.check_name}) and its residual",
             "import numpy as np",
             "from theorems.core.impl import Impl",
             "from theorems.core.registry import load_claims",
             "from theorems.core.residuals import residual",
             "from theorems.authoring.templates import claim_terms",
             "",
             "def array(shape, hexes):",
             "    values = np.array([float.fromhex(h) for h in hexes], dtype=np.float64)",
             "    return float(values[0]) if shape == () else values.reshape(shape)",
             ""]
    for name in names:
        a = arrays[name]
        lines.append(f"{_identifier(name)} = array({tuple(a['shape'])!r}, {a['hex']!r})")
    lines += ["", f"claim = load_claims({modules!r}).get({ctx.claim_id!r})",
              "impl = Impl.default()" + ((".with_overrides(claim.negative_control.overrides)" if not ctx.control_index
                                          else f".with_overrides(claim.controls[{ctx.control_index}].overrides)")
                                         if ctx.control else ""),
              f"items = claim_terms(claim)(impl, {', '.join(_identifier(n) for n in names)})",
              f"print(repr(float(residual(items))))  # the check measured {measured!r}"]
    return "\n".join(lines)


def _identifier(name: str) -> str:
    """An argument name as a Python variable (names such as ``"free key"`` too)."""
    out = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    return out if out.isidentifier() else f"arg_{out}"


def _float_counterexample(inputs: Inputs, terms: Terms, ctx: Context) -> Callable[[Case], Any]:
    """A failing float case as the report stores it: ``input`` (the recipe),
    ``arrays`` (every argument exactly, :func:`_array_json`), ``float64_residual``
    (the terms' residual there), ``case`` (the recipe as the JSON that
    ``--case float:...`` takes, when the family can rebuild it) and
    ``rebuild`` (:func:`rebuild_snippet`). A case with an argument that is
    not float64 keeps its recipe alone."""
    import json

    def describe(case: Case) -> Any:
        out: dict[str, Any] = {"input": case.recipe}
        if inputs.rebuild is not None:
            out["case"] = json.dumps(case.recipe, separators=(",", ":"))
        arrays = {name: _array_json(a) for name, a in zip(inputs.names, case.args)}
        if any(a is None for a in arrays.values()):
            return out
        try:
            measured = float(residual(terms(ctx.impl, *case.args)))
        except IMPLEMENTATION_ERRORS as exc:  # a formula that raises there: the snippet shows it raise
            measured = math.inf
            out["raised"] = repr(exc)
        out.update(arrays=arrays, float64_residual=measured, rebuild=rebuild_snippet(ctx, inputs.names, arrays, measured))
        return out

    return describe


def _measured_ratio(terms: Terms, ctx: Context, args, items):
    """The measured tolerance of a float case that fails the cheap
    default-scale test: the same terms evaluated in mpmath at
    ``FLOAT_REFERENCE_DIGITS`` on the same float inputs are the reference,
    and each term's float residual is judged against the float64 error of
    its two sides, so conditioning comes from the computation itself.
    Returns the worst ratio, ``BEYOND_FLOAT64`` when no violation is
    resolvable and some term keeps no significant digit in float64, or
    ``UNMEASURED`` when the reference cannot be formed (the case failed the
    cheap test and nothing measured it: the check cannot pass on it)."""
    with mpmath.workdps(FLOAT_REFERENCE_DIGITS):
        reference = _in_system(terms, ctx.impl, kit.to_mp(args), TermsScreen(ctx, number_system="float64"),
                               numbers.MPMATH, reference=True)
        if isinstance(reference, _Unformable) or len(reference) != len(items):
            return prop.UNMEASURED
        errors = []
        for t, ref in zip(items, reference):
            (lhs, rhs), (lhs_r, rhs_r) = [(x.lhs, x.rhs) if isinstance(x, AtMost) else x for x in (t, ref)]
            errors.append(float(diff_norm(lhs, lhs_r)) + float(diff_norm(rhs, rhs_r)))
    worst, beyond = 0.0, False
    eps = float(np.finfo(float).eps)
    for (res, size_l, size_r), error in zip(term_sizes(items), errors):
        size, res = max(float(size_l), float(size_r)), float(res)
        if not math.isfinite(error) or error >= FLOAT_UNRESOLVED_SHARE * size:
            beyond = beyond or res > 0
            continue
        ratio = 0.0 if res == 0 else res / (error + eps * size) if math.isfinite(res) else math.inf
        worst = max(worst, ratio)
    if worst > THRESHOLD or not beyond:
        return worst
    return prop.BEYOND_FLOAT64


def _algebra(expressions) -> Callable[[Context], Any]:
    def run(ctx):
        return symbolic.check_scalar(ctx, expressions(ctx.impl))

    return run


def _claim(id, kind, checks, *, title, statement, source, control, assumptions, depends_on, tags, algebra,
           extra_checks, **fields) -> Claim:
    if algebra is not None:
        checks = (Check("algebra", EvidenceKind.SYMBOLIC, _algebra(algebra), "sympy: the scalar algebra"),) + checks
    return Claim(id=id, title=title, statement=statement, kind=kind, source=source,
                 checks=checks + tuple(extra_checks), assumptions=tuple(assumptions),
                 depends_on=tuple(depends_on), **controls_of(control), tags=tuple(tags), **fields)


def _three_checks(inputs, terms, scale, boundary, falls, steer, about) -> tuple[Check, ...]:
    about = about or inputs.about
    where = f" ({', '.join(label for label, _ in boundary)} first)" if boundary else ""
    return (
        Check("exact", EvidenceKind.SYMBOLIC, _exact(inputs, terms),
              f"exact rationals, residual == 0: {about}"),
        Check("ladder", EvidenceKind.PRECISE, _ladder(inputs, terms, scale, boundary, falls),
              f"mpmath precision ladder{where}: {about}"),
        Check("float", EvidenceKind.PROPERTY, _float(inputs, terms, scale, steer),
              "float64 scaled residual" + (", steered to the bound" if steer else "") + f": {about}"),
    )


@template_arguments
def identity(
    id: str, *, title: str, statement: str, source: str, inputs: Inputs, terms: Terms,
    control: NegativeControl, scale: Callable[..., Any] | None = None,
    assumptions: Sequence[str] = (), depends_on: Sequence[str] = (), tags: Sequence[str] = (),
    boundary: Sequence[tuple[str, tuple]] = (), algebra: Callable | None = None,
    about: str = "", extra_checks: Sequence[Check] = (), **fields: Any,
) -> Claim:
    """An identity claim: ``terms(impl, *args)`` (the residual contract) over
    ``inputs``, checked exactly, on the precision ladder (``boundary`` cases
    first) and in float64, by the measured tolerance, or by the fixed rule
    with ``scale(*args)`` when given. ``algebra(impl)`` may add
    sympy scalar identities ``[(label, expression)]`` that must simplify to 0."""
    checks = _three_checks(inputs, terms, scale, boundary, True, False, about)
    return _claim(id, ClaimKind.IDENTITY, checks, title=title, statement=statement, source=source,
                  control=control, assumptions=assumptions, depends_on=depends_on, tags=tags,
                  algebra=algebra, extra_checks=extra_checks, **fields)


@template_arguments
def inequality(
    id: str, *, title: str, statement: str, source: str, inputs: Inputs, terms: Terms,
    control: NegativeControl, scale: Callable[..., Any] | None = None,
    assumptions: Sequence[str] = (), depends_on: Sequence[str] = (), tags: Sequence[str] = (),
    boundary: Sequence[tuple[str, tuple]] = (), falls: bool = True, about: str = "",
    extra_checks: Sequence[Check] = (), **fields: Any,
) -> Claim:
    """An inequality claim: ``terms`` carry ``at_most`` bounds (and may carry
    equalities); the float search is steered toward the bounds' boundary and
    the ``boundary`` cases (where the bound is tight) open the ladder.
    ``falls=False`` when the terms are bounds only and a tight bound's
    rounding need not fall with precision."""
    checks = _three_checks(inputs, terms, scale, boundary, falls, True, about)
    return _claim(id, ClaimKind.INEQUALITY, checks, title=title, statement=statement, source=source,
                  control=control, assumptions=assumptions, depends_on=depends_on, tags=tags,
                  algebra=None, extra_checks=extra_checks, **fields)


# --- expectations over random values ------------------------------------------------


def montecarlo_keys(rng: np.random.Generator) -> list[np.ndarray]:
    """Fixed float keys for Monte Carlo over values: M > d spherical, M < d,
    rank-deficient non-unit, duplicated."""
    from linmem import ensembles

    return [
        ensembles.spherical_vectors(4, 7, rng=rng),
        ensembles.spherical_vectors(6, 3, rng=rng),
        ensembles.controlled_spectrum(5, 6, cond=10.0, rank=3, rng=rng),
        ensembles.duplicated_keys(3, 5, n_distinct=2, rng=rng),
    ]


#: Dimension of the Monte Carlo values.
MC_VALUE_DIM = 3


def keys_and_directions(keys: st.SearchStrategy | None = None) -> st.SearchStrategy:
    """Cases ``(K, W0)`` of the sign-value design ``v_i = s_i w_i``: exact keys from ``keys`` (any by
    default) and fixed exactly-unit rational directions ``W0`` (1 to 3 rows) for fair signs ``s_i``."""
    keys = keys if keys is not None else exact_key_matrices()

    @st.composite
    def draw_case(draw):
        K = draw(keys)
        p = draw(st.integers(1, 3))
        W0 = kit.sign_values(p, K.shape[1], np.random.default_rng(draw(rng_seeds())))
        return K, W0

    return draw_case()


@template_arguments
def expectation(
    id: str, *, title: str, statement: str, source: str, quantity: Callable, claimed: Callable,
    control: NegativeControl, keys: st.SearchStrategy | None = None,
    mc_keys: Callable[[np.random.Generator], list[np.ndarray]] = montecarlo_keys,
    assumptions: Sequence[str] = (), depends_on: Sequence[str] = (), tags: Sequence[str] = (),
    algebra: Callable | None = None, mc_samples: int | None = None, extra_checks: Sequence[Check] = (),
    zero_mean: Callable | None = None, finish: Callable | None = None, **fields: Any,
) -> Claim:
    """An expectation over random values for fixed keys:
    ``E_V quantity(impl, K, V) = claimed(impl, K)``, values independent,
    zero-mean and unit (000's assumptions).

    ``quantity`` must accept a single value matrix (p x M) and a batch
    (size x p x M): build stores with :func:`theorems.authoring.kit.store` and sum over
    ``axis=-2``. Checks: ``enumeration`` (exact, over ``v_i = s_i w_i`` with
    fair signs and exactly-unit rational ``w_i``, keys from ``keys``, default
    any exact keys) and ``montecarlo`` (spherical values, keys from
    ``mc_keys(rng)``). ``zero_mean(impl, K, V)``, optional, is a further
    quantity of any shape claimed to have expectation zero (e.g. the
    cross-talk vectors); ``finish(ev, impl, Ks)`` may add data (a plot) to the
    Monte Carlo evidence."""
    keys = keys if keys is not None else exact_key_matrices()

    def enumeration(ctx):
        def residual_of(case):
            K, W0 = case
            mean = kit.sign_expectation(lambda V: quantity(ctx.impl, K, V), W0)
            out = exact_sq(mean, claimed(ctx.impl, K))
            if zero_mean is not None:
                centre = kit.sign_expectation(lambda V: zero_mean(ctx.impl, K, V), W0)
                out += exact_sq(centre, 0 * centre)
            return out

        return expect.check(ctx, keys_and_directions(keys), residual_of, describe=lambda c: {"K": c[0], "W0": c[1]})

    checks = (
        Check("enumeration", EvidenceKind.EXPECTATION, enumeration,
              "exact expectation over random signs times fixed unit rational values"),
        montecarlo_values("montecarlo", quantity, claimed, mc_keys=mc_keys, mc_samples=mc_samples,
                          zero_mean=zero_mean, finish=finish,
                          about="spherical values; M > d, M < d, rank-deficient and duplicated keys"),
    )
    return _claim(id, ClaimKind.EXPECTATION, checks, title=title, statement=statement, source=source,
                  control=control, assumptions=assumptions, depends_on=depends_on, tags=tags,
                  algebra=algebra, extra_checks=extra_checks, **fields)


def montecarlo_values(
    name: str, quantity: Callable, claimed: Callable, *,
    mc_keys: Callable[[np.random.Generator], list[np.ndarray]] = montecarlo_keys,
    values: Callable[[np.random.Generator, int, int, int], np.ndarray] = kit.spherical_batch,
    values_label: str = "spherical values", mc_samples: int | None = None, zero_mean: Callable | None = None,
    finish: Callable | None = None, about: str = "",
) -> Check:
    """The Monte Carlo check of :func:`expectation` as a Check of its own
    (e.g. a second value law as an ``extra_checks`` entry): fixed keys
    ``mc_keys(rng)``, value batches ``values(rng, size, p, M)`` (p =
    :data:`MC_VALUE_DIM`, default uniform on the sphere), the sample mean of
    ``quantity`` (and of ``zero_mean``, first) against ``claimed`` (and 0)."""

    def run(ctx):
        Ks = mc_keys(ctx.rng("montecarlo keys"))

        def figures(K, V):
            size = V.shape[0]
            q = np.asarray(quantity(ctx.impl, K, V), dtype=float).reshape(size, -1)
            if zero_mean is None:
                return q
            return np.concatenate([np.asarray(zero_mean(ctx.impl, K, V), dtype=float).reshape(size, -1), q], axis=1)

        def sample(rng, size):
            return np.concatenate([figures(K, values(rng, size, MC_VALUE_DIM, K.shape[1])) for K in Ks], axis=1)

        expected = []
        for K in Ks:
            if zero_mean is not None:  # its size, from one batch of a stream of its own
                one = values(ctx.rng("montecarlo zero-mean shape"), 1, MC_VALUE_DIM, K.shape[1])
                expected.append(np.zeros(np.asarray(zero_mean(ctx.impl, K, one)).size))
            expected.append(np.atleast_1d(np.asarray(claimed(ctx.impl, K), dtype=float)))
        shapes = ", ".join(f"{K.shape[0]}x{K.shape[1]}" for K in Ks)
        ev = montecarlo.check(ctx, sample, np.concatenate(expected), n=mc_samples,
                              label=f"{values_label}, keys {shapes}")
        return finish(ev, ctx.impl, Ks) if finish is not None else ev

    return Check(name, EvidenceKind.MONTECARLO, run, about or values_label)


# --- asymptotic and approximation claims -------------------------------------------


def _check_levels(sizes: Mapping[str, Any]) -> None:
    """Sizes per profile level must name every level."""
    missing = {"quick", "standard", "thorough"} - set(sizes)
    if missing:
        raise ValueError(f"sizes must give every profile level, missing {sorted(missing)}")


@template_arguments
def asymptotic(
    id: str, *, title: str, statement: str, source: str, sizes: Mapping[str, Sequence[Any]],
    measure: Callable[[Any, Any, np.random.Generator], float], criterion: Callable, label: str,
    control: NegativeControl, kind: ClaimKind = ClaimKind.ASYMPTOTIC,
    assumptions: Sequence[str] = (), depends_on: Sequence[str] = (), tags: Sequence[str] = (),
    extra_checks: Sequence[Check] = (), **fields: Any,
) -> Claim:
    """A finite-size sweep: ``sizes`` per profile level (``{"quick": ...,
    "standard": ..., "thorough": ...}``), the statistic
    ``measure(impl, size, rng)`` and a ``criterion`` of
    :mod:`theorems.evidence.simulation` fixed before the run."""
    checks = (sweep_check("sweep", sizes=sizes, measure=measure, criterion=criterion, label=label),)
    return _claim(id, kind, checks, title=title, statement=statement, source=source, control=control,
                  assumptions=assumptions, depends_on=depends_on, tags=tags, algebra=None,
                  extra_checks=extra_checks, **fields)


# --- counterexamples -----------------------------------------------------------------


def witness_check(
    *, about: str, how: str, verify: Callable[[Any, Any], tuple],
    witness: Callable[[Context], Any] | None = None, search: st.SearchStrategy | None = None,
    found: Callable[[Any, Any], bool] | None = None, describe: Callable[[Any], Any] | None = None,
    name: str = "witness",
) -> Check:
    """A counterexample check: the witness is built by ``witness(ctx)`` or is
    the minimal (shrunk) draw of ``search`` for which ``found(impl, case)``
    holds; then ``verify(impl, w) -> (holds, figure)`` checks it exactly.
    ``describe(w)`` is what the report shows of it (default: the witness), or
    the dict ``details`` of a verify returning ``(holds, figure, details)``."""
    if (witness is None) == (search is None):
        raise ValueError("witness_check needs exactly one of witness= (a builder) and search= (a strategy)")
    if search is not None and found is None:
        raise ValueError("witness_check with search= needs found=, the condition the search looks for")

    from theorems.evidence import counterexample as evidence

    def run(ctx):
        build = witness or (lambda ctx: evidence.search(ctx, search, lambda c: found(ctx.impl, c)))
        options = {} if describe is None else {"describe": describe}
        return evidence.check(ctx, build, lambda w: verify(ctx.impl, w), how=how, **options)

    return Check(name, EvidenceKind.COUNTEREXAMPLE, run, about)


@template_arguments
def counterexample(
    id: str, *, title: str, statement: str, source: str, control: NegativeControl, about: str, how: str,
    verify: Callable[[Any, Any], tuple], witness: Callable[[Context], Any] | None = None,
    search: st.SearchStrategy | None = None, found: Callable[[Any, Any], bool] | None = None,
    describe: Callable[[Any], Any] | None = None, assumptions: Sequence[str] = (),
    depends_on: Sequence[str] = (), tags: Sequence[str] = (), extra_checks: Sequence[Check] = (), **fields: Any,
) -> Claim:
    """A counterexample claim: one :func:`witness_check` (built or searched
    for, verified exactly)."""
    checks = (witness_check(about=about, how=how, verify=verify, witness=witness, search=search, found=found,
                            describe=describe),)
    return _claim(id, ClaimKind.COUNTEREXAMPLE, checks, title=title, statement=statement, source=source,
                  control=control, assumptions=assumptions, depends_on=depends_on, tags=tags, algebra=None,
                  extra_checks=extra_checks, **fields)


# --- wrong variants several claims use ------------------------------------------------


def swapped_projectors(K):
    """Wrong: the two projectors exchanged (``K K^+`` as P, ``K^+ K`` as Q)."""
    import linmem

    P, Q = linmem.projectors(K)
    return Q, P


def gram_projectors(K):
    """Wrong: the Gram matrices ``K^T K`` and ``K K^T`` as P and Q (projectors only for orthonormal keys)."""
    return K.T @ K, K @ K.T


def gram_input_projector(K):
    """Wrong: the true P but ``K K^T`` (no pseudoinverse) as Q."""
    import linmem

    return linmem.projectors(K)[0], K @ K.T


def swapped_stores() -> dict:
    """Wrong: the two stores exchanged (``V K^+`` as the outer-product store, ``V K^T`` as least squares)."""
    import linmem

    return {"outer_product_store": linmem.least_squares_store, "least_squares_store": linmem.outer_product_store}


@template_arguments
def sweep_check(
    name: str, *, sizes: Mapping[str, Sequence[Any]], measure: Callable[[Any, Any, np.random.Generator], float],
    criterion: Callable, label: str, size_name: str = "size", domain: Mapping[str, Any] | None = None,
    about: str = "",
) -> Check:
    """A finite-size sweep as one more check of any claim (e.g. the
    concentration part of an identity, in ``extra_checks``): ``sizes`` per
    profile level, ``measure(impl, size, rng)``, a criterion of
    :mod:`theorems.evidence.simulation` fixed before the run; ``size_name``
    and ``domain`` are what the report shows as the searched domain."""
    _check_levels(sizes)

    def sweep(ctx):
        return simulation.check(ctx, ctx.profile.pick(**sizes), lambda size, rng: measure(ctx.impl, size, rng),
                                criterion, label=label, size_name=size_name, domain=domain)

    return Check(name, EvidenceKind.SIMULATION, sweep, about or f"{label}; sizes per profile")


# --- sweeps with a per-run table and a plot as data -------------------------------------


@dataclasses.dataclass
class SweepTable:
    """What a table sweep measured: one row (a mapping) per size, in sweep order.

    ``statistic`` names the row entry that is the sweep's figure;
    ``profile`` is the run's profile (a criterion may decide its power by
    it); ``summary`` is where a criterion leaves what it derived (a fit, a
    drift): it is merged into the evidence's data and read by the plot.

    >>> t = SweepTable((4, 8), [{"n": 9.5}, {"n": 20.5}], "n", None, "d")
    >>> t.figures, t.column("d"), t.where(lambda row: row["n"] > 10)
    ([9.5, 20.5], [4, 8], [8])
    """

    sizes: tuple
    rows: list
    statistic: str
    profile: Any
    size_name: str = "size"
    summary: dict = dataclasses.field(default_factory=dict)

    @property
    def figures(self) -> list[float]:
        """The statistic at every size."""
        return [float(r[self.statistic]) for r in self.rows]

    def column(self, name: str) -> list:
        """Entry ``name`` of every row (``size_name``: the sizes)."""
        return list(self.sizes) if name == self.size_name and name not in self.rows[0] else [r[name] for r in self.rows]

    def where(self, predicate: Callable[[Mapping], bool]) -> list:
        """The sizes whose row satisfies ``predicate(row)``."""
        return [s for s, r in zip(self.sizes, self.rows) if predicate(r)]


def by_figures(criterion: Callable) -> Callable[[SweepTable], tuple]:
    """A figures-only criterion of :mod:`theorems.evidence.simulation`
    (``criterion(sizes, figures)``, e.g. ``simulation.rate(...)``) as a
    table criterion."""
    return lambda table: criterion(table.sizes, table.figures)


def _plain_data(x):
    """numpy scalars and arrays as Python numbers and lists (JSON data)."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, (np.ndarray, list, tuple)):
        return [_plain_data(e) for e in (x.tolist() if isinstance(x, np.ndarray) else x)]
    if isinstance(x, Mapping):
        return {str(k): _plain_data(v) for k, v in x.items()}
    return x


def _sweep_plot(spec, table: SweepTable) -> dict:
    """Resolve a plot spec against the table. Series entries: ``{"each":
    "d = {d}", "x": col, "y": col}`` one series per size from list-valued
    columns; ``{"x": col, "y": col, "slope": number or summary key}`` the
    line of that slope through the columns' centroid, over the x range;
    ``{"x": col, "y": col}`` one point per size. Labels are formatted with
    the summary (and the size, for ``each``)."""
    if callable(spec):
        return spec(table)
    names = dict(table.summary)
    series = []
    for s in spec["series"]:
        if "each" in s:
            for size, row in zip(table.sizes, table.rows):
                series.append({"label": s["each"].format_map({**names, table.size_name: size}),
                               "x": row[s["x"]], "y": row[s["y"]], "style": s.get("style", "line")})
            continue
        x, y = np.asarray(table.column(s["x"]), dtype=float), np.asarray(table.column(s["y"]), dtype=float)
        entry = {"label": s.get("label", "").format_map(names), "style": s.get("style", "points")}
        if "slope" in s:
            slope = names[s["slope"]] if isinstance(s["slope"], str) else s["slope"]
            grid = np.linspace(x.min(), x.max(), 20)
            x, y = grid, float(np.mean(y)) + slope * (grid - float(np.mean(x)))
            entry["style"] = s.get("style", "line")
        series.append({**entry, "x": x.tolist(), "y": y.tolist()})
    return {"xscale": "linear", "yscale": "linear", **{k: v for k, v in spec.items() if k != "series"},
            "series": series}


def sweep_table_check(
    name: str, *, sizes: Mapping[str, Sequence[Any]], measure: Callable[[Context, Any, np.random.Generator], Mapping],
    statistic: str, criterion: Callable[[SweepTable], tuple], label: str, size_name: str = "size",
    domain: Mapping[str, Any] | Callable[[SweepTable], Mapping[str, Any]] | None = None,
    columns: Sequence[str] | None = None, plot: Mapping | Callable[[SweepTable], dict] | None = None,
    about: str = "", comparison: str | None = None,
) -> Check:
    """A finite-size sweep whose measurement is a row of a table.

    ``sizes`` per profile level; ``measure(ctx, size, rng)`` returns the row
    at one size (a mapping: ``ctx.impl`` holds the formulas under test,
    ``rng`` is the size's own stream) and ``row[statistic]`` is the swept
    figure; ``criterion(table)`` (a :class:`SweepTable`; :func:`by_figures`
    adapts a figures-only criterion) is fixed before the run and returns
    ``(ok, figure, threshold, why)`` as in :mod:`theorems.evidence.simulation`,
    leaving what it derived in ``table.summary``. The evidence carries
    ``data["table"]`` (``columns``, default every entry of the first row,
    after the size), the summary, the searched ``domain`` (a mapping, or a
    function of the table, beside the sizes) and ``data["plot"]``, the
    ``plot`` spec resolved against the table (see :func:`_sweep_plot`).
    ``comparison=">="``: the criterion's figure must reach its threshold
    (the report's reading; the default is the checker's ``<=``)."""
    _check_levels(sizes)
    if comparison not in (None, "<=", ">="):
        raise ValueError(f"comparison must be '<=' or '>=', got {comparison!r}")

    def run(ctx):
        table = SweepTable(tuple(ctx.profile.pick(**sizes)), [], statistic, ctx.profile, size_name)

        def one(size, rng):
            row = measure(ctx, size, rng)
            if not isinstance(row, Mapping) or statistic not in row:
                raise TypeError(f"measure must return a mapping with the statistic {statistic!r} at {size_name} = "
                                f"{size}, got {type(row).__name__}")
            table.rows.append(dict(row))
            return row[statistic]

        ev = simulation.check(ctx, table.sizes, one, lambda _sizes, _figures: criterion(table), label=label,
                              size_name=size_name)
        extra = domain(table) if callable(domain) else dict(domain or {})
        cols = list(columns) if columns is not None else [c for c in table.rows[0] if c != size_name]
        ev.data.update(_plain_data(table.summary))
        ev.data["domain"] = simulation.sweep_domain(size_name, table.sizes, **extra)
        ev.data["table"] = {"columns": [size_name, *cols],
                            "rows": _plain_data([[s, *(r[c] for c in cols)] for s, r in zip(table.sizes, table.rows)])}
        if plot is not None:
            ev.data["plot"] = _plain_data(_sweep_plot(plot, table))
        if comparison is not None:
            ev.comparison = comparison
        return ev

    return Check(name, EvidenceKind.SIMULATION, run, about or f"{label}; sizes per profile")


def sweep_claim(
    id: str, *, title: str, statement: str, source: str, sizes: Mapping[str, Sequence[Any]],
    measure: Callable[[Context, Any, np.random.Generator], Mapping], statistic: str,
    criterion: Callable[[SweepTable], tuple], label: str, control: NegativeControl,
    kind: ClaimKind = ClaimKind.ASYMPTOTIC, check: str = "sweep", size_name: str = "size",
    domain: Mapping[str, Any] | Callable[[SweepTable], Mapping[str, Any]] | None = None,
    columns: Sequence[str] | None = None, plot: Mapping | Callable[[SweepTable], dict] | None = None,
    about: str = "", assumptions: Sequence[str] = (), depends_on: Sequence[str] = (), tags: Sequence[str] = (),
    extra_checks: Sequence[Check] = (), comparison: str | None = None, **fields: Any,
) -> Claim:
    """An asymptotic (or conjecture, approximation: ``kind``) claim decided
    by one :func:`sweep_table_check` named ``check``: sizes per profile as
    data, a row per size, the statistic, a criterion fixed before the run,
    and the table and plot as data (``comparison`` as there).

    >>> claim = sweep_claim(
    ...     "doc.mean-leverage", title="", statement="", source="doc", size_name="d",
    ...     sizes=dict(quick=(4, 8), standard=(4, 8, 16), thorough=(4, 8, 16, 32)),
    ...     measure=lambda ctx, d, rng: {"h": float(np.mean(ctx.impl.leverage_scores(rng.standard_normal((d, 2 * d)))))},
    ...     statistic="h", criterion=lambda t: (all(abs(h - 0.5) < 1e-9 for h in t.figures), 0.0, 0.0, "h = 1/2"),
    ...     label="mean leverage at M = 2d", control=wrong("leverage doubled", leverage_scores=lambda K: 2 + 0 * K[0]),
    ...     plot={"title": "mean leverage", "series": [{"x": "d", "y": "h", "label": "measured"}]})
    >>> [c.name for c in claim.checks], claim.kind.value
    (['sweep'], 'asymptotic')
    """
    checks = (sweep_table_check(check, sizes=sizes, measure=measure, statistic=statistic, criterion=criterion,
                                label=label, size_name=size_name, domain=domain, columns=columns, plot=plot,
                                about=about, comparison=comparison),)
    return _claim(id, kind, checks, title=title, statement=statement, source=source, control=control,
                  assumptions=assumptions, depends_on=depends_on, tags=tags, algebra=None,
                  extra_checks=extra_checks, **fields)


# --- expectations over a finite design ------------------------------------------------


def design_check(
    name: str = "enumeration", *, cases: st.SearchStrategy, law: Callable[[Any], Any], quantity: Callable,
    claimed: Callable[[Any, Any], Any], hypotheses: Callable[[Any, Any], Any] | None = None,
    describe: Callable[[Any], Any] | None = None, about: str = "", examples: Sequence[Any] = (),
) -> Check:
    """The exact half of :func:`design_expectation`: for every drawn case,
    each finite law of ``law(case)`` (a :class:`theorems.authoring.kit.Law` or a
    sequence of them) gives ``E quantity(impl, case, *law.outcomes)``
    exactly, which must equal ``claimed(impl, case)``. An entry of the
    sequence may be a pair ``(posed, law)``: the case as that law poses it
    (e.g. keys embedded in the design's dimension), which ``quantity`` and
    ``claimed`` then get. ``hypotheses(case, law)``, optional, is the law's
    own exact defect from the moments the statement assumes (0 when it has
    them), so the evidence certifies its hypotheses. The first nonzero
    residual is returned at once (a failure shrinks quickly)."""

    def run(ctx):
        def residual_of(case):
            laws = law(case)
            for item in (laws,) if isinstance(laws, kit.Law) else laws:
                posed, one = item if isinstance(item, tuple) else (case, item)
                out = exact_sq(one.mean(quantity(ctx.impl, posed, *one.outcomes)), claimed(ctx.impl, posed))
                out += hypotheses(posed, one) if hypotheses is not None else 0
                if out != 0:
                    return out
            return 0

        return expect.check(ctx, cases, residual_of, explicit=examples,
                            **({} if describe is None else {"describe": describe}))

    return Check(name, EvidenceKind.EXPECTATION, run, about or "exact expectation over a finite design")


def sampled_check(
    name: str = "montecarlo", *, cases: Callable[[np.random.Generator], Sequence[Any]],
    draw: Callable[[Any, Any, np.random.Generator, int], tuple], quantity: Callable,
    claimed: Callable[[Any, Any], Any], label: str, about: str = "", stream: str = "montecarlo cases",
    mc_samples: int | Mapping[str, int] | None = None, names: Callable[[Any], Sequence[str]] | None = None,
) -> Check:
    """The Monte Carlo half of :func:`design_expectation`: fixed cases
    ``cases(rng)`` (from the check's stream ``stream``), for each a batch of
    outcomes ``draw(impl, case, rng, size)`` (a tuple, leading axis the
    batch) from the continuous law, the sample mean of ``quantity(impl,
    case, *batch)`` against ``claimed(impl, case)``, all cases in one z-test
    (:func:`theorems.evidence.montecarlo.check`, false-failure rate stated
    there). ``mc_samples``: the sample count (the profile's by default), or
    one per profile level (``quick``, ``standard``, ``thorough``);
    ``names(case)``, optional, names that case's quantities in the report."""

    def run(ctx):
        cs = list(cases(ctx.rng(stream)))

        def sample(rng, size):
            return np.concatenate([np.asarray(quantity(ctx.impl, c, *draw(ctx.impl, c, rng, size)), dtype=float)
                                   .reshape(size, -1) for c in cs], axis=1)

        expected = np.concatenate([np.ravel(np.asarray(claimed(ctx.impl, c), dtype=float)) for c in cs])
        n = ctx.profile.pick(**mc_samples) if isinstance(mc_samples, Mapping) else mc_samples
        return montecarlo.check(ctx, sample, expected, n=n, label=label,
                                names=None if names is None else [x for c in cs for x in names(c)])

    return Check(name, EvidenceKind.MONTECARLO, run, about or label)


def design_expectation(
    id: str, *, title: str, statement: str, source: str, control: NegativeControl, cases: st.SearchStrategy,
    law: Callable[[Any], Any], quantity: Callable, claimed: Callable[[Any, Any], Any],
    mc_cases: Callable[[np.random.Generator], Sequence[Any]], mc_draw: Callable, mc_label: str,
    mc_quantity: Callable | None = None, mc_claimed: Callable | None = None,
    hypotheses: Callable[[Any, Any], Any] | None = None, describe: Callable[[Any], Any] | None = None,
    about: str = "", mc_about: str = "", mc_stream: str = "montecarlo cases", mc_samples: int | None = None,
    kind: ClaimKind = ClaimKind.EXPECTATION, assumptions: Sequence[str] = (), depends_on: Sequence[str] = (),
    tags: Sequence[str] = (), algebra: Callable | None = None, extra_checks: Sequence[Check] = (),
    examples: Sequence[Any] = (), **fields: Any,
) -> Claim:
    """An expectation claim over any random inputs with a finite stand-in:
    ``E quantity = claimed``, checked exactly over finite designs and by
    Monte Carlo over the continuous law.

    The quantity is written once for a batch of outcomes (leading axis the
    batch; :func:`theorems.authoring.kit.store` makes a batch of stores one call):
    ``enumeration`` (:func:`design_check`) draws ``cases`` and averages it
    exactly over ``law(case)``, finite :class:`theorems.authoring.kit.Law` objects with
    exactly the moments the statement assumes (e.g. sign values, spherical
    designs, noise designs; ``hypotheses(case, law)`` verifies those
    moments); ``montecarlo`` (:func:`sampled_check`) averages it over
    ``mc_draw(impl, case, rng, size)`` for the fixed ``mc_cases(rng)``
    (``mc_quantity``, ``mc_claimed`` where the sampled form differs).
    ``examples``: cases the enumeration checks first at every seed, beside
    those it draws.

    >>> from theorems.authoring.strategies import exact_key_matrices
    >>> claim = design_expectation(
    ...     "doc.op-energy", title="", statement="E ||V K^T||^2 = ||K||^2", source="doc",
    ...     cases=exact_key_matrices(max_count=3),
    ...     law=lambda K: kit.sign_law(kit.sign_values(2, K.shape[1], np.random.default_rng(0))),
    ...     quantity=lambda impl, K, V: np.sum(kit.store(impl.outer_product_store, K, V) ** 2, axis=(-2, -1)),
    ...     claimed=lambda impl, K: kit.sq(K), mc_cases=lambda rng: [rng.standard_normal((3, 4))],
    ...     mc_draw=lambda impl, K, rng, size: (kit.spherical_batch(rng, size, 2, K.shape[1]),),
    ...     mc_label="spherical values", control=wrong("doubled store", outer_product_store=lambda K, V: 2 * V @ K.T))
    >>> [c.name for c in claim.checks]
    ['enumeration', 'montecarlo']
    """
    checks = (
        design_check(cases=cases, law=law, quantity=quantity, claimed=claimed, hypotheses=hypotheses,
                     describe=describe, about=about, examples=examples),
        sampled_check(cases=mc_cases, draw=mc_draw, quantity=mc_quantity or quantity,
                      claimed=mc_claimed or claimed, label=mc_label, about=mc_about, stream=mc_stream,
                      mc_samples=mc_samples),
    )
    return _claim(id, kind, checks, title=title, statement=statement, source=source, control=control,
                  assumptions=assumptions, depends_on=depends_on, tags=tags, algebra=algebra,
                  extra_checks=extra_checks, **fields)


# --- one more exact check of an identity's terms --------------------------------------------


def exact_check(name: str, *, exact: st.SearchStrategy, terms: Terms, names: Sequence[str], about: str) -> Check:
    """An exact check of ``terms(impl, *args)`` over a second family of exact
    inputs, for an identity's ``extra_checks`` (e.g. an SVD-free form of the
    identity on integer keys beside its main family of exactly factored
    keys): Hypothesis-generated argument tuples ``exact`` (named ``names`` in
    the report), residual exactly zero, shrunk to the simplest failing tuple.

    >>> from theorems.authoring.strategies import keys
    >>> check = exact_check("exact-keys", exact=keys().exact, names=("K",), about="integer keys",
    ...                     terms=lambda impl, K: [(impl.projectors(K)[0], impl.projectors(K)[0].T)])
    >>> check.name, check.kind.value
    ('exact-keys', 'symbolic')
    """
    inputs = Inputs(tuple(names), exact, lambda ctx: [], st.nothing(), about)
    return Check(name, EvidenceKind.SYMBOLIC, _exact(inputs, terms), f"exact rationals, residual == 0: {about}")


# --- a claim whose checks are written by hand -----------------------------------------------


#: For the error message only: the evidence kind a check's name suggests (a check's kind is always given).
_KIND_HINTS = {**dict.fromkeys(("algebra", "recursion", "exact"), EvidenceKind.SYMBOLIC),
               "ladder": EvidenceKind.PRECISE, **dict.fromkeys(("float", "rate"), EvidenceKind.PROPERTY),
               "enumeration": EvidenceKind.EXPECTATION, "montecarlo": EvidenceKind.MONTECARLO,
               **dict.fromkeys(("feasibility", "crossings", "percentile", "sweep"), EvidenceKind.SIMULATION)}


def claim(id: str, *, kind: ClaimKind, checks: Mapping[str, tuple] | Sequence[Check] = (),
          control: NegativeControl | Sequence[NegativeControl] | None = None, **fields: Any) -> Claim:
    """A claim whose checks are written by hand, the one way the catalogue and a user write one.

    ``checks`` maps each check's name (its identity in the reports) to
    ``(EvidenceKind.X, run, about)`` (``about`` optional; ``run(ctx)`` returns
    an :class:`~theorems.core.model.Evidence`), or is a sequence of
    :class:`~theorems.core.model.Check` objects (as the check builders of this
    module return: :func:`exact_check`, :func:`sweep_check`,
    :func:`crossing_check`, ...). ``control`` is the negative control (or a
    sequence of controls, each aimed at checks), spelled as in every template; a control naming a formula that ``Impl`` does not
    have is refused here. The other fields are
    :class:`~theorems.core.model.Claim`'s (``title``, ``statement``,
    ``source``, ``assumptions``, ``depends_on``, ``domain``, ``reason``, ...).
    """
    if "negative_control" in fields:
        raise TypeError(f"claim {id}: give the negative control as control= (negative_control= is the "
                        f"low-level Claim API's spelling)")
    if isinstance(checks, Mapping):
        def check(name, entry):
            entry = tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)
            if not entry or not isinstance(entry[0], EvidenceKind):
                hint = _KIND_HINTS.get(str(name).split("-")[0].split(" ")[0])
                example = f"EvidenceKind.{hint.name}" if hint else "EvidenceKind.X"
                raise ValueError(f"claim {id}: check {name!r} needs its evidence kind first: "
                                 f"{name!r}: ({example}, run, about)")
            return Check(name, *entry)

        built = tuple(check(*item) for item in checks.items())
    else:
        built = tuple(checks)
        bad = [c for c in built if not isinstance(c, Check)]
        if bad:
            raise TypeError(f"claim {id}: checks must be a mapping name -> (EvidenceKind, run, about) or a sequence "
                            f"of Check objects, got {type(bad[0]).__name__}")
    return Claim(id=id, kind=kind, checks=built, **controls_of(control), **fields)


# --- finite-size crossings per dimension ----------------------------------------------


def crossing_results(
    ctx: Context, success: Callable[[Any], Callable[[np.ndarray, np.ndarray], bool]], dims: Sequence[int], *,
    load_kind: str, bracket: tuple[float, float], trials: Mapping[str, int], steps: int, seed_label: str,
    cache_name: str, params: Mapping[str, Any],
) -> dict:
    """Per dimension ``d`` in ``dims``, the finite-size 1/2 crossing of
    ``success(ctx.impl)(keys, targets)`` (:func:`linmem.sweeps.bisect_crossing`
    on ``load_kind``, fresh instances, ``trials`` per bisection step per
    profile level). Instances come from ``ctx.shared_seed(seed_label)``
    (:func:`theorems.authoring.kit.seed`, no claim id), so every
    check of a run that sweeps the same label reads the same cache entries
    (``cache_name``, ``params``) of the run's cache (``ctx.cache``, off under a
    negative control); the bisections run on ``ctx.executor``."""
    from linmem import sweeps

    test = success(ctx.impl)
    return {d: sweeps.bisect_crossing(
        test, d, load_kind=load_kind, bracket=bracket, trials=ctx.profile.pick(**trials), steps=steps,
        base_seed=ctx.shared_seed(seed_label), name=cache_name, params=dict(params),
        cache=ctx.cache, executor=ctx.executor) for d in dims}


def crossing_plot(title: str, series: list, *, x_label: str, y_label: str = "success rate",
                  marks: Sequence[tuple[float, str]] = ()) -> dict:
    """Plot spec of success curves: success against the load (log axis), the
    level 1/2 and vertical ``marks`` ``(load, label)`` (e.g. the constants
    the crossings tend to)."""
    return {"title": title, "x_label": x_label, "y_label": y_label, "xscale": "log", "yscale": "linear",
            "series": series, "hlines": [{"y": 0.5, "label": "1/2"}],
            "vlines": [{"x": x, "label": label} for x, label in marks]}


#: The columns of a :func:`crossing_check` table (the success curve goes to the plot).
CROSSING_COLUMNS = ("crossing", "distance", "n50", "slope", "censored", "evaluations", "cache_hits")


def crossing_check(
    name: str, *, success: Callable[[Any], Callable[[np.ndarray, np.ndarray], bool]],
    dims: Mapping[str, Sequence[int]], band: tuple[float, float] | Callable, limit: float | Callable,
    distance: Callable[[float, float], float], shrink: Callable, label: str, series: str, plot_title: str, x_label: str,
    marks: Sequence[tuple[float, str]] | Callable = (), about: str = "", domain: Mapping[str, Any] | None = None,
    **sweep: Any,
) -> Check:
    """A check that finite-size crossings tend to a limit: per dimension
    (``dims`` per profile level) the crossing of :func:`crossing_results`
    (``sweep`` holds its keywords: ``load_kind``, ``bracket``, ``trials``,
    ``steps``, ``seed_label``, ``cache_name``, ``params``); every
    crossing finite, uncensored and inside ``band``, and the figure
    ``distance(crossing, limit)`` judged by ``shrink(sizes,
    figures)`` (e.g. :func:`theorems.evidence.simulation.shrinks`; a
    non-finite distance is passed as inf). ``band``, ``limit`` and ``marks``
    may be functions of ``ctx.impl`` (so a control that replaces the
    formula of the limit reaches them). A success test with a ``counts`` dict (e.g. the instances an LP
    re-posed) leaves it in ``data["counts"]`` per d. The evidence has the
    table of :data:`CROSSING_COLUMNS` per d, the searched ``domain`` beside d
    and the success curves as a plot. Each profile level needs two sizes at
    least (the trend is judged over d): fewer is refused here, when the
    claim is built."""
    short = {level: list(sizes) for level, sizes in dims.items() if len(sizes) < 2}
    if short:
        raise ValueError(f"crossing_check {name!r}: dims needs at least two sizes per profile level (the trend is "
                         f"judged over d), got {short}")

    def measure(ctx, d, rng):
        test, lim = success(ctx.impl), limit(ctx.impl) if callable(limit) else limit
        r = crossing_results(ctx, lambda impl: test, [d], **sweep)[d]
        x, y, _ = r.success_curve()
        return {"crossing": r.crossing, "distance": distance(r.crossing, lim), "n50": r.n50, "slope": r.slope,
                "censored": r.censored, "evaluations": r.evaluations, "cache_hits": r.cache_hits, "x": x, "y": y,
                "limit": lim, "band": band(ctx.impl) if callable(band) else band,
                "counts": dict(getattr(test, "counts", {})), "marks": marks(ctx.impl) if callable(marks) else marks}

    def criterion(t):
        (lo, hi), lim = t.rows[0]["band"], t.rows[0]["limit"]
        bad = t.where(lambda r: r["censored"] or not math.isfinite(r["crossing"]) or not (lo <= r["crossing"] <= hi))
        ok, fig, thr, why = shrink(t.sizes, [f if math.isfinite(f) else math.inf for f in t.figures])
        if any(t.column("counts")):
            t.summary["counts"] = dict(zip(t.sizes, t.column("counts")))
        return ok and not bad, fig, thr, (
            f"crossings {[round(c, 3) for c in t.column('crossing')]} (band {t.rows[0]['band']}); distance to "
            f"{lim}: {why}" + (f"; outside the band or censored at d = {bad}" if bad else ""))

    def plot(t):
        curves = [{"each": f"{series}, d = {{d}}", "x": "x", "y": "y", "style": "points"}]
        return _sweep_plot(crossing_plot(plot_title, curves, x_label=x_label, marks=t.rows[0]["marks"]), t)

    return sweep_table_check(name, sizes=dims, measure=measure, statistic="distance", criterion=criterion,
                             label=label, size_name="d", domain=domain, columns=CROSSING_COLUMNS, plot=plot,
                             about=about)
