"""pytest plugin: every registered claim's checks and negative controls as
test items, in any project.

``pytest --theorems`` collects, with no test file needed, one item per check
(id ``<claim id>::<check name>``) and one per negative control (id
``<claim id>::negative-control``) of every claim of the built-in catalogue
and of the ``theorems.claims`` entry points; with ``--theorems-claims
MODULE`` of that module's claims alone (``--theorems-catalogue`` adds the
catalogue and the entry points).
So ``pytest --theorems -k recall.snr`` runs one claim,
``pytest --theorems -m "expectation and montecarlo"`` the Monte Carlo checks
of the expectation claims, and ``pytest --theorems --lf`` the checks that
failed last time. Every item carries the marker ``theorems``, its claim's
kind (``identity``, ``expectation``, ...), and its evidence kind
(``property``, ``montecarlo``, ...) or ``negative_control``; all are
registered, so ``--strict-markers`` accepts them.

A test that asks for the ``claim_check`` fixture (a ``(claim, check)``
pair) or ``claim_control`` (a claim) is parametrized the same way, with the
same markers, and runs its item through :func:`run_claim_check` /
:func:`run_negative_control_item`, the code ``--theorems`` items run (this
repository's ``tests/test_claims.py`` does that; under ``--theorems`` those
parametrized copies are deselected, so nothing runs twice).

Options: ``--theorems-profile`` (default: ``$THEOREMS_PROFILE`` or quick),
``--theorems-seed``, ``--theorems-claims MODULE`` (repeatable),
``--theorems-catalogue``, ``--theorems-check-budget SECONDS`` (or
``$THEOREMS_CHECK_BUDGET``).
Each item runs in a worker process forked for it (as ``theorems verify``
runs each claim): a check that crashes its process (a segfault, an abort,
``os._exit``, the OOM killer) or spins past its budget where the alarm cannot
reach it fails its item with the cause and the check, and the session goes
on; once a check of a claim ran past its budget, the claim's later check
items fail as not run. ``--theorems-in-process`` runs the items in the pytest
process instead (for ``--pdb`` and breakpoints; a crashing check then ends
the session).
An item whose last run at the same settings passed (or, for a control,
caught its wrong variant) is reported passed from the reuse cache, ``PASSED
(reused)``, without running, when no function it executed, data file it read
or package version has changed since (:mod:`theorems.scale.reuse`, as
``theorems verify`` reuses a claim; the terminal summary counts them):
``--theorems-fresh`` runs every item (still recording), ``THEOREMS_CACHE=off``
turns reuse off. Items that failed, errored or were skipped always run.
Hypothesis's own options act on the checks: ``--hypothesis-seed`` is mixed
into every check's seed (other cases, same claim); ``--hypothesis-profile``
(or ``$HYPOTHESIS_PROFILE``) sets the number of Hypothesis examples, the
profiles ``theorems-quick``, ``theorems-standard`` and ``theorems-thorough``
being the theorems profiles themselves; either option also turns on
Hypothesis's example database (in the theorems cache folder).
``--hypothesis-show-statistics`` shows the statistics of each check.
Without a Hypothesis option, a verdict depends only on the code, the
theorems profile and the theorems seed.

Registered through the ``pytest11`` entry point of the package; disable with
``-p no:theorems``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
from pathlib import Path

import pytest

from theorems.core.model import ClaimKind, EvidenceKind, EvidenceStatus
from theorems.core.profiles import DEFAULT_SEED, PROFILES, get_profile

__all__ = [
    "ClaimCheckItem",
    "NegativeControlItem",
    "hypothesis_profile_name",
    "run_claim_check",
    "run_negative_control_item",
]

#: Marker of every claim item.
THEOREMS_MARKER = "theorems"
#: Marker of the negative-control items.
CONTROL_MARKER = "negative_control"
#: Name of the negative-control item of a claim: ``<claim id>::negative-control``.
CONTROL_NAME = "negative-control"

_STATE = pytest.StashKey[dict]()


def hypothesis_profile_name(profile_name: str) -> str:
    """The Hypothesis profile that stands for a theorems profile.

    >>> hypothesis_profile_name("standard")
    'theorems-standard'
    """
    return f"theorems-{profile_name}"


def _marker_lines() -> list[str]:
    claim = {k.value for k in ClaimKind}
    evidence = {k.value for k in EvidenceKind}
    lines = [f"{THEOREMS_MARKER}: a claim item collected by the theorems plugin",
             f"{CONTROL_MARKER}: a claim's negative control (its checks on a wrong variant)"]
    for name in sorted(claim | evidence):
        roles = [r for r, names in (("claims of kind", claim), ("checks of evidence kind", evidence)) if name in names]
        lines.append(f"{name}: theorems {' / '.join(roles)} {name}")
    return lines


def _seed_option(text: str) -> int:
    from theorems.cli import _nonneg_int

    return _nonneg_int(text)


def _budget_option(text: str) -> float:
    from theorems.cli import _budget_arg

    return _budget_arg(text)


def _fail_on_option(text: str):
    from theorems.cli import _fail_on_arg

    return _fail_on_arg(text)


#: The claim status a check's evidence status gives its claim.
_CLAIM_STATUS = {EvidenceStatus.FAILED: "FAILED", EvidenceStatus.ERROR: "ERROR",
                 EvidenceStatus.NOT_SUPPORTED: "NOT SUPPORTED", EvidenceStatus.INCONCLUSIVE: "INCONCLUSIVE"}


def pytest_addoption(parser):
    group = parser.getgroup("theorems", "claim verification")
    group.addoption("--theorems", action="store_true", default=False,
                    help="collect every registered claim's checks and negative controls as test items")
    group.addoption("--theorems-profile", default=None, choices=sorted(PROFILES),
                    help="quick, standard or thorough (default: $THEOREMS_PROFILE or quick)")
    group.addoption("--theorems-seed", type=_seed_option, default=DEFAULT_SEED,
                    help=f"run seed of the claim checks (default {DEFAULT_SEED})")
    group.addoption("--theorems-claims", action="append", default=[], metavar="MODULE",
                    help="collect the claims of MODULE (import name or path to a .py file) instead of the "
                         "catalogue; repeatable")
    group.addoption("--theorems-catalogue", action="store_true", default=False,
                    help="with --theorems-claims, collect the built-in catalogue (and the theorems.claims "
                         "entry points) too")
    group.addoption("--theorems-in-process", action="store_true", default=False,
                    help="run each claim item in the pytest process (for a debugger); by default each runs "
                         "in a worker process forked for it, so that a check that crashes or hangs its "
                         "process fails its item alone")
    group.addoption("--theorems-fresh", action="store_true", default=False,
                    help="run every claim item, reusing no earlier result (what each runs is still recorded); by "
                         "default an item whose last run at these settings passed is reported passed from the "
                         "reuse cache when no function it executed, data file it read or package version has "
                         "changed since (THEOREMS_CACHE=off turns reuse off)")
    group.addoption("--theorems-check-budget", type=_budget_option, default=None, metavar="SECONDS",
                    help="wall-clock budget of one check, overriding the profile's and "
                         "$THEOREMS_CHECK_BUDGET")
    group.addoption("--theorems-fail-on", default=None, metavar="STATUS,...", type=_fail_on_option,
                    help="statuses whose checks fail their item, as theorems verify --fail-on (default "
                         "FAILED,ERROR,BLOCKED,NOT_SUPPORTED); a check that does not pass and is not in "
                         "the set is skipped with its reason")


def _hypothesis_profile_option(config) -> str | None:
    return config.getoption("--hypothesis-profile", None) or os.environ.get("HYPOTHESIS_PROFILE") or None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    for line in _marker_lines():
        config.addinivalue_line("markers", line)
    hyp = _hypothesis_profile_option(config)
    if config.getoption("--theorems") or (hyp or "").startswith("theorems-"):
        # Before Hypothesis's own plugin loads --hypothesis-profile.
        _register_hypothesis_profiles()
    config.stash[_STATE] = {}
    if config.getoption("--theorems-claims"):
        _registry(config)  # a module that cannot load is a usage error before collection


def _register_hypothesis_profiles() -> None:
    from hypothesis import settings

    for name, profile in PROFILES.items():
        settings.register_profile(hypothesis_profile_name(name), max_examples=profile.examples, deadline=None)


def _state(config) -> dict:
    return config.stash.setdefault(_STATE, {})


def _registry(config):
    from theorems.core.registry import load_claims

    from theorems.core.registry import ClaimsModuleError

    state = _state(config)
    if "registry" not in state:
        modules = config.getoption("--theorems-claims")
        try:
            claims = list(load_claims(modules))
        except (ClaimsModuleError, OSError, ImportError, ValueError) as exc:
            # as theorems verify --claims: one line, a usage error (exit 4), no INTERNALERROR
            raise pytest.UsageError(f"--theorems-claims: {' '.join(str(exc).split())}") from None
        if modules and not config.getoption("--theorems-catalogue"):
            # the user's claims alone (they may still depend on catalogue claims: validated above)
            catalogue = set(load_claims().ids())
            claims = [c for c in claims if c.id not in catalogue]
        state["registry"] = claims
    return state["registry"]


def _profile(config):
    """The theorems profile of the claim items, with Hypothesis's profile
    option mapped onto it (see the module docstring)."""
    state = _state(config)
    if "profile" in state:
        return state["profile"]
    explicit = config.getoption("--theorems-profile") or os.environ.get("THEOREMS_PROFILE")
    profile = get_profile(explicit)
    hyp = _hypothesis_profile_option(config)
    if hyp:
        from hypothesis import settings
        from hypothesis.errors import InvalidArgument

        by_hypothesis_name = {hypothesis_profile_name(n): n for n in PROFILES}
        if hyp in by_hypothesis_name:
            _register_hypothesis_profiles()
            if not explicit:
                profile = PROFILES[by_hypothesis_name[hyp]]
        else:
            try:
                examples = settings.get_profile(hyp).max_examples
            except InvalidArgument:
                raise pytest.UsageError(
                    f"Hypothesis profile {hyp!r} (--hypothesis-profile or $HYPOTHESIS_PROFILE) is not "
                    "registered; register it in a conftest.py, or use one of "
                    f"{sorted(by_hypothesis_name)}"
                ) from None
            # The profile's example count replaces the property examples; the
            # exact-input searches scale with it.
            ratio = examples / profile.examples
            profile = dataclasses.replace(
                profile, examples=int(examples), exact_cases=max(1, round(profile.exact_cases * ratio))
            )
    from theorems.core.profiles import with_check_budget

    try:
        profile = with_check_budget(profile, config.getoption("--theorems-check-budget"))
    except ValueError as exc:  # $THEOREMS_CHECK_BUDGET
        raise pytest.UsageError(str(exc)) from None
    state["profile"] = profile
    return profile


def _hypothesis_options(config) -> dict:
    seed = config.getoption("--hypothesis-seed", None)
    if seed is not None:
        try:
            seed = int(seed)
        except ValueError:
            pass
    explicit = seed is not None or bool(_hypothesis_profile_option(config))
    return {"seed": seed, "database": explicit}


def _marks(claim, check=None) -> list:
    names = [THEOREMS_MARKER, claim.kind.value]
    names.append(check.kind.value if check is not None else CONTROL_MARKER)
    return [getattr(pytest.mark, n) for n in dict.fromkeys(names)]


def _claim_file(claim) -> Path | None:
    for fn in [c.run for c in claim.checks]:
        try:
            return Path(inspect.getsourcefile(fn) or "")
        except TypeError:
            continue
    return None


# ---------------------------------------------------------------------------
# running one item (shared by --theorems items and parametrized tests)


def _failure_message(claim, ev) -> str:
    lines = [f"{claim.id} [{ev.check}] {ev.status.value}: {ev.detail}"]
    if ev.figure is not None or ev.threshold is not None:
        lines.append(f"figure {ev.figure}, required {ev.comparison} {ev.threshold}")
    if ev.counterexample is not None:
        lines.append(f"counterexample: {json.dumps(ev.to_json()['counterexample'])[:1500]}")
    tb = (ev.data or {}).get("traceback")
    if tb and ev.status is EvidenceStatus.ERROR:
        lines.append(tb.rstrip())
    lines.append(f"replay: {ev.replay}")
    return "\n".join(lines)


def run_claim_check(node, claim, check):
    """Run one check as the pytest item ``node``: pass on PASSED, SUPPORTED
    or ANSWERED evidence, skip on INCONCLUSIVE (the profile cannot resolve
    the criterion; the reason is shown), fail otherwise with the figure, the
    counterexample and the replay command. Returns the evidence."""
    from theorems.evidence._common import hypothesis_run
    from theorems.core.impl import Impl
    from theorems.core.runner import OVERRAN, _sendable, death_evidence, run_check

    config = node.config
    profile = _profile(config)
    seed = config.getoption("--theorems-seed")
    modules = tuple(config.getoption("--theorems-claims"))
    overran = _state(config).setdefault("overran", {})
    if claim.id in overran:  # as theorems verify: a claim that overran a budget costs one budget, not one per check
        pytest.fail(f"{claim.id} [{check.name}] not run: check {overran[claim.id]!r} of this claim ran past "
                    f"its budget of {profile.check_budget_s:g} s, so the claim's remaining checks were not run",
                    pytrace=False)

    store, key = _reuse(config, claim, check.name)
    stored = store.lookup_item(key) if store is not None else None
    if stored is not None:
        ev = _reused_evidence(stored["result"])
        if ev is not None and ev.check == check.name and ev.status in _PASSING:
            node.user_properties.append(("theorems_evidence", ev.to_json()))
            node.user_properties.append(("theorems_reused", stored["run"]))
            return ev

    def task(announce):
        stats: list[dict] = []
        with _recording(config, store) as recorder:
            with hypothesis_run(**_hypothesis_options(config)) as hypothesis, _statistics(node, stats, show=False):
                ev = run_check(claim, check, impl=Impl.default(), profile=profile, seed=seed,
                               claims_modules=modules, hypothesis=hypothesis)
        return (_sendable(ev), json.loads(json.dumps(stats, default=str)) if stats else stats,
                recorder.record() if recorder is not None else None)

    answer = _supervised(config, task, profile, ("claim", check.name))
    if isinstance(answer, tuple):
        ev, stats, executed = answer
        _show_statistics(node, stats)
        if store is not None and ev.status in _PASSING and not (isinstance(ev.data, dict) and OVERRAN in ev.data):
            store.store_item(key, ev.to_json(), executed)
    else:
        ev = death_evidence(claim, check, answer, impl=Impl.default(), profile=profile, seed=seed,
                            claims_modules=modules)
    if isinstance(ev.data, dict) and OVERRAN in ev.data:
        overran[claim.id] = check.name
    node.user_properties.append(("theorems_evidence", ev.to_json()))
    if ev.status in (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED, EvidenceStatus.ANSWERED):
        return ev
    from theorems.core.model import DEFAULT_FAIL_ON, Status

    fail_on = config.getoption("--theorems-fail-on")
    fail_on = DEFAULT_FAIL_ON if fail_on is None else fail_on
    if Status(_CLAIM_STATUS[ev.status]) not in fail_on:  # the verdict verify --fail-on would give
        if ev.status is EvidenceStatus.INCONCLUSIVE:
            pytest.skip(f"{claim.id} [{check.name}] inconclusive at this profile: {ev.detail}")
        pytest.skip(f"{claim.id} [{check.name}] {ev.status.value}, not in --theorems-fail-on: {ev.detail}")
    pytest.fail(_failure_message(claim, ev), pytrace=False)


def run_negative_control_item(node, claim) -> dict:
    """Run a claim's negative control as the pytest item ``node``: pass when
    the wrong variant makes the claim fail."""
    from theorems.evidence._common import hypothesis_run
    from theorems.core.controls import missed_text
    from theorems.core.runner import death_cause, run_negative_control

    config = node.config
    profile = _profile(config)
    store, key = _reuse(config, claim, CONTROL_NAME)
    stored = store.lookup_item(key) if store is not None else None
    if stored is not None and isinstance(stored["result"], dict) and stored["result"].get("caught") is True:
        node.user_properties.append(("theorems_reused", stored["run"]))
        return stored["result"]

    def task(announce):
        with _recording(config, store) as recorder:
            with hypothesis_run(**_hypothesis_options(config)) as hypothesis:
                outcome = run_negative_control(claim, profile=profile, seed=config.getoption("--theorems-seed"),
                                               hypothesis=hypothesis, announce=announce)
        return outcome, recorder.record() if recorder is not None else None

    answer = _supervised(config, task, profile, None)
    outcome = answer[0] if isinstance(answer, tuple) else answer
    if isinstance(answer, tuple) and store is not None and outcome.get("caught") is True \
            and outcome.get("status") != "ERROR":
        store.store_item(key, outcome, answer[1])
    if not isinstance(outcome, dict):
        running = outcome.step[1] if outcome.step else "?"
        pytest.fail(f"{claim.id}: the negative control's {death_cause(running, outcome, profile)}", pytrace=False)
    if not outcome["caught"]:
        pytest.fail(
            f"{claim.id}: the wrong variant ({outcome['description']}) was not caught: {missed_text(outcome)}; "
            f"status {outcome['status']}, checks {outcome['checks']}",
            pytrace=False,
        )
    return outcome


_PASSING = (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED, EvidenceStatus.ANSWERED)


def _reuse(config, claim, item: str):
    """The session's reuse store (None: THEOREMS_CACHE=off) and the key of
    one item (:func:`theorems.scale.reuse.item_key`)."""
    state = _state(config)
    if "reuse" not in state:
        from theorems.reporting.report import source_state
        from theorems.scale.reuse import default_store

        # asking for Hypothesis's statistics asks for the run that makes them
        lookup = not (config.getoption("--theorems-fresh") or config.getoption("--hypothesis-show-statistics", False))
        state["reuse"] = default_store(lookup=lookup, source=source_state)
    store = state["reuse"]
    if store is None:
        return None, None
    from theorems.scale.reuse import clear_memos, install_probes, item_key

    # here, before the item's worker forks: it inherits the probes and this process's record of its memos
    install_probes()  # the modules loaded since the last item
    if not state.get("memos_emptied"):
        clear_memos()  # once: every memo entry is then filled under the probes
        state["memos_emptied"] = True

    key = item_key(claim.id, item, profile=_profile(config), seed=config.getoption("--theorems-seed"),
                   claims_modules=config.getoption("--theorems-claims"), options=_hypothesis_options(config))
    return store, key


class _recording:
    """A :class:`theorems.scale.reuse.Recorder` around one item's run (in its
    worker or in this process), or nothing when reuse is off."""

    def __init__(self, config, store):
        self.config, self.store, self.recorder = config, store, None

    def __enter__(self):
        if self.store is None:
            return None
        from theorems.scale.reuse import Recorder

        self.recorder = Recorder(None, bool(_state(self.config).get("memos_emptied")))
        return self.recorder.__enter__()

    def __exit__(self, *exc):
        if self.recorder is not None:
            self.recorder.__exit__(*exc)
        return False


def _reused_evidence(data):
    from theorems.scale.reuse import evidence_from_json

    try:
        return evidence_from_json(data)
    except (KeyError, ValueError, TypeError, AttributeError):
        return None


def pytest_report_teststatus(report, config):
    """A claim item reused from an earlier run shows as passed from the reuse cache."""
    if report.when == "call" and report.passed and any(name == "theorems_reused"
                                                       for name, _ in getattr(report, "user_properties", ())):
        return "passed", ".", ("PASSED (reused)", {"green": True})
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    reused = [r for r in terminalreporter.stats.get("passed", [])
              if any(name == "theorems_reused" for name, _ in getattr(r, "user_properties", ()))]
    if reused:
        terminalreporter.write_line(
            f"theorems: {len(reused)} claim items passed from the reuse cache (nothing they executed changed "
            "since they last passed; --theorems-fresh runs them all)")


def _supervised(config, task, profile, step):
    """``task(announce)`` in a worker process forked for it (see
    :func:`theorems.core.runner.call_supervised`: its value, or a ``Died``
    record), or here with ``--theorems-in-process`` (``announce`` None)."""
    if config.getoption("--theorems-in-process"):
        return task(None)
    from theorems.core.runner import call_supervised

    return call_supervised(task, profile=profile, step=step)


def _show_statistics(node, sink: list) -> None:
    """Put the statistics ``sink`` collected where Hypothesis's pytest plugin shows them."""
    if not sink:
        return
    from hypothesis.statistics import describe_statistics

    parts = []
    for i, stats in enumerate(sink, 1):
        stats["nodeid"] = node.nodeid + (f" (search {i})" if len(sink) > 1 else "")
        parts.append(describe_statistics(stats))
    node.hypothesis_statistics = "\n".join(parts)


