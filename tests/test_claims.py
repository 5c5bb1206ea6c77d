"""Every registered claim's checks, as pytest items (ids ``<claim>::<check>``),
and every negative control shown to make its claim fail.

The theorems pytest plugin parametrizes these two tests over the registry
and runs each through the code that ``pytest --theorems`` items run
(:func:`theorems.pytest_plugin.run_claim_check`), with the same markers; with
``-p no:theorems`` they are skipped, and under ``--theorems`` the plugin's
own items replace them."""

from __future__ import annotations

import pytest

_DISABLED = "the theorems pytest plugin is disabled (-p no:theorems)"


def pytest_generate_tests(metafunc):
    if metafunc.config.pluginmanager.has_plugin("theorems"):
        return  # the plugin parametrizes claim_check and claim_control
    for name in ("claim_check", "claim_control"):
        if name in metafunc.fixturenames:
            metafunc.parametrize(name, [pytest.param(None, id="plugin-disabled", marks=pytest.mark.skip(reason=_DISABLED))])


def test_claim_check_holds(claim_check, request):
    from theorems.pytest_plugin import run_claim_check

    claim, check = claim_check
    run_claim_check(request.node, claim, check)


def test_negative_control_makes_claim_fail(claim_control, request):
    from theorems.pytest_plugin import run_negative_control_item

    run_negative_control_item(request.node, claim_control)
