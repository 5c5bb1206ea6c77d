"""The claim templates and the kit: the user examples verify and their
negative controls are caught; planted false statements fail; the residual
contract, the seed scheme, the profile levels and the number-system helpers
do what they say."""

from __future__ import annotations

import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import linmem
from theorems.authoring import kit
from theorems.cli import main
from theorems.evidence import simulation
from theorems.core.model import Claim, ClaimKind, Context, derive_seed
from theorems.core.profiles import PROFILES, Profile
from theorems.core.residuals import at_most, exact_residual, residual
from theorems.core.runner import run_claim
from theorems.authoring.strategies import keys, keys_and_values
from theorems.authoring.strategies import exact_key_matrices, integer_matrices
from theorems.authoring import templates
from theorems.authoring.templates import (
    asymptotic,
    counterexample,
    expectation,
    gram_projectors,
    identity,
    inequality,
    swapped_projectors,
    swapped_stores,
    witness_check,
    wrong,
)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
QUICK = PROFILES["quick"]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, limit", [("identity_claim", 15), ("expectation_claim", 20)])
def test_example_claims_fit_their_line_budget(name, limit):
    lines = [l for l in (EXAMPLES / f"{name}.py").read_text().splitlines() if l.strip()]
    assert len(lines) <= limit


@pytest.mark.parametrize("name", ["identity_claim", "expectation_claim"])
def test_example_claim_is_verified_and_its_control_caught(name, tmp_path, capsys):
    path = EXAMPLES / f"{name}.py"
    code = main(["verify", "--claims", str(path), "--only", "user.*", "--controls", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    (claim,) = json.loads((tmp_path / "report.json").read_text())["claims"]
    assert claim["status"] == "VERIFIED"
    assert claim["negative_control"]["caught"] is True
    assert set(claim["negative_control"]["checks"].values()) == {"failed"}


def test_identity_with_a_planted_wrong_term_fails_with_a_minimal_exact_input():
    claim = identity(
        "t.wrong-fixed-point", title="W_LS K = V (false: only V P)", statement="W K = V", source="test",
        inputs=keys_and_values(), terms=lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V)],
        control=wrong("none needed", snr=lambda h: h))
    result = run_claim(claim, profile=QUICK, seed=3)
    by_check = {e.check: e for e in result.evidence}
    assert result.status.value == "FAILED"
    assert by_check["exact"].status.value == "failed"
    K = by_check["exact"].counterexample["input"]["K"]  # the shrunk keys: W K = V P != V needs rank K < M
    assert K.shape[1] >= 2 and kit.rank(K) < K.shape[1]
    assert by_check["float"].status.value == "failed"


def test_expectation_with_a_wrong_claimed_value_fails_both_ways():
    def error(impl, K, V):
        R = kit.store(impl.least_squares_store, K, V) @ K - V
        return np.sum(R * R, axis=-2)

    claim = expectation(
        "t.ls-error-wrong", title="E||W_LS k_j - v_j||^2 = 1 - h_j^2 (false)", statement="", source="test",
        quantity=error, claimed=lambda impl, K: 1 - impl.leverage_scores(K) ** 2,
        control=wrong("none needed", snr=lambda h: h))
    result = run_claim(claim, profile=QUICK, seed=5)
    assert {e.check: e.status.value for e in result.evidence} == {"enumeration": "failed", "montecarlo": "failed"}


def test_inequality_checks_bounds_and_reports_a_violation():
    claim = inequality(
        "t.leverage-below-half", title="h_j <= 1/2 (false)", statement="", source="test", inputs=keys(),
        terms=lambda impl, K: [at_most(impl.leverage_scores(K), Fraction(1, 2))],
        control=wrong("none needed", snr=lambda h: h))
    assert claim.kind is ClaimKind.INEQUALITY
    result = run_claim(claim, profile=QUICK, seed=1)
    assert {e.check: e.status.value for e in result.evidence} == {"exact": "failed", "ladder": "failed",
                                                                   "float": "failed"}


