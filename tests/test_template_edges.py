"""Rules fixed when a template builds a claim (at import, where no claim
run traces them): an identity's ladder requires the residual to fall, a
sampled check is described by its ``about`` or else its label."""

from __future__ import annotations

import numpy as np

from theorems.authoring.strategies import keys
from theorems.authoring.templates import identity, sampled_check, wrong
from theorems.core.impl import Impl
from theorems.core.model import Context
from theorems.core.profiles import get_profile

QUICK = get_profile("quick")


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
