"""The ``theorems`` command: list, show and verify the claims; render and
compare reports.

Exit status of ``verify``: 0 when no claim has a status in the fail-on set
(``--fail-on``; default FAILED, ERROR, BLOCKED, NOT SUPPORTED) and every
negative control run was caught; 1 otherwise. ``stability`` exits 1 when a
claim comes out with more than one status across the seeds. Every command
exits 2 for a usage error, with one line naming the option, the value and
what is needed (never a traceback), 3 when its results could not be written
(an ``OSError`` such as a full disk; one line, the previous reports kept),
130 on Ctrl-C and 143 on SIGTERM (the workers stopped; they also
end within a second when this process is killed outright), with one line saying
the previous reports were kept. A claim whose check ends its worker process
(a segfault, an abort, ``os._exit``, the OOM killer) or outlives its budget is
ERROR (exit 1), the other claims run on and the reports are written. ``--out`` and the sweep cache
(``$THEOREMS_CACHE``) are checked before any claim runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Sequence

from theorems.reporting.folder import WriteFailed, written
from theorems.core.profiles import DEFAULT_SEED, PROFILES, get_profile

__all__ = ["main"]


def _registry(args):
    from theorems.core.registry import load_claims

    return load_claims(args.claims or ())


def _catalogue(args):
    """The claims to list or show: the cached metadata index of the built-in
    catalogue when it suffices (no claim module is imported), else the registry."""
    from theorems.index import catalogue

    return catalogue(args.claims or ())


def _run_context(args, profile, progress, claims):
    """What surrounds a verify run: Hypothesis's files in the theorems cache
    folder and, with ``--observe``, the observations file. Returns the
    progress callback and the claims to use, and the context to close."""
    from contextlib import ExitStack

    from theorems.evidence._common import hypothesis_run

    if getattr(args, "observe", None):
        _check_observe_path(args)  # before the stack: a refused path leaves nothing open
    stack = ExitStack()
    stack.enter_context(hypothesis_run())
    if getattr(args, "observe", None):
        from theorems.reporting.observe import Observer

        try:
            observer = stack.enter_context(Observer(args.observe, profile=profile.name, seed=args.seed))
        except BaseException:
            stack.close()
            raise
        claims = observer.wrap(claims)
        progress = observer.with_progress(progress)
    return progress, claims, stack


def _check_observe_path(args) -> None:
    """``--observe`` may not name a claims module of the run or a file of
    its report set (the observations would overwrite it)."""
    from theorems.reporting.report import REPORT_FILES

    target = Path(args.observe).resolve()
    for spec in args.claims or ():
        if Path(spec).is_file() and Path(spec).resolve() == target:
            raise UsageError(f"--observe {args.observe!r} is the claims module {spec!r}; "
                             "give the observations a file of their own")
    out = Path(getattr(args, "out", None) or "reports").resolve()
    if target.parent == out and target.name in REPORT_FILES:
        raise UsageError(f"--observe {args.observe!r} is the {target.name} of the report set in {str(out)!r}; "
                         "give the observations a file of their own")


def _version() -> str:
    import platform

    from theorems import __version__

    return f"theorems {__version__} (linmem-theorems, Python {platform.python_version()})"


_VERIFY_DESCRIPTION = """\
Run the checks of the selected claims (every claim by default) under a
profile and a seed, derive each claim's status from its evidence and its
dependencies, and write report.json, report.md, report.html and junit.xml
to --out. The same profile and seed give the same verdicts.

profiles (--profile, or $THEOREMS_PROFILE):
  {profiles}
kinds (--kind):
  {kinds}

exit status:
  0  no claim has a status in --fail-on (default FAILED, ERROR, BLOCKED,
     NOT SUPPORTED) and every negative control run (--controls) was caught
  1  otherwise; a claim whose check crashes its worker process (a
     segfault, an abort, os._exit with any code, the OOM killer) or runs
     past its budget (--check-budget) is ERROR naming the cause and the
     check, and the other claims run on
  2  usage error (one line naming the option and the value)
  3  the reports could not be written (disk full, no permission); one line
     saying where and why; the previous reports are kept
  130  interrupted (Ctrl-C); the previous reports are kept
  143  terminated (SIGTERM); the previous reports are kept. The
       workers end with this process, even when it is killed (SIGKILL)
