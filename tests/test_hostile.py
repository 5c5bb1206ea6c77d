"""Hostile use of the ``theorems`` command, as one table: each row runs the
installed console script in a subprocess (as a user or a CI job would) on a
tiny selection, and checks its exit code, the first line it prints on
stderr (or stdout when stderr is empty) and that the report set already in
``--out`` is still there afterwards. Rows that held before issue 23 stay
in the table so that they keep holding.

``{out}`` in an argument is the report folder of the row (it holds an old
report set, a file ``report.json`` with the text ``OLD``), ``{tmp}`` its
scratch folder."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

THEOREMS = str(Path(sys.executable).with_name("theorems"))

#: (argv, exit code, regular expression the first line must match)
CASES = [
    # usage errors: exit 2, one line naming the option, nothing run (held before issue 23)
    pytest.param(["verify", "--only", "no.such.claim", "--out", "{out}"], 2,
                 r"theorems verify: error: --only pattern\(s\) \['no.such.claim'\] match no claim id", id="unknown-id"),
    pytest.param(["verify", "--only", "lev.range", "--seed", "-1", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --seed: must be an integer >= 0, got -1", id="negative-seed"),
    pytest.param(["verify", "--only", "lev.range", "--jobs", "0", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --jobs: must be an integer >= 1, got 0", id="zero-jobs"),
    pytest.param(["verify", "--only", "lev.range", "--fail-on", "BOGUS", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --fail-on: needs statuses among", id="bad-fail-on"),
    pytest.param(["verify", "--only", "lev.range", "--out", "{tmp}/afile"], 2,
                 r"theorems verify: error: --out '.*afile' is a file, not a folder", id="out-is-a-file"),
    pytest.param(["verify", "--only", "lev.range", "--out", "{tmp}/withdir"], 2,
                 r"theorems verify: error: --out '.*withdir' holds folders \(sub\)", id="out-holds-a-folder"),
    pytest.param(["show", "no.such.claim"], 2, r"theorems show: error: ", id="show-unknown"),
    pytest.param(["verify", "--only", "lev.range", "--bogus"], 2,
                 r"theorems verify: error: unrecognized arguments: --bogus", id="unknown-option"),
    # issue 23 item 2: a selection that matches no claim is refused before the run
    pytest.param(["verify", "--only", "lev.*", "--kind", "expectation", "--out", "{out}"], 2,
                 r"theorems verify: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-verify"),
    pytest.param(["stability", "--only", "lev.*", "--kind", "expectation", "--out", "{out}"], 2,
                 r"theorems stability: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-stability"),
    pytest.param(["list", "--only", "lev.*", "--kind", "expectation"], 2,
                 r"theorems list: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-list"),
]


@pytest.mark.parametrize("argv, code, first", CASES)
def test_hostile_cli_case(tmp_path, argv, code, first):
    out = tmp_path / "reports"
    out.mkdir()
    (out / "report.json").write_text("OLD", encoding="utf-8")
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "withdir" / "sub").mkdir(parents=True)
    env = dict(os.environ, THEOREMS_CACHE=str(tmp_path / "cache"))
    argv = [a.format(out=out, tmp=tmp_path) for a in argv]
    proc = subprocess.run([THEOREMS, *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    text = proc.stderr if proc.stderr.strip() else proc.stdout
    lines = text.strip().splitlines()
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert lines and re.match(first, lines[0]), lines
    if code == 2:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "Traceback" not in proc.stderr
        assert not proc.stdout.strip(), proc.stdout
    assert (out / "report.json").read_text(encoding="utf-8") == "OLD"
