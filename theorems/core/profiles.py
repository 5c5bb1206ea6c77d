"""Profiles: how hard every check works. Chosen by ``--profile`` or the
``THEOREMS_PROFILE`` environment variable; ``quick`` is the default.

Every profile is deterministic: Hypothesis and NumPy are seeded from the run
seed, the claim id and the check name, so a green run replays exactly.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

__all__ = ["BUDGET_ENV", "DEFAULT_PROFILE", "DEFAULT_SEED", "LEVELS", "PROFILES", "Profile", "get_profile",
           "parse_check_budget", "with_check_budget"]

#: Environment variable overriding every profile's ``check_budget_s`` (seconds), as ``--check-budget`` does.
BUDGET_ENV = "THEOREMS_CHECK_BUDGET"

#: The profile levels, cheapest first; :meth:`Profile.pick` chooses among them.
LEVELS = ("quick", "standard", "thorough")

#: The run seed unless ``--seed`` says otherwise.
DEFAULT_SEED = 20261130

DEFAULT_PROFILE = "quick"


@dataclass(frozen=True)
class Profile:
    """Sizes and budgets of one profile.

    ``examples``: Hypothesis examples per float property; ``exact_cases``:
    generated inputs per exact-arithmetic check; ``precise_cases``: inputs per
    precision ladder; ``mc_samples``: Monte Carlo samples per check;
    ``sweep``: multiplier of simulation sweep sizes (1, 2, 4);
    ``check_budget_s``: wall-clock budget of one check before it is an ERROR.
    """

    name: str
    examples: int
    exact_cases: int
    precise_cases: int
    mc_samples: int
    sweep: int
    check_budget_s: float

    def to_json(self) -> dict:
        return asdict(self)

    @property
    def level(self) -> str:
        """``quick``, ``standard`` or ``thorough``: the profile's own name, or
        for another profile the level whose sweep multiplier is nearest."""
        if self.name in LEVELS:
            return self.name
        return min(LEVELS, key=lambda n: abs(PROFILES[n].sweep - self.sweep))

    def pick(self, *, quick, standard, thorough):
        """The value for this profile's level: sizes per profile as data.

        >>> PROFILES["standard"].pick(quick=(8, 16), standard=(8, 16, 32), thorough=(8, 16, 32, 64))
        (8, 16, 32)
        """
        return {"quick": quick, "standard": standard, "thorough": thorough}[self.level]


PROFILES: dict[str, Profile] = {
    "quick": Profile("quick", examples=30, exact_cases=8, precise_cases=3,
                     mc_samples=40_000, sweep=1, check_budget_s=180.0),
    "standard": Profile("standard", examples=120, exact_cases=25, precise_cases=6,
                        mc_samples=200_000, sweep=2, check_budget_s=900.0),
    "thorough": Profile("thorough", examples=600, exact_cases=80, precise_cases=12,
                        mc_samples=1_000_000, sweep=4, check_budget_s=3600.0),
}


def get_profile(name: str | None = None, *, check_budget: float | None = None) -> Profile:
    """The named profile, else ``$THEOREMS_PROFILE``, else ``quick``, with
    the budget of one check from ``check_budget`` (seconds), else
    ``$THEOREMS_CHECK_BUDGET`` (see :func:`with_check_budget`)."""
    name = name or os.environ.get("THEOREMS_PROFILE") or DEFAULT_PROFILE
    if name not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {name!r}")
    return with_check_budget(PROFILES[name], check_budget)


def parse_check_budget(text: str, name: str | None = None) -> float:
    """A check budget in seconds from ``text``: a finite number > 0, else a
    ValueError (its message starting with ``name`` when given).

    >>> parse_check_budget("2.5")
    2.5
    """
    import math

    try:
        value = float(text)
    except (TypeError, ValueError):
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        shown = text if len(str(text)) <= 40 else f"{str(text)[:40]}..."
        raise ValueError(f"{name + ' ' if name else ''}must be a number of seconds > 0, got {shown!r}")
    return value


def with_check_budget(profile: Profile, seconds: float | None = None) -> Profile:
    """``profile`` with ``check_budget_s`` set to ``seconds``, else to
    ``$THEOREMS_CHECK_BUDGET`` when set (a ValueError naming it when it is not
    a number of seconds > 0), else unchanged."""
    from dataclasses import replace

    if seconds is None:
        raw = os.environ.get(BUDGET_ENV)
        if raw is None or raw == "":
            return profile
        seconds = parse_check_budget(raw, BUDGET_ENV)
    return replace(profile, check_budget_s=float(seconds))
