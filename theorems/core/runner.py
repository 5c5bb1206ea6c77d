"""Run claims: every check under a profile and a seed, each isolated (an
exception, a NaN figure or an overrun budget makes that check an ERROR and
the run goes on), then each claim's status derived from its evidence and
from the status of the claims it depends on."""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
import traceback
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from theorems.core.impl import Impl
from theorems.core.model import (
    Check,
    Claim,
    DEFAULT_FAIL_ON,
    ClaimKind,
    Context,
    Evidence,
    EvidenceStatus,
    Status,
)
from theorems.core.profiles import DEFAULT_SEED, Profile

__all__ = [
    "BUDGET_GRACE_S",
    "CheckTimeout",
    "ClaimResult",
    "OVERRAN",
    "RunResult",
    "WORKER_ENDED",
    "call_supervised",
    "death_cause",
    "death_evidence",
    "derive_status",
    "run",
    "run_check",
    "run_claim",
    "run_negative_control",
]


class CheckTimeout(BaseException):
    """A check ran past the profile's ``check_budget_s``.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that Hypothesis, which
    treats an ``Exception`` raised in a test as a failing example and keeps
    shrinking, lets it through and the check stops at its budget."""


#: After the budget, the alarm is repeated at this interval (seconds) until the check stops: an exception
#: raised while Python runs a weakref callback or a finaliser (garbage collection can start anywhere) is
#: swallowed as "unraisable", so one alarm alone could be lost and the check run on unbounded.
BUDGET_ALARM_REPEAT_S = 0.1

#: How long past its budget a check in a supervised worker may take to stop before the parent kills the
#: worker (seconds): the alarm cannot interrupt C code that never returns to Python bytecode, nor a check
#: that blocked SIGALRM.
BUDGET_GRACE_S = 5.0


@contextmanager
def _budget(seconds: float):
    """Raise CheckTimeout in the main thread after ``seconds``.

    A watchdog thread sends SIGALRM to the main thread itself
    (``signal.pthread_kill``: a process-wide alarm could land on a library's
    thread, a dask cluster's or an executor's, and a check sleeping in C
    would overrun), and repeats it every :data:`BUDGET_ALARM_REPEAT_S` until
    the check stops (one alarm can be swallowed, see there). A signal still in
    flight when the check ends is ignored; the watchdog is joined before the
    previous handler comes back."""
    usable = (
        hasattr(signal, "pthread_kill")
        and threading.current_thread() is threading.main_thread()
        and seconds > 0
    )
    if not usable:
        yield
        return
    done = threading.Event()
    main = threading.main_thread().ident

    def on_alarm(signum, frame):
        if not done.is_set():
            raise CheckTimeout(f"check exceeded its budget of {seconds:g} s")

    def watchdog():
        wait = seconds
        while not done.wait(wait):
            signal.pthread_kill(main, signal.SIGALRM)
            wait = BUDGET_ALARM_REPEAT_S

    hook = sys.unraisablehook

    def drop_swallowed_alarms(unraisable):
        # the alarm that landed in a finaliser: expected, and repeated until one lands in the check
        if not isinstance(unraisable.exc_value, CheckTimeout):
            hook(unraisable)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    sys.unraisablehook = drop_swallowed_alarms
    dog = threading.Thread(target=watchdog, name="theorems-check-budget", daemon=True)
    dog.start()
    try:
        yield
    finally:
        done.set()
        dog.join()
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = hook


@dataclass
class ClaimResult:
    claim: Claim
    status: Status
    evidence: list[Evidence]
    seconds: float
    blocked_by: list[str] = field(default_factory=list)
    negative_control: dict | None = None
    #: what the run executed (:meth:`theorems.scale.reuse.Recorder.record`), when it was recorded
    executed: dict | None = None
    #: where a result reused from an earlier run comes from (:class:`theorems.scale.reuse.Reused`)
    reused: Any = None


@dataclass
class RunResult:
    results: list[ClaimResult]
    profile: Profile
    seed: int
    seconds: float
    started: float

    def counts(self) -> dict[str, int]:
        out = {s.value: 0 for s in Status}
        for r in self.results:
            out[r.status.value] += 1
        return out

    fail_on: frozenset = DEFAULT_FAIL_ON

    @property
    def ok(self) -> bool:
        """No claim has a status in ``fail_on`` (default: FAILED, ERROR,
        BLOCKED, NOT SUPPORTED) and no negative control that was run went
        uncaught (a check that cannot fail proves nothing)."""
        return not any(r.status in self.fail_on for r in self.results) and not any(
            r.negative_control and r.negative_control.get("caught") is False for r in self.results)


#: ``cache=`` of the run functions: the sweep cache of ``$THEOREMS_CACHE`` (theorems.scale.sweepcache).
FROM_ENVIRONMENT = "from-environment"


