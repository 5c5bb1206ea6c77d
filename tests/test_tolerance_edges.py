"""The tolerance oracles at their edges: keys of condition number 1e6 to
1e15 and rank-deficient keys, where a collapsed (or inflated) tolerance
would turn true statements FAILED (or false ones VERIFIED) only at some
seeds. Each case is pinned at several seeds, so such a collapse fails a
test whatever seed the suite runs at.

Two oracles:

- the least-squares oracle (``theorems.core.tolerance.least_squares_tolerance``
  and the tolerance ``linmem.assess`` applies): ``V K^+`` computed by numpy
  on another path must be recognised, a store moved by 100 tolerances must
  not, and the tolerance must be the documented formula;
- the measured tolerance of the identity template's float64 check (a case
  that fails the cheap test is judged against the float64 error of its own
  terms): true Penrose identities never FAIL, a wrong pseudo-inverse and a
  relative slip of 1e-2 always do, at every conditioning float64 can
  resolve.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

import linmem
from linmem import ensembles
from linmem.recall import CONSISTENCY_ULPS
from theorems.authoring.strategies import Case, Inputs, KeyCase, keys
from theorems.authoring.templates import identity, wrong
from theorems.core.impl import Impl
from theorems.core.model import EvidenceStatus
from theorems.core.profiles import get_profile
from theorems.core.runner import run_check
from theorems.core.tolerance import least_squares_tolerance

CONDITIONS = (1e6, 1e9, 1e12, 1e15)
SEEDS = (0, 1, 2, 3, 4)
EPS = float(np.finfo(float).eps)


def _keys_and_values(cond: float, rank: int | None, seed: int, d: int = 6, n: int = 9, p: int = 3):
    rng = np.random.default_rng(seed)
    return ensembles.controlled_spectrum(d, n, cond=cond, rank=rank, rng=rng), ensembles.gaussian_vectors(p, n, rng=rng)


# --- the least-squares oracle --------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rank", [None, 2], ids=["full-rank", "rank-2"])
@pytest.mark.parametrize("cond", CONDITIONS, ids=lambda c: f"cond-{c:.0e}")
def test_the_least_squares_oracle_accepts_numpys_pinv_and_refuses_a_store_moved_by_100_tolerances(
        cond, rank, seed):
    K, V = _keys_and_values(cond, rank, seed)
    tol = least_squares_tolerance(K, V)
    ours = linmem.least_squares_store(K, V)
    # numpy's SVD-based pinv with the same relative cut-off as linmem's rank rule: another path to V K^+
    theirs = V @ np.linalg.pinv(K, rtol=max(K.shape) * EPS)
    assert linmem.assess(ours, K, V, top1=False).is_least_squares
    assert linmem.assess(theirs, K, V, top1=False).is_least_squares
    moved = ours + 100 * tol * np.ones_like(ours) / np.sqrt(ours.size)
    a = linmem.assess(moved, K, V, top1=False)
    assert not a.is_least_squares and a.least_squares_distance > 50 * a.least_squares_tolerance


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("rank", [None, 2], ids=["full-rank", "rank-2"])
@pytest.mark.parametrize("cond", CONDITIONS[:3], ids=lambda c: f"cond-{c:.0e}")
def test_the_least_squares_tolerance_is_the_documented_formula_on_a_known_spectrum(cond, rank, seed):
    """controlled_spectrum's singular values run from 1 to 1/cond, so the
    tolerance is CONSISTENCY_ULPS * max(p, d, n) * eps * ||V||_F * cond**2
    (to the accuracy of the computed smallest singular value, eps * cond)."""
    K, V = _keys_and_values(cond, rank, seed)
    documented = CONSISTENCY_ULPS * max(V.shape[0], *K.shape) * EPS * np.linalg.norm(V) * cond**2
    assert least_squares_tolerance(K, V) == pytest.approx(documented, rel=1e-3)
    assert linmem.assess(linmem.least_squares_store(K, V), K, V, top1=False).least_squares_tolerance == \
        pytest.approx(documented, rel=1e-3)


@pytest.mark.parametrize("scale", [1e-3, 3.0, 1e3])
def test_the_least_squares_tolerance_scales_as_the_norm_of_the_keys_pseudo_inverse(scale):
    """Keys scaled by ``scale`` keep their condition number and divide
    ||K^+||_2 by ``scale``: so does the tolerance (the test above has a
    largest singular value of 1, where a slip between s_max and 1/s_max
    would not show)."""
    cond = CONDITIONS[1]
    K, V = _keys_and_values(cond, None, SEEDS[0])
    documented = CONSISTENCY_ULPS * max(V.shape[0], *K.shape) * EPS * np.linalg.norm(V) * cond**2 / scale
    assert least_squares_tolerance(scale * K, V) == pytest.approx(documented, rel=1e-3)


# --- the measured tolerance of the float64 identity check ----------------------------------------

def _inputs_at(cond: float, rank: int | None) -> Inputs:
    """The stock key family's exact and ladder parts, with float cases of one condition number."""
    family = "ill_conditioned" if rank is None else "rank_deficient"
    floats = st.builds(lambda d, M, seed: KeyCase.build(family, d, M, 3, seed, cond=cond, rank=rank),
                       st.integers(3, 8), st.integers(3, 10), st.integers(0, 2**32 - 1))
    stock = keys()
    return Inputs(("K",), stock.exact, stock.precise, floats.map(lambda c: Case((c.K,), c.describe())),
                  f"keys of condition {cond:g}" + (f", rank {rank}" if rank else ""))


