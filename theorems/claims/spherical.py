"""Spherical keys and the outer-product store (000, App. E; "Recover Wang's
capacity estimate").

Two facts about a uniform unit key carry the whole appendix: its mean is zero
and its second-moment matrix is ``I/d``. Everything else here (the pair
moments, the Chebyshev tail, the averaged outer-product error) is derived from
those two moments alone, so the exact evidence replaces the continuous
sphere by the finite designs of :func:`theorems.authoring.sphere_design`,
which have exactly these two moments (the second-moment claim verifies both
by enumeration). Monte Carlo evidence uses truly spherical keys
(``linmem.spherical_vectors``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import strategies as st

from linmem import ensembles
from theorems.authoring import kit
from theorems.evidence import simulation
from theorems.core.residuals import at_most, exact_sq
from theorems.authoring.strategies import (
    Case, Inputs, SIGN_VALUE_DIRECTIONS, SPHERE_DESIGN_KINDS, exact_column, square_root, exact_unit_key_matrices,
    rational_unit_columns, unit_keys)
from theorems.authoring.templates import (MC_VALUE_DIM, counterexample, design_expectation, expectation, identity, inequality,
                                sweep_check, witness_check, wrong)
from typing import Sequence
import functools
import itertools

__all__ = ["CLAIMS", "DISTANCE_CRITERION", "DISTANCE_KEYS", "DISTANCE_SWEEP_DIMS", "ENUMERATION_LIMIT"]


# --- this module's inputs (single-use input families, moved from theorems.authoring.strategies) ---


def _symmetric_law(name: str, halves: list, half_weights: list) -> kit.Law:
    """Points ``±x`` with the weight of ``x`` split evenly between the two signs."""
    points = [p for x in halves for p in (x, -x)]
    return kit.law(points, [w / 2 for w in half_weights for _ in (1, -1)], name, d=len(halves[0]))


@functools.lru_cache(maxsize=None)
def sphere_design(kind: str, d: int = 0, seed: int = 0) -> kit.Law:
    """A finite key law with exactly the first two moments of a uniform unit
    key of R^d (``E k = 0``, ``E k k^T = I/d``) and exactly-unit rational
    points (the rows of ``law.outcomes[0]``, shape (N, d); ``law.info["d"]``):

    * ``coordinate``: ``±e_a``, each with probability ``1/(2d)``;
    * ``frame``: ``±q_a`` for the columns of an exactly orthogonal rational
      matrix (:func:`linmem.ensembles.rational_orthogonal` at ``seed``);
    * ``sign``: the ``2^d`` vectors ``s / sqrt(d)`` (d a square: rational);
    * ``plane`` (d = 2): (1, 0) with weight 7/32 and (3/5, ±4/5) with weight
      25/64 each, both signs: second moment diag(7/32 + 9/32, 16/32) = I/2,
      and no orthogonal pair (inner products ±1, ±3/5, ±7/25);
    * ``orbit`` (d = 3): uniform on the 24 signed permutations of (4, 4, 7)/9,
      invariant under the hyperoctahedral group (second moment I/3), no
      orthogonal pair (|inner product| >= 16/81).

    Each is symmetric under ``k -> -k``. A statement that uses only these two
    moments of the key law holds on the sphere exactly when it holds here.

    >>> plane = sphere_design("plane")
    >>> K = plane.outcomes[0]
    >>> plane.mean(K[:, :, None] * K[:, None, :]).tolist() == [[Fraction(1, 2), 0], [0, Fraction(1, 2)]]
    True
    """
    if kind in ("coordinate", "frame") and not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1 for the {kind} design, got {d!r}")
    if kind == "coordinate":
        return _symmetric_law("coordinate", [exact_column([int(a == b) for b in range(d)]) for a in range(d)],
                              [Fraction(1, d)] * d)
    if kind == "frame":
        Q = ensembles.rational_orthogonal(d, rng=np.random.default_rng(seed))
        return _symmetric_law(f"frame(seed={seed})", [Q[:, a].copy() for a in range(d)], [Fraction(1, d)] * d)
    if kind == "sign":
        r = square_root(d, "sign")
        points = [exact_column([Fraction(s, r) for s in signs]) for signs in itertools.product((-1, 1), repeat=d)]
        return kit.law(points, label=f"sign(d={d})", d=d)
    if kind == "plane":
        halves = [exact_column([1, 0]), exact_column([Fraction(3, 5), Fraction(4, 5)]),
                  exact_column([Fraction(3, 5), Fraction(-4, 5)])]
        return _symmetric_law("plane", halves, [Fraction(7, 32), Fraction(25, 64), Fraction(25, 64)])
    if kind == "orbit":
        points = {tuple(s * x for s, x in zip(signs, perm)) for perm in itertools.permutations((4, 4, 7))
                  for signs in itertools.product((-1, 1), repeat=3)}
        return kit.law([exact_column([Fraction(x, 9) for x in p]) for p in sorted(points)], label="orbit", d=3)
    raise ValueError(f"kind must be one of {SPHERE_DESIGN_KINDS}, got {kind!r}")


@st.composite
def sphere_designs(draw, *, kinds: Sequence[str] = SPHERE_DESIGN_KINDS) -> kit.Law:
    """A :func:`sphere_design` of one of ``kinds``: coordinate in R^1..R^6,
    frame in R^1..R^4 (8 seeds), sign in R^1 and R^4, plane, orbit."""
    kind = draw(st.sampled_from(kinds))
    if kind == "coordinate":
        return sphere_design(kind, draw(st.integers(1, 6)))
    if kind == "frame":
        return sphere_design(kind, draw(st.integers(1, 4)), draw(st.integers(0, 7)))
    if kind == "sign":
        return sphere_design(kind, draw(st.sampled_from((1, 4))))
    return sphere_design(kind)


@st.composite
def sphere_design_and_key(draw, *, kinds: Sequence[str] = SPHERE_DESIGN_KINDS):
    """``(k_j, design)``: a :func:`sphere_designs` law and a fixed exactly unit
    key ``k_j`` of its dimension (for statements conditional on one key): a
    generic rational unit vector (:func:`rational_unit_columns`), a
    coordinate vector or one of the design's own points."""
    design = draw(sphere_designs(kinds=kinds))
    d = design.info["d"]
    how = draw(st.sampled_from(("rational", "coordinate", "design point")))
    if how == "rational":
        kj = draw(rational_unit_columns(d, 1))[:, 0]
    elif how == "coordinate":
        a = draw(st.integers(0, d - 1))
        kj = np.array([int(b == a) for b in range(d)], dtype=object)
    else:
        kj = design.outcomes[0][draw(st.integers(0, len(design) - 1))]
    return kj, design