def test_asymptotic_takes_its_sizes_per_profile_level():
    claim = asymptotic(
        "t.mean-error", title="", statement="", source="test",
        sizes={"quick": (8, 16, 32), "standard": (8, 16, 32, 64), "thorough": (8, 16, 32, 64, 128)},
        measure=lambda impl, d, rng: float(np.mean(impl.leverage_scores(rng.standard_normal((d, 2 * d))))),
        criterion=simulation.shrinks(max_slope=2.0, max_last_over_first=10.0), label="mean leverage",
        control=wrong("none needed", snr=lambda h: h))
    (ev,) = run_claim(claim, profile=PROFILES["standard"], seed=0).evidence
    assert ev.data["sizes"] == [8, 16, 32, 64]
    assert ev.status.value == "supported"


def test_wrong_shapes_from_a_formula_fail_the_identity_rather_than_crash_the_check():
    control = wrong("P of the wrong size", projectors=lambda K: (K @ K.T, K @ K.T))
    claim = identity("t.shape", title="", statement="", source="test", inputs=keys_and_values(),
                     terms=lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V @ impl.projectors(K)[0])],
                     control=control)
    result = run_claim(claim, profile=QUICK, seed=2, controls=True)
    assert result.status.value == "VERIFIED"
    assert result.negative_control["caught"] is True


@pytest.mark.parametrize("bad, message", [
    pytest.param(lambda: wrong("no formulas"), "at least one formula", id="control without overrides"),
    pytest.param(lambda: asymptotic("t", title="", statement="", source="", sizes={"quick": (1,)},
                                    measure=None, criterion=None, label="", control=None),
                 "missing", id="sizes without every level"),
    pytest.param(lambda: residual((np.ones(2), np.ones(2))), "list of", id="a bare pair as terms"),
    pytest.param(lambda: witness_check(about="", how="", verify=None), "exactly one of", id="witness without a source"),
    pytest.param(lambda: witness_check(about="", how="", verify=None, witness=lambda ctx: 1,
                                       search=exact_key_matrices()), "exactly one of", id="witness built and searched"),
    pytest.param(lambda: witness_check(about="", how="", verify=None, search=exact_key_matrices()), "needs found=",
                 id="search without a condition"),
])
def test_template_misuse_is_a_clear_error(bad, message):
    with pytest.raises((ValueError, TypeError), match=message):
        bad()