def _float_status(terms, cond: float, rank: int | None, seed: int) -> EvidenceStatus:
    claim = identity("edge.claim", title="an identity at a condition number", statement="lhs = rhs",
                     source="tests", inputs=_inputs_at(cond, rank), terms=terms,
                     control=wrong("transpose for pinv", pinv=lambda K: K.T))
    check = next(c for c in claim.checks if c.name == "float")
    return run_check(claim, check, impl=Impl.default(), profile=get_profile("quick"), seed=seed, cache=None).status


PENROSE = {
    "K-Kp-K": lambda impl, K: [(K @ impl.pinv(K) @ K, K)],
    "Kp-K-Kp": lambda impl, K: [(impl.pinv(K) @ K @ impl.pinv(K), impl.pinv(K))],
    "K-Kp-symmetric": lambda impl, K: [(K @ impl.pinv(K), (K @ impl.pinv(K)).T)],
}
#: Hypothesis seeds of the float searches: each search draws 30 cases at its condition number.
FLOAT_SEEDS = (1,)
EDGE_CASES = [(1e6, None), (1e9, None), (1e12, None), (1e15, None), (1e3, 2), (1e9, 2)]


def _resolvable(cond: float, rank: int | None) -> bool:
    """Where float64 can judge a pseudo-inverse: full-rank keys up to cond
    1e12. At 1e15 the terms keep no digit. On rank-deficient float keys the
    rounding leaves singular values near eps * s_max: float64's rank rule
    drops them, the 60-digit reference counts them, so the two compute
    different functions and every case is counted as beyond float64 (the
    exact check and the ladder, on exactly rank-deficient keys, judge these
    statements)."""
    return rank is None and cond <= 1e12


@pytest.mark.parametrize("seed", FLOAT_SEEDS)
@pytest.mark.parametrize("cond, rank", EDGE_CASES, ids=lambda x: f"{x:.0e}" if isinstance(x, float) else str(x))
@pytest.mark.parametrize("name", sorted(PENROSE))
def test_a_true_identity_is_never_failed_on_ill_conditioned_or_rank_deficient_keys(name, cond, rank, seed):
    """PASSED wherever float64 resolves the terms; elsewhere a case whose
    terms keep no digit is counted, and too many of them make the check
    INCONCLUSIVE, never FAILED."""
    status = _float_status(PENROSE[name], cond, rank, seed)
    assert status in ({EvidenceStatus.PASSED} if _resolvable(cond, rank)
                      else {EvidenceStatus.PASSED, EvidenceStatus.INCONCLUSIVE})


@pytest.mark.parametrize("seed", FLOAT_SEEDS)
@pytest.mark.parametrize("cond, rank", EDGE_CASES, ids=lambda x: f"{x:.0e}" if isinstance(x, float) else str(x))
def test_a_wrong_pseudo_inverse_is_failed_wherever_float64_resolves_it_and_never_passed(cond, rank, seed):
    status = _float_status(lambda impl, K: [(impl.pinv(K), K.T)], cond, rank, seed)
    assert status in ({EvidenceStatus.FAILED} if _resolvable(cond, rank)
                      else {EvidenceStatus.FAILED, EvidenceStatus.INCONCLUSIVE})


@pytest.mark.parametrize("seed", FLOAT_SEEDS)
@pytest.mark.parametrize("cond, rank", [c for c in EDGE_CASES if _resolvable(*c)],
                         ids=lambda x: f"{x:.0e}" if isinstance(x, float) else str(x))
def test_a_relative_slip_of_one_percent_is_failed_wherever_float64_resolves_it(cond, rank, seed):
    """pinv(K) carries about eps * cond relative error, so a 1e-2 slip is
    resolvable up to cond 1e12 (at 1e15 the terms keep no digit and the
    check may only say so)."""
    slipped = lambda impl, K: [(impl.pinv(K) @ K @ impl.pinv(K), 1.01 * impl.pinv(K))]  # noqa: E731
    assert _float_status(slipped, cond, rank, seed) is EvidenceStatus.FAILED