def resolve_run_cache(cache: Any = FROM_ENVIRONMENT) -> Any:
    """The sweep cache a run passes to its checks: :data:`FROM_ENVIRONMENT`
    (the default) -> ``theorems.scale.sweepcache.default_cache()``, else as
    ``resolve_cache`` reads it (``None``/``False`` off, a folder, an object
    with key/get/put)."""
    from theorems.scale import sweepcache

    if isinstance(cache, str) and cache == FROM_ENVIRONMENT:
        return sweepcache.default_cache()
    return sweepcache.resolve_cache(cache)


def _context(claim: Claim, check: Check, impl: Impl, profile: Profile, seed: int,
             claims_modules: tuple[str, ...] = (), cache: Any = None, executor: Any = None,
             hypothesis: Any = None, control_index: int = 0) -> Context:
    return Context(
        cache=None if impl.overridden else cache,
        executor=executor,
        hypothesis=hypothesis,
        control=bool(impl.overridden),
        control_index=control_index,
        impl=impl,
        profile=profile,
        seed=claim.seed_for(seed, check.name),
        claim_id=claim.id,
        check_name=check.name,
        run_seed=seed,
        claims_modules=tuple(claims_modules),
    )


def _describe_exception(exc: BaseException) -> str:
    """``Type: message`` of ``exc``, whatever its ``__str__`` does."""
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - a message that cannot be rendered
        text = "<message could not be rendered>"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _this_package():
    import theorems

    return theorems


def _raised_where(exc: BaseException) -> str:
    """``file:line in function`` of the deepest frame that raised ``exc``
    outside this package and Hypothesis (the user's code), else the deepest."""
    import os

    import hypothesis

    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    ours = tuple(os.path.dirname(os.path.abspath(m.__file__)) + os.sep for m in (hypothesis, _this_package()))
    theirs = [f for f in frames if not os.path.abspath(f.filename).startswith(ours)]
    last = (theirs or frames)[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"


def _number(value, name: str) -> float | None:
    """``value`` as a float (None stays None), or ValueError saying why it is not one."""
    import mpmath
    import numpy as np

    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (complex, np.complexfloating, mpmath.mpc)):
        raise ValueError(f"{name} must be a real number, got the complex {value!r:.80}")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating, mpmath.mpf)):
        import fractions

        if not isinstance(value, fractions.Fraction):
            raise ValueError(f"{name} must be a real number, got {type(value).__name__} {value!r:.80}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{name} must fit a float, got {type(value).__name__} of "
                         f"{len(str(abs(int(value))))} digits") from None


#: How a figure may be compared with its threshold (``Evidence.comparison``).
_COMPARISONS = ("<=", "<", ">=", ">")


def _figure_meets_threshold(ev: Evidence) -> bool:
    """Does ``ev.figure`` meet ``ev.threshold`` by ``ev.comparison`` (True
    when either is missing: nothing to cross-check)?"""
    if ev.figure is None or ev.threshold is None:
        return True
    f, t = ev.figure, ev.threshold
    return {"<=": f <= t, "<": f < t, ">=": f >= t, ">": f > t}[ev.comparison]


def _invalid_evidence(ev: Evidence) -> str | None:
    """Why ``ev`` cannot go into a report (a field of the wrong type, a
    number that is no real float, data that is not JSON-able: cyclic, a lone
    surrogate), or None. Figures and thresholds are made Python floats."""
    import json

    from theorems.core.model import EvidenceKind

    if not isinstance(ev.status, EvidenceStatus):
        return f"status must be an EvidenceStatus, got {type(ev.status).__name__} {ev.status!r:.80}"
    if not isinstance(ev.kind, EvidenceKind):
        return f"kind must be an EvidenceKind, got {type(ev.kind).__name__} {ev.kind!r:.80}"
    try:
        ev.figure = _number(ev.figure, "figure")
        ev.threshold = _number(ev.threshold, "threshold")
        ev.seconds = _number(ev.seconds, "seconds") or 0.0
    except ValueError as exc:
        return str(exc)
    for name in ("check", "detail", "comparison", "replay"):
        if not isinstance(getattr(ev, name), str):
            return f"{name} must be a str, got {type(getattr(ev, name)).__name__}"
    if ev.comparison not in _COMPARISONS:
        return f"comparison must be one of {', '.join(_COMPARISONS)}, got {ev.comparison!r:.80}"
    if not isinstance(ev.data, dict):
        return f"data must be a dict, got {type(ev.data).__name__}"
    try:
        json.dumps(ev.to_json(), allow_nan=False, ensure_ascii=False).encode("utf-8")
    except RecursionError:
        return "its data or counterexample contains itself (or nests too deep to write)"
    except UnicodeEncodeError as exc:
        return f"it holds text that is not valid Unicode ({exc.reason}: {exc.object[exc.start:exc.end]!a})"
    except (TypeError, ValueError, OverflowError) as exc:
        return f"it cannot be written as JSON: {type(exc).__name__}: {exc}"
    return None