def test_residual_contract_in_every_number_system():
    F = Fraction
    assert exact_residual([(kit.exact([1, 2]), kit.exact([1, 2])), at_most(F(1, 3), F(1, 2))]) == 0
    assert exact_residual([at_most(kit.exact([1, 3]), 2)]) == 1
    assert exact_residual([(kit.exact([1]), kit.exact([1, 1]))]) == float("inf")
    assert residual([(np.ones(3), np.zeros(3)), at_most(2.5, 2.0)]) == pytest.approx(np.sqrt(3))
    with mpmath.workdps(40):
        value = residual([at_most(linmem.mp_array(kit.exact([1])) / 3, 0)])
        assert isinstance(value, mpmath.mpf) and abs(value - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -39


def test_rank_is_exact_for_rationals_and_mpmath_and_lapack_for_floats():
    K = kit.exact([[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    assert kit.rank(K) == 2
    with mpmath.workdps(50):
        assert kit.rank(linmem.mp_array(K)) == 2
        tiny = kit.exact([[1, 0], [0, Fraction(1, 10**20)]])
        assert kit.rank(linmem.mp_array(tiny)) == 2
    assert kit.rank(np.array([[1.0, 2.0], [2.0, 4.0]])) == 1
    assert kit.rank(np.zeros((2, 0))) == 0


def test_to_mp_converts_arrays_and_rationals_but_keeps_indices():
    with mpmath.workdps(30):
        K, i, q = kit.to_mp((kit.exact([[1, 2]]), 3, Fraction(1, 3)))
    assert isinstance(K[0, 0], mpmath.mpf) and i == 3 and isinstance(q, mpmath.mpf)


def test_scale_is_size_times_condition_times_operand_norms():
    K = np.diag([4.0, 1.0])
    assert kit.scale(K) == pytest.approx(2 * 4.0)
    assert kit.scale(K, np.ones((1, 2)), 7) == pytest.approx(2 * 4.0 * (1 + np.sqrt(2)))
    assert kit.scale(K, condition=False) == 2


def test_store_of_a_value_batch_equals_the_store_of_each_sample():
    rng = np.random.default_rng(0)
    K = rng.standard_normal((3, 5))
    V = kit.spherical_batch(rng, 4, 2, 5)
    batch = kit.store(linmem.least_squares_store, K, V)
    for b in range(4):
        assert np.allclose(batch[b], linmem.least_squares_store(K, V[b]))
    assert np.allclose(np.linalg.norm(V, axis=-2), 1.0)


def test_sign_expectation_is_exact_and_the_sign_values_are_unit():
    W0 = kit.sign_values(2, 3, np.random.default_rng(1))
    assert all(sum(x * x for x in W0[:, j]) == 1 for j in range(3))
    # E[V^T V] = I for v_i = s_i w_i
    gram = kit.sign_expectation(lambda V: V.T @ V, W0)
    assert gram.tolist() == np.eye(3, dtype=int).tolist()


def test_seed_scheme_gives_distinct_reproducible_streams():
    assert derive_seed(7, "c", "exact") == derive_seed(7, "c", "exact")
    seeds = {derive_seed(s, c, k) for s in (0, 1) for c in ("a", "b") for k in ("exact", "float")}
    assert len(seeds) == 8
    ctx = Context(impl=None, profile=QUICK, seed=derive_seed(1, "a", "b"), claim_id="a", check_name="b")
    assert ctx.rng("x").random() == ctx.rng("x").random() != ctx.rng("y").random()
    assert kit.generator(5, "free key").random() != kit.generator(5, "values").random()
    assert Claim.seed_for is not None and kit.seed(1, "a") == derive_seed(1, "a")


@pytest.mark.parametrize("name, level", [("quick", "quick"), ("standard", "standard"), ("thorough", "thorough")])
def test_profile_pick_follows_the_level(name, level):
    assert PROFILES[name].pick(quick="q", standard="s", thorough="t") == level[0]


def test_a_custom_profile_picks_the_level_of_its_sweep():
    custom = Profile("ci", examples=10, exact_cases=2, precise_cases=3, mc_samples=100, sweep=2, check_budget_s=9.0)
    assert custom.level == "standard"


def test_to_mp_keeps_named_tuples_and_leaves_empty_arrays():
    from typing import NamedTuple

    class Pair(NamedTuple):
        a: np.ndarray
        b: np.ndarray

    with mpmath.workdps(30):
        out = kit.to_mp(Pair(kit.exact([[1]]), np.zeros((2, 0), dtype=object)))
    assert isinstance(out, Pair) and isinstance(out.a[0, 0], mpmath.mpf) and out.b.shape == (2, 0)


def test_exact_rank_by_elimination_agrees_with_sympy():
    import sympy

    rng = np.random.default_rng(4)
    for _ in range(50):
        A = kit.exact(rng.integers(-2, 3, size=(int(rng.integers(1, 5)), int(rng.integers(1, 6)))))
        assert kit.rank(A) == sympy.Matrix(A.tolist()).rank()


def _duplicated_leverage(impl, K):
    """Verify: two equal columns share the leverage mass, so some h_j < 1 though rank K = d."""
    h = impl.leverage_scores(K)
    return kit.rank(K) == K.shape[0] and min(h) < 1, 1 - min(h)


def test_counterexample_searches_a_minimal_witness_verifies_it_and_its_control_is_caught():
    claim = counterexample(
        "t.leverage-not-one", title="some full-row-rank keys have h_j < 1", statement="", source="test",
        search=exact_key_matrices(max_dim=2, max_count=3), found=lambda impl, K: _duplicated_leverage(impl, K)[0],
        verify=_duplicated_leverage, about="searched", how="found by a Hypothesis search",
        control=wrong("leverage all one", leverage_scores=lambda K: np.ones(K.shape[1], dtype=int)))
    assert claim.kind is ClaimKind.COUNTEREXAMPLE and [c.name for c in claim.checks] == ["witness"]
    result = run_claim(claim, profile=QUICK, seed=4, controls=True)
    (ev,) = result.evidence
    assert result.status.value == "VERIFIED" and ev.figure > 0
    assert ev.data["witness"] is not None
    assert result.negative_control["caught"] is True


def test_a_built_witness_that_does_not_verify_fails():
    claim = counterexample(
        "t.false-witness", title="", statement="", source="test", witness=lambda ctx: kit.exact([[1, 0], [0, 1]]),
        verify=_duplicated_leverage, about="built", how="constructed", control=wrong("x", snr=lambda h: h))
    assert run_claim(claim, profile=QUICK, seed=0).status.value == "FAILED"


def test_the_shared_wrong_variants_are_what_they_say():
    K = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    P, Q = linmem.projectors(K)
    sP, sQ = swapped_projectors(K)
    assert np.array_equal(sP, Q) and np.array_equal(sQ, P)
    gP, gQ = gram_projectors(K)
    assert np.allclose(gP, K.T @ K) and np.allclose(gQ, K @ K.T)
    stores = swapped_stores()
    V = np.ones((1, 3))
    assert np.allclose(stores["outer_product_store"](K, V), linmem.least_squares_store(K, V))
    assert np.allclose(stores["least_squares_store"](K, V), linmem.outer_product_store(K, V))


def test_exact_references_of_the_kit():
    A = kit.exact([[1, 2, 3], [2, 4, 6]])
    N = kit.null_space(A)
    assert N.shape == (3, 2) and kit.rank(N) == 2 and all(x == 0 for x in (A @ N).ravel())
    assert kit.null_space(kit.exact([[1, 0], [0, 1]])).shape == (2, 0)
    assert np.array_equal(kit.from_sympy(kit.to_sympy(A)), A)
    with pytest.raises(ValueError, match="2-D"):
        kit.to_sympy(kit.exact([1, 2]))
    u = kit.stereographic([Fraction(1, 3), Fraction(-2, 5)])
    assert sum(x * x for x in u) == 1 and kit.unit_columns(u.reshape(-1, 1))
    assert not kit.unit_columns(kit.exact([[1, 1], [0, 1]]))
    assert kit.sq(kit.exact([[1, 2], [3, 4]])) == 30
    s = kit.rational_spectrum(4, 10**6)
    assert s[0] == 1 and s[-1] == Fraction(1, 10**6) and all(a > b for a, b in zip(s, s[1:]))
    assert list(kit.rational_spectrum(1, 10**6)) == [1]
    X = kit.integer_array(np.random.default_rng(0), (3, 4), bound=2)
    assert X.shape == (3, 4) and all(isinstance(x, Fraction) and abs(x) <= 2 for x in X.ravel())


def test_integer_matrices_have_the_shape_and_range_asked():
    from hypothesis import given, settings

    @settings(max_examples=25, database=None)
    @given(integer_matrices(2, 3, bound=1))
    def check(A):
        assert A.shape == (2, 3) and all(isinstance(x, Fraction) and abs(x) <= 1 for x in A.ravel())

    check()


# --- sweep_claim: a sweep's per-run table and plot as data --------------------------------


def _leverage_row(ctx, d, rng):
    K = rng.standard_normal((d, 2 * d))
    h = np.sort(ctx.impl.leverage_scores(K))
    return {"mean": float(np.mean(h)), "h": h.tolist(), "rank": np.arange(h.size).tolist(), "pools": 1}


def _mean_half(table):
    off = table.where(lambda row: not abs(row["mean"] - 0.5) < 1e-9)
    a, b, se = linmem.sweeps.line_fit(np.log(table.sizes), table.figures)
    table.summary["fit"] = {"slope": a, "se": se}
    table.summary["a"] = a
    return not off, max(abs(f - 0.5) for f in table.figures), 1e-9, f"mean leverage 1/2 except at d = {off}"


def _sweep_claim(**options):
    return templates.sweep_claim(
        "t.sweep-table", title="", statement="", source="test", size_name="d",
        sizes=dict(quick=(4, 8, 16), standard=(4, 8, 16, 32), thorough=(4, 8, 16, 32, 64)),
        measure=_leverage_row, statistic="mean", criterion=_mean_half, label="mean leverage at M = 2d",
        control=wrong("leverage scores doubled", leverage_scores=lambda K: 2 * linmem.leverage_scores(K)),
        domain=lambda t: {"pools per d": t.column("pools")}, columns=("mean", "pools"),
        plot={"title": "sorted leverage", "x_label": "rank", "y_label": "h",
              "series": [{"each": "d = {d}", "x": "rank", "y": "h"},
                         {"x": "d", "y": "mean", "label": "mean"},
                         {"x": "d", "y": "mean", "slope": "a", "label": "fit, slope {a:.1f}"}]},
        **options)


def test_sweep_claim_carries_its_table_summary_domain_and_plot_and_its_control_is_caught():
    claim = _sweep_claim()
    assert claim.kind is ClaimKind.ASYMPTOTIC and [c.name for c in claim.checks] == ["sweep"]
    result = run_claim(claim, profile=QUICK, seed=4, controls=True)
    (ev,) = result.evidence
    assert result.status.value == "SUPPORTED" and result.negative_control["caught"] is True
    assert ev.data["sizes"] == [4, 8, 16] and ev.data["figures"] == pytest.approx([0.5] * 3)
    assert ev.data["table"]["columns"] == ["d", "mean", "pools"]
    assert [row[0] for row in ev.data["table"]["rows"]] == [4, 8, 16]
    assert ev.data["domain"]["pools per d"] == [1, 1, 1] and ev.data["domain"]["d"]["max"] == 16
    assert abs(ev.data["a"]) < 1e-9 and "slope" in ev.data["fit"]  # the criterion's summary
    each, points, line = ev.data["plot"]["series"][:3], ev.data["plot"]["series"][3], ev.data["plot"]["series"][4]
    assert [s["label"] for s in each] == ["d = 4", "d = 8", "d = 16"] and len(each[2]["x"]) == 32
    assert points["x"] == [4, 8, 16] and points["style"] == "points"
    assert line["style"] == "line" and line["label"] == "fit, slope 0.0" and len(line["x"]) == 20
    assert line["y"] == pytest.approx([0.5] * 20) and ev.data["plot"]["xscale"] == "linear"
    json.dumps(ev.data)  # the evidence stays JSON


def test_sweep_claim_takes_sizes_per_level_and_figures_only_criteria():
    claim = _sweep_claim(kind=ClaimKind.CONJECTURE, check="mean")
    assert claim.kind is ClaimKind.CONJECTURE and claim.checks[0].name == "mean"
    (ev,) = run_claim(claim, profile=PROFILES["standard"], seed=0).evidence
    assert ev.data["sizes"] == [4, 8, 16, 32]
    falls = templates.sweep_table_check(
        "falls", sizes=dict(quick=(4, 8, 16), standard=(4, 8, 16), thorough=(4, 8, 16)),
        measure=lambda ctx, d, rng: {"inverse": 1.0 / d}, statistic="inverse", label="1/d",
        criterion=templates.by_figures(simulation.rate(exponent=-1.0, band=0.01)))
    plain = Claim(id="t.falls", title="", statement="", kind=ClaimKind.ASYMPTOTIC, source="test", checks=(falls,),
                  negative_control=wrong("none needed", snr=lambda h: h))
    (ev,) = run_claim(plain, profile=QUICK, seed=0).evidence
    assert ev.status.value == "supported" and ev.data["table"]["columns"] == ["size", "inverse"]


def test_sweep_table_refuses_a_row_without_its_statistic_and_sizes_without_every_level():
    with pytest.raises(ValueError, match="missing"):
        templates.sweep_table_check("s", sizes={"quick": (1,)}, measure=None, statistic="x", criterion=None,
                                    label="")
    check = templates.sweep_table_check("s", sizes=dict(quick=(2,), standard=(2,), thorough=(2,)),
                                        measure=lambda ctx, n, rng: {"y": 1.0}, statistic="x",
                                        criterion=lambda t: (True, 0.0, 0.0, ""), label="")
    ctx = Context(impl=None, profile=QUICK, seed=0, claim_id="t", check_name="s")
    with pytest.raises(TypeError, match="statistic 'x' at size = 2"):
        check.run(ctx)


def test_sweep_table_check_records_a_reach_comparison_and_refuses_an_unknown_one():
    def check(**options):
        return templates.sweep_table_check("t", sizes=dict(quick=(2, 3), standard=(2, 3), thorough=(2, 3)),
                                           measure=lambda ctx, n, rng: {"t": 2.0 * n}, statistic="t", label="t",
                                           criterion=lambda t: (min(t.figures) >= 3, min(t.figures), 3.0, "t >= 3"),
                                           **options)

    ctx = Context(impl=None, profile=QUICK, seed=0, claim_id="t", check_name="t")
    reach, plain = check(comparison=">=").run(ctx), check().run(ctx)
    assert reach.comparison == ">=" and plain.comparison == "<=" and reach.figure == plain.figure == 4.0
    assert reach.status.value == "supported"
    claim = templates.sweep_claim("t.reach", title="", statement="", source="test", comparison=">=",
                                  sizes=dict(quick=(2,), standard=(2,), thorough=(2,)), label="t",
                                  measure=lambda ctx, n, rng: {"t": 4.0}, statistic="t",
                                  criterion=lambda t: (True, 4.0, 3.0, ""), control=wrong("none", snr=abs))
    assert run_claim(claim, profile=QUICK, seed=0).evidence[0].comparison == ">="
    with pytest.raises(ValueError, match="comparison must be '<=' or '>=', got '<'"):
        check(comparison="<")


# --- design_expectation and kit.Law ---------------------------------------------------


def _die_claim(claimed_second_moment):
    """E X = 0 and E X^2 = 1 for X a fair +-1 coin (exact) and a standard
    normal (Monte Carlo); the quantity is written once for a batch."""
    from theorems.authoring.templates import design_expectation

    coin = kit.law([kit.exact([1]), kit.exact([-1])], label="coin")
    return design_expectation(
        "t.unit-moments", title="", statement="", source="test", cases=st_just(coin), law=lambda L: L,
        quantity=lambda impl, case, X: np.concatenate([X, X * X], axis=1),
        claimed=lambda impl, case: [0, claimed_second_moment],
        mc_cases=lambda rng: [None], mc_draw=lambda impl, case, rng, size: (rng.standard_normal((size, 1)),),
        mc_label="standard normal", control=wrong("unused", leverage_scores=lambda K: K))


def st_just(x):
    from hypothesis import strategies as st

    return st.just(x)


def test_design_expectation_verifies_a_true_expectation_both_ways():
    result = run_claim(_die_claim(1), profile=QUICK, seed=0)
    assert {e.check: e.status.value for e in result.evidence} == {"enumeration": "passed", "montecarlo": "passed"}


def test_design_expectation_fails_a_wrong_value_in_the_design_and_in_the_samples():
    result = run_claim(_die_claim(Fraction(1, 2)), profile=QUICK, seed=0)
    assert {e.check: e.status.value for e in result.evidence} == {"enumeration": "failed", "montecarlo": "failed"}


def test_design_check_fails_a_law_without_the_assumed_moments():
    from hypothesis import strategies as st

    from theorems.authoring.templates import design_expectation

    skewed = kit.law([kit.exact([2]), kit.exact([-1])], weights=[Fraction(1, 3), Fraction(2, 3)], label="skewed")
    claim = design_expectation(
        "t.moments", title="", statement="", source="test", cases=st.just(skewed), law=lambda L: [L],
        quantity=lambda impl, c, X: X * X, claimed=lambda impl, c: [2],
        hypotheses=lambda c, L: (L.mean(L.outcomes[0])[0] - 1) ** 2,  # its mean is 0, not the assumed 1
        mc_cases=lambda rng: [None], mc_draw=lambda impl, c, rng, size: (1 + rng.standard_normal((size, 1)),),
        mc_label="normal of mean 1", control=wrong("unused", leverage_scores=lambda K: K))
    by_check = {e.check: e for e in run_claim(claim, profile=QUICK, seed=0).evidence}
    assert by_check["enumeration"].status.value == "failed" and by_check["enumeration"].figure == 1
    assert by_check["montecarlo"].status.value == "passed"  # E (1 + Z)^2 = 2


def test_a_law_averages_exactly_and_builds_joint_and_repeated_laws():
    coin = kit.law([kit.exact([1]), kit.exact([-1])], label="coin")
    pair = coin.stacked(2)
    assert pair.outcomes[0].shape == (4, 1, 2) and sum(pair.weights) == 1
    assert pair.mean(pair.outcomes[0][:, 0, 0] * pair.outcomes[0][:, 0, 1]) == 0  # independent draws
    joint = coin * kit.sign_law(kit.exact([[Fraction(3, 5), Fraction(4, 5)]]))
    assert len(joint) == 8 and [o.shape for o in joint.outcomes] == [(2, 1, 1), (1, 4, 1, 2)]  # broadcast
    V = joint.outcomes[1]
    assert joint.mean(np.sum(V * V, axis=-2)).tolist() == [Fraction(9, 25), Fraction(16, 25)]


@pytest.mark.parametrize("outcomes, weights, message", [
    pytest.param([np.zeros((2, 1))], [1], "leading axes match", id="outcomes and weights of different lengths"),
    pytest.param([np.zeros((2, 1))], [Fraction(1, 2), Fraction(1, 3)], "sum to exactly 1",
                 id="weights not summing to 1"),
    pytest.param([np.zeros((2, 1))], [Fraction(3, 2), Fraction(-1, 2)], "non-negative", id="a negative weight"),
])
def test_a_law_refuses_weights_that_are_not_a_distribution(outcomes, weights, message):
    with pytest.raises(ValueError, match=message):
        kit.Law(outcomes, weights)


def test_design_check_hands_each_law_the_case_it_poses():
    from hypothesis import strategies as st

    from theorems.authoring.templates import design_expectation

    def scaled_coins(n):  # the case n poses two laws: coins of size n and 2n, each with its own claimed E X^2
        return [(m, kit.law([kit.exact([m]), kit.exact([-m])])) for m in (n, 2 * n)]

    claim = design_expectation(
        "t.posed", title="", statement="", source="test", cases=st.integers(1, 5), law=scaled_coins,
        quantity=lambda impl, m, X: X * X, claimed=lambda impl, m: [m * m],
        mc_cases=lambda rng: [1], mc_draw=lambda impl, m, rng, size: (m * rng.standard_normal((size, 1)),),
        mc_label="normal", control=wrong("unused", leverage_scores=lambda K: K))
    assert {e.check: e.status.value for e in run_claim(claim, profile=QUICK, seed=0).evidence} == {
        "enumeration": "passed", "montecarlo": "passed"}


def test_sampled_check_takes_samples_per_level_and_names_per_case():
    from hypothesis import strategies as st

    from theorems.authoring.templates import design_check, sampled_check

    coin = design_check(cases=st.just(1), law=lambda m: kit.law([kit.exact([m]), kit.exact([-m])]),
                        quantity=lambda impl, m, X: X * X, claimed=lambda impl, m: [m * m])
    check = sampled_check("montecarlo", cases=lambda rng: [1, 3], quantity=lambda impl, m, X: X * X,
                          draw=lambda impl, m, rng, size: (m * rng.standard_normal((size, 1)),),
                          claimed=lambda impl, m: [m * m], label="normal", names=lambda m: [f"E X^2 (m={m})"],
                          mc_samples=dict(quick=500, standard=1000, thorough=2000))
    claim = Claim(id="t.sampled", title="", statement="", kind=ClaimKind.EXPECTATION, source="test",
                  checks=(coin, check), negative_control=wrong("unused", leverage_scores=lambda K: K))
    ev = run_claim(claim, profile=QUICK, seed=0).evidence[1]
    assert ev.status.value == "passed" and ev.data["names"] == ["E X^2 (m=1)", "E X^2 (m=3)"]
    assert "500 samples" in ev.detail


def test_levels_nest_the_sizes_of_each_profile_level():
    sizes = kit.levels((4, 8), standard=(16,), thorough=(16, 32))
    assert [PROFILES[level].pick(**sizes) for level in ("quick", "standard", "thorough")] == [
        (4, 8), (4, 8, 16), (4, 8, 16, 32)]
    assert kit.levels([3]) == dict(quick=(3,), standard=(3,), thorough=(3,))


def test_the_input_projector_variant_keeps_the_true_P_and_puts_K_K_T_for_Q():
    from theorems.authoring.templates import gram_input_projector

    K = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
    P, Q = gram_input_projector(K)
    assert np.array_equal(P, linmem.projectors(K)[0]) and np.allclose(Q, K @ K.T)


def test_a_monte_carlo_check_with_a_vector_zero_mean_quantity_checks_each_part():
    """Two zero-mean figures and one claimed one per sample: the sample is
    (batch, 3) per key set, zero-mean parts first; a wrong claim fails."""
    from theorems.authoring.templates import montecarlo_values

    def run(claimed):
        check = montecarlo_values("mc", lambda impl, K, V: np.sum(V ** 2, axis=(1, 2)), claimed,
                                  zero_mean=lambda impl, K, V: V[:, 0, :2], mc_samples=4000)
        return check.run(Context(impl=None, profile=QUICK, seed=5, claim_id="t.mc", check_name="mc"))

    right = run(lambda impl, K: float(K.shape[1]))  # unit value columns: the squares sum to M
    assert right.status.value == "passed", right.detail
    assert run(lambda impl, K: float(K.shape[1]) + 0.5).status.value == "failed"


def test_an_expectation_with_a_zero_mean_part_checks_it_in_both_checks():
    """The values themselves have mean zero under fair signs: the exact
    enumeration and the Monte Carlo check both take that part beside the
    claimed mean, and a true claim passes both."""
    def error(impl, K, V):
        R = kit.store(impl.least_squares_store, K, V) @ K - V
        return np.sum(R * R, axis=-2)

    claim = expectation(
        "t.ls-error-zero-mean", title="E||W_LS k_j - v_j||^2 = 1 - h_j, E V = 0", statement="", source="test",
        quantity=error, claimed=lambda impl, K: 1 - impl.leverage_scores(K), zero_mean=lambda impl, K, V: V,
        control=wrong("none needed", snr=lambda h: h))
    result = run_claim(claim, profile=QUICK, seed=5)
    assert {e.check: e.status.value for e in result.evidence} == {"enumeration": "passed", "montecarlo": "passed"}
