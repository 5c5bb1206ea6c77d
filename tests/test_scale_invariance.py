"""linmem at every finite scale: decisions invariant under positive scaling of
keys, values and stores; figures scaling as their formulas say; a ValueError
naming float64's range where the answer cannot be held (issue 24, item 1).

One table of (function, factor) rows feeds one test. Each case is a pair
of functions of the factor, ``(got, want)``, where ``want`` is the scale-1 answer transformed by the
formula's own scaling law (the want is computed first, at scale 1); when that transformed answer is not a finite
float64 (beyond about 1.8e308, or a nonzero figure below the subnormals),
the function must raise a ValueError that says so instead.
"""

from __future__ import annotations

import numpy as np
import pytest

import linmem
from linmem import recall, spectral, stores

FACTORS = (1e-300, 1e-150, 1e-9, 1e9, 1e150, 1e300)

_rng = np.random.default_rng(20261203)
K = _rng.standard_normal((4, 6))  # 6 pairs in 4 dimensions: inconsistent, rank 4
V = _rng.standard_normal((3, 6))
K_DEF = np.concatenate([K[:, :2], K[:, :2] @ _rng.standard_normal((2, 3))], axis=1)  # rank 2 of 5 columns
KC, VC = K[:, :3], V[:, :3]  # 3 independent keys: consistent
W = stores.least_squares_store(K, V)
TAU = 0.5

#: Relative agreement asked of a scaled figure with its scale-1 counterpart.
RTOL = 1e-9


def _scaled(base, factor):
    """``factor * base`` in float64, or None where it is not representable
    (overflow, or a nonzero figure that underflows to zero)."""
    with np.errstate(over="ignore", under="ignore"):
        out = np.asarray(base, dtype=float) * factor
    if not np.all(np.isfinite(out)) or np.any((out == 0) & (np.asarray(base) != 0)):
        return None
    return out


def _sq(c):
    with np.errstate(over="ignore", under="ignore"):
        return np.float64(c) * np.float64(c)