@functools.lru_cache(maxsize=None)
def _design_counts(designs: tuple, max_outcomes: int, max_count: int, unit_snr: bool) -> tuple:
    out = []
    for spec in designs:
        N, d = len(sphere_design(*spec)), sphere_design(*spec).info["d"]
        out += [(spec, M) for M in range(1, max_count + 1)
                if (2 * N) ** M <= max_outcomes or (unit_snr and M == d + 1 == 3)]
    return tuple(sorted(out, key=lambda c: len(sphere_design(*c[0])) ** c[1]))


@st.composite
def design_keys_and_sign_values(draw, designs: Sequence[tuple], *, max_outcomes: int, max_count: int = 5,
                                unit_snr: bool = False):
    """``(d, M, law)``: the joint law of M independent keys from one of the
    :func:`sphere_design` specs ``designs`` (``(N^M, 1, d, M)``) and the sign
    values ``v_i = s_i w_i`` (``(1, 2^M, p, M)``), the directions ``w_i``
    drawn from :data:`SIGN_VALUE_DIRECTIONS` (p = 1 or 2). The pairs (design,
    M) are those with ``M <= max_count`` whose enumeration, ``(2N)^M`` joint
    outcomes, stays within ``max_outcomes``, and with ``unit_snr`` also
    M = d + 1 for d = 2 (the outer product's unit-SNR point); cheapest (N^M)
    first, where a failing case shrinks to."""
    specs = _design_counts(tuple(tuple(x) for x in designs), max_outcomes, max_count, unit_snr)
    spec, M = draw(st.sampled_from(specs))
    table = SIGN_VALUE_DIRECTIONS[draw(st.sampled_from(sorted(SIGN_VALUE_DIRECTIONS)))]
    W0 = np.stack([table[draw(st.integers(0, len(table) - 1))] for _ in range(M)], axis=1)
    design = sphere_design(*spec)
    return design.info["d"], M, design.stacked(M) * kit.sign_law(W0)