def run_check(claim: Claim, check: Check, *, impl: Impl, profile: Profile, seed: int,
              claims_modules: tuple[str, ...] = (), cache: Any = FROM_ENVIRONMENT,
              executor: Any = None, hypothesis: Any = None, control_index: int = 0) -> Evidence:
    """Run one check; never raises (a crash becomes an ERROR record), except
    on ``KeyboardInterrupt``: any other exception, ``SystemExit`` (a
    ``sys.exit`` in a check), ``GeneratorExit`` or ``CheckTimeout`` included,
    makes this check an ERROR naming the exception, with where it was raised
    (``data["raised_at"]``, the deepest frame outside this package and
    Hypothesis) and the traceback (``data["traceback"]``).
    ``claims_modules`` (user claim modules) go into the replay command;
    ``cache``, ``executor`` and ``hypothesis`` (the options
    ``theorems.evidence._common.hypothesis_run`` yields) reach the check in
    its context; ``control_index``: which of the claim's controls ``impl`` carries."""
    from theorems.evidence._common import replay_command

    ctx = _context(claim, check, impl, profile, seed, claims_modules, resolve_run_cache(cache), executor,
                   hypothesis, control_index)
    start = time.perf_counter()
    try:
        with _budget(profile.check_budget_s):
            ev = check.run(ctx)
        if not isinstance(ev, Evidence):
            raise TypeError(f"check returned {type(ev).__name__}, not Evidence")
        bad = _invalid_evidence(ev)
        if bad is not None:
            return Evidence(check=check.name, kind=check.kind, status=EvidenceStatus.ERROR,
                            seconds=time.perf_counter() - start, seeds=[ctx.seed],
                            detail=f"the check returned unusable evidence: {bad}", replay=replay_command(ctx))
        if ev.kind is not check.kind:
            # the claim's required evidence is judged on the declared kinds
            ev.status = EvidenceStatus.ERROR
            ev.detail = (f"check {check.name!r} is declared as {check.kind.value} evidence but returned "
                         f"{ev.kind.value} evidence; " + ev.detail)
        # Charge the check with everything its run did, not only the part its
        # checker timed: a sweep's shared precomputation (a cached LP sweep
        # that several checks read) runs inside the first check that needs it.
        ev.seconds = max(float(ev.seconds or 0.0), time.perf_counter() - start)
        if ev.figure is not None and math.isnan(ev.figure):
            ev.status = EvidenceStatus.ERROR
            ev.detail = "the check measured NaN; " + ev.detail
        elif ev.status is EvidenceStatus.PASSED and not _figure_meets_threshold(ev):
            # a check's verdict is read from its own figure too: "passed" with the figure past its threshold
            # is a contradiction in the check (a flipped test, a misreported figure), never a pass
            ev.status = EvidenceStatus.ERROR
            ev.detail = (f"the check says passed but its figure {ev.figure:.6g} is not {ev.comparison} its "
                         f"threshold {ev.threshold:.6g}; " + ev.detail)
        return ev
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - isolation is the point: SystemExit, GeneratorExit too
        data = {"raised_at": _raised_where(exc), "traceback": traceback.format_exc(limit=8)[-4000:]}
        if isinstance(exc, CheckTimeout):
            data[OVERRAN] = profile.check_budget_s
        return Evidence(
            check=check.name,
            kind=check.kind,
            status=EvidenceStatus.ERROR,
            seconds=time.perf_counter() - start,
            seeds=[ctx.seed],
            detail=_describe_exception(exc),
            data=data,
            replay=replay_command(ctx),
        )


def derive_status(claim: Claim, evidence: Sequence[Evidence], dep_status: dict[str, Status]) -> tuple[Status, list[str]]:
    """Status from evidence, then dependencies (see ARCHITECTURE.md, Statuses)."""
    if claim.kind is ClaimKind.UNDERSPECIFIED:
        return Status.UNDERSPECIFIED, []
    states = {e.status for e in evidence}
    if EvidenceStatus.ERROR in states:
        return Status.ERROR, []
    if EvidenceStatus.FAILED in states:
        return Status.FAILED, []
    if EvidenceStatus.NOT_SUPPORTED in states:
        return Status.NOT_SUPPORTED, []
    not_ok = [d for d in claim.depends_on if d in dep_status and not dep_status[d].ok]
    blocked = [d for d in not_ok if dep_status[d] is not Status.INCONCLUSIVE]
    if blocked:
        return Status.BLOCKED, blocked
    if not_ok or EvidenceStatus.INCONCLUSIVE in states:
        # Built on (or itself) a criterion this profile cannot resolve.
        return Status.INCONCLUSIVE, not_ok
    if EvidenceStatus.ANSWERED in states:
        return Status.ANSWERED, []
    if EvidenceStatus.SUPPORTED in states:
        return Status.SUPPORTED, []
    return Status.VERIFIED, []