"""


def _verify_description() -> str:
    from theorems.core.model import ClaimKind

    profiles = "; ".join(
        f"{p.name}{' (default)' if p.name == 'quick' else ''}: {p.examples} Hypothesis examples, "
        f"{p.mc_samples:,} Monte Carlo samples, sweeps x{p.sweep}" for p in PROFILES.values())
    kinds = ", ".join(k.value for k in ClaimKind)
    return _VERIFY_DESCRIPTION.format(profiles=textwrap.fill(profiles, 74, subsequent_indent="  "),
                                      kinds=textwrap.fill(kinds, 74, subsequent_indent="  "))


def _select(args, registry) -> list:
    """The claims ``--only`` and ``--kind`` choose from ``registry``; a
    selection that matches no claim is a usage error, found before anything
    runs or any report is replaced."""
    from theorems.core.registry import select

    claims = select(registry, args.only or (), kinds=args.kind or ())
    if not claims:
        given = " ".join([f"--only {p!r}" for p in args.only or ()] + [f"--kind {k}" for k in args.kind or ()])
        raise UsageError(f"{given}: the selection matches no claim (of {len(registry)}); "
                         "see `theorems list` for the ids and kinds")
    return claims


def _cmd_list(args) -> int:
    claims = _select(args, _catalogue(args))
    if args.json:
        print(json.dumps([
            {"id": c.id, "title": c.title, "kind": c.kind.value, "source": c.source,
             "depends_on": list(c.depends_on), "checks": [ch.name for ch in c.checks]}
            for c in claims
        ], indent=2))
        return 0
    width = max(len(c.id) for c in claims)
    for c in claims:
        print(f"{c.id:<{width}}  {c.kind.value:<14} {c.title}")
    print(f"\n{len(claims)} claims")
    return 0


def _cmd_show(args) -> int:
    c = _catalogue(args).get(args.id)  # an unknown id is a KeyError: exit 2 with its message
    print(f"{c.id}: {c.title}")
    print(f"  kind:       {c.kind.value}")
    print(f"  source:     {c.source}")
    print(f"  statement:  {c.statement}")
    for a in c.assumptions:
        print(f"  assumes:    {a}")
    if c.depends_on:
        print(f"  depends on: {', '.join(c.depends_on)}")
    if c.reason:
        print(f"  why not checkable: {c.reason}")
    for ch in c.checks:
        print(f"  check {ch.name} [{ch.kind.value}]: {ch.description}")
    for nc in c.controls:
        aim = f" (aimed at {', '.join(nc.aimed_at)})" if nc.aimed_at else ""
        print(f"  negative control: {nc.description}{aim}")
        for name, why in nc.not_applicable.items():
            print(f"    not applicable to check {name}: {why}")
    return 0


def _warn_math_fallbacks(report: dict, command: str) -> None:
    from theorems.reporting.html import math_fallbacks

    for f in math_fallbacks(report):
        print(f"theorems {command}: warning: report.html shows the LaTeX of {f.claim} ({f.where}) as source: "
              f"{f.error}", file=sys.stderr)


class UsageError(ValueError):
    """A bad option value found after parsing; the message names the option."""


#: Exit status when the results could not be written (disk full, permission
#: lost, the folder removed during the run); the previous reports are kept.
EXIT_WRITE_FAILED = 3


def _fail_on_arg(text: str) -> frozenset:
    """``--fail-on``: statuses separated by commas (``NOT_SUPPORTED`` or
    ``'NOT SUPPORTED'``, any case), or ``none``."""
    from theorems.core.model import Status

    if text.strip().lower() == "none":
        return frozenset()
    chosen = set()
    for part in text.split(","):
        key = " ".join(part.replace("_", " ").replace("-", " ").upper().split())
        try:
            chosen.add(Status(key))
        except ValueError:
            names = ", ".join(s.value.replace(" ", "_") for s in Status)
            raise argparse.ArgumentTypeError(
                f"needs statuses among {names} separated by commas, or none; got {part.strip()!r}") from None
    return frozenset(chosen)


def _out_dir(value, option: str = "--out"):
    from theorems.reporting.folder import ReportDirError, check_report_dir

    try:
        return check_report_dir(value)
    except ReportDirError as exc:
        raise UsageError(f"{option} {exc}") from None


def _check_cache() -> None:
    """Refuse a sweep cache that names a file (it would be silently skipped)."""
    from theorems.scale.sweepcache import CACHE_ENV, default_cache_dir

    folder = default_cache_dir()
    if folder is None:
        return
    raw = os.environ.get(CACHE_ENV)
    where = f"{CACHE_ENV}={raw!r}" if raw is not None else f"the sweep cache {str(folder)!r}"
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{where} names a file, not a folder; set {CACHE_ENV} to a folder, or to off "
                         "to run without the cache")
    above = folder
    while not above.exists() and above.parent != above:
        above = above.parent
    if not above.is_dir():
        raise UsageError(f"{where} cannot be created: {above} is a file; set {CACHE_ENV} to a folder, or to off")


def _durations_problem(data) -> str | None:
    """Why the parsed ``claim-durations.json`` ``data`` is not a valid record
    (format 1: profile key -> claim id -> finite seconds >= 0), or None."""
    import math

    if not isinstance(data, dict) or data.get("format") != 1:
        return "not a format-1 record"
    profiles = data.get("profiles")
    if not isinstance(profiles, dict):
        return "'profiles' is not an object"
    for name, runs in profiles.items():
        if not isinstance(runs, dict):
            return f"profile {name!r} holds {type(runs).__name__}, not claim -> seconds"
        for claim, seconds in runs.items():
            if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                    or not math.isfinite(seconds) or seconds < 0):
                return f"claim {claim!r} at profile {name!r} has {json.dumps(seconds)[:40]} seconds"
    return None


def _check_durations(command: str) -> None:
    """Ignore a ``claim-durations.json`` (the estimates' record in the cache
    folder) that does not validate, with a one-line warning: it is removed,
    and the run writes a fresh one."""
    from theorems.reporting.progress import durations_path

    path = durations_path()
    if path is None or not path.is_file():
        return
    try:
        problem = _durations_problem(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, RecursionError) as exc:
        problem = f"unreadable ({' '.join(str(exc).split())[:80]})"
    if problem is None:
        return
    print(f"theorems {command}: warning: ignoring the cache file {path}: {problem}; it is rewritten after "
          "this run", file=sys.stderr)
    try:
        path.unlink()
    except OSError:
        pass


def _partial_notice(args, claims, registry, out) -> None:
    """Say what a partial run (``--only``/``--kind``) does to the report folder."""
    if not (args.only or args.kind):
        return
    line = f"theorems verify: partial run ({len(claims)} of {len(registry)} claims)"
    try:
        previous = json.loads((out / "report.json").read_text(encoding="utf-8"))
        sel = previous.get("selection") or {}
        before = len(previous["claims"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        print(f"{line}; reports go to {out}", flush=True)
        return
    whole = "the full report" if not (sel.get("only") or sel.get("kind")) else "the report"
    print(f"{line}: it replaces {whole} in {out} ({before} claims); give --out to write beside it", flush=True)


def _fmt_number(x) -> str:
    if x is None:
        return "none"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _print_summary(result, report) -> None:
    """Every claim that is not VERIFIED, SUPPORTED or ANSWERED, with each
    check that did not pass: its figure against its threshold, the minimal
    counterexample and the replay command; then the verdict."""
    from theorems.evidence._common import jsonable
    from theorems.core.controls import missed_text
    from theorems.core.model import EvidenceStatus, Status

    counts = ", ".join(f"{v} {k}" for k, v in report["counts"].items() if v)
    reused = sum(1 for r in result.results if getattr(r, "reused", None) is not None)
    print(f"\n{counts} in {result.seconds:.1f} s"
          + (f"; {reused} of {len(result.results)} reused from earlier runs (nothing they executed changed; "
             "--fresh runs all)" if reused else ""))
    quiet = (EvidenceStatus.PASSED, EvidenceStatus.SUPPORTED, EvidenceStatus.ANSWERED)
    underspecified = []
    for r in result.results:
        if r.status.ok:
            continue
        if r.status is Status.UNDERSPECIFIED:
            underspecified.append(r.claim.id)
            continue
        fails = " (fails the run)" if r.status in result.fail_on else ""
        waits = f", blocked by {', '.join(r.blocked_by)}" if r.blocked_by else ""
        print(f"  {r.claim.id} {r.status.value}{fails}{waits}")
        for e in r.evidence:
            if e.status in quiet:
                continue
            figure = (f"figure {_fmt_number(e.figure)} against {e.comparison} {_fmt_number(e.threshold)}"
                      if e.figure is not None or e.threshold is not None else "no figure")
            print(f"    [{e.check}] {e.status.value}: {figure}; {' '.join(str(e.detail).split())[:600]}")
            cex = e.counterexample
            apart = isinstance(cex, dict) and ("rebuild" in cex or "replay_case" in cex)
            if cex is not None:  # arrays and snippet are in report.json and shown in report.md/html
                shown = {k: v for k, v in cex.items() if k not in ("arrays", "rebuild", "replay_case")} if apart else cex
                print(f"      counterexample: {json.dumps(jsonable(shown))[:400]}")
            if apart and "rebuild" in cex:
                print("      rebuild it in Python: the counterexample's snippet in report.md, report.html, report.json")
            if e.replay:
                print(f"      replay: {e.replay}")
            if apart and cex.get("replay_case"):
                print(f"      replay this case alone: {cex['replay_case']}")
    if underspecified:
        print(f"  UNDERSPECIFIED (no checks; see theorems show): {', '.join(underspecified)}")
    for r in result.results:
        nc = r.negative_control
        if nc and nc.get("caught") is False:
            print(f"  {r.claim.id}: negative control NOT caught ({nc.get('description')}): "
                  f"{missed_text(nc)} (fails the run)")
    fail_on = ", ".join(s.value for s in Status if s in result.fail_on) or "nothing"
    if result.ok:
        print(f"verdict: OK (fails on {fail_on})")
    else:
        bad = [f"{report['counts'][s.value]} {s.value}" for s in Status
               if s in result.fail_on and report["counts"].get(s.value)]
        missed = sum(1 for r in result.results if r.negative_control and r.negative_control.get("caught") is False)
        if missed:
            bad.append(f"{missed} negative control{'s' if missed > 1 else ''} not caught")
        print(f"verdict: NOT OK: {', '.join(bad)} (fails on {fail_on})")


def _sweep_executor(args):
    """The entered context of theorems.scale.executors.open_executor for --executor,
    --scheduler and --workers (a usage error when they do not fit together)."""
    from theorems.scale.executors import open_executor

    if args.executor == "dask" and args.jobs is not None and args.jobs > 1:
        raise UsageError(f"--jobs {args.jobs}: --executor dask runs the claims in this process and their "
                         "sweeps on the cluster; drop --jobs")
    if args.in_process and args.jobs is not None:
        raise UsageError(f"--jobs {args.jobs}: --in-process runs every claim in this process, one after the "
                         "other; give one or the other")
    context = open_executor(args.executor, scheduler=args.scheduler, workers=args.workers)
    try:
        executor = context.__enter__()
    except (ValueError, ImportError) as exc:
        raise UsageError(str(exc)) from None
    return context, executor


def _case_selection(args, claims: list, profile) -> list:
    """With ``--case CHECK[:CASE]``: the one claim ``--only`` selects, reduced
    to its check CHECK, and with CASE (a ladder case's label, a float case's
    recipe as JSON, as a failed check's ``replay_case`` gives them) run on
    that case alone. Every mismatch is a usage error found before anything runs."""
    import copy
    import dataclasses

    from theorems.core.model import Check

    if args.case is None:
        return claims
    where = f"--case {_shown(args.case, 80)}"
    if len(claims) != 1:
        raise UsageError(f"{where}: needs --only selecting exactly one claim, got {len(claims)} claims")
    claim = claims[0]
    name, colon, case = args.case.partition(":")
    checks = {c.name: c for c in claim.checks}
    if name not in checks:
        raise UsageError(f"{where}: claim {claim.id} has no check {name!r} (its checks: {', '.join(checks)})")
    check = checks[name]
    if colon:
        kind = getattr(check.run, "case_kind", None)
        if kind is None:
            raise UsageError(f"{where}: the {name} check of {claim.id} cannot run one case alone; give --case {name}")
        if not case:
            raise UsageError(f"{where}: name the case after the colon, or give --case {name} for the whole check")
        if kind == "ladder":
            from theorems.core.impl import Impl
            from theorems.core.runner import _context

            labels = check.run.case_labels(_context(claim, check, Impl.default(), profile, args.seed))
            if case not in labels:
                raise UsageError(f"{where}: the ladder of {claim.id} has no case {case!r} "
                                 f"(its cases: {'; '.join(labels)})")
        else:
            from theorems.authoring.templates import rebuild_case

            try:
                rebuild_case(check.run.inputs, case)
            except ValueError as exc:
                raise UsageError(f"{where}: {exc}") from None
            except (TypeError, OverflowError) as exc:  # a seed of 1e400: OverflowError
                raise UsageError(f"{where}: the recipe does not build a case ({type(exc).__name__}: "
                                 f"{_shown(str(exc), 200, quote=False)})") from None
            except RecursionError:
                raise UsageError(f"{where}: the recipe's JSON nests too deeply to be a float case's recipe") from None
    run = check.run
    if colon:
        def run(ctx, _run=check.run, _case=case):
            return _run(dataclasses.replace(ctx, case=_case))
    # a copy with the one check: a partial rerun, so the rule that a claim of its kind has
    # every evidence kind (Claim.__post_init__) does not apply to it
    one = copy.copy(claim)
    object.__setattr__(one, "checks", (Check(check.name, check.kind, run, check.description),))
    print(f"theorems verify: --case: only the {name} check of {claim.id}" + (f", case {case}" if colon else "")
          + "; the claim's status covers that alone", flush=True)
    return [one]


def _where(args, claims) -> str:
    """Where the claims of a verify run run, for its first line."""
    if args.in_process or args.executor != "local":
        return "in this process"
    from theorems.scale.supervise import default_jobs

    n = min(args.jobs or default_jobs(), len(claims))
    return f"{n} worker{'s' if n > 1 else ''}"


def _cut_short(result) -> bool:
    """Whether a claim's time was cut by a check's budget or its worker's end."""
    from theorems.core.runner import OVERRAN, WORKER_ENDED

    return any(isinstance(e.data, dict) and (OVERRAN in e.data or WORKER_ENDED in e.data) for e in result.evidence)


def _reuse_store(args):
    """The reuse store of a verify run (theorems.scale.reuse): None with THEOREMS_CACHE=off or --case (a case's
    result is not the claim's); --fresh and --observe (a reused claim has no observations) record without reusing."""
    from theorems.reporting.report import source_state
    from theorems.scale.reuse import default_store

    if args.case is not None:
        return None
    return default_store(lookup=not (args.fresh or getattr(args, "observe", None)), source=source_state)


def _explain_reuse(args, registry, profile) -> int:
    """``verify --explain-reuse ID``: whether the claim would be reused, or why it reruns; runs nothing."""
    from theorems.scale.reuse import default_store, run_key

    claim = next((c for c in registry if c.id == args.explain_reuse), None)
    if claim is None:
        raise UsageError(f"--explain-reuse {_shown(args.explain_reuse)}: no such claim; see `theorems list` for the ids")
    store = default_store()
    if store is None:
        print(f"{claim.id} would rerun: reuse is off (THEOREMS_CACHE=off)")
        return 0
    key = run_key(claim.id, profile=profile, seed=args.seed, controls=args.controls, claims_modules=args.claims or ())
    reasons = store.explain(claim, key)
    if args.fresh:
        reasons.insert(0, "--fresh runs every claim")
    if not reasons:
        run = store.read(key)["run"]
        commit = f", commit {run['commit'][:12]}{' (dirty)' if run.get('dirty') else ''}" if run.get("commit") else ""
        print(f"{claim.id} would be reused from the run of {run['at']}{commit}: no function it executed, data file "
              "it read or package version has changed since")
        return 0
    print(f"{claim.id} would rerun (profile {profile.name}, seed {args.seed}"
          f"{', with controls' if args.controls else ''}):")
    for reason in reasons[:40]:
        print(f"  - {reason}")
    if len(reasons) > 40:
        print(f"  ... and {len(reasons) - 40} more")
    return 0


def _cmd_verify(args) -> int:
    from theorems.reporting.progress import Progress, estimate_line, record_durations, recorded_durations
    from theorems.core.registry import claims_module_hashes
    from theorems.reporting.report import build_report, write_reports
    from theorems.core.runner import run

    profile = get_profile(args.profile, check_budget=args.check_budget)
    registry = _registry(args)
    if args.explain_reuse is not None:
        return _explain_reuse(args, registry, profile)
    claims = _case_selection(args, _select(args, registry), profile)
    out = _out_dir(args.out)
    args.kept_reports = out
    _check_cache()
    _partial_notice(args, claims, registry, out)
    _check_durations("verify")
    reuse = _reuse_store(args)
    # from here to the try below, each context entered is closed even when the next one is refused
    sweep_executor, executor = _sweep_executor(args)
    try:
        print(f"theorems verify: {len(claims)} claims, profile {profile.name}, seed {args.seed}, "
              f"{_where(args, claims)}", flush=True)
        estimates = recorded_durations(profile.name, controls=args.controls)
        ids = [c.id for c in claims]
        print(f"theorems verify: {estimate_line(ids, estimates, profile.name, controls=args.controls)}", flush=True)
        progress = Progress(sys.stdout, estimates=estimates, ids=ids)
        progress, claims, run_context = _run_context(args, profile, progress, claims)
    except BaseException:
        sweep_executor.__exit__(None, None, None)
        raise
    try:
        result = run(claims, profile=profile, seed=args.seed, controls=args.controls,
                     jobs=args.jobs, progress=progress, claims_modules=args.claims or (), fail_on=args.fail_on,
                     executor=executor, in_process=args.in_process, estimates=estimates, reuse=reuse)
    finally:
        progress.close()
        run_context.close()
        sweep_executor.__exit__(None, None, None)
    if args.executor == "local" and args.case is None:  # on dask a claim's seconds are the cluster's wall
        # time, not CPU time; a --case rerun times one check or case, not the claim
        # a claim cut short by a budget or a dead worker took no time that a later run can expect
        record_durations(profile.name, {r.claim.id: r.seconds for r in result.results if not _cut_short(r)},
                         controls=args.controls)
    report = build_report(result, selection={"only": args.only or [], "kind": args.kind or [],
                                             **({"case": args.case} if args.case is not None else {}),
                                             "claims_modules": args.claims or [],
                                             "claims_sha256": claims_module_hashes(args.claims or [])})
    paths = written(lambda: write_reports(report, out), out, "reports")
    _warn_math_fallbacks(report, "verify")
    _print_summary(result, report)
    print("reports: " + ", ".join(str(p) for p in paths))
    return 0 if result.ok else 1


def _cmd_stability(args) -> int:
    from theorems.reporting.report import write_text_atomic
    from theorems.stability import render_table, run_stability, seed_range

    profile = get_profile(args.profile)
    claims = _select(args, _registry(args))
    out = _out_dir(args.out)
    _check_cache()
    seeds = seed_range(args.seeds, args.first_seed)
    if seeds[-1] >= SEED_LIMIT:
        raise UsageError(f"--first-seed {args.first_seed} --seeds {args.seeds}: the last seed would be "
                         f"{_shown(str(seeds[-1]), quote=False)}; seeds must be in 0 .. 2**128 - 1")
    processes = min(args.jobs, len(seeds))
    print(f"theorems stability: {len(claims)} claims x {len(seeds)} seeds ({seeds[0]}..{seeds[-1]}), "
          f"profile {profile.name}, {processes} process{'es' if processes > 1 else ''}", flush=True)

    def progress(seed, summary, seconds):
        counts: dict[str, int] = {}
        for entry in summary.values():
            counts[entry["status"]] = counts.get(entry["status"], 0) + 1
        print(f"  seed {seed}: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + f" in {seconds:.1f} s",
              flush=True)

    from theorems.evidence._common import hypothesis_run

    with hypothesis_run():  # Hypothesis's files in the cache folder, as for verify
        result = run_stability(claims, profile=profile, seeds=seeds, jobs=args.jobs,
                               claims_modules=args.claims or (), progress=progress, controls=args.controls)
    print()
    print(render_table(result), end="")
    table = out / "stability.json"
    written(lambda: write_text_atomic(table, json.dumps(result.to_json(), indent=2) + "\n"), out,
             "stability table")
    print(f"table: {table} ({result.seconds:.1f} s)")
    return 0 if result.ok else 1


def _cmd_report(args) -> int:
    from theorems.reporting.compare import compare_reports, load_report, render_comparison

    from theorems.reporting.folder import recover

    if args.compare:
        old_path, new_path = args.compare
        for path in (old_path, new_path):
            recover(Path(path).parent)  # a swap of either folder killed half-way is undone first
        old, new = load_report(old_path), load_report(new_path)
        cmp = compare_reports(old, new, old_name=str(old_path), new_name=str(new_path))
        if args.json:
            print(json.dumps(cmp.to_json(), indent=2))
        else:
            print(render_comparison(cmp), end="")
        return 0
    if not args.report:
        raise ValueError("give a report.json to render, or --compare OLD.json NEW.json")
    from theorems.reporting.report import REPORT_FILES, write_reports

    src = Path(args.report)
    recover(src.parent)  # a swap of that folder killed half-way is undone first
    report = load_report(src)
    given = args.out is not None
    out = _out_dir(args.out if given else src.parent, "--out" if given else "the report's folder")
    args.kept_reports = out
    beside = out / "report.json"
    if beside.exists() and not os.path.samefile(beside, src):
        raise UsageError(f"{'--out ' + repr(args.out) if given else 'the folder ' + repr(str(out))} holds the "
                         f"report.json of another run; rendering {str(src)!r} there would mix two runs; "
                         "give --out an empty folder")
    renders = tuple(n for n in REPORT_FILES if n != "report.json")
    paths = written(lambda: write_reports(report, out, names=renders), out, "reports")
    _warn_math_fallbacks(report, "report")
    print("reports: " + ", ".join(str(p) for p in paths))
    return 0


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line: the option, the value, what is needed."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="theorems",
        description="Check the mathematics of linear associative memory, claim by claim.",
        epilog=textwrap.dedent("""\
            examples:
              theorems list
              theorems show recall.snr
              theorems verify --profile standard --only 'recall.*' --out reports
              theorems report --compare old/report.json reports/report.json
              theorems stability --seeds 5 --kind expectation --jobs 2
        """),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)
    add_parser = sub.add_parser

    def add_subcommand(*a, **kw):
        sp = add_parser(*a, **kw)
        sp.set_defaults(parser=sp)  # main() names the command in a usage error
        return sp

    sub.add_parser = add_subcommand

    def common(sp):
        sp.add_argument("--claims", action="append", metavar="MODULE",
                        help="also load claims from MODULE (import name or path to a .py file "
                             "defining CLAIMS); repeatable")

    def filters(sp):
        sp.add_argument("--only", action="append", metavar="PATTERN",
                        help="claim id, glob ('recall.*') or prefix ending in '.'; repeatable")
        sp.add_argument("--kind", action="append", metavar="KIND", help="only claims of this kind (see verify --help for the kinds); repeatable")

    sp = sub.add_parser("list", help="list the claims")
    sp.add_argument("--json", action="store_true", help="machine-readable output")
    filters(sp)
    common(sp)
    sp.set_defaults(func=_cmd_list)

    sp = sub.add_parser("show", help="show one claim")
    sp.add_argument("id")
    common(sp)
    sp.set_defaults(func=_cmd_show)

    sp = sub.add_parser("verify", help="run the checks and write reports", description=_verify_description(),
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    sp.add_argument("--profile", choices=sorted(PROFILES), default=None,
                    help="quick (default), standard or thorough; or set THEOREMS_PROFILE")
    sp.add_argument("--out", default="reports", metavar="DIR", help="report folder (default: reports)")
    sp.add_argument("--observe", metavar="FILE",
                    help="also write the run's observations to FILE as JSON lines in Hypothesis's "
                         "observability format (property = <claim>::<check>)")
    sp.add_argument("--seed", type=_seed_arg, default=DEFAULT_SEED,
                    help=f"run seed, 0 .. 2**128 - 1 (default {DEFAULT_SEED})")
    sp.add_argument("--jobs", type=_pos_int, default=None, metavar="N",
                    help="worker processes to run the claims in, forked from this process and supervised: "
                         "a claim whose check crashes or hangs its worker is ERROR, a fresh worker takes its "
                         "place and the run goes on (default: one per core)")
    sp.add_argument("--in-process", action="store_true",
                    help="run the claims in this process, one after the other, for a debugger (pdb, "
                         "breakpoints); a check that crashes or hangs its process then ends the run")
    sp.add_argument("--check-budget", type=_budget_arg, default=None, metavar="SECONDS",
                    help="wall-clock budget of one check, overriding the profile's (quick 180, standard "
                         "900, thorough 3600) and $THEOREMS_CHECK_BUDGET; once a check of a claim overran "
                         "it, the claim's remaining checks do not run")
    sp.add_argument("--executor", choices=("local", "dask"), default="local",
                    help="where the finite-size sweeps run: local (default, in this process) or dask "
                         "(dask.distributed; the cache stays here, results as a local run)")
    sp.add_argument("--scheduler", metavar="ADDRESS", default=None,
                    help="with --executor dask: a running scheduler (default: start a LocalCluster)")
    sp.add_argument("--workers", type=_pos_int, default=None, metavar="N",
                    help="with --executor dask and no --scheduler: worker processes of the LocalCluster (default 2)")
    sp.add_argument("--controls", action="store_true",
                    help="also run every negative control and report whether it is caught "
                         "(one not caught fails the run)")
    sp.add_argument("--fail-on", type=_fail_on_arg, default=None, metavar="STATUS,...",
                    help="claim statuses that make verify exit 1, separated by commas, or none "
                         "(default: FAILED,ERROR,BLOCKED,NOT_SUPPORTED); recorded in report.json")
    sp.add_argument("--case", default=None, metavar="CHECK[:CASE]",
                    help="with --only selecting one claim: run only its check CHECK (exact, ladder, float, ...), "
                         "and with :CASE only that case: a ladder case's label or a float case's recipe (JSON), "
                         "as the replay of a failed case prints it")
    sp.add_argument("--fresh", action="store_true",
                    help="run every claim, reusing no earlier result (what each run executes is still recorded); "
                         "by default a claim whose last result at these settings is on record is reused when no "
                         "function it executed, no data file it read and no package version has changed since "
                         "(THEOREMS_CACHE=off turns reuse off)")
    sp.add_argument("--explain-reuse", metavar="ID", default=None,
                    help="run nothing: say whether claim ID would be reused at these settings, or why it reruns "
                         "(which function, data file or version changed)")
    filters(sp)
    common(sp)
    sp.set_defaults(func=_cmd_verify)

    sp = sub.add_parser("stability", help="rerun the checks over several seeds: does each claim keep one status?",
                        description="Run the selection at seeds FIRST..FIRST+N-1 (default 1..5), each seed as "
                                    "verify --seed would, the seeds in parallel processes (--jobs), sharing the "
                                    "sweep cache. Prints per claim its status distribution and per check the "
                                    "min / median / max of its figure against its threshold; writes the table "
                                    "to DIR/stability.json. Exits 1 if a claim has more than one status "
                                    "(or, with --controls, a negative control not caught at some seed).")
    sp.add_argument("--seeds", type=_seeds_arg, default=5, metavar="N", help="how many seeds (default 5)")
    sp.add_argument("--controls", action="store_true",
                    help="also run each claim's negative control at every seed; one missed is unstable")
    sp.add_argument("--first-seed", type=_seed_arg, default=1, metavar="S",
                    help="the first seed, 0 .. 2**128 - 1 (default 1)")
    sp.add_argument("--profile", choices=sorted(PROFILES), default=None,
                    help="quick (default), standard or thorough; or set THEOREMS_PROFILE")
    sp.add_argument("--jobs", type=_pos_int, default=1, help="processes, one seed each at a time (default 1)")
    sp.add_argument("--out", default="reports", metavar="DIR",
                    help="folder of stability.json (default: reports)")
    filters(sp)
    common(sp)
    sp.set_defaults(func=_cmd_stability)

    sp = sub.add_parser("report", help="compare two reports, or render one again (Markdown, HTML, JUnit)",
                        description="With --compare: which claims changed status, appeared or disappeared, "
                                    "and which checks got slower. With a report.json: write report.md, "
                                    "report.html and junit.xml from it again (beside it, or in --out).")
    sp.add_argument("report", nargs="?", metavar="REPORT.json", help="a report to render again")
    sp.add_argument("--compare", nargs=2, metavar=("OLD.json", "NEW.json"), help="compare two reports")
    sp.add_argument("--json", action="store_true", help="with --compare: machine-readable output")
    sp.add_argument("--out", metavar="DIR", help="where to render (default: the report's folder)")
    sp.set_defaults(func=_cmd_report)

    from theorems.assess_cmd import add_parser as add_assess_parser

    add_assess_parser(sub)
    return p


#: Seeds are 128-bit: numpy's SeedSequence takes a run seed modulo 2**128,
#: so a larger one would silently repeat a smaller one's run.
SEED_LIMIT = 2**128


def _shown(text: str, limit: int = 40, *, quote: bool = True) -> str:
    """``text`` for a message (quoted unless ``quote`` is false), shortened to
    ``limit`` characters with its full length said."""
    short = text if len(text) <= limit else text[:limit]
    shown = repr(short) if quote else short
    return shown if len(text) <= limit else f"{shown}... ({len(text):,} characters)"


def _nonneg_int(text: str, *, below: int | None = None) -> int:
    need = "an integer >= 0" if below is None else "an integer in 0 .. 2**128 - 1"
    try:
        value = int(text)
    except ValueError:  # not a number, or more digits than int() reads (4,300)
        raise argparse.ArgumentTypeError(f"must be {need}, got {_shown(text)}") from None
    if value < 0 or (below is not None and value >= below):
        raise argparse.ArgumentTypeError(f"must be {need}, got {_shown(str(value), quote=False)}")
    return value


def _seed_arg(text: str) -> int:
    """A run seed: an integer in ``0 .. 2**128 - 1``."""
    return _nonneg_int(text, below=SEED_LIMIT)


def _budget_arg(text: str) -> float:
    """``--check-budget``: seconds, a finite number > 0."""
    from theorems.core.profiles import parse_check_budget

    try:
        return parse_check_budget(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _pos_int(text: str) -> int:
    value = _nonneg_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    if value > PROCESS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be an integer in 1 .. {PROCESS_LIMIT}, got {value}")
    return value


#: The most processes (--jobs, --workers) a run may ask for.
PROCESS_LIMIT = 1024

#: The most seeds ``theorems stability --seeds`` runs (each is a whole run).
SEEDS_LIMIT = 10_000


def _seeds_arg(text: str) -> int:
    """How many seeds: an integer in ``1 .. SEEDS_LIMIT``."""
    value = _nonneg_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    if value > SEEDS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be an integer in 1 .. {SEEDS_LIMIT:,}, got "
                                         f"{_shown(str(value), quote=False)}")
    return value


class _Terminated(KeyboardInterrupt):
    """SIGTERM in the parent of a verify or stability run: it unwinds as a
    Ctrl-C does (the runner stops its workers, the old reports stay)."""


def _raise_terminated(signum, frame):
    raise _Terminated()


@contextlib.contextmanager
def _workers_die_with_us(args):
    """For ``verify`` and ``stability``: forked workers end with this process
    (:func:`theorems.scale.executors.die_with_parent`) and SIGTERM unwinds the run
    (the pool is shut down) instead of killing this process outright."""
    import signal
    import threading

    if getattr(args, "command", None) not in ("verify", "stability") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    from theorems.scale.executors import die_with_parent

    if (getattr(args, "jobs", 1) or 1) > 1 and args.command == "stability":
        die_with_parent()  # verify's supervised workers see to it themselves
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupted(args) -> str:
    out = getattr(args, "kept_reports", None)
    if out is None:
        return "nothing was written"
    what = getattr(args, "kept_what", "reports")
    if what == "assessment":
        if (out / "assessment.json").exists():
            return f"the previous assessment in {out} was kept"
        return f"no assessment was written to {out}"
    if (out / "report.json").exists():
        return f"the previous reports in {out} were kept"
    return f"no reports were written to {out}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # named by the subcommand's parser, so the message says which command
        getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "fail_on", "absent") is None:
        from theorems.core.model import DEFAULT_FAIL_ON

        args.fail_on = DEFAULT_FAIL_ON
    try:
        with _workers_die_with_us(args):
            return args.func(args)
    except _Terminated:
        print(f"theorems {args.command}: terminated (SIGTERM); {_interrupted(args)}", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print(f"theorems {args.command}: interrupted; {_interrupted(args)}", file=sys.stderr)
        return 130
    except WriteFailed as exc:
        print(f"theorems {args.command}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except BrokenPipeError:  # `theorems list | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except (ValueError, KeyError, ImportError, OSError) as exc:
        if isinstance(exc, KeyError) and exc.args:
            msg = exc.args[0]
        elif isinstance(exc, OSError) and exc.strerror and not isinstance(exc, FileNotFoundError):
            msg = f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
        else:
            msg = exc
        print(f"theorems {args.command}: error: {' '.join(str(msg).split())}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
