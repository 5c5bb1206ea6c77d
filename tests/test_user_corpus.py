"""A user's claims judged right without tuning: the corpus of
``tests/user_corpus_claims.py`` (true and false statements about
pseudo-inverses, projectors and stores, written with the stock input
families and no ``scale=``) comes out VERIFIED for every true statement and
FAILED for every false one."""

from __future__ import annotations

from pathlib import Path

import pytest

import theorems

CORPUS = Path(__file__).with_name("user_corpus_claims.py")


@pytest.fixture(scope="module")
def corpus_run():
    return theorems.verify(claims=str(CORPUS), only="corpus.*")


def _statuses(run):
    return {c["id"]: c["status"] for c in run.claims}


def test_the_corpus_is_large_enough():
    import importlib.util

    spec = importlib.util.spec_from_file_location("user_corpus_claims", CORPUS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.TRUE) >= 25 and len(module.FALSE) >= 10


def test_every_true_statement_is_verified(corpus_run):
    wrong = {k: v for k, v in _statuses(corpus_run).items() if k.startswith("corpus.true.") and v != "VERIFIED"}
    assert not wrong, wrong


def test_every_false_statement_fails_on_a_genuine_counterexample(corpus_run):
    statuses = _statuses(corpus_run)
    wrong = {k: v for k, v in statuses.items() if k.startswith("corpus.false.") and v != "FAILED"}
    assert not wrong, wrong
    for claim in corpus_run.claims:
        if claim["id"].startswith("corpus.false."):
            failed = [e for e in claim["evidence"] if e["status"] == "failed"]
            assert failed and all(e["counterexample"] is not None for e in failed), claim["id"]


# --- the measured tolerance's pieces -------------------------------------------------------------

import mpmath  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from theorems.evidence import precise  # noqa: E402
from theorems.evidence import property as prop  # noqa: E402
from theorems.core.impl import Impl  # noqa: E402
from theorems.core.model import ClaimKind, Context, EvidenceKind, EvidenceStatus  # noqa: E402
from theorems.core.profiles import get_profile  # noqa: E402


def _ctx(check="c"):
    return Context(impl=Impl.default(), profile=get_profile("quick"), seed=1, claim_id="t.x", check_name=check)


@pytest.mark.parametrize(
    "level, passes",
    [
        pytest.param(lambda dps: mpmath.mpf(10) ** (40 - dps), True, id="ill-conditioned-identity-falls"),
        pytest.param(lambda dps: mpmath.mpf(10) ** (-dps), True, id="well-conditioned-identity-falls"),
        pytest.param(lambda dps: mpmath.mpf("1e-30"), False, id="false-identity-stalls"),
        pytest.param(lambda dps: mpmath.mpf(10) ** (-dps / 10), False, id="too-slow-a-fall"),
    ],
)
def test_the_measured_ladder_judges_the_fall_not_the_level(level, passes):
    ev = precise.check(_ctx(), [("case", None)], lambda case: (level(mpmath.mp.dps), 1), relative=True)
    assert (ev.status is EvidenceStatus.PASSED) is passes, ev.counterexample


def test_a_bound_that_need_not_fall_keeps_half_the_digits_at_the_top_rung():
    tight = precise.check(_ctx(), [("c", None)], lambda c: (mpmath.mpf(10) ** (30 - mpmath.mp.dps), 1),
                          relative=True, falls=False)
    violated = precise.check(_ctx(), [("c", None)], lambda c: (mpmath.mpf("1e-20"), 1), relative=True, falls=False)
    assert tight.status is EvidenceStatus.PASSED and violated.status is EvidenceStatus.FAILED


def test_cases_beyond_float64_are_counted_and_never_a_counterexample():
    def measure(x):
        return prop.BEYOND_FLOAT64 if x % 4 == 0 else 0.5

    ev = prop.check(_ctx(), st.integers(0, 1000), measure, examples=40)
    assert ev.status is EvidenceStatus.PASSED and ev.counterexample is None
    assert ev.data["beyond_float64"] > 0 and ev.data["resolvable"] + ev.data["beyond_float64"] == ev.cases


def test_too_few_resolvable_cases_is_inconclusive_not_failed():
    ev = prop.check(_ctx(), st.integers(0, 1000), lambda x: prop.BEYOND_FLOAT64, examples=20)
    assert ev.status is EvidenceStatus.INCONCLUSIVE and ev.counterexample is None
    assert "beyond float64" in ev.detail


# --- kit.norm: one reduction in all three number systems -----------------------------------------

from fractions import Fraction  # noqa: E402

import numpy as np  # noqa: E402

from theorems.authoring import kit  # noqa: E402

_A = [[1, -2, 0], [3, 4, -1]]


@pytest.mark.parametrize("kind", ["fro", "max", "1", "inf", "2"])
def test_kit_norm_agrees_across_exact_mpmath_and_float(kind):
    reference = {"fro": np.linalg.norm(np.array(_A, float)), "max": 4.0, "1": 6.0, "inf": 8.0,
                 "2": np.linalg.norm(np.array(_A, float), 2)}[kind]
    exact = kit.norm(kit.exact(_A), kind)
    with mpmath.workdps(40):
        precise = kit.norm(kit.to_mp(kit.exact(_A)), kind)
        assert abs(precise - reference) <= 1e-14 * reference
        assert isinstance(precise, mpmath.mpf)
    assert kit.norm(np.array(_A, float), kind) == pytest.approx(reference, rel=1e-15)
    assert float(exact) == pytest.approx(reference, rel=1e-15)
    if kind in ("max", "1", "inf"):
        assert isinstance(exact, Fraction)


def test_kit_norm_is_exact_where_the_root_is_rational_and_refuses_unknown_kinds():
    assert kit.norm(kit.exact([[3, 4]])) == Fraction(5)
    assert kit.norm(kit.exact([Fraction(3, 5), Fraction(4, 5)])) == 1
    with pytest.raises(ValueError, match="kind must be one of"):
        kit.norm(np.ones(2), "nuclear")


# --- one spelling of the control, checked when the claim is built ------------------------------

from theorems.authoring.templates import claim, wrong  # noqa: E402


def test_a_control_naming_an_unknown_formula_is_refused_when_the_claim_is_built():
    with pytest.raises(ValueError, match="did you mean 'least_squares_store'"):
        wrong("typo", least_square_store=lambda K, V: V)


def test_templates_claim_takes_control_like_every_template_and_refuses_the_old_spelling():
    control = wrong("snr doubled", snr=lambda h: 2 * h)
    checks = {"sweep": (EvidenceKind.SIMULATION, lambda ctx: None, "unused")}
    made = claim("t.control-spelling", kind=ClaimKind.ASYMPTOTIC, title="t", statement="s", source="t",
                 checks=checks, control=control)
    assert made.negative_control is control
    for both in (dict(control=control, negative_control=control), dict(negative_control=control)):
        with pytest.raises(TypeError, match="give the negative control as control="):
            claim("t.both", kind=ClaimKind.ASYMPTOTIC, title="t", statement="s", source="t", checks=checks, **both)


def test_an_exact_residual_beyond_float64_is_a_failure_with_an_infinite_figure_not_an_error():
    from theorems.evidence import symbolic

    ev = symbolic.check_exact(_ctx("exact"), st.just(1), lambda x: Fraction(10**400, 3))
    assert ev.status is EvidenceStatus.FAILED and ev.figure == float("inf")
