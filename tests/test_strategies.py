"""The strategies produce what their names promise (rank, condition number,
duplicates, unit norms, exactness)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy
from hypothesis import given, settings

import linmem
from theorems.authoring.strategies import KeyCase, exact_key_matrices, exact_unit_key_matrices, float_key_cases, unit_key_cases


@given(float_key_cases(families=("rank_deficient",)))
def test_rank_deficient_cases_have_the_stated_rank(case):
    assert linmem.numerical_rank(case.K) == case.rank
    assert case.rank < min(case.d, case.M) or min(case.d, case.M) == 1


@given(float_key_cases(families=("ill_conditioned",)))
def test_ill_conditioned_cases_have_the_stated_condition(case):
    s = np.linalg.svd(case.K, compute_uv=False)
    assert s[0] / s[-1] == np.float64(case.cond) or abs(np.log10(s[0] / s[-1]) - np.log10(case.cond)) < 0.05


@given(float_key_cases(families=("duplicated",)))
def test_duplicated_cases_repeat_columns(case):
    distinct = {tuple(c) for c in case.K.T.tolist()}
    assert len(distinct) == case.rank


@given(unit_key_cases())
def test_unit_cases_have_unit_columns(case):
    np.testing.assert_allclose(np.linalg.norm(case.K, axis=0), 1, atol=1e-14)


@given(float_key_cases())
def test_cases_replay_from_their_description(case):
    again = KeyCase.build(**{k: v for k, v in case.describe().items() if k not in ("cond", "rank", "unit")},
                          cond=case.cond, rank=case.rank, unit=case.unit)
    np.testing.assert_array_equal(again.K, case.K)
    np.testing.assert_array_equal(again.V, case.V)


@settings(max_examples=60)
@given(exact_key_matrices())
def test_exact_key_matrices_are_exact_and_have_no_zero_column(K):
    assert all(isinstance(x, Fraction) for x in K.ravel())
    assert all(any(x != 0 for x in K[:, j]) for j in range(K.shape[1]))


def test_exact_key_matrices_include_rank_deficient_and_duplicated():
    seen = {"deficient": False, "duplicated": False}

    @settings(max_examples=200, derandomize=True)
    @given(exact_key_matrices())
    def look(K):
        if sympy.Matrix(K.tolist()).rank() < min(K.shape):
            seen["deficient"] = True
        if len({tuple(c) for c in K.T.tolist()}) < K.shape[1]:
            seen["duplicated"] = True

    look()
    assert seen == {"deficient": True, "duplicated": True}


@given(exact_unit_key_matrices())
def test_exact_unit_key_matrices_have_exactly_unit_columns(K):
    assert all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))


# --- the input families of the templates and of the ported claim modules ---------------------

import mpmath  # noqa: E402
from hypothesis import example  # noqa: E402

from theorems.authoring import kit  # noqa: E402
from theorems.claims import outer, projectors  # noqa: E402
from theorems.core.model import Context  # noqa: E402
from theorems.core.profiles import PROFILES  # noqa: E402
from theorems.authoring.strategies import Case, keys, keys_and_values, precise_keys, unit_keys  # noqa: E402

CTX = Context(impl=None, profile=PROFILES["quick"], seed=11, claim_id="test", check_name="strategies")


@settings(max_examples=40)
@given(keys().exact, keys_and_values().exact, keys_and_values(unit=True).exact)
def test_exact_families_give_exact_argument_tuples_of_matching_sizes(k, kv, ukv):
    assert len(k) == 1 and kit.is_exact(k[0])
    K, V = kv
    assert kit.is_exact(V) and V.shape[1] == K.shape[1]
    K, V = ukv
    assert all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1])) and V.shape[1] == K.shape[1]


@settings(max_examples=40)
@given(keys_and_values().floats, unit_keys().floats)
def test_float_families_give_cases_that_replay_from_their_recipe(kv, u):
    assert isinstance(kv, Case) and kv.args[1].shape == (kv.recipe["p"], kv.recipe["M"])
    again = KeyCase.build(**kv.recipe)
    np.testing.assert_array_equal(again.K, kv.args[0])
    np.testing.assert_allclose(np.linalg.norm(u.args[0], axis=0), 1, atol=1e-14)


def test_precise_keys_have_the_condition_and_rank_their_labels_state():
    cases = precise_keys(CTX)
    assert len(cases) >= 3
    with mpmath.workdps(60):
        for label, K in cases:
            r = kit.rank(K)
            assert kit.rank(linmem.mp_array(K)) == r
            if label.startswith("cond 1e20, full rank"):
                assert r == min(K.shape)
                cond = linmem.condition_number(linmem.mp_array(K))
                assert abs(mpmath.log10(cond) - 20) < 0.5
            if label.startswith("cond 1e12, rank"):
                assert r == int(label.split("rank ")[1].split(",")[0]) < min(K.shape)
            if label.startswith("duplicated"):
                assert len({tuple(c) for c in K.T.tolist()}) < K.shape[1]


def test_precise_unit_keys_are_exactly_unit():
    for _, K in precise_keys(CTX, unit=True):
        assert all(sum(x * x for x in K[:, j]) == 1 for j in range(K.shape[1]))


@settings(max_examples=40)
@given(projectors.ZEROED_KEYS.floats)
def test_zeroed_float_keys_have_exactly_the_recorded_zero_columns(case):
    (K,) = case.args
    zero = [j for j in range(K.shape[1]) if not np.any(K[:, j])]
    assert zero == case.recipe["zeroed"]


@settings(max_examples=30)
@given(projectors.FREE_KEY.exact)
# pinned boundary: the free key's in-span part equals two duplicated keys, outside component 1
@example((projectors._append_free_key(kit.exact([[1, 1]]), kit.exact([1]), Fraction(1), 0, kit.eye(2, kit.exact([1]))),
          kit.exact([[1, 2, 3]]), 0))
def test_free_key_inputs_have_leverage_one_at_the_free_key(case):
    K, V, free = case
    assert linmem.leverage_scores(K)[free] == 1
    assert V.shape[1] == K.shape[1]


def test_free_key_ladder_cases_have_leverage_one_and_lie_1e_15_off_the_span_of_the_rest():
    for _, (K, _, free) in projectors.FREE_KEY.precise(CTX):
        assert linmem.leverage_scores(K)[free] == 1
        rest = np.delete(K, free, axis=1)
        _, Q = linmem.projectors(rest)
        off = K[:, free] - Q @ K[:, free]
        assert sum(x * x for x in off) == Fraction(1, 10**30)


@settings(max_examples=30)
@given(outer.ORTHONORMAL.exact, outer.ORTHONORMAL.floats)
def test_orthonormal_families_are_orthonormal(exact, floats):
    K, _ = exact
    assert (K.T @ K).tolist() == np.eye(K.shape[1], dtype=int).tolist()
    K, _ = floats.args
    np.testing.assert_allclose(K.T @ K, np.eye(K.shape[1]), atol=1e-13)


@settings(max_examples=40)
@given(outer._pairs(unit=True).exact, outer._pairs(unit=False).exact)
@example((kit.exact([-1]), kit.exact([0]), kit.exact([[0]])), (kit.exact([Fraction(1, 3)]), kit.exact([0]),
                                                                kit.exact([[3]])))  # d = 1, zero value
def test_pair_inputs_have_unit_or_nonzero_keys(unit, nonunit):
    assert sum(x * x for x in unit[0]) == 1
    assert any(x != 0 for x in nonunit[0])


@settings(max_examples=60)
@given(projectors.FREE_KEY.floats)
def test_float_free_key_inputs_stay_within_float64_reach(case):
    # the planted 1e-6 outside component on keys of condition 1e9 once made
    # cond(K) about 1e15 (found at seed 3); cond(rest) / c is now kept <= 1e12
    K, _, free = case.args
    assert case.recipe["cond"] / case.recipe["outside component"] <= 1e12
    assert abs(linmem.leverage_scores(K)[free] - 1) < 1e-6


def test_free_key_on_ill_conditioned_keys_gets_a_unit_outside_component():
    from hypothesis import find

    case = find(projectors.FREE_KEY.floats, lambda c: c.recipe["cond"] >= 1e9)
    assert case.recipe["outside component"] == 1.0


# --- matrices given by exact factors (theorems.authoring.strategies.Factored) ---------------------------

import pytest  # noqa: E402

from theorems.authoring.strategies import HADAMARD4, Factored, exact_factored, factored, factored_cases, float_factored  # noqa: E402


def _identity(n):
    return np.eye(n, dtype=int).tolist()


def _is_factored_exactly(F: Factored) -> None:
    r, n = len(F.s), F.Z_full.shape[0]
    assert (F.U.T @ F.U).tolist() == _identity(r)
    assert (F.Z_full.T @ F.Z_full).tolist() == _identity(n)  # Z and Z_perp: an orthonormal basis
    assert all(x > 0 for x in F.s) and all(a >= b for a, b in zip(F.s, F.s[1:]))
    assert kit.rank(F.A) == r if F.A.size else r == 0
    assert not np.any(F.A @ F.Z_perp)  # ker A
    assert ((F.U * F.s) @ F.Z.T).tolist() == F.A.tolist()


@settings(max_examples=60)
@given(exact_factored())
def test_exact_factored_matrices_are_their_own_exact_svd(F):
    _is_factored_exactly(F)


def test_exact_factored_matrices_reach_rank_zero_repeated_singular_values_and_repeated_columns():
    seen = {"rank 0": False, "repeated s": False, "four copies": False, "rank-deficient": False}

    @settings(max_examples=300, derandomize=True)
    @given(exact_factored())
    def look(F):
        cols = [tuple(c) for c in F.A.T.tolist()]
        seen["rank 0"] |= len(F.s) == 0
        seen["repeated s"] |= len(set(F.s)) < len(F.s)
        seen["four copies"] |= len(cols) in (4, 8) and all(cols.count(c) % 4 == 0 for c in cols) and len(F.s) > 0
        seen["rank-deficient"] |= 0 < len(F.s) < min(F.A.shape)

    look()
    assert all(seen.values()), seen


@settings(max_examples=30)
@given(exact_factored(min_rank=1, duplicates=False))
def test_exact_factored_min_rank_and_no_duplicates(F):
    assert len(F.s) >= 1 and F.A.shape[1] <= 5


def test_factored_builds_the_requested_spectrum_and_refuses_a_bad_one():
    F = factored(3, 2, kit.rational_spectrum(2, 10**8), rng=np.random.default_rng(0), duplicated=True)
    _is_factored_exactly(F)
    assert F.A.shape == (3, 8) and list(F.s) == [1, Fraction(1, 10**8)]
    cols = [tuple(c) for c in F.A.T.tolist()]
    assert all(cols.count(c) == 4 for c in cols)
    assert (HADAMARD4 @ HADAMARD4.T).tolist() == (4 * np.eye(4, dtype=int)).tolist()
    for bad in ([1, 2], [1, -1], [1, 1, 1]):
        with pytest.raises(ValueError, match="s must be"):
            factored(2, 2, bad, rng=np.random.default_rng(0))


def test_factored_cases_have_the_condition_rank_and_copies_their_labels_state():
    specs = ((4, 6, kit.rational_spectrum(4, 10**20), False), (3, 2, [2, 2], True), (2, 5, [1], False))
    cases = factored_cases(CTX, specs, minimum=3)
    assert [label for label, _ in cases] == ["4x6, rank 4 of 4, cond 1e20", "3x8, rank 2 of 3, repeated singular "
                                             "values, each column four times", "2x5, rank 1 of 2"]
    for _, F in cases:
        _is_factored_exactly(F)
    with mpmath.workdps(60):
        assert abs(mpmath.log10(linmem.condition_number(linmem.mp_array(cases[0][1].A))) - 20) < 0.5


@settings(max_examples=40)
@given(float_factored())
def test_float_factored_matrices_have_the_recorded_rank_condition_and_kernel(case):
    (F,) = case.args
    rec = case.recipe
    assert F.A.shape == (rec["m"], rec["n"]) and len(F.s) == rec["rank"]
    np.testing.assert_allclose(F.Z_full.T @ F.Z_full, np.eye(rec["n"]), atol=1e-13)
    assert np.linalg.norm(F.A @ F.Z_perp) <= 1e-12 * max(1.0, float(np.max(F.s, initial=0)))
    if rec["rank"] > 1:
        assert abs(np.log10(F.s[0] / F.s[-1]) - np.log10(rec["cond"])) < 1e-9
        assert linmem.numerical_rank(F.A) == rec["rank"] or rec["cond"] >= 1e12


from theorems.claims.store import factored_keys_and_values  # noqa: E402


@settings(max_examples=40)
@given(factored_keys_and_values(operands=("B", "W")).exact)
def test_factored_keys_and_values_carry_the_factors_of_their_keys(args):
    K, V, B, W, F = args
    _is_factored_exactly(F)
    assert K.tolist() == F.A.tolist() and len(F.s) >= 1
    assert V.shape[1] == K.shape[1] and B.shape == W.shape == (V.shape[0], K.shape[0]) and kit.is_exact(B)


def test_factored_keys_and_values_ladder_and_floats_have_the_stated_form():
    family = factored_keys_and_values(operands=("W",))
    assert family.names == ("K", "V", "W", "factors")
    cases = family.precise(CTX)
    assert len(cases) == max(4, CTX.profile.precise_cases)
    assert "each column four times" in cases[2][0]
    for _, (K, V, W, F) in cases:
        _is_factored_exactly(F)
        assert K.tolist() == F.A.tolist() and W.shape == (V.shape[0], K.shape[0])

    @settings(max_examples=20)
    @given(family.floats)
    def floats(case):
        K, V, W, F = case.args
        assert F is None and W.shape == (V.shape[0], K.shape[0])
        np.testing.assert_array_equal(KeyCase.build(**case.recipe).K, K)

    floats()


from theorems.claims.store import independent_keys_and_values  # noqa: E402


@settings(max_examples=40)
@given(independent_keys_and_values().exact, independent_keys_and_values().floats)
def test_independent_keys_have_full_column_rank(exact, floats):
    K, V = exact
    assert kit.rank(K) == K.shape[1] <= K.shape[0] and V.shape[1] == K.shape[1]
    K, V = floats.args
    assert K.shape[1] <= K.shape[0] and np.linalg.matrix_rank(K, tol=1e-13 * np.linalg.norm(K, 2)) == K.shape[1]
    assert KeyCase.build(**floats.recipe).K.tolist() == K.tolist()


def test_independent_ladder_keys_are_independent_at_the_stated_condition():
    cases = independent_keys_and_values().precise(CTX)
    assert len(cases) == max(4, CTX.profile.precise_cases)
    with mpmath.workdps(60):
        for label, (K, V) in cases:
            assert kit.rank(K) == K.shape[1] <= K.shape[0] and V.shape[1] == K.shape[1]
            if label.startswith("cond 1e20"):
                assert abs(mpmath.log10(linmem.condition_number(linmem.mp_array(K))) - 20) < 0.5
    K = cases[0][1][0]
    assert all(sum(x * x for x in K[:, j]) == 1 for j in range(3))
    assert max(abs(x) for x in (K[:, 0] - K[:, 1])) < Fraction(1, 10**14)


from theorems.claims.svd import stores_and_queries  # noqa: E402


@settings(max_examples=40)
@given(stores_and_queries().exact, stores_and_queries().floats, stores_and_queries(float_factors=True).floats)
def test_stores_and_queries_carry_their_factors_and_queries_of_the_input_dimension(exact, keys, factored):
    W, Q, F = exact
    _is_factored_exactly(F)
    assert W.tolist() == F.A.tolist() and Q.shape == (W.shape[1], 2) and kit.is_exact(Q)
    W, Q, F = keys.args
    assert F is None and Q.shape == (W.shape[1], 3)
    W, Q, F = factored.args
    np.testing.assert_array_equal(W, F.A)
    assert Q.shape == (W.shape[1], 3) and len(F.s) == factored.recipe["rank"]


def test_store_ladder_has_repeated_and_tiny_singular_values():
    cases = stores_and_queries().precise(CTX)
    assert len(cases) == max(3, CTX.profile.precise_cases)
    for label, (W, Q, F) in cases:
        _is_factored_exactly(F)
        assert Q.shape == (W.shape[1], 3)
    assert "repeated singular values" in cases[2][0] and min(cases[2][1][2].s) == Fraction(1, 10**20)


def test_inputs_describe_a_factored_argument_by_its_factors():
    F = factored(2, 2, [1], rng=np.random.default_rng(0))
    shown = stores_and_queries().describe((F.A, kit.exact([[1], [0]]), F))
    assert set(shown) == {"W", "queries", "factors"} and set(shown["factors"]) == {"U", "s", "Z_full", "A"}
    A = F.A
    assert keys().describe((A,))["K"] is A  # plain arrays as they are


def test_generator_seeds_span_the_whole_32_bit_range_and_shrink_to_zero():
    from hypothesis import find

    from theorems.authoring.strategies import rng_seeds

    assert find(rng_seeds(), lambda s: True) == 0
    assert find(rng_seeds(), lambda s: s >= 2**32 - 1) == 2**32 - 1  # the top seed is reachable
    assert repr(rng_seeds()).replace("_", "") == "integers(minvalue=0, maxvalue=4294967295)"  # nothing beyond
