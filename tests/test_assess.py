"""linmem.assess and the ``theorems assess`` command: the figures, the JSON
and HTML outputs, and bad input (exit 2 with one line)."""

from __future__ import annotations

import importlib
import json
import math

import numpy as np
import pytest

import linmem
from linmem.assess import MODEL_LABEL
from theorems.cli import main
from theorems.core.tolerance import least_squares_tolerance

RNG = np.random.default_rng(0)
K = RNG.standard_normal((8, 20))
V = RNG.standard_normal((3, 20))
W_LS = V @ np.linalg.pinv(K)


def test_residuals_leverage_model_and_noise_gain():
    W = W_LS + 0.01
    a = linmem.assess(W, K, V)
    R = W @ K - V
    np.testing.assert_allclose(a.residuals, np.sum(R * R, axis=0), rtol=1e-13)
    h = np.diag(K.T @ np.linalg.pinv(K.T))
    np.testing.assert_allclose(a.leverage, h, atol=1e-12)
    np.testing.assert_allclose(a.expected_error, 1 - h, atol=1e-12)
    assert a.model == MODEL_LABEL and "model" in a.model
    assert a.noise_gain == pytest.approx(np.sum(W * W), rel=1e-14)
    assert a.noise_gain_model == pytest.approx(np.sum(np.linalg.pinv(K) ** 2), rel=1e-10)
    assert not a.is_least_squares and a.least_squares_distance > a.least_squares_tolerance
    assert linmem.assess(W_LS, K, V).is_least_squares
    assert a.w_rank == 3 and a.key_rank == 8 and a.n == 20


def test_consistency_and_top1():
    Kd = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # duplicated key
    a = linmem.assess(np.eye(2), Kd, np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]))
    assert not a.consistent and a.consistency_violation == pytest.approx(np.sqrt(0.5))
    b = linmem.assess(np.eye(3), np.eye(3), np.eye(3))
    assert b.consistent and b.top1_rate == 1.0 and b.top1_correct.tolist() == [True] * 3


def test_measured_noise_matches_the_fixed_store_identity():
    a = linmem.assess(W_LS, K, V, tau=0.3, rng=np.random.default_rng(1), noise_draws=400)
    np.testing.assert_allclose(a.noisy_error_fixed, a.residuals + 0.09 * a.noise_gain)
    # 400 draws of a chi-square-like error: within 5 standard errors per key
    rel = np.abs(a.noisy_error_measured - a.noisy_error_fixed) / a.noisy_error_fixed
    assert np.max(rel) < 0.25 and abs(np.mean(rel)) < 0.1
    np.testing.assert_allclose(a.noisy_error_model, 1 - a.leverage + 0.09 * a.noise_gain_model)


def test_svd_view_alone_and_json():
    a = linmem.assess(np.diag([3.0, 1.0, 0.0]))
    assert a.w_rank == 2 and a.residuals is None and "SVD view" in a.notes[0]
    record = json.loads(json.dumps(a.to_json()))
    assert record["w_singular_values"] == [3.0, 1.0] and record["residuals"] is None


def test_float32_inputs_are_judged_at_their_precision():
    W32 = W_LS.astype(np.float32)
    assert linmem.assess(W32, K.astype(np.float32), V.astype(np.float32)).is_least_squares
    assert linmem.assess(W32, K, V).least_squares_tolerance > linmem.assess(W_LS, K, V).least_squares_tolerance


def _files(tmp_path):
    np.save(tmp_path / "K.npy", K)
    np.save(tmp_path / "V.npy", V)
    np.savez(tmp_path / "W.npz", W=W_LS, other=np.ones(2))
    return tmp_path / "W.npz", tmp_path / "K.npy", tmp_path / "V.npy"


