"""Hostile use of the ``theorems`` command, as one table: each row runs the
installed console script in a subprocess (as a user or a CI job would) on a
tiny selection, and checks its exit code, the first line it prints on
stderr (or stdout when stderr is empty) and that the report set already in
``--out`` is still there afterwards. Rows that held before issue 23 stay
in the table so that they keep holding.

``{out}`` in an argument is the report folder of the row (it holds an old
report set, a file ``report.json`` with the text ``OLD``), ``{tmp}`` its
scratch folder. The rows share one theorems cache (``$THEOREMS_CACHE``);
a row's ``cache/...`` files are planted there just before it runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

THEOREMS = str(Path(sys.executable).with_name("theorems"))

def case(argv, code, first, *, id, files=None):
    """A row: ``argv``, the exit code, a regular expression for the first
    line, and ``files`` (path under the row's folder -> text) made first."""
    return pytest.param(argv, code, first, files or {}, id=id)


BAD_DURATIONS = {
    "shape": '{"format": 1, "profiles": {"quick": [1, 2]}}',
    "infinity": '{"format": 1, "profiles": {"quick": {"lev.range": Infinity}}}',
    "string": '{"format": 1, "profiles": {"quick": {"lev.range": "3"}}}',
    "binary": '\x00\x01 not json',
}

FIFO = object()  #: in ``files``: make a named pipe there


def _npy(array) -> bytes:
    import io

    import numpy as np

    buf = io.BytesIO()
    np.save(buf, np.asarray(array, dtype=float))
    return buf.getvalue()


def _matrices() -> dict:
    import numpy as np

    return {"eye.npy": _npy(np.eye(3)), "huge.npy": _npy(1e300 * np.eye(3)), "big.npy": _npy(1e150 * np.ones((3, 3))),
            "text.npy": "hello, I am not an array\n", "zeros.npy": bytes(1000), "empty.npy": b""}


MATRICES = _matrices()
ASSESS = {f"m/{k}": v for k, v in MATRICES.items()}
NINES = "9" * 5001

#: (argv, exit code, regular expression the first line must match, files)
CASES = [
    # usage errors: exit 2, one line naming the option, nothing run (held before issue 23)
    case(["verify", "--only", "no.such.claim", "--out", "{out}"], 2,
                 r"theorems verify: error: --only pattern\(s\) \['no.such.claim'\] match no claim id", id="unknown-id"),
    case(["verify", "--only", "lev.range", "--seed", "-1", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --seed: must be an integer in 0 \.\. 2\*\*128 - 1, got -1 ",
         id="negative-seed"),
    case(["verify", "--only", "lev.range", "--jobs", "0", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --jobs: must be an integer >= 1, got 0", id="zero-jobs"),
    case(["verify", "--only", "lev.range", "--fail-on", "BOGUS", "--out", "{out}"], 2,
                 r"theorems verify: error: argument --fail-on: needs statuses among", id="bad-fail-on"),
    case(["verify", "--only", "lev.range", "--out", "{tmp}/afile"], 2,
                 r"theorems verify: error: --out '.*afile' is a file, not a folder", id="out-is-a-file"),
    case(["verify", "--only", "lev.range", "--out", "{tmp}/withdir"], 2,
                 r"theorems verify: error: --out '.*withdir' holds folders \(sub\)", id="out-holds-a-folder"),
    case(["show", "no.such.claim"], 2, r"theorems show: error: ", id="show-unknown"),
    case(["verify", "--only", "lev.range", "--bogus"], 2,
                 r"theorems verify: error: unrecognized arguments: --bogus", id="unknown-option"),
    # issue 23 item 2: a selection that matches no claim is refused before the run
    case(["verify", "--only", "lev.*", "--kind", "expectation", "--out", "{out}"], 2,
                 r"theorems verify: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-verify"),
    case(["stability", "--only", "lev.*", "--kind", "expectation", "--out", "{out}"], 2,
                 r"theorems stability: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-stability"),
    case(["list", "--only", "lev.*", "--kind", "expectation"], 2,
                 r"theorems list: error: --only 'lev\.\*' --kind expectation: the selection matches no claim",
                 id="empty-selection-list"),
    # issue 23 item 5: a cache file that does not validate is ignored with one warning line
    *[case(["verify", "--only", "lev.range", "--out", "{out}/../fresh"], 0,
           r"theorems verify: warning: ignoring the cache file .*claim-durations.json: ",
           files={"cache/claim-durations.json": text}, id=f"durations-{name}")
      for name, text in BAD_DURATIONS.items()],
    # issue 23 item 12: messages that name the right thing
    *[case(["assess", f"{{tmp}}/m/{name}.npy", "--out", "{tmp}/a"], 2,
           rf"theorems assess: error: W file '.*{name}.npy' is not a valid .npy file: {why}",
           files=ASSESS, id=f"assess-{name}-npy")
      for name, why in (("text", r"a .npy file starts with \\x93NUMPY, this one starts with b'hello,'"),
                        ("zeros", r"a .npy file starts with \\x93NUMPY, this one starts with b'\\x00"),
                        ("empty", "it is empty"))],
    case(["assess", "{tmp}/m/huge.npy", "--out", "{tmp}/a"], 2,
         r"theorems assess: error: W in '.*huge.npy' is too large to assess in float64: the sum of its squared "
         r"entries overflows \(largest \|entry\| 1e\+300\)", files=ASSESS, id="assess-W-1e300"),
    case(["assess", "{tmp}/m/big.npy", "--keys", "{tmp}/m/big.npy", "--values", "{tmp}/m/eye.npy", "--out", "{tmp}/a"],
         2, r"theorems assess: error: W \(.*big.npy\) with K \(.*big.npy\) and V \(.*eye.npy\) overflows float64",
         files=ASSESS, id="assess-WK-overflow"),
    case(["assess", "{tmp}/m/eye.npy", "--keys", "{tmp}/m/eye.npy", "--values", "{tmp}/m/eye.npy", "--tau", "1e300",
          "--out", "{tmp}/a"], 0,
         r"theorems assess: warning: \d+ figure\(s\) overflowed float64 and are null in assessment.json",
         files=ASSESS, id="assess-tau-1e300-strict-json"),
    case(["verify", "--only", "lev.range", "--seed", NINES, "--out", "{out}"], 2,
         r"theorems verify: error: argument --seed: must be an integer in 0 \.\. 2\*\*128 - 1, got '9{40}'\.\.\. "
         r"\(5,001 characters\) \(see theorems verify --help\)$", id="seed-5001-digits"),
    case(["verify", "--only", "lev.range", "--seed", str(2**128), "--out", "{out}"], 2,
         r"theorems verify: error: argument --seed: must be an integer in 0 \.\. 2\*\*128 - 1, got 3402823669",
         id="seed-2**128"),
    case(["stability", "--only", "lev.range", "--first-seed", str(2**128 - 1), "--seeds", "2", "--out", "{out}"], 2,
         r"theorems stability: error: --first-seed \d+ --seeds 2: the last seed would be .*; seeds must be in "
         r"0 \.\. 2\*\*128 - 1", id="first-seed-past-2**128"),
    case(["verify", "--only", "lev.range", "--seed", str(2**128 - 1), "--out", "{tmp}/top"], 0,
         r"theorems verify: partial run \(1 of \d+ claims\)", id="seed-2**128-1-runs"),
    case(["verify", "--only", "lev.range", "--out", "{tmp}/piped"], 2,
         r"theorems verify: error: --out '.*piped' holds named pipes \(fifo\); the report set is replaced by "
         r"swapping the whole folder \(it carries only regular files", files={"piped/fifo": FIFO}, id="out-holds-a-fifo"),
]


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One theorems cache for the rows that plant no cache file (the claim
    index is then built once, not at every row)."""
    return tmp_path_factory.mktemp("hostile-cache")


@pytest.mark.parametrize("argv, code, first, files", CASES)
def test_hostile_cli_case(tmp_path, shared_cache, argv, code, first, files):
    for name, content in files.items():  # cache/...: into the shared cache (rows run one at a time)
        path = shared_cache / name[len("cache/"):] if name.startswith("cache/") else tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is FIFO:
            os.mkfifo(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    out = tmp_path / "reports"
    out.mkdir()
    (out / "report.json").write_text("OLD", encoding="utf-8")
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    (tmp_path / "withdir" / "sub").mkdir(parents=True)
    env = dict(os.environ, THEOREMS_CACHE=str(shared_cache))
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
    for written in tmp_path.glob("a/*.json"):  # strict JSON: no Infinity or NaN
        import json

        json.loads(written.read_text(encoding="utf-8"), parse_constant=lambda c: pytest.fail(f"{written}: {c}"))
    if "cache/claim-durations.json" in files and code == 0:  # rewritten as a valid record
        import json

        data = json.loads((shared_cache / "claim-durations.json").read_text(encoding="utf-8"))
        profile = os.environ.get("THEOREMS_PROFILE", "quick")  # CI runs the tests at standard
        assert data["format"] == 1 and set(data["profiles"][profile]) == {"lev.range"}


# --------------------------------------------------------------------------
# hostile cache files (issue 23 items 4 and 5)
# --------------------------------------------------------------------------


def _planted(V, U) -> bool:
    """Success while the load n / d is below 2, with a band of chance in between."""
    import numpy as np

    n, d = V.shape[1], V.shape[0]
    return bool(n / d < 2 + 0.5 * float(np.tanh(V[0, 0])))


@pytest.mark.parametrize("forged", ["yes", None, {"value": True}, 1, [True]], ids=repr)
def test_a_sweep_cache_entry_of_the_wrong_type_is_recomputed_and_rewritten(tmp_path, forged):
    import json

    from linmem import sweeps
    from theorems.scale.sweepcache import SweepCache

    cache = SweepCache(tmp_path)
    kw = dict(load_kind="alpha", bracket=(0.5, 4.0), trials=6, steps=4, base_seed=5, name="hostile")
    first = sweeps.bisect_crossing(_planted, 4, cache=cache, **kw)
    files = sorted(tmp_path.glob("*/*.json"))
    assert files and first.cache_hits == 0
    for f in files:  # every stored outcome replaced by a value of another type
        record = json.loads(f.read_text())
        record["value"] = forged
        f.write_text(json.dumps(record))
    again = sweeps.bisect_crossing(_planted, 4, cache=cache, **kw)
    assert again.cache_hits == 0 and again.evaluations == first.evaluations
    assert again.n50 == first.n50 and again.outcomes.tolist() == first.outcomes.tolist()
    assert all(isinstance(json.loads(f.read_text())["value"], bool) for f in files)
    third = sweeps.bisect_crossing(_planted, 4, cache=cache, **kw)
    assert third.cache_hits == first.evaluations and third.n50 == first.n50


def test_a_sweep_cache_entry_stored_under_another_key_is_a_miss(tmp_path):
    from theorems.scale.sweepcache import SweepCache, cached_call

    cache = SweepCache(tmp_path)
    a, b = cache.key("f", {"d": 1}, 0), cache.key("f", {"d": 2}, 0)
    cache.put(a, 41)
    cache._path(b).parent.mkdir(parents=True, exist_ok=True)
    cache._path(b).write_bytes(cache._path(a).read_bytes())  # a's record copied to b's place
    assert cache.get(a) == (True, 41)
    assert cache.get(b) == (False, None)
    assert cached_call(lambda: 42, name="f", params={"d": 2}, seed=0, cache=cache) == (42, False)
    assert cache.get(b) == (True, 42)
    # cached_call's valid= refuses a value of the wrong shape
    cache.put(b, "forty-two")
    value = cached_call(lambda: 42, name="f", params={"d": 2}, seed=0, cache=cache,
                        valid=lambda v: isinstance(v, int))
    assert value == (42, False) and cache.get(b) == (True, 42)


# --------------------------------------------------------------------------
# a full disk while the reports are written (issue 23 item 9)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["file", "folder"])
def test_a_full_disk_while_writing_reports_exits_3_and_keeps_the_old_set(tmp_path, monkeypatch, capsys, where):
    import errno

    from theorems.reporting import folder as reportdir
    from theorems.cli import EXIT_WRITE_FAILED, main

    monkeypatch.setenv("THEOREMS_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "reports"
    argv = ["verify", "--only", "lev.range", "--out", str(out)]
    assert main(argv) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if where == "file":
        monkeypatch.setattr(reportdir.os, "fsync", full)
    else:
        monkeypatch.setattr(reportdir, "_fsync_dir", full)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == EXIT_WRITE_FAILED == 3
    assert err.splitlines() == [f"theorems verify: error: could not write the reports to {out}: "
                                f"No space left on device; the previous reports in {out} were kept"]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "reports"]


def test_the_exit_status_for_a_failed_write_is_documented():
    from theorems.cli import _parser

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "3 when the reports could not be" in " ".join(readme.split())
    verify = _parser()._subparsers._group_actions[0].choices["verify"]
    assert "3  the reports could not be written" in verify.format_help()


# --------------------------------------------------------------------------
# theorems assess replaces its two files as one set (issue 23 item 7)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["ctrl-c", "full-disk"])
def test_assess_keeps_the_old_pair_when_interrupted_or_the_disk_is_full(tmp_path, monkeypatch, capsys, fault):
    import errno

    from theorems import assess_cmd

    from theorems.reporting import folder as reportdir
    from theorems.cli import main

    w = tmp_path / "eye.npy"
    w.write_bytes(MATRICES["eye.npy"])
    out = tmp_path / "a"
    argv = ["assess", str(w), "--keys", str(w), "--values", str(w), "--out", str(out)]
    assert main(argv) == 0
    out.joinpath("notes.txt").write_text("mine", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(before) == {"assessment.json", "assessment.html", "notes.txt"}
    capsys.readouterr()
    if fault == "ctrl-c":
        # the new html is being rendered after the new json: the old code had written the json by then
        def interrupted(*_a, **_k):
            raise KeyboardInterrupt

        monkeypatch.setattr(assess_cmd, "_html", interrupted)
        expected = (130, f"theorems assess: interrupted; the previous assessment in {out} was kept")
    else:
        def full(*_a, **_k):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(reportdir, "_fsync_dir", full)
        expected = (3, f"theorems assess: error: could not write the assessment to {out}: No space left on device; "
                       f"the previous assessment in {out} was kept")
    code = main([*argv[:-2], "--tau", "0.5", "--out", str(out)])
    assert (code, capsys.readouterr().err.strip()) == expected
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "eye.npy"]


def test_assess_refuses_a_bad_out_before_reading_anything(tmp_path, capsys):
    from theorems.cli import main

    (tmp_path / "a" / "sub").mkdir(parents=True)
    code = main(["assess", str(tmp_path / "missing.npy"), "--out", str(tmp_path / "a")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith(f"theorems assess: error: --out '{tmp_path / 'a'}' holds folders (sub)")


# --------------------------------------------------------------------------
# killing verify --jobs 2 ends its workers (issue 23 item 6)
# --------------------------------------------------------------------------

FAKE = Path(__file__).resolve().with_name("fake_claims.py")


def _children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_killing_verify_with_jobs_ends_its_workers(tmp_path, how):
    import signal
    import time

    argv = [THEOREMS, "verify", "--claims", str(FAKE), "--only", "fake.sleep", "--only", "fake.stable",
            "--jobs", "2", "--out", str(tmp_path / "reports")]
    env = dict(os.environ, THEOREMS_CACHE=str(tmp_path / "cache"))
    err = tmp_path / "stderr.txt"
    with open(err, "wb") as fh:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=fh, env=env, cwd=tmp_path,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) == 2, (workers, proc.poll())
        time.sleep(1.0)  # the workers are running their claims (fake.sleep sleeps 60 s)
        proc.send_signal(getattr(signal, how))
        proc.wait(timeout=30)
        end = time.monotonic() + 5
        while time.monotonic() < end and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)], "workers outlived their parent"
        if how == "SIGTERM":
            assert proc.returncode == 143
            assert err.read_text().strip().splitlines()[-1] == (
                "theorems verify: terminated (SIGTERM); no reports were written to " + str(tmp_path / "reports"))
        else:
            assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:  # a worker left over by a failure: end it (the pids were checked alive above)
            if _alive(w):
                os.kill(w, signal.SIGKILL)


# --------------------------------------------------------------------------
# the report-set swap under a second Ctrl-C and a SIGKILL (issue 23 item 8)
# --------------------------------------------------------------------------


def test_a_second_ctrl_c_during_the_rollback_keeps_the_old_set(tmp_path, monkeypatch, capsys):
    import signal

    from theorems.cli import main
    from theorems.reporting.report import REPORT_FILES

    out = tmp_path / "reports"
    base = ["verify", "--claims", str(FAKE), "--out", str(out)]
    assert main([*base, "--only", "fake.stable"]) == 0
    before = {n: (out / n).read_bytes() for n in REPORT_FILES}
    real_rename = os.rename
    calls = []

    def rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # a Ctrl-C between moving the old set aside and moving the new one in
            os.kill(os.getpid(), signal.SIGINT)
        if len(calls) == 3:  # and a second one while the old set is moved back
            os.kill(os.getpid(), signal.SIGINT)
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    # Python's own handler: a shell without job control starts background jobs (a CI job, nohup) with
    # SIGINT ignored, and the process under test would then never see the Ctrl-C
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        code = main([*base, "--only", "fake.flaky", "--seed", "1"])
    finally:
        signal.signal(signal.SIGINT, previous)
    monkeypatch.setattr(os, "rename", real_rename)
    assert code == 130, capsys.readouterr()
    assert capsys.readouterr().err == f"theorems verify: interrupted; the previous reports in {out} were kept\n"
    assert {n: (out / n).read_bytes() for n in REPORT_FILES} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]


def _killed_between_the_renames(tmp_path: Path) -> tuple[Path, dict]:
    """The folders a SIGKILL leaves after ``reports`` -> old and before new -> ``reports``."""
    import json

    from theorems.cli import main
    from theorems.reporting.report import REPORT_FILES

    out = tmp_path / "reports"
    assert main(["verify", "--claims", str(FAKE), "--only", "fake.stable", "--out", str(out)]) == 0
    before = {n: (out / n).read_bytes() for n in REPORT_FILES}
    dead = 999999999  # no such process
    old, new = tmp_path / f".reports.old-{dead}-ab12.tmp", tmp_path / f".reports.new-{dead}-ab12.tmp"
    os.rename(out, old)
    new.mkdir()
    for n in REPORT_FILES:
        (new / n).write_text(json.dumps({"run": "the killed one"}) if n == "report.json" else "new")
    return out, before


@pytest.mark.parametrize("command", ["compare", "compare-json", "render", "verify"])
def test_a_sigkill_between_the_two_renames_leaves_the_old_set_for_every_command(tmp_path, capsys, command):
    from theorems.cli import main
    from theorems.reporting.report import REPORT_FILES

    out, before = _killed_between_the_renames(tmp_path)
    capsys.readouterr()
    report = str(out / "report.json")
    argv = {"compare": ["report", "--compare", report, report],
            "compare-json": ["report", "--compare", report, report, "--json"],
            "render": ["report", report, "--out", str(tmp_path / "again")],
            "verify": ["verify", "--claims", str(FAKE), "--only", "fake.stable", "--out", str(out)]}[command]
    code = main(argv)
    assert code == 0, capsys.readouterr()
    if command == "verify":  # the old set came back first, then this run replaced it
        assert "the killed one" not in (out / "report.json").read_text()
    else:
        assert {n: (out / n).read_bytes() for n in REPORT_FILES} == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
