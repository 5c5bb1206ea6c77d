"""Rules of the evidence checkers that the catalogue never reaches: what an
undecidable exact residual says, a Monte Carlo sample of the wrong width,
two samples or none of spread, a relative ladder at an exact zero,
Hypothesis's final replay outside a build."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import strategies as st

from theorems.core.model import Context, EvidenceKind, EvidenceStatus
from theorems.core.profiles import get_profile
from theorems.core.tolerance import LADDER_MIN_KEPT_FRACTION, THRESHOLD
from theorems.evidence import montecarlo, precise, symbolic
from theorems.evidence import property as prop
from theorems.evidence._common import hypothesis_run
from theorems.evidence.property import _final_replay
from theorems.numbers import NotExact


class _Undecided(sympy.Symbol):
    """A residual sympy can neither reduce nor compare with 0."""

    def equals(self, other, failing_expression=False):
        return None


def test_an_exact_residual_sympy_cannot_decide_is_not_exact_naming_its_first_80_characters(monkeypatch):
    def no_polynomial(*_a, **_kw):
        raise NotImplementedError

    monkeypatch.setattr(sympy, "minimal_polynomial", no_polynomial)
    value = _Undecided("u" * 100)
    with pytest.raises(NotExact) as info:
        symbolic._is_zero(value)
    assert str(info.value) == f"not exact: an exact residual sympy cannot decide ({'u' * 80})"


def test_a_monte_carlo_sample_of_the_wrong_width_is_a_clear_error():
    with pytest.raises(ValueError, match=r"^sample returned 3 quantities, expected 2$"):
        montecarlo.check(_ctx("mc"), lambda rng, size: np.zeros((size, 3)), [0.0, 0.0], n=10)


def test_outside_a_hypothesis_build_no_example_is_the_final_replay():
    assert _final_replay() is False


def _ctx(check: str = "c", **kw) -> Context:
    return Context(impl=None, profile=get_profile("quick"), seed=7, claim_id="t.edges", check_name=check, **kw)


def test_a_relative_ladder_whose_residual_is_exactly_zero_has_figure_zero():
    ev = precise.check(_ctx("ladder"), [("zero", None)], lambda _case: (mpmath.mpf(0), mpmath.mpf(1)),
                       relative=True)
    assert ev.status == EvidenceStatus.PASSED and ev.figure == 0.0
    assert ev.data["residuals"] == {"zero": ["0.0", "0.0", "0.0"]}


def test_a_monte_carlo_standard_error_is_unbiased_down_to_two_samples():
    # samples 0 and 2 of a quantity claimed to have mean 0: mean 1, unbiased variance 2, standard error 1
    ev = montecarlo.check(_ctx("mc"), lambda rng, size: np.array([[0.0], [2.0]])[:size], [0.0], n=2)
    assert ev.figure == pytest.approx(1.0)


def test_a_monte_carlo_mean_off_by_more_than_rounding_fails_even_without_spread():
    # every sample the same: no spread, so any deviation beyond rounding is infinitely many standard errors
    off = 1.5 * THRESHOLD * np.finfo(float).eps  # beyond the rounding allowance at a claimed mean of 0
    ev = montecarlo.check(_ctx("mc"), lambda rng, size: np.full((size, 1), off), [0.0], n=8)
    assert ev.status == EvidenceStatus.FAILED and ev.figure == np.inf
    within = montecarlo.check(_ctx("mc"), lambda rng, size: np.full((size, 1), 0.5 * THRESHOLD * np.finfo(float).eps),
                              [0.0], n=8)
    assert within.status == EvidenceStatus.PASSED and within.figure == 0.0


def test_hypothesis_settings_shrink_unless_told_not_to():
    from hypothesis import Phase

    from theorems.evidence._common import hypothesis_settings

    assert Phase.shrink in hypothesis_settings(10).phases  # a failure is reported at its minimal example
    assert Phase.shrink not in hypothesis_settings(10, shrink=False).phases  # a control needs its verdict only


def test_an_exact_residual_whose_formula_raises_fails_the_case_and_names_the_formula():
    from theorems.core.impl import Impl

    impl = Impl.default()

    def residual(x):  # the formula under test raises on odd x: that case is a counterexample, never a zero
        return impl.snr("not a number") if x % 2 else 0

    ev = symbolic.exact_search(_ctx("exact"), EvidenceKind.SYMBOLIC, st.integers(0, 9), residual,
                               detail="raises on odd x")
    assert ev.status == EvidenceStatus.FAILED
    assert ev.counterexample["input"] == 1 and ev.counterexample["residual"].startswith("formula snr raised ")


def test_a_float_search_steers_by_the_log10_of_each_ratio_and_with_none_measured_has_figure_zero(monkeypatch):
    steered = []
    monkeypatch.setattr(prop, "target", lambda value, label: steered.append((label, value)))
    ev = prop.check(_ctx("float"), st.integers(0, 100), lambda _x: 1e-20, examples=5)
    assert ev.status == EvidenceStatus.PASSED and ev.figure == 1e-20
    assert steered and {label for label, _ in steered} == {"log10 scaled ratio"}
    assert all(value == pytest.approx(-20.0) for _, value in steered)  # a tiny ratio keeps its order of magnitude
    beyond = prop.check(_ctx("float"), st.integers(0, 100), lambda _x: prop.BEYOND_FLOAT64, examples=5)
    assert beyond.status == EvidenceStatus.INCONCLUSIVE and beyond.figure == 0.0  # no ratio was measured


def test_a_float_search_that_ran_no_case_does_not_pass(monkeypatch):
    monkeypatch.setattr(prop, "hypothesis_test", lambda *_a, **_kw: lambda: None)  # a search that drew nothing
    ev = prop.check(_ctx("float"), st.integers(0, 100), lambda _x: 0.0, examples=5)
    assert ev.cases == 0 and ev.status == EvidenceStatus.INCONCLUSIVE


def _hypothesis_files_in_the_cache(monkeypatch, folder) -> None:
    """The sweep cache at ``folder`` and no Hypothesis storage variable: Hypothesis's files go to the cache."""
    monkeypatch.setenv("THEOREMS_CACHE", str(folder))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)