class _statistics:
    """Hypothesis's statistics of the ``@given`` runs inside one check, put
    where Hypothesis's pytest plugin shows them (``--hypothesis-show-statistics``),
    or with ``show=False`` only collected in ``sink``."""

    def __init__(self, node, sink: list, show: bool = True):
        self.node, self.sink, self.cm, self.show = node, sink, None, show

    def __enter__(self):
        if not self.node.config.getoption("--hypothesis-show-statistics", False):
            return self
        from hypothesis.statistics import collector

        def note(stats):
            self.sink.append(dict(stats))

        self.cm = collector.with_value(note)
        self.cm.__enter__()
        return self

    def __exit__(self, *exc):
        if self.cm is None:
            return False
        self.cm.__exit__(*exc)
        if self.show:
            _show_statistics(self.node, self.sink)
        return False


# ---------------------------------------------------------------------------
# collection


class ClaimCheckItem(pytest.Item):
    """One check of one claim: ``<claim id>::<check name>``."""

    def __init__(self, *, claim, check, **kwargs):
        super().__init__(**kwargs)
        self.claim, self.check = claim, check
        for mark in _marks(claim, check):
            self.add_marker(mark)

    def runtest(self):
        run_claim_check(self, self.claim, self.check)

    def reportinfo(self):
        return _claim_file(self.claim) or self.path, None, f"{self.claim.id} [{self.check.name}]"