#: ``data`` key of the evidence of a check that ran past its budget (the budget, seconds).
OVERRAN = "overran_budget_s"
#: ``data`` key of the evidence of a check whose worker process ended while it ran (exit code, signal, ...).
WORKER_ENDED = "worker_ended"

def _not_run(claim: Claim, check: Check, overran: Evidence, impl: Impl, profile: Profile, seed: int,
             claims_modules: tuple[str, ...]) -> Evidence:
    """The ERROR record of a check left out because ``overran`` ran past its budget."""
    from theorems.evidence._common import replay_command

    ctx = _context(claim, check, impl, profile, seed, claims_modules)
    return Evidence(check=check.name, kind=check.kind, status=EvidenceStatus.ERROR, seeds=[ctx.seed],
                    detail=f"not run: check {overran.check!r} of this claim ran past its budget of "
                           f"{overran.data[OVERRAN]:g} s, so the claim's remaining checks were not run",
                    data={"not_run": True, "overran": overran.check}, replay=replay_command(ctx))


def _run_checks(claim: Claim, impl: Impl, profile: Profile, seed: int,
                claims_modules: tuple[str, ...] = (), cache: Any = None, executor: Any = None,
                hypothesis: Any = None, *, phase: str = "claim",
                announce: Callable[..., None] | None = None, checks: Sequence[Check] | None = None,
                control_index: int = 0, reads: dict | None = None) -> list[Evidence]:
    """Every check of ``claim`` (or those of ``checks``, a control's aim), in
    order (``reads``, when given, gets each check's overridden formulas
    looked up, :meth:`Impl.take_reads`); once one ran past its budget the
    rest are not run (each an ERROR record saying so), so that a hanging
    claim costs one budget, not one per check. In a supervised worker,
    ``announce`` (its pipe to the parent) hears ``("check", phase, name)``
    before each check and, in the ``claim`` phase, ``("evidence", ev)`` after."""
    out: list[Evidence] = []
    overran: Evidence | None = None
    checks = claim.checks if checks is None else tuple(checks)
    for c in checks:
        if overran is not None:
            ev = _not_run(claim, c, overran, impl, profile, seed, claims_modules)
        else:
            if announce is not None:
                announce("check", phase, c.name)
            impl.take_reads()
            ev = run_check(claim, c, impl=impl, profile=profile, seed=seed, claims_modules=claims_modules,
                           cache=cache, executor=executor, hypothesis=hypothesis, control_index=control_index)
            if reads is not None:
                reads[c.name] = impl.take_reads()
            if isinstance(ev.data, dict) and OVERRAN in ev.data:
                overran = ev
                left = [x.name for x in checks[len(out) + 1:]]
                if left:
                    ev.detail += f"; the claim's remaining checks were not run ({', '.join(left)})"
        out.append(ev)
        if announce is not None and phase == "claim":
            announce("evidence", _sendable(ev))
    return out


def _answers(evidence: list[Evidence]) -> dict:
    """A question's answers: each check's ``data["answers"]`` where it has one."""
    return {e.check: e.data["answers"] for e in evidence if isinstance(getattr(e, "data", None), dict)
            and "answers" in e.data}


def run_negative_control(claim: Claim, *, profile: Profile, seed: int = DEFAULT_SEED,
                         evidence: list[Evidence] | None = None, executor: Any = None,
                         hypothesis: Any = None, announce: Callable[..., None] | None = None) -> dict:
    """Run each of the claim's controls (:attr:`Claim.controls`): the checks
    it is aimed at, on its wrong variant. Each check is judged alone
    (:mod:`theorems.core.controls`): caught when it fails (NOT SUPPORTED for a
    sweep; for a question, also when its answer moves from the right
    variant's, its ``evidence`` at the same profile and seed, run here when
    not given), not applicable with its reason (an exact check on terms
    irrational on every case, a check the control declares it cannot
    reach, a check that looked up none of the formulas the control replaces),
    missed otherwise. A control is ``caught`` only when every
    applicable check it runs catches it; the claim's record is
    :func:`theorems.core.controls.summarise` of them all."""
    from theorems.core.controls import judge_control, summarise

    if not claim.controls:
        return {"description": None, "caught": None, "status": None, "checks": {}}
    right = None
    if claim.kind is ClaimKind.QUESTION:
        right = _answers(evidence if evidence is not None else _run_checks(
            claim, Impl.default(), profile, seed, cache=resolve_run_cache(), executor=executor, hypothesis=hypothesis,
            phase="control", announce=announce))
    judged = []
    for k, nc in enumerate(claim.controls):
        impl = Impl.default().with_overrides(nc.overrides)
        # which replaced formulas each check looked up: only seen in this process, so not with an executor
        reads: dict | None = {} if executor is None else None
        # no cache under a wrong variant (its context's cache is None)
        wrong_evidence = _run_checks(claim, impl, profile, seed, executor=executor, hypothesis=hypothesis,
                                     phase="control", announce=announce,
                                     checks=[c for c in claim.checks if nc.runs(c.name)], control_index=k,
                                     reads=reads)
        status, _ = derive_status(claim, wrong_evidence, {})
        judged.append(judge_control(claim, nc, wrong_evidence, status, right_answers=right, reads=reads))
    return summarise(claim, judged)