#: Largest number of joint outcomes (N^M key draws x 2^M value signs) one
#: exact enumeration may visit. Each evaluation must stay cheap (a few
#: milliseconds): under a wrong formula Hypothesis re-evaluates the failing
#: case many times while it shrinks it.
ENUMERATION_LIMIT = 256

#: Key dimensions of the distance-concentration sweep, per profile.
DISTANCE_SWEEP_DIMS = {"quick": (8, 32, 128, 512), "standard": (16, 64, 256, 1024),
                       "thorough": (32, 128, 512, 2048)}

#: Keys drawn per dimension in that sweep (all pairs among them are measured).
DISTANCE_KEYS = 48

#: Criterion fixed before the run: ||k_i - k_j||^2 - 2 = -2 k_i^T k_j has
#: standard deviation 2/sqrt(d), so the RMS deviation falls like d^(-1/2):
#: two-sided, the fitted exponent within 0.1 of -1/2 (a faster decay fails
#: too). Power (quick, run seeds 1..8): fitted slope -0.495 +- 0.006, the
#: band's edges 15 standard deviations away.
DISTANCE_CRITERION = simulation.rate(exponent=-0.5, band=0.1)

_SPHERICAL = "independent keys uniform on the unit sphere of R^d"
_MOMENTS_ONLY = (
    "exact evidence on finite designs with E k = 0 and E k k^T = I/d exactly "
    "(coordinate, orthogonal-frame, sign, plane and orbit designs); the statement "
    "uses only these two moments of the key law (000, App. E), so a design with "
    "the same two moments gives exactly the same value"
)
_VALUES = "values independent of each other and of the keys, zero-mean, unit-norm (E[V^T V] = I_M)"


# --- sph.second-moment -------------------------------------------------------

#: Dimensions of the Monte Carlo for the key moments (d = 1 is the two-point sphere).
_MOMENT_DIMS = (1, 2, 3, 7)


def _moments(impl, case, K, *, batched=False):
    """Per key (rows of K): its entries, the upper triangle of k k^T (the
    outer-product store of key k with value k, built by the implementation
    once per key; ``batched``: the product, for the Monte Carlo's many keys),
    and (||k||^2 - 1)^2, which pins the unit norm (a Gaussian N(0, I/d) key
    has the same two moments but is not on the sphere)."""
    k = K[:, :, None]
    outer = k * np.swapaxes(k, 1, 2) if batched else kit.store(impl.outer_product_store, k, k)
    iu = np.triu_indices(K.shape[-1])
    return np.concatenate([K, outer[:, iu[0], iu[1]], (np.sum(K * K, axis=1) - 1)[:, None] ** 2], axis=1)


def _moments_claimed(impl, case):
    """E k = 0, E k k^T = I/d (upper triangle), unit norm: ``case = (d, design)``."""
    d = case[0]
    return [0] * d + [Fraction(int(a == b), d) for a, b in zip(*np.triu_indices(d))] + [0]


def _moment_defect(design: kit.Law):
    """Exact distance of a design from the sphere's first two moments and unit norm."""
    case = (design.info["d"], design)
    return exact_sq(design.mean(_moments(None, case, design.outcomes[0], batched=True)), _moments_claimed(None, case))


def _rows_normalised(dim, count, *, rng):
    X = rng.standard_normal((dim, count))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# --- sph.pair-moments --------------------------------------------------------


def _squared_products(impl, design: kit.Law, kj):
    """(k^T k_j)^2 for every design point k, read off the outer-product
    cross-talk at k_j of the two-key store [k, k_j]."""
    return [impl.op_conditional_error(np.stack([k, kj], axis=1))[1] for k in design.outcomes[0]]


def _pair_mc_keys(rng):
    """Fixed k_j in R^1, R^2 (coordinate vectors), R^5, R^16 (spherical)."""
    return [(np.eye(d)[:, 0] if d < 3 else ensembles.spherical_vectors(d, 1, rng=rng)[:, 0], None)
            for d in (1, 2, 5, 16)]


def _conditional_error_with_self(K):
    return np.sum((np.asarray(K).T @ np.asarray(K)) ** 2, axis=0)


# --- sph.chebyshev -----------------------------------------------------------