CASES = {
    # decisions: invariant
    "is_consistent(K, c V) inconsistent": (lambda c: recall.is_consistent(K, V * c),
        lambda c: False),
    "is_consistent(c K, V) inconsistent": (lambda c: recall.is_consistent(K * c, V),
        lambda c: False),
    "is_consistent(c K, V / c) consistent": (lambda c: recall.is_consistent(KC * c, VC / c),
        lambda c: True),
    "numerical_rank(c K_def)": (lambda c: spectral.numerical_rank(K_DEF * c),
        lambda c: 2),
    "mean_expected_error(c K_def)": (lambda c: recall.mean_expected_error(K_DEF * c),
        lambda c: 1 - 2 / 5),
    "top1_correct(c W, K, V)": (lambda c: linmem.top1_correct(W * c, K, V).tolist(),
        lambda c: linmem.top1_correct(W, K, V).tolist()),
    "LinearMemory.fit(c K, V) key_rank": (lambda c: stores.LinearMemory.fit(K_DEF * c, V[:, :5]).diagnostics()[
        "key_rank"] if abs(np.log10(c)) < 200 else spectral.numerical_rank(K_DEF * c),
        lambda c: 2),
    # scale-free figures
    "leverage_scores(c K)": (lambda c: recall.leverage_scores(K * c),
        lambda c: recall.leverage_scores(K)),
    "projectors(c K)": (lambda c: spectral.projectors(K * c)[0],
        lambda c: spectral.projectors(K)[0]),
    "snr(leverage(c K))": (lambda c: recall.snr(recall.leverage_scores(K * c)),
        lambda c: recall.snr(recall.leverage_scores(K))),
    "condition_number(c K)": (lambda c: spectral.condition_number(K * c),
        lambda c: spectral.condition_number(K)),
    "least_squares_store(c K, c V)": (lambda c: stores.least_squares_store(K * c, V * c),
        lambda c: W),
    "outer_product_store(c K, V / c)": (lambda c: stores.outer_product_store(K * c, V / c),
        lambda c: stores.outer_product_store(K, V)),
    "query_noise_error(c K, tau c)": (lambda c: recall.query_noise_error(K * c, tau=TAU * c),
        lambda c: recall.query_noise_error(K, tau=TAU)),
    "fixed_store_noise_error(W / c, c K, V, tau c)": (lambda c: recall.fixed_store_noise_error(W / c, K * c, V, tau=TAU * c),
        lambda c: recall.fixed_store_noise_error(W, K, V, tau=TAU)),
    "ridge_store(c K, c V, ridge c) = ridge_store(K, V, 1 / c)": (lambda c: stores.ridge_store(K * c, V * c, ridge=c),
        lambda c: stores.ridge_store(K, V, ridge=1 / c)),
    # figures with a scaling law
    "consistency_residual(c K, c V) = c res": (lambda c: recall.consistency_residual(K * c, V * c),
        lambda c: _scaled(recall.consistency_residual(K, V), c)),
    "pinv(c K) = K^+ / c": (lambda c: spectral.pinv(K * c),
        lambda c: _scaled(spectral.pinv(K), 1 / c)),
    "pinv_energy(c K) = E / c^2": (lambda c: spectral.pinv_energy(K * c),
        lambda c: _scaled(spectral.pinv_energy(K), 1 / _sq(c) if _sq(c) else np.inf)),
    "single_pair_store(c k, v) = A / c": (lambda c: stores.single_pair_store(K[:, 0] * c, V[:, 0]),
        lambda c: _scaled(stores.single_pair_store(K[:, 0], V[:, 0]), 1 / c)),
    "effective_pairs(c K, c V) values": (lambda c: spectral.effective_pairs(K * c, V * c)[1],
        lambda c: spectral.effective_pairs(K, V)[1]),
    "recall_decomposition(c K, c V) = c split": (lambda c: recall.recall_decomposition(K * c, V * c)[1],
        lambda c: _scaled(recall.recall_decomposition(K, V)[1], c)),
    "fixed_store_noise_error(c W, K, c V) = c^2 err": (lambda c: recall.fixed_store_noise_error(W * c, K, V * c, tau=TAU),
        lambda c: _scaled(recall.fixed_store_noise_error(W, K, V, tau=TAU), _sq(c)) if _sq(c) else None),
    "margins(c W, K, V) = c margins": (lambda c: linmem.margins(W * c, K, V),
        lambda c: _scaled(linmem.margins(W, K, V), c)),
    "assess(W / c, c K, V) decisions": (lambda c: (lambda a: (a.is_least_squares, a.consistent, a.top1_rate, a.key_rank))(linmem.assess(W / c, K * c, V)),
        lambda c: (lambda a: (a.is_least_squares, a.consistent, a.top1_rate, a.key_rank))(linmem.assess(W, K, V))
        if abs(np.log10(c)) < 154 else None),  # ||W / c||_F^2 beyond the range
    "assess(c W, K, c V) consistency_violation = c v": (lambda c: linmem.assess(W * c, K, V * c).consistency_violation,
        lambda c: _scaled(linmem.assess(W, K, V).consistency_violation, c) if abs(np.log10(c)) < 154 else None),
}


def _rows():
    for name in CASES:
        for c in FACTORS:
            yield pytest.param(name, c, id=f"{name}@{c:g}")


ROWS = list(_rows())
assert ROWS, "the scale table must not be empty"


@pytest.mark.parametrize(("case", "factor"), ROWS)
def test_linmem_gives_the_scaled_answer_or_names_the_range(case, factor):
    got_fn, want_fn = CASES[case]
    want = want_fn(factor)
    try:
        got = got_fn(factor)
    except ValueError as exc:
        # A refusal is right only where the scaled answer is not representable.
        assert want is None, f"{case} at {factor:g} raised {exc} where the answer is {want!r}"
        assert "range" in str(exc), str(exc)
        return
    if want is None:
        pytest.fail(f"{case} at {factor:g}: the answer is not representable in float64, "
                    f"but the function returned {got!r} instead of raising ValueError")
    if isinstance(want, (bool, int, float, tuple, list)) and not isinstance(want, np.ndarray) and (
            isinstance(want, (bool, tuple, list)) or isinstance(got, bool)):
        assert got == want
        return
    got = np.asarray(got, dtype=float)
    want = np.asarray(want, dtype=float)
    assert np.all(np.isfinite(got)), got
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=RTOL * scale)


def test_assess_refuses_figures_beyond_the_range_with_the_figure_named():
    with pytest.raises(ValueError, match=r"\|\|W\|\|_F\^2 exceeds float64's range"):
        linmem.assess(W * 1e300, K, V * 1e300)


def test_consistency_residual_needs_no_m_by_m_projector():
    Kt = np.ones((1, 100_000))  # an M x M projector would be 74.5 GiB
    Vt = np.arange(100_000, dtype=float)[None, :]
    got = recall.consistency_residual(Kt, Vt)
    centred = Vt - Vt.mean()
    assert got == pytest.approx(float(np.linalg.norm(centred)), rel=1e-9)
