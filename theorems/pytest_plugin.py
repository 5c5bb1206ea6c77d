"""pytest plugin: every registered claim's checks become test items.

Any test that asks for the ``claim_check`` fixture is parametrized over every
(claim, check) pair, with ids ``<claim id>::<check name>``, so
``pytest -k recall.snr`` selects one claim; ``claim_control`` is parametrized
over every claim with a negative control, with the claim id as the id.

Options: ``--theorems-profile`` (default: ``$THEOREMS_PROFILE`` or quick),
``--theorems-seed``, ``--theorems-claims MODULE`` (extra claim modules).
Registered through the ``pytest11`` entry point of the package.
"""

from __future__ import annotations

import pytest

from theorems.profiles import DEFAULT_SEED, get_profile

__all__ = ["pytest_addoption", "pytest_generate_tests"]


def pytest_addoption(parser):
    group = parser.getgroup("theorems", "claim verification")
    group.addoption("--theorems-profile", default=None, help="quick, standard or thorough")
    group.addoption("--theorems-seed", type=int, default=DEFAULT_SEED, help="run seed of the claim checks")
    group.addoption("--theorems-claims", action="append", default=[], metavar="MODULE",
                    help="also collect claims from MODULE")


def _registry(config):
    from theorems.registry import load_claims

    cache = getattr(config, "_theorems_registry", None)
    if cache is None:
        cache = load_claims(config.getoption("--theorems-claims"))
        config._theorems_registry = cache
    return cache


def pytest_generate_tests(metafunc):
    config = metafunc.config
    if "claim_check" in metafunc.fixturenames:
        pairs = [(c, ch) for c in _registry(config) for ch in c.checks]
        metafunc.parametrize("claim_check", pairs, ids=[f"{c.id}::{ch.name}" for c, ch in pairs])
    if "claim_control" in metafunc.fixturenames:
        claims = [c for c in _registry(config) if c.negative_control is not None]
        metafunc.parametrize("claim_control", claims, ids=[c.id for c in claims])


@pytest.fixture
def theorems_profile(request):
    """The profile claim items run under."""
    return get_profile(request.config.getoption("--theorems-profile"))


@pytest.fixture
def theorems_seed(request) -> int:
    return request.config.getoption("--theorems-seed")