def _chebyshev_terms(impl, *args):
    """Pr(|x| >= t) <= E[x^2] / t^2 for x = k_i^T k_j (E[x^2] = 1/d: the OP
    error with one other key, M = 2): exact over a design with a fixed k_j
    (``args = (k_j, design, t)``; the squared products from the OP
    cross-talk), or for spherical keys (``args = (d, t)``, the Beta law of
    :func:`theorems.authoring.kit.sphere_tail`; at mpmath precision also against the
    closed forms (2/pi) arccos t for d = 2 and 1 - t for d = 3)."""
    if len(args) == 3:  # at t and at every atom of |k^T k_j|, where the tail jumps
        kj, design, t = args
        sq = _squared_products(impl, design, kj)
        bound = impl.op_spherical_error(Fraction(design.info["d"]), 2)
        return [at_most(sum((w for w, x in zip(design.weights, sq) if x >= s), start=Fraction(0)), bound / s)
                for s in {t * t} | set(sq) - {0}]
    d, t = args
    tail = kit.sphere_tail(d, t)
    terms = [at_most(tail, impl.op_spherical_error(t * 0 + d, 2) / (t * t))]
    if isinstance(t, mpmath.mpf) and d in (2, 3) and t < 1:
        terms.append((tail, 2 * mpmath.acos(t) / mpmath.pi if d == 2 else 1 - t))
    return terms


@st.composite
def _exact_tails(draw):
    """A design, a fixed k_j and a rational t in (0, 1]; the terms also
    check every atom of |k^T k_j| (where the tail jumps: the boundary)."""
    kj, design = draw(sphere_design_and_key())
    return kj, design, min(Fraction(draw(st.integers(1, 40)), draw(st.integers(1, 40))), Fraction(1))


#: (d, t) at and near the boundary: equality at d = 1, t = 1; the peak ratio
#: for d = 2, 3 and for large d (t = 1.2/sqrt(d) as a rational, near the
#: largest tail-to-bound ratio); t next to 1 and next to 0.
_CHEBYSHEV_CASES = (
    [(1, Fraction(1)), (1, Fraction(1, 2)), (2, Fraction(4, 5)), (3, Fraction(2, 3)), (3, Fraction(1))]
    + [(d, Fraction(round(1.2e6 / math.sqrt(d)), 10**6)) for d in (4, 10, 100, 1000)]
    + [(2, 1 - Fraction(1, 10**20)), (10, Fraction(1, 10**20)), (1000, Fraction(1, 2))]
)


@st.composite
def _float_tails(draw):
    """d up to 1e6; t anywhere in (0, 1], or near 1/sqrt(d), where the bound stops being trivial."""
    d = draw(st.one_of(st.integers(1, 12), st.integers(13, 10**6)))
    t = draw(st.floats(1e-9, 1.0)) if draw(st.booleans()) else min(1.0, draw(st.floats(0.5, 4.0)) / math.sqrt(d))
    return Case((d, t), {"d": d, "t": t})


TAILS = Inputs(("k_j", "design", "t"), _exact_tails(), lambda ctx: [(f"d = {d}, t = {t}", (d, t))
                                                                    for d, t in _CHEBYSHEV_CASES],
               _float_tails(), "finite designs at rational t including the atoms where the bound is tight (exact); "
               "the Beta law at the boundary (mpmath); d up to 1e6 and t in (0, 1] (float64)")


# --- sph.distance ------------------------------------------------------------


def _distance_terms(impl, K):
    """||k_i - k_j||^2 against 2 - 2 c_ij, with c_ij = k_i^T k_j read off the
    outer-product store with one-hot values (its recall at k_j is the vector
    of similarities (k_i^T k_j)_i)."""
    diff = K[:, :, None] - K[:, None, :]
    return [(np.sum(diff * diff, axis=0), 2 - 2 * (impl.outer_product_store(K, kit.eye(K.shape[1], K)) @ K))]


def _distance_rms(impl, d, rng):
    """RMS of ||k_i - k_j||^2 - 2 over the pairs of DISTANCE_KEYS spherical keys in R^d."""
    K = impl.spherical_vectors(d, DISTANCE_KEYS, rng=rng)
    iu = np.triu_indices(DISTANCE_KEYS, 1)
    diff = K[:, iu[0]] - K[:, iu[1]]
    return float(np.sqrt(np.mean((np.sum(diff * diff, axis=0) - 2.0) ** 2)))


# --- op.conditional-error ----------------------------------------------------


def _op_recall_errors(K, V, build=None):
    """||W_OP k_j - v_j||^2 for every j and outcome: the stores from the
    implementation's ``build`` (:func:`theorems.authoring.kit.store`: once per key
    matrix, linear in the values), or, without it, V K^T batched (for a key
    matrix per Monte Carlo sample)."""
    R = (V @ np.swapaxes(K, -1, -2) if build is None else kit.store(build, K, V)) @ K - V
    return np.sum(R * R, axis=-2)