class NegativeControlItem(pytest.Item):
    """A claim's negative control: ``<claim id>::negative-control``."""

    def __init__(self, *, claim, **kwargs):
        super().__init__(**kwargs)
        self.claim = claim
        for mark in _marks(claim):
            self.add_marker(mark)

    def runtest(self):
        run_negative_control_item(self, self.claim)

    def reportinfo(self):
        return _claim_file(self.claim) or self.path, None, f"{self.claim.id} [negative control]"


def _items(session) -> list[pytest.Item]:
    items: list[pytest.Item] = []
    for claim in _registry(session.config):
        for check in claim.checks:
            nodeid = f"{claim.id}::{check.name}"
            items.append(ClaimCheckItem.from_parent(session, name=nodeid, nodeid=nodeid, claim=claim, check=check))
        if claim.negative_control is not None:
            nodeid = f"{claim.id}::{CONTROL_NAME}"
            items.append(NegativeControlItem.from_parent(session, name=nodeid, nodeid=nodeid, claim=claim))
    return items


def _is_parametrized_claim_test(item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and ("claim_check" in callspec.params or "claim_control" in callspec.params)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """With ``--theorems``: add the claim items (before -k, -m and --lf
    select), and deselect tests parametrized over the same claims."""
    if not config.getoption("--theorems"):
        return
    copies = [it for it in items if _is_parametrized_claim_test(it)]
    if copies:
        items[:] = [it for it in items if not _is_parametrized_claim_test(it)]
        config.hook.pytest_deselected(items=copies)
    claim_items = _items(session)
    # Counted as collected (the terminal's "collected N items"), like a file's items.
    config.hook.pytest_collectreport(report=pytest.CollectReport("theorems", "passed", None, claim_items))
    items.extend(claim_items)


def pytest_collection_finish(session):
    """Settle the profile once collection is done (conftest files have
    registered their Hypothesis profiles), so a bad one is a usage error."""
    if any(isinstance(it, (ClaimCheckItem, NegativeControlItem)) or _is_parametrized_claim_test(it)
           for it in session.items):
        _profile(session.config)


def pytest_report_header(config):
    if not config.getoption("--theorems"):
        return None
    profile = _profile(config)
    return (f"theorems: profile {profile.name} ({profile.examples} Hypothesis examples), "
            f"seed {config.getoption('--theorems-seed')}")


def pytest_generate_tests(metafunc):
    config = metafunc.config
    if "claim_check" in metafunc.fixturenames:
        pairs = [(c, ch) for c in _registry(config) for ch in c.checks]
        metafunc.parametrize("claim_check", [
            pytest.param((c, ch), id=f"{c.id}::{ch.name}", marks=_marks(c, ch)) for c, ch in pairs
        ])
    if "claim_control" in metafunc.fixturenames:
        claims = [c for c in _registry(config) if c.negative_control is not None]
        metafunc.parametrize("claim_control", [pytest.param(c, id=c.id, marks=_marks(c)) for c in claims])


@pytest.fixture
def theorems_profile(request):
    """The profile claim items run under."""
    return _profile(request.config)


@pytest.fixture
def theorems_seed(request) -> int:
    return request.config.getoption("--theorems-seed")
