"""Every registered claim's checks, as pytest items (ids ``<claim>::<check>``),
and every negative control shown to make its claim fail."""

from __future__ import annotations

import json

from theorems.model import EvidenceStatus
from theorems.runner import run_check, run_negative_control


def test_claim_check_holds(claim_check, theorems_profile, theorems_seed):
    claim, check = claim_check
    from theorems.impl import Impl

    ev = run_check(claim, check, impl=Impl.default(), profile=theorems_profile, seed=theorems_seed)
    assert ev.status in (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED), (
        f"{claim.id} [{check.name}] {ev.status.value}: {ev.detail}\n"
        f"figure {ev.figure} vs threshold {ev.threshold}\n"
        f"counterexample: {json.dumps(ev.to_json()['counterexample'])[:1500]}\n"
        f"replay: {ev.replay}"
    )


def test_negative_control_makes_claim_fail(claim_control, theorems_profile, theorems_seed):
    outcome = run_negative_control(claim_control, profile=theorems_profile, seed=theorems_seed)
    assert outcome["caught"], (
        f"{claim_control.id}: the wrong variant ({outcome['description']}) was not caught; "
        f"status {outcome['status']}, checks {outcome['checks']}"
    )
