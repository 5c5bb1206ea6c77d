"""Rules of the templates that no catalogue claim reaches: some fixed when
a template builds a claim (at import, where no claim run traces them: an
identity's ladder requires the residual to fall, a sampled check is
described by its ``about`` or else its label, a kindless check is told its
kind), and some of their checks' corners (an expectation's counterexample, a
design check's later laws, a false bound's enclosure)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import strategies as st

from theorems.authoring import kit, templates
from theorems.authoring.strategies import keys
from theorems.authoring.templates import design_check, expectation, identity, inequality, sampled_check, wrong
from theorems.core.impl import Impl
from theorems.core.model import ClaimKind, Context
from theorems.core.profiles import get_profile
from theorems.core.residuals import at_most
from theorems.core.runner import run_claim

QUICK = get_profile("quick")


def _least_squares_error(impl, K, V):
    """The squared recall error of the least-squares store, per value column (one matrix or a batch)."""
    R = kit.store(impl.least_squares_store, K, V) @ K - V
    return np.sum(R * R, axis=-2)


def test_an_identity_ladder_requires_its_residual_to_fall_with_precision():
    claim = identity("t.doubling", title="K + K = 2K", statement="K + K = 2 K", source="test", inputs=keys(),
                     terms=lambda impl, K: [(K + K, 2 * K)], control=wrong("none needed", snr=lambda h: h))
    ladder = next(c for c in claim.checks if c.name == "ladder")
    ev = ladder.run(Context(impl=Impl.default(), profile=QUICK, seed=3, claim_id=claim.id, check_name="ladder"))
    assert ev.detail.endswith("residual falls with precision"), ev.detail
    assert ev.data["fall_measured_from"]  # the fall was measured, case by case


def test_a_sampled_check_is_described_by_its_about_or_else_its_label():
    parts = dict(cases=lambda rng: [0], draw=lambda impl, case, rng, size: (rng.normal(size=size),),
                 quantity=lambda impl, case, x: x, claimed=lambda impl, case: 0.0)
    assert sampled_check(label="the mean of N(0, 1)", **parts).description == "the mean of N(0, 1)"
    assert sampled_check(label="the mean", about="E x = 0", **parts).description == "E x = 0"
    assert np.isfinite(sampled_check(label="m", **parts).run(
        Context(impl=None, profile=QUICK, seed=1, claim_id="t.m", check_name="montecarlo")).figure)


def test_an_expectations_zero_mean_part_adds_its_squared_mean_to_the_exact_residual():
    claim = expectation(  # the claimed mean is right; the "zero-mean" part V + 1 has mean 1 in every entry
        "t.off-centre", title="E V + 1 = 0 (false)", statement="", source="test", quantity=_least_squares_error,
        claimed=lambda impl, K: 1 - impl.leverage_scores(K), zero_mean=lambda impl, K, V: V + 1,
        control=wrong("none needed", snr=lambda h: h))
    enumeration = next(e for e in run_claim(claim, profile=QUICK, seed=5).evidence if e.check == "enumeration")
    assert enumeration.status.value == "failed"
    K = enumeration.counterexample["input"]["K"]
    assert K.shape == (1, 1)  # the minimal case: one entry, whose part has mean 1 where 0 was claimed
    assert enumeration.counterexample["residual"] == "1" and enumeration.figure == 1.0


def test_an_inequalitys_float_search_is_steered_to_its_bounds_and_an_identitys_is_not(monkeypatch):

    steered = []
    monkeypatch.setattr(templates, "_steer_to_bounds", lambda items: steered.append(len(items)))
    control = wrong("none needed", snr=lambda h: h)
    bound = inequality("t.bound", title="h <= 1", statement="", source="test", inputs=keys(),
                                 terms=lambda impl, K: [at_most(impl.leverage_scores(K), Fraction(1))],
                                 control=control)
    same = identity("t.same", title="K = K", statement="", source="test", inputs=keys(),
                    terms=lambda impl, K: [(K, K)], control=control)

    def float_check(claim):
        check = next(c for c in claim.checks if c.name == "float")
        return check.run(Context(impl=Impl.default(), profile=QUICK, seed=3, claim_id=claim.id, check_name="float"))

    assert float_check(same).status.value == "passed" and steered == []
    assert float_check(bound).status.value == "passed" and steered and set(steered) == {1}


def test_a_false_bound_with_irrational_terms_fails_its_ladder_on_an_enclosure_that_excludes_zero():
    claim = inequality("t.frobenius-below-spectral", title="||K||_F <= ||K||_2 (false)", statement="", source="test",
                       inputs=keys(), terms=lambda impl, K: [at_most(np.linalg.norm(K), np.linalg.norm(K, 2))],
                       control=wrong("none needed", snr=lambda h: h))
    ladder = next(c for c in claim.checks if c.name == "ladder")
    ev = ladder.run(Context(impl=Impl.default(), profile=QUICK, seed=3, claim_id=claim.id, check_name="ladder"))
    assert ev.status.value == "failed"
    assert ev.counterexample["enclosure"]["proved"], ev.counterexample  # the failure is a proof, not a rounding
    control = ladder.run(Context(impl=Impl.default(), profile=QUICK, seed=3, claim_id=claim.id, check_name="ladder",
                                 control=True))
    assert control.status.value == "failed" and "enclosure" not in control.counterexample  # a control: verdict only


def test_a_check_named_after_its_kind_with_a_suffix_is_told_that_kind_when_it_omits_it():
    with pytest.raises(ValueError, match=r"'ladder-small': \(EvidenceKind\.PRECISE, run, about\)"):
        templates.claim("t.kindless", kind=ClaimKind.IDENTITY, checks={"ladder-small": (lambda ctx: None,)},
                        title="t", statement="", source="test")


def test_an_expectations_counterexample_records_its_keys_and_its_value_directions_apart():
    claim = expectation(  # the "zero-mean" part is off-centre only for two or more rows of values
        "t.off-centre-rows", title="E V + [p > 1] = 0 (false)", statement="", source="test",
        quantity=_least_squares_error,
        claimed=lambda impl, K: 1 - impl.leverage_scores(K), zero_mean=lambda impl, K, V: V + (V.shape[-2] > 1),
        control=wrong("none needed", snr=lambda h: h))
    enumeration = next(e for e in run_claim(claim, profile=QUICK, seed=5).evidence if e.check == "enumeration")
    case = enumeration.counterexample["input"]
    assert enumeration.status.value == "failed" and case["K"].shape == (1, 1)
    assert case["W0"].shape == (2, 1) and sum(w * w for w in case["W0"][:, 0]) == 1  # one exactly unit column


def test_a_design_check_judges_every_law_of_a_case_not_only_the_first():
    def laws(m):  # E X^2 = m^2 holds for the first law (X = +-m) and not for the second (X = +-2m)
        return [kit.law([kit.exact([m]), kit.exact([-m])]), kit.law([kit.exact([2 * m]), kit.exact([-2 * m])])]

    check = design_check(cases=st.just(1), law=laws, quantity=lambda impl, m, X: X * X,
                         claimed=lambda impl, m: [m * m])
    ev = check.run(Context(impl=Impl.default(), profile=QUICK, seed=1, claim_id="t.laws", check_name="enumeration"))
    assert ev.status.value == "failed" and ev.counterexample["residual"] == "9"  # (4 - 1)^2