def test_cli_writes_json_with_the_same_names_and_self_contained_html(tmp_path, capsys):
    W, Kf, Vf = _files(tmp_path)
    out = tmp_path / "out"
    rc = main(["assess", str(W), "--tensor", "W", "--keys", str(Kf), "--values", str(Vf), "--tau", "0.1",
               "--out", str(out)])
    assert rc == 0
    record = json.loads((out / "assessment.json").read_text())
    expect = linmem.assess(W_LS, K, V).to_json()
    for name in ("residuals", "leverage", "expected_error", "noise_gain", "is_least_squares", "consistent",
                 "top1_rate", "w_singular_values"):
        assert name in record
    np.testing.assert_allclose(record["residuals"], expect["residuals"])
    assert record["is_least_squares"] is True and record["tau"] == 0.1
    assert len(record["noise_curve"]["tau"]) == len(record["noise_curve"]["measured"])
    page = (out / "assessment.html").read_text()
    assert page.count("<svg") == 4 and "<script src" not in page and "<link" not in page
    assert "least-squares random-value model" in page


def test_cli_on_the_shipped_real_feed_forward_matrix(tmp_path):
    from importlib import resources

    path = resources.files("linmem.data").joinpath("minilm_sample.safetensors")
    rc = main(["assess", str(path), "--tensor", "encoder.layer.0.intermediate.dense.weight", "--out", str(tmp_path)])
    assert rc == 0
    record = json.loads((tmp_path / "assessment.json").read_text())
    assert record["shape"] == [1536, 384] and record["w_rank"] == 384 and record["inputs"]["dtype"] == "float16"


