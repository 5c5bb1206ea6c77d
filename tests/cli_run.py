"""``run_cli(argv, capsys)``: ``theorems.cli.main(argv)`` as the console
script runs it, for the CLI tests: (exit code, stdout, stderr), argparse's
SystemExit read as its exit code."""

from __future__ import annotations

from theorems.cli import main


def run_cli(argv, capsys) -> tuple[int, str, str]:
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