def _cross_terms_cancel(impl):
    """E over signs of ||sum_i c_i s_i w_i||^2 with symbolic coefficients and
    symbolic unit values w_i = (2 u_i, 1 - u_i^2) / (1 + u_i^2) (every unit
    vector of the plane but one): the cross terms cancel."""
    cs, us = sympy.symbols("c1:4", real=True), sympy.symbols("u1:4", real=True)
    mean = kit.sign_expectation(lambda V: kit.sq(np.sum(V, axis=1)),
                                np.stack([c * kit.stereographic([u]) for c, u in zip(cs, us)], axis=1))
    return [("E_s ||sum_i c_i s_i w_i||^2 = sum_i c_i^2", sympy.cancel(mean - sum(c * c for c in cs)))]


def _unit_mc_keys(rng):
    """Fixed unit keys of the Monte Carlo: M > d, M < d, M = d, duplicated, nearly dependent."""
    nearly = ensembles.controlled_spectrum(5, 6, cond=1e6, rng=rng)
    return [ensembles.spherical_vectors(4, 7, rng=rng), ensembles.spherical_vectors(6, 3, rng=rng),
            ensembles.spherical_vectors(3, 3, rng=rng), ensembles.duplicated_keys(3, 5, n_distinct=2, rng=rng),
            nearly / np.linalg.norm(nearly, axis=0)]


# --- op.spherical-error ------------------------------------------------------


#: Key designs of the enumeration, with every M whose joint enumeration
#: stays within ENUMERATION_LIMIT, plus M = d + 1 for d = 2 (512 outcomes):
#: M = 1, M < d, M = d, M = d + 1 and M > d + 1.
_OP_DESIGNS = (("coordinate", 1), ("coordinate", 2), ("coordinate", 3), ("frame", 2, 0), ("frame", 3, 1), ("plane",),
               ("sign", 4))


def _op_spherical_claimed(impl, case):
    """(M-1)/d for every j, and 1/SNR_OP = (M-1)/d again for every j when M > 1."""
    d, M = Fraction(case[0]), Fraction(case[1])
    err = [impl.op_spherical_error(d, M)] * case[1]
    return err if M == 1 else err + [1 / impl.op_spherical_snr(d, M)] * case[1]


def _op_spherical_algebra(impl):
    d, M = sympy.symbols("d M", positive=True)
    return [
        ("M - 1 interfering keys, each of power 1/d", (M - 1) / d - impl.op_spherical_error(d, M)),
        ("unit signal power over the averaged noise power",
         impl.op_spherical_snr(d, M) * impl.op_spherical_error(d, M) - 1),
        ("unit SNR at M = d + 1", impl.op_spherical_snr(d, d + 1) - 1),
    ]


# --- op.snr-not-mean-of-ratio ------------------------------------------------


def _ratio_moments(impl, spec):
    """Keys i.i.d. from the design ``spec[0]``, ``M = spec[1]``: SNR_OP = d/(M-1)
    and, for every j, X_j = sum_{i != j} (k_i^T k_j)^2's exact E[X_j] and
    E[1/X_j] (None if X_j = 0 has positive probability)."""
    keys = sphere_design(spec[0]).stacked(spec[1])
    X = np.stack([impl.op_conditional_error(K) for K in keys.outcomes[0]])
    snr = impl.op_spherical_snr(Fraction(keys.info["d"]), Fraction(spec[1]))
    return snr, keys.mean(X), (None if 0 in X else keys.mean(1 / X))


def _ratio_differs(impl, spec) -> bool:
    """The search's condition: E[1/X_j] is not d/(M-1) for some j (or is infinite)."""
    snr, _, Einv = _ratio_moments(impl, spec)
    return Einv is None or any(e != snr for e in Einv)


def _ratio_witness_holds(impl, spec):
    snr, EX, Einv = _ratio_moments(impl, spec)
    holds = (
        _moment_defect(sphere_design(spec[0])) == 0  # the sphere's first two moments
        and all(x * snr == 1 for x in EX)  # d/(M-1) is unit power over the averaged power
        and Einv is not None  # X_j > 0 always, so E[1/X_j] is a finite rational
        and all(e > snr for e in Einv)  # Jensen strictly: > 1/E[X_j] also rules out a constant X_j
    )
    return holds, (min(e - snr for e in Einv) if Einv is not None else math.inf)