@pytest.mark.parametrize("argv, fragment", [
    (["{W}"], "holds 2 tensors"),
    (["{W}", "--tensor", "X"], "has no tensor 'X'"),
    (["{tmp}/missing.npy"], "does not exist"),
    (["{tmp}/junk.safetensors"], "is not a readable safetensors file"),
    (["{tmp}/nan.npy"], "W must have finite entries"),
    (["{tmp}/vec.npy"], "must be a 2-D matrix, got shape (3,)"),
    (["{tmp}/w.txt"], "must end in one of"),
    (["{W}", "--tensor", "W", "--keys", "{K}"], "give --keys and --values together"),
    (["{W}", "--tensor", "W", "--keys", "{V}", "--values", "{V}"], "it must be (3, 3)"),
    (["{W}", "--tensor", "W", "--keys", "{K}", "--values", "{tmp}/short.npy"], "one column per stored pair"),
    (["{W}", "--tensor", "W", "--tau", "0.1"], "--tau needs --keys and --values"),
])
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, argv, fragment):
    W, Kf, Vf = _files(tmp_path)
    np.save(tmp_path / "nan.npy", np.array([[np.nan, 1.0]]))
    np.save(tmp_path / "vec.npy", np.ones(3))
    np.save(tmp_path / "short.npy", np.ones((3, 5)))
    (tmp_path / "junk.safetensors").write_bytes(b"garbage")
    (tmp_path / "w.txt").write_text("1 2")
    args = [a.format(W=W, K=Kf, V=Vf, tmp=tmp_path) for a in argv] + ["--out", str(tmp_path / "o")]
    rc = main(["assess", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert len(err.strip().splitlines()) == 1 and fragment in err and "Traceback" not in err


def test_cli_bad_tau_is_a_usage_error(tmp_path, capsys):
    W, _, _ = _files(tmp_path)
    with pytest.raises(SystemExit) as info:
        main(["assess", str(W), "--tau", "-1", "--out", str(tmp_path)])
    assert info.value.code == 2
    assert "must be a finite number >= 0" in capsys.readouterr().err


def test_independent_least_squares_tolerance_is_the_documented_one():
    rng = np.random.default_rng(3)
    K, V = rng.standard_normal((4, 6)), rng.standard_normal((2, 6))
    a = linmem.assess(V @ np.linalg.pinv(K), K, V)
    assert least_squares_tolerance(K, V) == pytest.approx(a.least_squares_tolerance, rel=1e-12)


def test_a_unit_shift_is_within_the_tolerance_at_cond_1e9():
    """At cond(K) = 1e9 float64 cannot tell V K^+ + 1 from V K^+ (the seed-8
    counterexample of the float check): the documented bound exceeds the shift."""
    K = np.diag([1.0, 1e-9])
    V = np.array([[1.0, 1.0]])
    W = V @ np.linalg.pinv(K) + 1.0
    assert math.sqrt(W.size) < 2 * least_squares_tolerance(K, V)
    assert linmem.assess(W, K, V).is_least_squares
    assert not linmem.assess(V @ np.linalg.pinv(np.diag([1.0, 0.5])) + 1.0, np.diag([1.0, 0.5]), V).is_least_squares


def test_independent_least_squares_tolerance_is_zero_for_zero_keys_and_names_bad_shapes():
    assert least_squares_tolerance(np.zeros((3, 2)), np.ones((1, 2))) == 0.0
    with pytest.raises(ValueError, match="as many columns"):
        least_squares_tolerance(np.eye(3), np.ones((1, 2)))


def test_model_gap_is_the_best_scale_residual_minus_the_model_by_direct_sums():
    rng = np.random.default_rng(5)
    K, V = rng.standard_normal((4, 7)), rng.standard_normal((3, 7))
    W = 0.5 * V @ np.linalg.pinv(K) + 0.1 * rng.standard_normal((3, 4))
    a = linmem.assess(W, K, V)
    g = a.model_gap()
    WK = W @ K
    alpha = np.sum(WK * V) / np.sum(WK * WK)
    r = np.sum((alpha * WK - V) ** 2, axis=0)
    h = np.diag(K.T @ np.linalg.pinv(K.T))
    assert g["gap"] == pytest.approx(np.mean(r) - np.mean(1 - h), rel=1e-10)
    assert g["mean_scaled_residual"] == pytest.approx(np.mean(r), rel=1e-10)
    assert g["correlation"] == pytest.approx(np.corrcoef(r, 1 - h)[0, 1], rel=1e-8)
    assert g["top1_rate"] == a.top1_rate and g["scale"] == pytest.approx(alpha)


def test_model_gap_correlation_is_undefined_for_constant_leverage_and_needs_keys():
    K = np.eye(3)  # every h_j = 1
    a = linmem.assess(np.ones((2, 3)), K, np.arange(6.0).reshape(2, 3))
    assert math.isnan(a.model_gap()["correlation"])
    with pytest.raises(ValueError, match="model_gap needs an assessment made with the keys K and values V"):
        linmem.assess(np.ones((2, 3))).model_gap()


def test_spectrum_is_the_svd_view_of_w():
    W = np.random.default_rng(2).standard_normal((6, 4))
    sp = linmem.assess(W).spectrum(top=2, energy_top=3)
    s = np.linalg.svd(W, compute_uv=False)
    assert sp["shape"] == [6, 4] and sp["rank"] == 4
    np.testing.assert_allclose(sp["singular_values_top"], s[:2], rtol=1e-12)
    assert sp["condition"] == pytest.approx(s[0] / s[-1], rel=1e-12)
    assert sp["participation_ratio"] == pytest.approx(np.sum(s**2) ** 2 / np.sum(s**4), rel=1e-12)
    assert sp["top3_energy_share"] == pytest.approx(np.sum(s[:3] ** 2) / np.sum(s**2), rel=1e-12)
    assert sp["noise_gain"] == pytest.approx(np.sum(W * W), rel=1e-12)
    zero = linmem.assess(np.zeros((2, 2))).spectrum()
    assert zero["participation_ratio"] == 0.0 and zero["condition"] == math.inf
    with pytest.raises(ValueError, match="top"):
        linmem.assess(W).spectrum(top=0)


def test_cli_html_lists_the_keys_with_the_largest_residuals_and_the_top1_failures(tmp_path):
    rng = np.random.default_rng(7)
    Kb, Vb = rng.standard_normal((4, 12)), rng.standard_normal((3, 12))
    Wb = Vb @ np.linalg.pinv(Kb)  # 12 pairs in 4 dimensions: large residuals, top-1 failures
    np.save(tmp_path / "W.npy", Wb)
    np.save(tmp_path / "K.npy", Kb)
    np.save(tmp_path / "V.npy", Vb)
    out = tmp_path / "out"
    assert main(["assess", str(tmp_path / "W.npy"), "--keys", str(tmp_path / "K.npy"), "--values",
                 str(tmp_path / "V.npy"), "--out", str(out)]) == 0
    page = (out / "assessment.html").read_text()
    a = linmem.assess(Wb, Kb, Vb)
    worst = int(np.argmax(a.residuals))
    assert 'id="worst-keys"' in page and f"<tr><td>{worst}</td>" in page
    failures = np.flatnonzero(~a.top1_correct)
    assert failures.size and 'id="top1-failures"' in page
    assert f"Top-1 failures ({failures.size} of 12 keys" in page
    assert a.worst_keys[0] == worst and list(a.top1_failures) == list(failures[: len(a.top1_failures)])


def test_noise_curve_from_one_set_of_draws_matches_the_fixed_store_identity():
    from linmem.assess import noisy_error_curve

    rng = np.random.default_rng(3)
    Kb, Vb = rng.standard_normal((5, 9)), rng.standard_normal((2, 9))
    Wb = rng.standard_normal((2, 5))
    taus = [0.0, 0.5, 2.0]
    curve = noisy_error_curve(Wb, Kb, Vb, taus=taus, rng=np.random.default_rng(0), noise_draws=20000)
    R = Wb @ Kb - Vb
    for t, row in zip(taus, curve):
        expect = np.sum(R * R, axis=0) + t * t * np.sum(Wb * Wb)
        np.testing.assert_allclose(row, expect, rtol=0.05)
    np.testing.assert_allclose(curve[0], np.sum(R * R, axis=0), rtol=1e-12)  # no noise: no spread


def test_assess_at_many_keys_needs_no_n_by_n_matrix():
    import tracemalloc

    rng = np.random.default_rng(0)
    d, n = 8, 20_000  # an n x n projector would be 3.2 GB
    Kb = rng.standard_normal((d, n))
    Vb = rng.standard_normal((2, n))
    Wb = Vb @ np.linalg.pinv(Kb)
    tracemalloc.start()
    a = linmem.assess(Wb, Kb, Vb, tau=0.1, rng=np.random.default_rng(1), noise_draws=4)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert a.is_least_squares and not a.consistent
    assert peak < 40 * Kb.nbytes  # O(n d); n x n would be 2,500 x K's bytes
    assert linmem.consistency_residual(Kb, Vb) == pytest.approx(a.consistency_violation, rel=1e-9)


def _spy_key_svd(monkeypatch):
    """Count the full SVDs of K (the fallback path) that assess makes."""
    assess_mod = importlib.import_module("linmem.assess")

    calls = []
    real = assess_mod.compact_svd

    def spy(A, *, name="A"):
        calls.append(name)
        return real(A, name=name)

    monkeypatch.setattr(assess_mod, "compact_svd", spy)
    return calls


def _keys_with_singular_values(rng, d, n, s):
    U = np.linalg.qr(rng.standard_normal((d, len(s))))[0]
    Z = np.linalg.qr(rng.standard_normal((n, len(s))))[0]
    return (U * s) @ Z.T


STREAMED_CASES = [
    pytest.param(8, 20, 8, False, id="full-row-rank"),
    pytest.param(20, 8, 8, False, id="fewer-keys-than-dimensions"),
    pytest.param(8, 30, 5, True, id="rank-deficient-consistent-values"),
    pytest.param(8, 30, 8, True, id="full-rank-consistent-values"),
]


@pytest.mark.parametrize("d, n, rank, consistent", STREAMED_CASES)
def test_the_streamed_key_factor_gives_the_figures_of_the_full_svd(monkeypatch, d, n, rank, consistent):
    assess_mod = importlib.import_module("linmem.assess")

    rng = np.random.default_rng(3)
    Kr = _keys_with_singular_values(rng, d, n, np.linspace(2.0, 0.5, rank))
    Vr = rng.standard_normal((3, d)) @ Kr if consistent else rng.standard_normal((3, n))
    Wr = Vr @ np.linalg.pinv(Kr) + 1e-3 * rng.standard_normal((3, d))
    monkeypatch.setattr(assess_mod, "ASSESS_CHUNK_KEYS", 7)  # several blocks
    calls = _spy_key_svd(monkeypatch)
    fast = linmem.assess(Wr, Kr, Vr)
    assert "K" not in calls  # the streamed path made no SVD of K
    monkeypatch.setattr(assess_mod, "STREAMED_KEY_SAFETY", math.inf)  # every K falls back
    dense = linmem.assess(Wr, Kr, Vr)
    assert calls.count("K") == 1
    assert fast.key_rank == dense.key_rank == rank
    assert fast.consistent == dense.consistent == (consistent or rank == n)  # n independent keys: any V fits
    assert fast.is_least_squares == dense.is_least_squares is False
    floor = 1e-14 * float(np.max(dense.value_norms_sq))  # residuals cancel to it when W nearly fits
    for name in ("residuals", "scaled_residuals", "value_norms_sq"):
        np.testing.assert_allclose(getattr(fast, name), getattr(dense, name), rtol=1e-12, atol=floor, err_msg=name)
    np.testing.assert_allclose(fast.key_singular_values, dense.key_singular_values, rtol=1e-12)
    np.testing.assert_allclose(fast.leverage, dense.leverage, atol=1e-13)
    v = math.sqrt(np.sum(Vr * Vr))
    assert fast.consistency_violation == pytest.approx(dense.consistency_violation, abs=1e-13 * v)
    for name in ("scale", "noise_gain_model", "least_squares_distance", "least_squares_tolerance"):
        assert getattr(fast, name) == pytest.approx(getattr(dense, name), rel=1e-10), name
    exact_ls = Vr @ np.linalg.pinv(Kr)
    assert linmem.assess(exact_ls, Kr, Vr).is_least_squares
    assert not linmem.assess(exact_ls * (1 + 1e-6), Kr, Vr).is_least_squares


def test_ill_conditioned_keys_fall_back_to_the_full_svd_and_keep_their_leverage(monkeypatch):
    rng = np.random.default_rng(4)
    d, n = 6, 40
    Kc = _keys_with_singular_values(rng, d, n, np.logspace(0, -8, d))  # cond 1e8
    Vc = rng.standard_normal((2, d)) @ Kc  # consistent values
    calls = _spy_key_svd(monkeypatch)
    a = linmem.assess(np.zeros((2, d)), Kc, Vc)
    assert calls.count("K") == 1  # the guard sent it to the full SVD
    assert a.consistent
    np.testing.assert_allclose(a.leverage, np.sum(np.linalg.svd(Kc, full_matrices=False)[2] ** 2, axis=0),
                               atol=1e-8)
    calls.clear()
    Kw = _keys_with_singular_values(rng, d, n, np.linspace(1.0, 0.5, d))  # cond 2
    linmem.assess(np.zeros((2, d)), Kw, Vc)
    assert "K" not in calls  # well-conditioned keys stay on the streamed path


def _float32_peak(monkeypatch, force_full_svd: bool, *, noise: bool = False) -> tuple[int, int]:
    import tracemalloc

    assess_mod = importlib.import_module("linmem.assess")

    if force_full_svd:
        monkeypatch.setattr(assess_mod, "STREAMED_KEY_SAFETY", math.inf)
    rng = np.random.default_rng(5)
    d, n = 32, 60_000
    K32 = rng.standard_normal((d, n), dtype=np.float32)
    V32 = rng.standard_normal((d, n), dtype=np.float32)
    W32 = rng.standard_normal((d, d), dtype=np.float32)
    tracemalloc.start()
    try:
        if noise:
            from linmem.assess import noisy_error_curve

            noisy_error_curve(W32, K32, V32, taus=[0.0, 0.5], rng=np.random.default_rng(6), noise_draws=2)
        else:
            linmem.assess(W32, K32, V32, top1=False)
        return tracemalloc.get_traced_memory()[1], K32.nbytes
    finally:
        tracemalloc.stop()


def test_float32_keys_and_values_are_assessed_within_three_times_their_memory(monkeypatch):
    peak, k_bytes = _float32_peak(monkeypatch, force_full_svd=False)
    assert peak <= 3 * k_bytes
    # control: the full-SVD path (float64 copies of K and V, Z_K kept) exceeds it
    peak_full, _ = _float32_peak(monkeypatch, force_full_svd=True)
    assert peak_full > 3 * k_bytes
    peak_noise, _ = _float32_peak(monkeypatch, force_full_svd=False, noise=True)
    assert peak_noise <= 3 * k_bytes  # the measured noise curve converts K and V block by block too


def test_non_finite_float32_keys_are_refused_naming_k():
    K32 = K.astype(np.float32)
    K32[1, 2] = np.nan
    with pytest.raises(ValueError, match="K must have finite entries"):
        linmem.assess(W_LS, K32, V)