def run_claim(claim: Claim, *, profile: Profile, seed: int = DEFAULT_SEED, impl: Impl | None = None,
              controls: bool = False, claims_modules: tuple[str, ...] = (), cache: Any = FROM_ENVIRONMENT,
              executor: Any = None, announce: Callable[..., None] | None = None) -> ClaimResult:
    """Run a claim's checks (status derived without dependencies); ``cache``
    (:func:`resolve_run_cache`) and ``executor`` reach the checks in their
    context; ``announce``: a supervised worker's pipe to its parent (see
    :func:`_run_checks`)."""
    start = time.perf_counter()
    evidence = _run_checks(claim, impl or Impl.default(), profile, seed, claims_modules,
                           resolve_run_cache(cache), executor, announce=announce)
    status, _ = derive_status(claim, evidence, {})
    nc = (run_negative_control(claim, profile=profile, seed=seed, evidence=evidence, executor=executor,
                               announce=announce) if controls else None)
    return ClaimResult(claim, status, evidence, time.perf_counter() - start, [], nc)


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it stops the
    workers); a worker interrupted mid-check would print its own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and end the workers now (shutdown alone
    would wait for every running claim to finish)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    # cancel first: a worker ended first breaks the pool, and the executor then fails
    # every waiting task with BrokenProcessPool before shutdown could cancel it
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    for proc in procs:
        proc.join(timeout=5)


def _sendable(ev: Evidence) -> Evidence:
    """``ev`` as it can cross to the parent: data or a counterexample that
    cannot be pickled (a lambda, a generator, an open file) become what the
    report would write of them anyway, so a worker gives the serial run's report."""
    import pickle

    from theorems.core.model import jsonable

    try:
        pickle.dumps(ev)
    except Exception:  # noqa: BLE001 - whatever a check put there
        ev.data, ev.counterexample = jsonable(ev.data), jsonable(ev.counterexample)
    return ev


def _global_state() -> tuple:
    """The global state a claim could change and leave behind: mpmath's
    working precision, the ``random`` module's and NumPy's global generators."""
    import random

    import mpmath
    import numpy as np

    return mpmath.mp.prec, random.getstate(), np.random.get_state()


def _restore_global_state(state: tuple) -> None:
    import random

    import mpmath
    import numpy as np

    prec, python_random, numpy_random = state
    mpmath.mp.prec = prec
    random.setstate(python_random)
    np.random.set_state(numpy_random)


def _run_claim_recorded(claim: Claim, record: bool, memos_emptied: bool = False, **kw) -> ClaimResult:
    """:func:`run_claim`, recording what it executed (``result.executed``) when
    ``record``; ``memos_emptied``: this process's memos were emptied before
    its first recorded claim (:class:`theorems.scale.reuse.Recorder`)."""
    if not record:
        return run_claim(claim, **kw)
    from theorems.scale.reuse import Recorder

    with Recorder(kw.get("cache"), memos_emptied) as recorder:
        result = run_claim(claim, **kw)
    result.executed = recorder.record()
    if result.executed is not None and kw.get("executor") is not None:
        # the sweeps' instances ran on the executor's workers, where nothing is recorded
        result.executed["remote"] = True
    return result


def _claim_handler(claims: list[Claim], *, profile: Profile, seed: int, impl: Impl | None, controls: bool,
                   claims_modules: tuple[str, ...], cache: Any,
                   record: bool) -> Callable[[int, Callable[..., None]], ClaimResult]:
    """What a supervised worker runs for the claim at an index of ``claims``:
    its checks and its control, each check announced to the parent (``send``,
    see :func:`_run_checks`), from the global state the worker started with;
    with ``record``, what it executed travels back in ``result.executed``."""
    start_state = _global_state()
    emptied = False  # per worker (forked with the closure): its memos were emptied
    if record:
        from theorems.scale.reuse import install_probes

        install_probes()  # here, before the workers fork: each inherits the probed functions

    def handle(i: int, send: Callable[..., None]) -> ClaimResult:
        nonlocal emptied
        if record and not emptied:
            from theorems.scale.reuse import clear_memos

            clear_memos()  # every memo this worker reads is then filled by one of its recorded claims
            emptied = True
        _restore_global_state(start_state)
        result = _run_claim_recorded(claims[i], record, emptied, profile=profile, seed=seed, impl=impl,
                                     controls=controls, claims_modules=claims_modules, cache=cache, announce=send)
        result.claim = None  # claims hold functions; the parent re-attaches its own
        for ev in result.evidence:
            _sendable(ev)
        return result

    return handle


