"""The ``theorems`` command: list, show and verify the claims; render and
compare reports.

Exit status of ``verify``: 0 when no claim is FAILED, ERROR or BLOCKED; 1
otherwise; 2 for a usage error (a bad argument gets a message naming it).
``report`` exits 0, or 2 when a report cannot be read (the message names the
file and the problem).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Sequence

from theorems.profiles import DEFAULT_SEED, PROFILES, get_profile

__all__ = ["main"]


def _registry(args):
    from theorems.registry import load_claims

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

    stack = ExitStack()
    stack.enter_context(hypothesis_run())
    if getattr(args, "observe", None):
        from theorems.observe import Observer

        try:
            observer = stack.enter_context(Observer(args.observe, profile=profile.name, seed=args.seed))
        except BaseException:
            stack.close()
            raise
        claims = observer.wrap(claims)
        progress = observer.with_progress(progress)
    return progress, claims, stack


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
  1  otherwise
  2  usage error (one line naming the option and the value)
  130  interrupted (Ctrl-C); the previous reports are kept
"""


def _verify_description() -> str:
    from theorems.model import ClaimKind

    profiles = "; ".join(
        f"{p.name}{' (default)' if p.name == 'quick' else ''}: {p.examples} Hypothesis examples, "
        f"{p.mc_samples:,} Monte Carlo samples, sweeps x{p.sweep}" for p in PROFILES.values())
    kinds = ", ".join(k.value for k in ClaimKind)
    return _VERIFY_DESCRIPTION.format(profiles=textwrap.fill(profiles, 74, subsequent_indent="  "),
                                      kinds=textwrap.fill(kinds, 74, subsequent_indent="  "))


def _cmd_list(args) -> int:
    from theorems.registry import select

    claims = select(_catalogue(args), args.only or (), kinds=args.kind or ())
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
    reg = _catalogue(args)
    try:
        c = reg.get(args.id)
    except KeyError as exc:
        print(f"theorems show: {exc.args[0]}", file=sys.stderr)
        return 2
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
    if c.negative_control:
        print(f"  negative control: {c.negative_control.description}")
    return 0


def _warn_math_fallbacks(report: dict, command: str) -> None:
    from theorems.report_html import math_fallbacks

    for f in math_fallbacks(report):
        print(f"theorems {command}: warning: report.html shows the LaTeX of {f.claim} ({f.where}) as source: "
              f"{f.error}", file=sys.stderr)


def _cmd_verify(args) -> int:
    from theorems.progress import Progress
    from theorems.registry import select
    from theorems.report import build_report, write_reports
    from theorems.runner import run

    profile = get_profile(args.profile)
    claims = select(_registry(args), args.only or (), kinds=args.kind or ())
    print(f"theorems verify: {len(claims)} claims, profile {profile.name}, seed {args.seed}", flush=True)
    progress = Progress(sys.stdout)
    progress, claims, run_context = _run_context(args, profile, progress, claims)
    try:
        result = run(claims, profile=profile, seed=args.seed, controls=args.controls,
                     jobs=args.jobs, progress=progress, claims_modules=args.claims or ())
    finally:
        progress.close()
        run_context.close()
    report = build_report(result, selection={"only": args.only or [], "kind": args.kind or [],
                                             "claims_modules": args.claims or []})
    paths = write_reports(report, Path(args.out))
    _warn_math_fallbacks(report, "verify")
    counts = ", ".join(f"{v} {k}" for k, v in report["counts"].items() if v)
    print(f"\n{counts} in {result.seconds:.1f} s")
    for r in result.results:
        for e in r.evidence:
            if e.status.value in ("failed", "error"):
                print(f"  {r.claim.id} [{e.check}] {e.status.value}: {e.detail}")
                if e.counterexample is not None:
                    print(f"    counterexample: {json.dumps(e.counterexample)[:400]}")
                print(f"    replay: {e.replay}")
    print("reports: " + ", ".join(str(p) for p in paths))
    return 0 if result.ok else 1


def _cmd_report(args) -> int:
    from theorems.compare import compare_reports, load_report, render_comparison

    if args.compare:
        old_path, new_path = args.compare
        old, new = load_report(old_path), load_report(new_path)
        cmp = compare_reports(old, new, old_name=str(old_path), new_name=str(new_path))
        if args.json:
            print(json.dumps(cmp.to_json(), indent=2))
        else:
            print(render_comparison(cmp), end="")
        return 0
    if not args.report:
        raise ValueError("give a report.json to render, or --compare OLD.json NEW.json")
    from theorems.report import REPORT_FILES, write_reports

    report = load_report(args.report)
    renders = tuple(n for n in REPORT_FILES if n != "report.json")
    paths = write_reports(report, Path(args.out or Path(args.report).parent), names=renders)
    _warn_math_fallbacks(report, "report")
    print("reports: " + ", ".join(str(p) for p in paths))
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="theorems",
        description="Check the mathematics of linear associative memory, claim by claim.",
        epilog=textwrap.dedent("""\
            examples:
              theorems list
              theorems show recall.snr
              theorems verify --profile standard --only 'recall.*' --out reports
              theorems report --compare old/report.json reports/report.json
        """),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)

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
    sp.add_argument("--seed", type=_nonneg_int, default=DEFAULT_SEED, help=f"run seed (default {DEFAULT_SEED})")
    sp.add_argument("--jobs", type=_pos_int, default=1, help="processes to run claims in (default 1)")
    sp.add_argument("--controls", action="store_true",
                    help="also run every negative control and report whether it is caught")
    filters(sp)
    common(sp)
    sp.set_defaults(func=_cmd_verify)

    sp = sub.add_parser("report", help="compare two reports, or render one again (Markdown, HTML, JUnit)",
                        description="With --compare: which claims changed status, appeared or disappeared, "
                                    "and which checks got slower. With a report.json: write report.md, "
                                    "report.html and junit.xml from it again (beside it, or in --out).")
    sp.add_argument("report", nargs="?", metavar="REPORT.json", help="a report to render again")
    sp.add_argument("--compare", nargs=2, metavar=("OLD.json", "NEW.json"), help="compare two reports")
    sp.add_argument("--json", action="store_true", help="with --compare: machine-readable output")
    sp.add_argument("--out", metavar="DIR", help="where to render (default: the report's folder)")
    sp.set_defaults(func=_cmd_report)
    return p


def _nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    return value


def _pos_int(text: str) -> int:
    value = _nonneg_int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, KeyError, FileNotFoundError, ImportError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"theorems {args.command}: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