def test_hypothesis_keeps_no_example_database_unless_asked(monkeypatch, tmp_path):
    _hypothesis_files_in_the_cache(monkeypatch, tmp_path)
    with hypothesis_run() as options:
        assert options.database is None  # a verdict depends on the code and the seed alone
    with hypothesis_run(database=True) as options:
        assert options.database is not None


def test_the_value_directions_of_an_expectation_have_one_to_three_rows():
    from hypothesis import find

    from theorems.authoring.templates import keys_and_directions

    assert {p: find(keys_and_directions(), lambda case, p=p: case[1].shape[0] == p)[1].shape[0]
            for p in (1, 2, 3)} == {1: 1, 2: 2, 3: 3}


def test_an_exact_search_whose_every_case_is_irrational_says_so_and_passes_the_decision_on():
    def residual(x):
        raise NotExact("sqrt")

    ev = symbolic.exact_search(_ctx("exact"), EvidenceKind.SYMBOLIC, st.integers(0, 9), residual, detail="d")
    assert ev.status == EvidenceStatus.PASSED and ev.cases == 0
    assert ev.detail.startswith("not exact: sqrt: the terms are irrational on every generated case"), ev.detail
    some = symbolic.exact_search(_ctx("exact"), EvidenceKind.SYMBOLIC, st.integers(0, 9),
                                 lambda x: 0 if x % 2 else residual(x), detail="d")
    assert some.detail.startswith("not exact: sqrt (irrational on ") and some.detail.endswith("; d"), some.detail


def test_hypothesis_constants_computed_without_the_source_pool_are_forgotten_on_leaving():
    from hypothesis.internal.conjecture import providers

    from theorems.evidence._common import _no_source_constants

    with _no_source_constants():
        providers.CONSTANTS_CACHE.cache["t.edges"] = "an entry made from the empty pool"
    assert "t.edges" not in providers.CONSTANTS_CACHE.cache


def test_a_monte_carlo_rounding_allowance_grows_with_the_claimed_mean():
    # a claimed mean of 1e6 and every sample off by half the rounding allowance THRESHOLD eps (1 + |mean|)
    claimed = 1e6
    off = 0.5 * THRESHOLD * np.finfo(float).eps * (1 + claimed)
    ev = montecarlo.check(_ctx("mc"), lambda rng, size: np.full((size, 1), claimed + off), [claimed], n=8)
    assert ev.status == EvidenceStatus.PASSED and ev.figure == 0.0


def test_hypothesis_keeps_its_files_in_the_cache_folder_unless_its_own_variable_says_where(monkeypatch, tmp_path):
    from hypothesis import configuration

    _hypothesis_files_in_the_cache(monkeypatch, tmp_path)
    with hypothesis_run():
        assert configuration.storage_directory("examples").path == tmp_path / "hypothesis" / "examples"
    before = configuration.storage_directory("examples").path
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "own"))
    with hypothesis_run():  # Hypothesis's own setting wins: the folder is left as Hypothesis has it
        assert configuration.storage_directory("examples").path == before


def test_a_relative_ladder_fails_a_top_rung_that_keeps_fewer_than_half_the_digits():
    def residual(_case):  # 1.5 units of 10^(-dps/2) at every rung: half a digit short of what the top rung must keep
        return 1.5 * mpmath.power(10, -LADDER_MIN_KEPT_FRACTION * mpmath.mp.dps), mpmath.mpf(1)

    ev = precise.check(_ctx("ladder"), [("short", None)], residual, falls=False, relative=True)
    assert ev.status == EvidenceStatus.FAILED and ev.figure == pytest.approx(1.5)