def death_cause(check_name: str, died, profile: Profile) -> str:
    """What ended the worker running ``check_name``
    (:class:`theorems.scale.supervise.Died`), in words."""
    if died.killed:
        return (f"check {check_name!r} ran past its budget of {profile.check_budget_s:g} s and did not stop "
                f"{BUDGET_GRACE_S:g} s later (the budget's alarm cannot end code that never returns to Python, "
                "such as a loop in C, or a check that blocked the alarm); its worker process was killed")
    return f"check {check_name!r}: {died.describe()}"


def death_evidence(claim: Claim, check: Check, died, *, impl: Impl, profile: Profile, seed: int,
                   claims_modules: tuple[str, ...] = ()) -> Evidence:
    """The ERROR record of ``check`` whose worker ended while it ran (``died``)."""
    from theorems.evidence._common import replay_command

    ctx = _context(claim, check, impl, profile, seed, claims_modules)
    data = {WORKER_ENDED: died.to_json()}
    if died.killed:
        data[OVERRAN] = profile.check_budget_s
    return Evidence(check=check.name, kind=check.kind, status=EvidenceStatus.ERROR, seconds=died.step_seconds,
                    seeds=[ctx.seed], detail=death_cause(check.name, died, profile) + "; the run went on in a "
                    "fresh worker", data=data, replay=replay_command(ctx))


def _worker_died(claim: Claim, died, received: list[Evidence], *, profile: Profile, seed: int, impl: Impl | None,
                 controls: bool, claims_modules: tuple[str, ...], seconds: float) -> ClaimResult:
    """The result of ``claim`` whose worker ended before it answered
    (:class:`theorems.scale.supervise.Died`): the evidence it had sent, an ERROR
    for the check that was running naming the cause, and an ERROR for each
    check that did not run; a death in the negative control leaves the
    claim's own evidence and makes the control ERROR (not caught)."""
    from theorems.evidence._common import replay_command

    impl = impl or Impl.default()
    phase, running = died.step if died.step is not None else ("claim", None)
    evidence = list(received)
    negative_control = None
    if phase == "claim":
        done = {e.check for e in evidence}
        stopped: str | None = None
        for check in claim.checks:
            if check.name in done:
                continue
            ctx = _context(claim, check, impl, profile, seed, claims_modules)
            if stopped is None and (running is None or running == check.name):
                stopped = check.name
                evidence.append(death_evidence(claim, check, died, impl=impl, profile=profile, seed=seed,
                                               claims_modules=claims_modules))
            else:
                evidence.append(Evidence(check=check.name, kind=check.kind, status=EvidenceStatus.ERROR,
                                         seeds=[ctx.seed], data={"not_run": True},
                                         detail=f"not run: the worker process running check {stopped!r} of "
                                                "this claim ended (see that check)",
                                         replay=replay_command(ctx)))
        if stopped is None and evidence:  # every check had answered: it died in the runner's own code after them
            last = evidence[-1]
            last.status = EvidenceStatus.ERROR
            last.detail = f"after this check the claim's worker: {died.describe()}; " + last.detail
    elif claim.negative_control is not None:
        negative_control = {"description": claim.negative_control.description, "status": Status.ERROR.value,
                            "caught": False, "checks": {running: EvidenceStatus.ERROR.value},
                            "detail": "the negative control's " + death_cause(running, died, profile)}
    result = ClaimResult(claim, Status.ERROR, evidence, seconds, [], negative_control)
    result.status, _ = derive_status(claim, evidence, {})
    return result


def call_supervised(task: Callable[[Callable[..., None]], Any], *, profile: Profile,
                    step: tuple[str, str] | None = None) -> Any:
    """``task(announce)`` in a supervised worker forked from this process for
    it: its return value (it must pickle), or the
    :class:`theorems.scale.supervise.Died` record of a worker that ended
    before it answered or that stayed in a check :data:`BUDGET_GRACE_S` past
    the profile's budget (``step``: the ``(phase, check name)`` the task
    starts in; ``announce`` passed to :func:`run_negative_control` names each
    check as it starts). The pytest plugin runs each item so."""
    from theorems.scale.supervise import Answer, Died, Worker, wait_any

    allowance = profile.check_budget_s + BUDGET_GRACE_S if profile.check_budget_s > 0 else None

    def handle(_task, send):
        return task(send)

    def on_message(worker, message):
        if message[0] == "check":
            worker.set_step((message[1], message[2]), allowance)
        elif message[0] == "evidence":
            worker.set_step(None, None)

    worker = Worker(handle)
    try:
        worker.submit("call", "call")  # ``handle`` runs ``task`` whatever it is sent; a tag marks the worker busy
        if step is not None:
            worker.set_step(step, allowance)
        while not (worker.collect(on_message) or worker.kill_if_overdue(time.monotonic())):
            wait = None if worker.deadline is None else max(0.0, worker.deadline - time.monotonic()) + 0.01
            wait_any([worker], wait)
    except BaseException:
        worker.stop()
        raise
    step_now, since = worker.step, worker.step_started
    answer = worker.take()
    if isinstance(answer, Answer):
        worker.close()
        if answer.kind == "raised":
            return Died(None, step_now, time.monotonic() - since, raised=answer.value)
        return answer.value
    return answer


