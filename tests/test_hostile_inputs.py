"""Every input bounded before it is read (issue 37, item 5): declared array
sizes in .npy, .npz and .safetensors against a limit an option can raise,
JSON depth, numeric option ranges, and --observe kept off the files a run
needs; each refusal is one line and exit 2, and an observation file that
cannot be written changes no verdict and loses no report."""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from linmem.embeddings import MAX_TENSOR_BYTES, read_tensor
from cli_run import run_cli as _run

FAKE = Path(__file__).resolve().with_name("fake_claims.py")


def _refused(argv, capsys, *needs: str) -> str:
    from hypothesis import configuration

    home = getattr(configuration, "__hypothesis_home_directory", None)
    code, out, err = _run(argv, capsys)
    # a refused run leaves nothing open: the Hypothesis home it set (a temporary folder when the cache
    # is off) is restored, not left to the garbage collector (a ResourceWarning in a later test)
    assert getattr(configuration, "__hypothesis_home_directory", None) == home
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, (code, out, err)
    for need in needs:
        assert need in lines[0], lines[0]
    return lines[0]


def _npy_header(shape, dtype="<f8") -> bytes:
    """The bytes of a .npy file that declares ``shape`` and holds no data."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue()  # the magic string and the header


def _bomb_npz(path: Path, shape=(20000, 20000)) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("W.npy", _npy_header(shape) + b"\0" * 1024)
    return path


def _safetensors(path: Path, header: dict, data: bytes = b"") -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


# --- declared sizes -----------------------------------------------------------------------------------


def test_an_npz_declaring_a_huge_array_is_refused_before_it_is_read(tmp_path, capsys):
    bomb = _bomb_npz(tmp_path / "W.npz")
    assert bomb.stat().st_size < 10_000
    _refused(["assess", bomb, "--out", tmp_path / "out"], capsys,
             "declares an array of shape (20000, 20000)", "3,200,000,000 bytes", "--max-bytes")


def test_an_npy_declaring_a_huge_array_is_refused_before_it_is_read(tmp_path, capsys):
    bomb = tmp_path / "W.npy"
    bomb.write_bytes(_npy_header((100000, 100000)))
    _refused(["assess", bomb, "--out", tmp_path / "out"], capsys, "declares an array of shape (100000, 100000)")


def test_a_safetensors_declaring_a_huge_tensor_is_refused_before_it_is_read(tmp_path, capsys):
    bomb = _safetensors(tmp_path / "W.safetensors",
                        {"W": {"dtype": "F64", "shape": [50000, 50000], "data_offsets": [0, 16]}}, b"\0" * 16)
    _refused(["assess", bomb, "--out", tmp_path / "out"], capsys, "tensor 'W'", "over the limit")


def test_a_safetensors_header_longer_than_its_file_is_refused(tmp_path):
    path = tmp_path / "W.safetensors"
    path.write_bytes(struct.pack("<Q", 2**60) + b"{}")
    with pytest.raises(ValueError, match="declares a header of"):
        read_tensor(path)


def test_a_safetensors_tensor_with_an_empty_name_is_refused(tmp_path):
    path = _safetensors(tmp_path / "W.safetensors", {"": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}},
                        b"\0" * 8)
    with pytest.raises(ValueError, match="holds a tensor with an empty name"):
        read_tensor(path)


def test_an_empty_tensor_name_on_the_command_line_is_refused(tmp_path, capsys):
    path = tmp_path / "W.npz"
    np.savez(path, W=np.eye(2))
    _refused(["assess", path, "--tensor", "", "--out", tmp_path / "out"], capsys, "tensor name")


def test_the_limit_refuses_and_the_option_raises_it(tmp_path, capsys):
    path = tmp_path / "W.npy"
    np.save(path, np.eye(4))  # 128 bytes
    with pytest.raises(ValueError, match="over the limit of 100 bytes"):
        read_tensor(path, max_bytes=100)
    assert read_tensor(path, max_bytes=128).shape == (4, 4)
    _refused(["assess", path, "--max-bytes", "100", "--out", tmp_path / "a"], capsys, "over the limit of 100 bytes")
    code, _, err = _run(["assess", path, "--max-bytes", "128", "--out", tmp_path / "b"], capsys)
    assert code == 0, err


@pytest.mark.parametrize("value", ["0", "-1", "many", str(2**70)])
def test_a_max_bytes_out_of_range_is_a_usage_error(tmp_path, capsys, value):
    path = tmp_path / "W.npy"
    np.save(path, np.eye(2))
    _refused(["assess", path, "--max-bytes", value, "--out", tmp_path / "out"], capsys, "--max-bytes")


@pytest.mark.parametrize("value", [0, -5, True, 2.5])
def test_read_tensor_refuses_a_limit_that_is_not_a_positive_int(tmp_path, value):
    path = tmp_path / "W.npy"
    np.save(path, np.eye(2))
    with pytest.raises(ValueError, match="max_bytes must be an int >= 1"):
        read_tensor(path, max_bytes=value)


def test_the_default_limit_reads_a_model_sized_matrix_header(tmp_path):
    path = tmp_path / "E.npy"
    path.write_bytes(_npy_header((30522, 384), "<f4"))  # MiniLM's embeddings: declared, refused only if over
    assert 30522 * 384 * 4 < MAX_TENSOR_BYTES
    with pytest.raises(ValueError, match="not a readable .npy file"):  # the data is missing, the size is fine
        read_tensor(path)


# --- JSON depth, numeric options -------------------------------------------------------------------------


def test_a_deeply_nested_report_json_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "report.json"
    path.write_text('{"schema_version": "1.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    _refused(["report", path, "--out", tmp_path / "out"], capsys, "nests deeper than 64 levels")


def test_a_deeply_nested_report_json_is_refused_by_compare_too(tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    _refused(["report", "--compare", deep, deep], capsys, "nests deeper")


@pytest.mark.parametrize(("argv", "need"), [
    (["stability", "--seeds", "100000000000"], "--seeds"),
    (["stability", "--seeds", "0"], "--seeds"),
    (["stability", "--seeds", "9" * 5000], "--seeds"),
    (["verify", "--jobs", "100000"], "--jobs"),
    (["verify", "--workers", "0"], "--workers"),
    (["verify", "--seed", str(2**128)], "--seed"),
    (["stability", "--first-seed", "-1"], "--first-seed"),
])
def test_a_numeric_option_out_of_range_is_a_usage_error(capsys, argv, need):
    _refused(argv, capsys, need)


# --- --observe and the claims hash ------------------------------------------------------------------------


def test_observe_refuses_to_overwrite_the_claims_module(tmp_path, capsys):
    module = tmp_path / "mine.py"
    module.write_bytes(FAKE.read_bytes())
    before = module.read_bytes()
    _refused(["verify", "--claims", module, "--only", "fake.stable", "--observe", module, "--out", tmp_path / "r"],
             capsys, "is the claims module")
    assert module.read_bytes() == before


@pytest.mark.parametrize("name", ["report.json", "junit.xml"])
def test_observe_refuses_a_file_of_the_report_set(tmp_path, capsys, name):
    out = tmp_path / "reports"
    _refused(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", out, "--observe", out / name],
             capsys, f"is the {name} of the report set")


def test_an_observation_file_that_cannot_be_written_changes_no_verdict_and_loses_no_report(tmp_path, capsys,
                                                                                           monkeypatch):
    from theorems.reporting import observe

    real_write = observe.os.write
    calls = {"n": 0}

    def failing_write(fd, data):  # the disk fills up after the first line
        calls["n"] += 1
        if calls["n"] > 1:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(observe.os, "write", failing_write)
    out = tmp_path / "reports"
    code, stdout, err = _run(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", out,
                              "--observe", tmp_path / "obs.jsonl"], capsys)
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["counts"]["VERIFIED"] == 1 and (out / "report.html").exists()
    assert "stopped being written" in err and "No space left on device" in err


def test_an_observation_file_in_a_folder_that_cannot_be_written_is_refused_before_the_run(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    target = locked / "obs.jsonl"
    target.mkdir()  # a folder where the file should be: it cannot be opened for writing
    _refused(["verify", "--claims", FAKE, "--only", "fake.stable", "--out", tmp_path / "r", "--observe", target],
             capsys, "--observe")


def test_the_claims_hash_is_of_the_bytes_imported_not_of_the_file_after_the_run(tmp_path):
    from theorems.core.registry import _import, claims_module_hashes

    module = tmp_path / "mine_hash.py"
    original = FAKE.read_bytes()
    module.write_bytes(original)
    _import(str(module))
    module.write_bytes(original + b"\n# edited during the run\n")
    assert claims_module_hashes([str(module)])[str(module)] == hashlib.sha256(original).hexdigest()


@pytest.mark.parametrize(("recipe", "need"), [
    ('{"family": "gaussian", "d": 2, "M": 3, "p": 1, "seed": 1e400, "cond": 1.0, "rank": null, "unit": false}',
     "OverflowError"),
    ('{"family": "gaussian", "d": "two", "M": 3, "p": 1, "seed": 1, "cond": 1.0, "rank": null, "unit": false}',
     "does not build a case"),
    ("[" * 5000 + "]" * 5000, "--case"),
])
def test_a_case_recipe_that_builds_no_case_is_a_usage_error(tmp_path, capsys, recipe, need):
    _refused(["verify", "--only", "proj.coefficient-projector", "--case", f"float:{recipe}",
              "--out", tmp_path / "r"], capsys, need)