def _sphere_witness_holds(impl, witness):
    """Truly spherical keys, M = 2, d = 3: c = k_1^T k_2 has density
    proportional to (1 - c^2)^((d-3)/2), uniform on [-1, 1] for d = 3
    (Archimedes). Then E[c^2] = 1/3 = 1/SNR_OP while E[1/c^2] diverges."""
    d, M = witness
    c = sympy.Symbol("c", positive=True)
    shape = (1 - c**2) ** sympy.Rational(d - 3, 2)
    density = shape / (2 * sympy.integrate(shape, (c, 0, 1)))  # even in c: integrate over [0, 1] twice
    mean_power, mean_ratio = (2 * sympy.integrate(f * density, (c, 0, 1)) for f in (c**2, 1 / c**2))
    snr = impl.op_spherical_snr(sympy.Integer(d), sympy.Integer(M))
    holds = sympy.simplify(mean_power * snr - 1) == 0 and mean_ratio == sympy.oo
    return holds, (math.inf if mean_ratio == sympy.oo else float(mean_ratio - snr))


CLAIMS = [
    design_expectation(
        "sph.second-moment",
        title="A uniform unit key has mean zero and second moment I/d",
        statement=(r"k \sim \mathrm{Unif}(S^{d-1}):\quad \mathbb{E}\,k = 0,\qquad "
                   r"\mathbb{E}[k k^{\top}] = \tfrac{1}{d} I_d"),
        source="000, App. E",
        assumptions=(
            "k uniform on the unit sphere of R^d (d = 1: the two points ±1)",
            "exact evidence: finite designs symmetric under k -> -k with tight-frame second moment; "
            "the enumeration verifies both moments exactly for each of them, so they may stand in "
            "for the sphere wherever only these two moments are used",
        ),
        cases=sphere_designs().map(lambda design: (design.info["d"], design)), law=lambda case: case[1],
        quantity=_moments, claimed=_moments_claimed, describe=lambda case: case[1].describe(),
        about="exact mean and second moment of coordinate, frame, sign, plane and orbit designs",
        mc_cases=lambda rng: [(d, None) for d in _MOMENT_DIMS],
        mc_draw=lambda impl, case, rng, size: (impl.spherical_vectors(case[0], size, rng=rng).T,),
        mc_quantity=lambda impl, case, K: _moments(impl, case, K, batched=True),
        mc_label=f"entries of k, of k k^T and (||k||^2 - 1)^2, spherical k in R^d, d = {_MOMENT_DIMS}",
        control=(wrong("spherical keys normalised along the wrong axis (rows, not columns)",
                       spherical_vectors=_rows_normalised),
                 wrong("outer-product store doubled (2 V K^T)", aimed_at=("enumeration",),
                       outer_product_store=lambda K, V: 2 * (V @ K.T))),
    ),
    design_expectation(
        "sph.pair-moments",
        title="Inner product of two independent spherical keys: conditional mean 0, conditional second moment 1/d",
        statement=(r"\mathbb{E}[k_i^{\top}k_j \mid k_j] = 0,\qquad "
                   r"\mathbb{E}[(k_i^{\top}k_j)^2 \mid k_j] = k_j^{\top}\tfrac{I_d}{d}k_j = \tfrac{1}{d}"),
        source="000, App. E; 'What the dimension-only estimate leaves out'",
        assumptions=(
            "k_i, k_j independent, k_i uniform on the sphere; k_j any fixed unit vector (conditioning)",
            _MOMENTS_ONLY,
        ),
        depends_on=("sph.second-moment",),
        cases=sphere_design_and_key(), law=lambda case: case[1],
        describe=lambda case: {**case[1].describe(), "k_j": case[0]},
        quantity=lambda impl, case, K: np.stack([K @ case[0], _squared_products(impl, case[1], case[0])], axis=1),
        claimed=lambda impl, case: [0, Fraction(1, len(case[0]))],
        about="exact over every design, k_j generic rational, coordinate or a design point",
        mc_cases=_pair_mc_keys, mc_stream="pair-keys",
        mc_quantity=lambda impl, case, K: np.stack([K @ case[0], (K @ case[0]) ** 2], axis=1),
        mc_draw=lambda impl, case, rng, size: (impl.spherical_vectors(case[0].size, size, rng=rng).T,),
        mc_label="k_i^T k_j and (k_i^T k_j)^2, spherical k_i, fixed k_j in R^1, R^2, R^5, R^16",
        control=(wrong("OP conditional error that keeps the key's own term (i = j)",
                       op_conditional_error=_conditional_error_with_self),
                 wrong("spherical keys normalised along the wrong axis (rows, not columns)", aimed_at=("montecarlo",),
                       spherical_vectors=_rows_normalised)),
    ),
    inequality(
        "sph.chebyshev",
        title="Chebyshev bound on the inner product of two spherical keys",
        statement=r"\Pr\bigl(|k_i^{\top}k_j| \ge t\bigr) \le \frac{1}{d\,t^2},\qquad t > 0",
        source="000, App. E",
        assumptions=(
            "k_i, k_j independent and uniform on the sphere of R^d; exact law: "
            "(1 + k_i^T k_j)/2 ~ Beta((d-1)/2, (d-1)/2) for d >= 2, and ±1 for d = 1",
            "the bound uses only E[(k_i^T k_j)^2] = 1/d, so it also holds for every finite design with "
            "the same second moment; the coordinate design with k_j = e_b attains it at t = 1",
        ),
        depends_on=("sph.pair-moments",),
        inputs=TAILS, terms=_chebyshev_terms, falls=False, scale=lambda *args: 2,  # 2 >= 1 + tail
        control=wrong("pair second moment 1/d^2 in place of 1/d ((M-1)/d^2 for the OP error)",
                      op_spherical_error=lambda d, M: (M - 1) / (d * d)),
    ),
    identity(
        "sph.distance",
        title="Squared distance of unit keys is 2 - 2 k_i^T k_j, concentrating near 2 for spherical keys",
        statement=(r"\|k_i - k_j\|^2 = 2 - 2\,k_i^{\top}k_j \ \text{for unit keys};\quad "
                   r"k_i, k_j \sim \mathrm{Unif}(S^{d-1}):\ \|k_i - k_j\|^2 \to 2 \ (d \to \infty)"),
        source="000, App. E",
        assumptions=(
            "identity: any unit keys (duplicated, nearly parallel, M < d, M > d)",
            "concentration: " + _SPHERICAL + "; a finite-size sweep, so the claim is at most SUPPORTED",
        ),
        depends_on=("sph.pair-moments",),
        inputs=unit_keys(), terms=_distance_terms, scale=lambda K: K.shape[1] * max(K.shape),
        about="every pair of unit keys, inner products from the OP store with one-hot values",
        extra_checks=(sweep_check(
            "concentration", sizes=DISTANCE_SWEEP_DIMS, measure=_distance_rms, criterion=DISTANCE_CRITERION,
            size_name="d", domain={"keys per d": DISTANCE_KEYS},
            label=f"RMS of ||k_i - k_j||^2 - 2 over the pairs of {DISTANCE_KEYS} spherical keys",
            about="RMS deviation of squared distances from 2 falls like d^(-1/2)"),),
        control=(wrong("outer-product store that averages the pair matrices (V K^T / M)",
                       outer_product_store=lambda K, V: V @ K.T / K.shape[1]),
                 wrong("spherical keys normalised along the wrong axis (rows, not columns)",
                       aimed_at=("concentration",), spherical_vectors=_rows_normalised)),
    ),
    expectation(
        "op.conditional-error",
        title="Given the keys, the expected outer-product recall error is the summed squared cross-talk",
        statement=r"\mathbb{E}_V\|W_{\mathrm{OP}}k_j - v_j\|^2 = \sum_{i \ne j}(k_i^{\top}k_j)^2",
        source="000, App. E (with App. B)",
        assumptions=("unit keys, K fixed (any: duplicated, nearly dependent, M < d, M > d)", _VALUES),
        depends_on=("op.crosstalk-expansion",),
        quantity=lambda impl, K, V: _op_recall_errors(K, V, impl.outer_product_store),
        claimed=lambda impl, K: impl.op_conditional_error(K),
        keys=exact_unit_key_matrices(max_count=5), mc_keys=_unit_mc_keys, algebra=_cross_terms_cancel,
        control=wrong("conditional error that keeps the key's own term (i = j)",
                      op_conditional_error=_conditional_error_with_self),
    ),
    design_expectation(
        "op.spherical-error",
        title="Spherical keys: the outer-product error averages to (M-1)/d, SNR_OP = d/(M-1), unit SNR at M = d+1",
        statement=(r"\mathbb{E}\|W_{\mathrm{OP}}k_j - v_j\|^2 = \frac{M-1}{d},\qquad "
                   r"\mathrm{SNR}_{\mathrm{OP}} = \frac{d}{M-1},\qquad \mathrm{SNR}_{\mathrm{OP}} = 1 \iff M = d + 1"),
        source="000, 'Recover Wang's capacity estimate'; App. E",
        assumptions=(_SPHERICAL + "; expectation over keys and values", _VALUES, _MOMENTS_ONLY),
        depends_on=("op.conditional-error", "sph.pair-moments"),
        algebra=_op_spherical_algebra, law=lambda case: case[2],
        cases=design_keys_and_sign_values(_OP_DESIGNS, max_outcomes=ENUMERATION_LIMIT, unit_snr=True),
        quantity=lambda impl, case, K, V: np.tile(_op_recall_errors(K, V, impl.outer_product_store),
                                                  1 + (case[1] > 1)),  # also against 1/SNR_OP
        claimed=_op_spherical_claimed,
        describe=lambda case: {**case[2].describe(), "M": case[1]},
        about="exact joint expectation over design keys and random-sign values, M = 1 to 5",
        mc_cases=lambda rng: ((4, 3), (5, 5), (10, 11), (3, 8), (6, 20)),  # M < d, M = d, M = d + 1 (unit SNR), M > d
        mc_quantity=lambda impl, case, K, V: np.tile(np.mean(_op_recall_errors(K, V), axis=-1)[:, None], 2),
        mc_claimed=lambda impl, case: [impl.op_spherical_error(*case), 1 / impl.op_spherical_snr(*case)],
        mc_draw=lambda impl, case, rng, size: (kit.spherical_batch(rng, size, *case),
                                               kit.spherical_batch(rng, size, MC_VALUE_DIM, case[1])),
        mc_label="mean over j of ||W_OP k_j - v_j||^2 against (M-1)/d and 1/SNR_OP, spherical keys and values",
        mc_about="spherical keys and values; M < d, M = d, M = d + 1, M > d",
        control=wrong("OP error M/d (the key counted among its own interferers)",
                      op_spherical_error=lambda d, M: M / d),
    ),
    counterexample(
        "op.snr-not-mean-of-ratio",
        title="d/(M-1) is a ratio of averaged powers, not the key-average of the conditional SNR (d >= 2)",
        statement=(r"X_j = \sum_{i \ne j}(k_i^{\top}k_j)^2:\quad \frac{1}{\mathbb{E}X_j} = \frac{d}{M-1}"
                   r" \ne \mathbb{E}\Bigl[\frac{1}{X_j}\Bigr]"),
        source="000, App. E",
        assumptions=(
            "d >= 2 and M >= 2: at d = 1 the keys are ±1, X_j = M - 1 is constant and the two coincide",
            "witness: keys i.i.d. from a finite design with exactly the sphere's first two moments and no "
            "orthogonal pair, so X_j > 0 and E[1/X_j] is a finite rational; there E[1/X_j] > d/(M-1)",
            "for truly spherical keys Jensen gives E[1/X_j] > 1/E[X_j] = d/(M-1) strictly (X_j is not "
            "constant for d >= 2); for M = 2, 3 the density of X_j does not vanish fast enough at 0 and "
            "E[1/X_j] is infinite",
        ),
        depends_on=("op.spherical-error",),
        about="minimal design and M; moments, E[X_j] and E[1/X_j] exact",
        how=("found by a Hypothesis search over finite designs with the sphere's first two moments and "
             "no orthogonal pair, shrunk; E[X_j] and E[1/X_j] enumerated exactly"),
        search=st.sampled_from((("plane", 2), ("plane", 3))),  # (design without an orthogonal pair, M)
        found=_ratio_differs, verify=_ratio_witness_holds, describe=lambda s: {"design": s[0], "M": s[1]},
        extra_checks=(witness_check(
            name="sphere", about="spherical keys, d = 3, M = 2: E[X_j] = 1/3 exactly, E[1/X_j] infinite",
            how="constructed: spherical keys in R^3, M = 2; sympy integrates the exact inner-product law",
            witness=lambda ctx: (3, 2), verify=_sphere_witness_holds, describe=lambda w: {"d": w[0], "M": w[1]}),),
        control=wrong("SNR_OP = d/M (the key counted among its own interferers)", op_spherical_snr=lambda d, M: d / M),
    ),
]