def _settle_supervised(claims: list[Claim], *, jobs: int, profile: Profile, seed: int, impl: Impl | None,
                       controls: bool, claims_modules: tuple[str, ...], cache: Any,
                       estimates: dict[str, float], settle: Callable[[Claim, ClaimResult], None],
                       record: bool = False) -> None:
    """Run the claims in ``jobs`` warm supervised workers, longest first by
    ``estimates`` (claims without one first: they may be long), and
    ``settle`` the results in the order of ``claims`` (dependencies come
    first) as they become available. A worker that dies or overruns a
    check's budget by :data:`BUDGET_GRACE_S` costs its claim alone
    (:func:`_worker_died`) and is replaced by a fresh one. Any exception here
    (Ctrl-C, SIGTERM) ends every worker and propagates."""
    from theorems.scale.supervise import Answer, Died, Worker, wait_any

    order = sorted(range(len(claims)), key=lambda i: (claims[i].id in estimates,
                                                      -estimates.get(claims[i].id, 0.0), i))
    pending = list(reversed(order))  # pop() takes the next to start
    handler = _claim_handler(claims, profile=profile, seed=seed, impl=impl, controls=controls,
                             claims_modules=claims_modules, cache=cache, record=record)
    received: dict[int, list[Evidence]] = {}
    done: dict[int, ClaimResult] = {}
    allowance = profile.check_budget_s + BUDGET_GRACE_S if profile.check_budget_s > 0 else None
    next_settle = 0

    def on_message(worker: Worker, message: tuple) -> None:
        if message[0] == "check":
            worker.set_step((message[1], message[2]), allowance)
        elif message[0] == "evidence":
            received[worker.tag].append(message[1])
            worker.set_step(None, None)

    workers: list[Worker] = []
    try:
        workers.extend(Worker(handler) for _ in range(jobs))
        while next_settle < len(claims):
            for k, worker in enumerate(workers):
                if worker.busy or not pending:
                    continue
                if worker.dead:  # ended while idle (killed from outside)
                    worker.stop()
                    workers[k] = worker = Worker(handler)
                i = pending.pop()
                received[i] = []
                worker.submit(i, i)
            now = time.monotonic()
            deadlines = [w.deadline for w in workers if w.busy and w.deadline is not None]
            wait_any(workers, max(0.0, min(deadlines) - now) + 0.01 if deadlines else None)
            now = time.monotonic()
            for k, worker in enumerate(workers):
                if not worker.busy or not (worker.collect(on_message) or worker.kill_if_overdue(now)):
                    continue
                i, claim = worker.tag, claims[worker.tag]
                seconds = now - worker.started
                step, since = worker.step, worker.step_started
                answer = worker.take()
                if isinstance(answer, Answer) and answer.kind == "raised":  # the runner's own code failed there
                    answer = Died(None, step, now - since, raised=answer.value)
                if isinstance(answer, Died):
                    done[i] = _worker_died(claim, answer, received.pop(i), profile=profile, seed=seed, impl=impl,
                                           controls=controls, claims_modules=claims_modules, seconds=seconds)
                    if answer.raised is None:  # a fresh worker in its place
                        worker.stop()
                        workers[k] = Worker(handler)
                else:
                    received.pop(i)
                    result = answer.value
                    result.claim = claim
                    done[i] = result
            while next_settle in done:
                settle(claims[next_settle], done.pop(next_settle))
                next_settle += 1
    except BaseException:
        for worker in workers:
            worker.stop()
        raise
    for worker in workers:
        worker.close()


def run(
    claims: Iterable[Claim],
    *,
    profile: Profile,
    seed: int = DEFAULT_SEED,
    impl: Impl | None = None,
    controls: bool = False,
    jobs: int | None = None,
    progress: Callable[[int, int, ClaimResult], None] | None = None,
    claims_modules: Sequence[str] = (),
    fail_on: Iterable[Status] = DEFAULT_FAIL_ON,
    cache: Any = FROM_ENVIRONMENT,
    executor: Any = None,
    in_process: bool = False,
    estimates: dict[str, float] | None = None,
    reuse: Any = None,
) -> RunResult:
    """Run ``claims`` (in dependency order) and derive every status.

    By default every claim runs in its own supervised worker process, forked
    from this one, ``jobs`` at a time (default: the cores this process may
    use, :func:`theorems.scale.supervise.default_jobs`): a check that ends its
    process (a segfault, an abort, ``os._exit``, the OOM killer) or spins past
    its budget where the alarm cannot reach it makes that claim ERROR, naming
    the cause and the check, and the run goes on. ``estimates`` (claim id ->
    seconds, e.g. the last run's) start the longest claims first.
    ``in_process=True`` runs the claims here, one after the other (for a
    debugger; a crashing check then ends the run); so does a run given an
    ``executor`` (where the sweeps run, e.g. dask; ``jobs`` must then be
    None or 1). Results are settled in dependency order either way (a
    dependency only decides BLOCKED, never whether a claim runs).
    ``claims_modules`` names the user claim modules loaded, so that replay
    commands load them too. ``fail_on``: the statuses that make
    :attr:`RunResult.ok` false. A KeyboardInterrupt stops the worker
    processes at once and propagates. ``cache`` (:func:`resolve_run_cache`,
    resolved once for the run) and ``executor`` reach every check in its
    context: the run keeps no module state. ``reuse``
    (:class:`theorems.scale.reuse.ReuseStore`, None: off) settles a claim
    from its stored result when nothing its last run executed has changed
    (``result.reused`` says from which run), records what every other claim
    executes and stores its result (not under ``impl``).
    """
    fail_on = frozenset(fail_on)
    bad = [s for s in fail_on if not isinstance(s, Status)]
    if bad:
        raise TypeError(f"fail_on must hold Status members, got {bad!r}")
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise ValueError(f"jobs must be an int >= 1 or None (one per core), got {jobs!r}")
    claims = list(claims)
    modules = tuple(claims_modules)
    cache = resolve_run_cache(cache)
    if executor is not None and jobs is not None and jobs > 1:
        raise ValueError(f"jobs={jobs} with an executor: the claims run here and their sweeps on the executor; "
                         "give one or the other")
    started = time.time()
    t0 = time.perf_counter()
    raw: dict[str, ClaimResult] = {}
    statuses: dict[str, Status] = {}
    if impl is not None:
        reuse = None  # a result under other formulas is never stored nor taken
    keys: dict[str, dict] = {}
    reused: dict[str, ClaimResult] = {}
    if reuse is not None:
        from theorems.scale.reuse import run_key

        for claim in claims:
            keys[claim.id] = run_key(claim.id, profile=profile, seed=seed, controls=controls, claims_modules=modules)
            found = reuse.lookup(claim, keys[claim.id])
            if found is not None:
                reused[claim.id] = ClaimResult(claim, found.status, found.evidence, found.seconds, [],
                                               found.negative_control, reused=found.reused)
    settled = [0]  # claims settled so far, in the order of ``claims``

    def settle_one(claim: Claim, res: ClaimResult) -> None:
        # Claims arrive in dependency order, so every dependency is settled.
        res.status, res.blocked_by = derive_status(claim, res.evidence, statuses)
        statuses[claim.id] = res.status
        raw[claim.id] = res
        settled[0] += 1
        if progress:
            progress(settled[0], len(claims), res)

    def settle_reused() -> None:
        # the reused claims from the next one to settle up to the first that ran (or the end)
        while settled[0] < len(claims) and claims[settled[0]].id in reused:
            settle_one(claims[settled[0]], reused[claims[settled[0]].id])

    def settle(claim: Claim, res: ClaimResult) -> None:
        settle_reused()  # the claims that ran settle in the claims' order: ``claim`` is the next that ran
        if reuse is not None:
            reuse.store(res, keys[claim.id], res.executed)
        settle_one(claim, res)

    to_run = [c for c in claims if c.id not in reused]
    record = reuse is not None
    if in_process or executor is not None:
        start_state = _global_state()
        if record:
            from theorems.scale.reuse import clear_memos

            clear_memos()
        for claim in to_run:
            _restore_global_state(start_state)  # each claim from the same state, as in a worker
            settle(claim, _run_claim_recorded(claim, record, record, profile=profile, seed=seed, impl=impl,
                                              controls=controls, claims_modules=modules, cache=cache,
                                              executor=executor))
        _restore_global_state(start_state)
    elif to_run:
        from theorems.scale.supervise import default_jobs

        _settle_supervised(to_run, jobs=min(jobs or default_jobs(), len(to_run)), profile=profile, seed=seed,
                           impl=impl, controls=controls, claims_modules=modules, cache=cache,
                           estimates=dict(estimates or {}), settle=settle, record=record)
    settle_reused()
    if reuse is not None:
        reuse.reused = len(reused)
    return RunResult([raw[c.id] for c in claims], profile, seed, time.perf_counter() - t0, started,
                     fail_on=fail_on)
