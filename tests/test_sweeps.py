"""Tests of linmem.sweeps and theorems.scale.sweepcache: the finite-size crossing
estimators find planted thresholds, the per-instance cache hits on a rerun
and misses when a parameter changes, sweeps on an executor equal the serial
run, and bad input is refused with a message naming it."""

from __future__ import annotations

import concurrent.futures
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ndtr

from linmem import sweeps
from theorems.scale import sweepcache
from theorems.scale.sweepcache import SweepCache

#: A planted monotone criterion: success iff n <= PLANTED_N.
PLANTED_N = 37

#: A planted random criterion: P(success at n) = sigmoid(SLOPE (N50 - n)).
PLANTED_N50 = 30.0
PLANTED_SLOPE = 0.6


def _planted_monotone(V, U):
    return V.shape[1] <= PLANTED_N


def _planted_random(V, U):
    # one uniform variable per instance, read off the instance itself
    u = ndtr(V[0, 0] * math.sqrt(V.shape[0]))
    return bool(u < 1 / (1 + math.exp(-PLANTED_SLOPE * (PLANTED_N50 - V.shape[1]))))


def _counting(criterion):
    calls = {"n": 0}

    def wrapped(V, U):
        calls["n"] += 1
        return criterion(V, U)

    return wrapped, calls


# --------------------------------------------------------------------------
# estimators
# --------------------------------------------------------------------------


def test_nested_bisection_finds_the_planted_size_with_log_many_calls():
    crit, calls = _counting(_planted_monotone)
    res = sweeps.nested_critical_sizes(crit, 6, n_range=(2, 200), seeds=range(4), base_seed=1,
                                       name="test", cache=None)
    assert res.n_star.tolist() == [PLANTED_N] * 4
    assert calls["n"] <= 4 * (2 + math.ceil(math.log2(200 - 2)))
    assert res.censored == 0
    # the crossing of the load ratio sits half a pair above the planted size
    assert res.crossing("ratio") == pytest.approx(sweeps.load_value("ratio", 6, PLANTED_N + 0.5))
    loads, probs = res.success_curve("alpha", [PLANTED_N, PLANTED_N + 1])
    assert probs == [1.0, 0.0]
    assert loads[0] == pytest.approx(PLANTED_N / 36)


def test_nested_bisection_reports_censoring_outside_the_range():
    below = sweeps.nested_critical_sizes(lambda V, U: False, 3, n_range=(5, 9), seeds=[0], base_seed=0,
                                         name="test", cache=None)
    above = sweeps.nested_critical_sizes(lambda V, U: True, 3, n_range=(5, 9), seeds=[0], base_seed=0,
                                         name="test", cache=None)
    assert below.n_star.tolist() == [4] and below.censored == 1
    assert above.n_star.tolist() == [9] and above.censored == 1


def test_nested_pools_are_prefixes_of_each_other():
    seen = {}

    def record(V, U):
        seen[V.shape[1]] = (V.copy(), U.copy())
        return V.shape[1] <= 10

    sweeps.nested_critical_sizes(record, 4, n_range=(2, 40), seeds=[3], base_seed=9, name="t", cache=None)
    big = max(seen)
    for n, (V, U) in seen.items():
        np.testing.assert_array_equal(V, seen[big][0][:, :n])
        np.testing.assert_array_equal(U, seen[big][1][:, :n])


def test_bisection_on_the_load_recovers_a_planted_logistic_crossing():
    res = sweeps.bisect_crossing(_planted_random, 6, load_kind="alpha", bracket=(0.2, 3.0), trials=40,
                                 steps=6, base_seed=5, name="test", cache=None)
    assert not res.censored
    assert res.n50 == pytest.approx(PLANTED_N50, abs=3)
    assert res.crossing == pytest.approx(res.n50 / 36)
    assert res.slope < 0
    loads, rates, counts = res.success_curve()
    assert sum(counts) == res.ns.size == res.evaluations


def test_bisection_on_the_load_flags_a_crossing_outside_the_bracket():
    res = sweeps.bisect_crossing(lambda V, U: True, 5, load_kind="ratio", bracket=(2.0, 8.0), trials=3,
                                 steps=3, base_seed=0, name="test", cache=None)
    assert res.censored
    assert math.isnan(res.crossing)


def test_logistic_crossing_of_a_separated_sample_lies_between_the_groups():
    x = np.arange(10.0)
    x50, slope = sweeps.logistic_crossing(x, x < 4.5)
    assert 4 < x50 < 5 and slope < 0


def test_load_conversions_invert_each_other():
    for kind in sweeps.LOAD_KINDS:
        for n in (2.5, 17.0, 1234.0):
            load = sweeps.load_value(kind, 20, n)
            assert sweeps.pairs_at_load(kind, 20, load) == pytest.approx(n, rel=1e-12)


def test_measure_grid_and_peak_location():
    M = sweeps.measure_grid(lambda V, U: -(V.shape[1] - 6.3) ** 2, 3, [4, 5, 6, 7, 8], seeds=range(2),
                            base_seed=0, name="test", cache=None)
    assert M.shape == (2, 5)
    assert sweeps.peak_location([4, 5, 6, 7, 8], M[0]) == pytest.approx(6.3)


def test_gaussian_pairs_have_the_stated_covariance():
    V, U = sweeps.gaussian_pairs(8, 20000, rng=sweeps.instance_rng(0))
    assert np.mean(np.sum(V * V, axis=0)) == pytest.approx(1.0, abs=0.02)
    assert np.mean(np.sum(U * U, axis=0)) == pytest.approx(1.0, abs=0.02)


# --------------------------------------------------------------------------
# cache
# --------------------------------------------------------------------------


def test_cache_hits_on_rerun_and_misses_when_a_parameter_changes(tmp_path):
    cache = SweepCache(tmp_path)
    crit, calls = _counting(_planted_monotone)
    first = sweeps.nested_critical_sizes(crit, 5, n_range=(2, 80), seeds=range(3), base_seed=2,
                                         name="planted", params={"p": 1}, cache=cache)
    made = calls["n"]
    assert made > 0 and first.cache_hits == 0
    again = sweeps.nested_critical_sizes(crit, 5, n_range=(2, 80), seeds=range(3), base_seed=2,
                                         name="planted", params={"p": 1}, cache=cache)
    assert calls["n"] == made and again.cache_hits == 3
    assert again.n_star.tolist() == first.n_star.tolist()
    # a changed parameter, seed, name or dimension is a miss
    for change in ({"params": {"p": 2}}, {"base_seed": 3}, {"name": "other"}):
        kw = dict(n_range=(2, 80), seeds=range(3), base_seed=2, name="planted", params={"p": 1}, cache=cache)
        kw.update(change)
        res = sweeps.nested_critical_sizes(crit, 5, **kw)
        assert res.cache_hits == 0
    # a larger run reuses the seeds a smaller one computed
    more = sweeps.nested_critical_sizes(crit, 5, n_range=(2, 80), seeds=range(5), base_seed=2,
                                        name="planted", params={"p": 1}, cache=cache)
    assert more.cache_hits == 3


def test_bisect_crossing_reruns_from_the_cache(tmp_path):
    crit, calls = _counting(_planted_random)
    kw = dict(load_kind="alpha", bracket=(0.3, 2.0), trials=5, steps=3, base_seed=1, name="r",
              cache=SweepCache(tmp_path))
    a = sweeps.bisect_crossing(crit, 6, **kw)
    made = calls["n"]
    b = sweeps.bisect_crossing(crit, 6, **kw)
    assert calls["n"] == made and b.evaluations == 0 and b.cache_hits == a.ns.size
    assert b.n50 == a.n50


def test_cache_files_are_json_and_a_corrupt_one_is_a_miss(tmp_path):
    cache = SweepCache(tmp_path)
    key = cache.key("f", {"x": (1, 2)}, [0, 1])
    assert key == cache.key("f", {"x": [1, 2]}, [0, 1])  # tuples and lists key alike
    cache.put(key, {"a": 1.5})
    path = tmp_path / key[:2] / f"{key}.json"
    assert json.loads(path.read_text())["value"] == {"a": 1.5}
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    path.write_text("{not json")
    assert cache.get(key) == (False, None)


def test_the_key_includes_linmems_source_fingerprint(tmp_path):
    fp = sweepcache.linmem_fingerprint()
    assert set(fp) == {"version", "source", "numpy", "scipy"} and len(fp["source"]) == 16


def test_the_key_includes_the_shared_machinery(tmp_path, monkeypatch):
    # a sweep template or instance family edited invalidates cached results, whichever claim stored them
    here = Path(sweepcache.__file__).parents[1]
    hashed = {p.name for pattern in sweepcache.MACHINERY for p in here.glob(pattern)}
    assert {"templates.py", "strategies.py", "simulation.py", "numbers.py", "laws.py", "checks.py"} <= hashed
    cache = sweepcache.SweepCache(tmp_path)
    before = cache.key("f", {"d": 4}, 0)
    monkeypatch.setattr(sweepcache, "machinery_fingerprint", lambda: "0" * 16)
    assert cache.key("f", {"d": 4}, 0) != before


def test_default_cache_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(sweepcache.CACHE_ENV, str(tmp_path / "c"))
    assert sweepcache.resolve_cache(True).directory == tmp_path / "c"
    # the runner opens it once per run and hands it to every check (importing sweepcache installs nothing)
    from theorems.core.runner import resolve_run_cache

    assert resolve_run_cache().directory == tmp_path / "c"
    with pytest.raises(TypeError, match="linmem keeps no default cache"):
        sweeps.check_cache(True)
    for off in ("", "off", "0", "None"):
        monkeypatch.setenv(sweepcache.CACHE_ENV, off)
        assert sweepcache.resolve_cache(True) is None and resolve_run_cache() is None
    monkeypatch.delenv(sweepcache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert sweepcache.default_cache_dir() == tmp_path / "linmem-theorems"
    assert sweepcache.resolve_cache(None) is None and sweepcache.resolve_cache(False) is None


def test_an_unwritable_cache_directory_changes_no_result(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = SweepCache(blocker / "sub")
    value, hit = sweepcache.cached_call(lambda: 7, name="c", params={}, seed=0, cache=cache)
    assert (value, hit) == (7, False) and cache.write_errors == 1


def test_cached_call_round_trips_json_values(tmp_path):
    value, hit = sweepcache.cached_call(lambda: [1, 2.5, True], name="c", params={}, seed=0, cache=tmp_path)
    again, hit2 = sweepcache.cached_call(lambda: None, name="c", params={}, seed=0, cache=str(tmp_path))
    assert (hit, hit2) == (False, True) and again == [1, 2.5, True]


# --------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------

_OK = dict(n_range=(2, 10), seeds=[0], base_seed=0, name="x", cache=None)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        pytest.param(dict(_OK, n_range=(5, 5)), ValueError, "lo < hi", id="range-empty"),
        pytest.param(dict(_OK, n_range=(1, 5)), ValueError, r"n_range\[0\] must be an integer >= 2", id="range-low"),
        pytest.param(dict(_OK, n_range=5), TypeError, "pair", id="range-scalar"),
        pytest.param(dict(_OK, seeds=[]), ValueError, "seeds must be non-empty", id="seeds-empty"),
        pytest.param(dict(_OK, seeds=[1, 1]), ValueError, "distinct", id="seeds-duplicate"),
        pytest.param(dict(_OK, seeds=[-1]), ValueError, "nonnegative", id="seeds-negative"),
        pytest.param(dict(_OK, seeds="01"), TypeError, "iterable", id="seeds-string"),
        pytest.param(dict(_OK, base_seed=-3), ValueError, "base_seed", id="base-seed"),
        pytest.param(dict(_OK, name=""), TypeError, "name", id="name-empty"),
        pytest.param(dict(_OK, params={"x": object()}), TypeError, "JSON-able", id="params-object"),
        pytest.param(dict(_OK, params={"x": math.nan}), ValueError, "finite", id="params-nan"),
        pytest.param(dict(_OK, cache=3), TypeError, "cache must be", id="cache-int"),
    ],
)
def test_nested_critical_sizes_refuses_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        sweeps.nested_critical_sizes(_planted_monotone, 3, **kwargs)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        pytest.param(lambda: sweeps.nested_critical_sizes(42, 3, **_OK), TypeError, "success must be callable",
                     id="success"),
        pytest.param(lambda: sweeps.nested_critical_sizes(_planted_monotone, 0, **_OK), ValueError,
                     "d must be an integer >= 1", id="d-zero"),
        pytest.param(lambda: sweeps.bisect_crossing(_planted_monotone, 4, load_kind="beta", bracket=(1, 2),
                                                    trials=2, steps=1, base_seed=0, name="x", cache=None),
                     ValueError, "load_kind", id="load-kind"),
        pytest.param(lambda: sweeps.bisect_crossing(_planted_monotone, 4, load_kind="alpha", bracket=(1, -2),
                                                    trials=2, steps=1, base_seed=0, name="x", cache=None),
                     ValueError, r"bracket\[1\]", id="bracket-negative"),
        pytest.param(lambda: sweeps.bisect_crossing(_planted_monotone, 2, load_kind="alpha", bracket=(1.0, 1.1),
                                                    trials=2, steps=1, base_seed=0, name="x", cache=None),
                     ValueError, "spans no pairs", id="bracket-narrow"),
        pytest.param(lambda: sweeps.bisect_crossing(_planted_monotone, 4, load_kind="alpha", bracket=(1, 2),
                                                    trials=0, steps=1, base_seed=0, name="x", cache=None),
                     ValueError, "trials", id="trials-zero"),
        pytest.param(lambda: sweeps.gaussian_pairs(3, 4, rng=np.random.RandomState(0)), TypeError,
                     "numpy.random.Generator", id="rng-legacy"),
        pytest.param(lambda: sweeps.load_value("ratio", 4, 1.0), ValueError, "exceed 1", id="ratio-n-one"),
        pytest.param(lambda: sweeps.logistic_crossing([1, 2], [0, 2]), ValueError, "0/1", id="logistic-outcomes"),
        pytest.param(lambda: sweeps.logistic_crossing([1, 2, 3], [0, 1]), ValueError, "same length",
                     id="logistic-length"),
        pytest.param(lambda: sweeps.measure_grid(lambda V, U: math.inf, 2, [3], seeds=[0], base_seed=0, name="x",
                                                 cache=None), ValueError, "non-finite", id="measure-inf"),
        pytest.param(lambda: SweepCache(5), TypeError, "directory must be a path", id="cache-dir"),
        pytest.param(lambda: sweeps.instance_rng(), ValueError, "at least one", id="rng-empty"),
        pytest.param(lambda: sweepcache.source_fingerprint(), ValueError, "at least one", id="fingerprint-empty"),
    ],
)
def test_sweeps_refuse_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_cache_writes_leave_no_temporary_files_after_an_unserialisable_value(tmp_path):
    cache = SweepCache(tmp_path)
    with pytest.raises(TypeError):
        cache.put(cache.key("f", {}, 0), object())
    assert not list(tmp_path.rglob(".tmp-*"))
    assert os.path.isdir(tmp_path)


# --------------------------------------------------------------------------
# sweeps on an executor
# --------------------------------------------------------------------------


def _lp_like_success(V, U):
    """A monotone, seed-dependent criterion defined at module level (picklable)."""
    return V.shape[1] <= 6 + int(8 * abs(V[0, 0]))


def _norm_measure(V, U):
    return float(np.linalg.norm(V @ U.T))


class _RefusingExecutor(concurrent.futures.Executor):
    """Fails the test if anything is submitted (everything must come from the cache)."""

    def submit(self, fn, /, *args, **kwargs):
        raise AssertionError("an instance was submitted although the cache holds it")


def test_sweeps_on_a_process_pool_equal_the_serial_run_and_fill_the_cache_on_the_client(tmp_path):
    kwargs = dict(seeds=range(6), base_seed=11, name="exec-test")
    serial = sweeps.nested_critical_sizes(_lp_like_success, 3, n_range=(3, 40), cache=None, **kwargs)
    grid = sweeps.measure_grid(_norm_measure, 3, [4, 9], cache=None, **kwargs)
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        par = sweeps.nested_critical_sizes(_lp_like_success, 3, n_range=(3, 40), cache=SweepCache(tmp_path),
                                           executor=pool, **kwargs)
        par_grid = sweeps.measure_grid(_norm_measure, 3, [4, 9], cache=SweepCache(tmp_path), executor=pool,
                                       **kwargs)
    assert par.n_star.tolist() == serial.n_star.tolist() and par.evaluations == serial.evaluations
    np.testing.assert_array_equal(par_grid, grid)
    assert len(list(tmp_path.rglob("*.json"))) == 6 + 12
    refusing = _RefusingExecutor()
    again = sweeps.nested_critical_sizes(_lp_like_success, 3, n_range=(3, 40), cache=SweepCache(tmp_path),
                                         executor=refusing, **kwargs)
    again_grid = sweeps.measure_grid(_norm_measure, 3, [4, 9], cache=SweepCache(tmp_path), executor=refusing,
                                     **kwargs)
    assert again.n_star.tolist() == serial.n_star.tolist() and again.cache_hits == 6
    np.testing.assert_array_equal(again_grid, grid)


_BISECT = dict(load_kind="alpha", bracket=(0.2, 3.0), trials=8, steps=4, base_seed=5, name="bisect-exec")


@pytest.mark.parametrize("kind", ["threads", "processes"])
def test_bisect_crossing_on_an_executor_equals_the_serial_run(tmp_path, kind):
    serial = sweeps.bisect_crossing(_planted_random, 6, cache=None, **_BISECT)
    pool = (concurrent.futures.ThreadPoolExecutor(3) if kind == "threads"
            else concurrent.futures.ProcessPoolExecutor(2))
    with pool:
        par = sweeps.bisect_crossing(_planted_random, 6, cache=SweepCache(tmp_path), executor=pool, **_BISECT)
    # same instances in the same order, the same bisection and the same fit
    assert par.ns.tolist() == serial.ns.tolist() and par.outcomes.tolist() == serial.outcomes.tolist()
    assert (par.n50, par.slope, par.bracket, par.steps) == (serial.n50, serial.slope, serial.bracket, serial.steps)
    assert par.evaluations == serial.evaluations == serial.ns.size and par.cache_hits == 0
    assert len(list(tmp_path.rglob("*.json"))) == serial.ns.size  # written on the client
    again = sweeps.bisect_crossing(_planted_random, 6, cache=SweepCache(tmp_path), executor=_RefusingExecutor(),
                                   **_BISECT)
    assert again.n50 == serial.n50 and again.evaluations == 0 and again.cache_hits == serial.ns.size


def test_bisect_crossing_submits_each_steps_trials_as_one_batch():
    submitted = []

    class Recording(concurrent.futures.ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            submitted.append(args[2])  # the size n of the trial
            return super().submit(fn, *args, **kwargs)

    with Recording(2) as pool:
        res = sweeps.bisect_crossing(_planted_random, 6, cache=None, executor=pool, **_BISECT)
    assert submitted == res.ns.tolist()
    # both ends first, then one batch of `trials` per bisection step
    assert [n for n, _ in res.steps] == [submitted[i] for i in range(0, len(submitted), _BISECT["trials"])]


class _DictCache:
    """The smallest object with linmem's cache protocol."""

    def __init__(self):
        self.store = {}

    def key(self, name, params, seed):
        return json.dumps([name, params, seed], sort_keys=True)

    def get(self, key):
        return (True, self.store[key]) if key in self.store else (False, None)

    def put(self, key, value, *, note=None):
        self.store[key] = value


def test_any_object_with_the_cache_protocol_serves_the_sweeps():
    cache = _DictCache()
    crit, calls = _counting(_planted_monotone)
    first = sweeps.nested_critical_sizes(crit, 4, n_range=(2, 60), seeds=range(3), base_seed=1, name="d",
                                         cache=cache)
    made = calls["n"]
    again = sweeps.nested_critical_sizes(crit, 4, n_range=(2, 60), seeds=range(3), base_seed=1, name="d",
                                         cache=cache)
    assert len(cache.store) == 3 and calls["n"] == made and again.cache_hits == 3
    assert again.n_star.tolist() == first.n_star.tolist() == [PLANTED_N] * 3


def test_linmem_has_no_default_cache_a_sweep_caches_only_what_it_is_given(tmp_path):
    cache = _DictCache()
    sweeps.measure_grid(_norm_measure, 3, [4], seeds=[0], base_seed=0, name="g")  # cache=None by default
    sweeps.measure_grid(_norm_measure, 3, [4], seeds=[0], base_seed=0, name="g", cache=cache)
    assert len(cache.store) == 1
    with pytest.raises(TypeError, match="linmem keeps no default cache"):
        sweeps.measure_grid(_norm_measure, 3, [4], seeds=[0], base_seed=0, name="g", cache=True)
    with pytest.raises(TypeError, match="cache must be an object with key/get/put"):
        sweeps.check_cache(tmp_path)  # a path means nothing to linmem: theorems.scale.sweepcache.SweepCache(path)


def test_linmem_knows_neither_the_verifier_nor_its_cache_folder():
    import pathlib
    import subprocess
    import sys

    import linmem

    code = "import sys, linmem, linmem.sweeps; print('theorems' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
    for path in pathlib.Path(linmem.__file__).parent.glob("*.py"):
        text = path.read_text()
        assert "THEOREMS_CACHE" not in text and "linmem-theorems" not in text, path
    # the verifier's cache is not reachable from linmem at all
    for name in ("SweepCache", "cached_call", "default_cache_dir", "source_fingerprint", "CACHE_ENV"):
        assert not hasattr(sweeps, name), name
    for path in pathlib.Path(linmem.__file__).parent.glob("*.py"):
        assert "import theorems" not in path.read_text() and "from theorems" not in path.read_text(), path


def test_an_executor_is_an_argument_and_linmem_keeps_no_module_state():
    with pytest.raises(TypeError, match="concurrent.futures.Executor"):
        sweeps.measure_grid(_norm_measure, 3, [4], seeds=[0], base_seed=0, name="g", executor=4)
    for gone in ("use_executor", "set_default_cache", "_EXECUTOR", "_DEFAULT_CACHE"):
        assert not hasattr(sweeps, gone), gone
    # no module state anywhere in linmem: no module-level container that the module changes (its tables of
    # constants are only read), no global
    import pathlib

    import linmem
    from module_state import changed_module_state

    mutable = {f"{path.name}:{name}" for path in pathlib.Path(linmem.__file__).parent.glob("*.py")
               for name in changed_module_state(path)}
    assert not mutable, mutable


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::DeprecationWarning")
def test_sweeps_on_a_dask_local_cluster_equal_the_serial_run(tmp_path):
    pytest.importorskip("distributed")
    from theorems.scale.executors import open_executor

    kwargs = dict(seeds=range(6), base_seed=11, name="dask-test")
    serial = sweeps.nested_critical_sizes(lambda V, U: _lp_like_success(V, U), 3, n_range=(3, 40), cache=None,
                                          **kwargs)
    with open_executor("dask", workers=2) as executor:
        # a closure: dask pickles it with cloudpickle
        par = sweeps.nested_critical_sizes(lambda V, U: _lp_like_success(V, U), 3, n_range=(3, 40),
                                           cache=SweepCache(tmp_path), executor=executor, **kwargs)
    assert par.n_star.tolist() == serial.n_star.tolist() and par.evaluations == serial.evaluations
    assert len(list(tmp_path.rglob("*.json"))) == 6  # written here, on the client


def test_open_executor_refuses_bad_combinations():
    from theorems.scale.executors import open_executor

    with pytest.raises(ValueError, match="executor must be one of"):
        with open_executor("slurm"):
            pass
    with pytest.raises(ValueError, match="need --executor dask"):
        with open_executor("local", workers=2):
            pass
    with pytest.raises(ValueError, match="has its own workers"):
        with open_executor("dask", scheduler="tcp://127.0.0.1:1", workers=2):
            pass


@pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::DeprecationWarning")
def test_verify_on_a_dask_local_cluster_gives_the_figures_of_a_local_run(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from theorems.cli import main

    monkeypatch.setenv("THEOREMS_CACHE", "off")  # every instance computed, on the cluster in the second run
    figures = {}
    for label, extra in (("local", []), ("dask", ["--executor", "dask", "--workers", "2"])):
        out = tmp_path / label
        assert main(["verify", "--only", "t1.sharp-threshold-2", "--profile", "quick", "--out", str(out), *extra]) == 0
        claim = json.loads((out / "report.json").read_text())["claims"][0]
        figures[label] = [(e["check"], e["figure"]) for e in claim["evidence"]]
    assert figures["dask"] == figures["local"]


# --------------------------------------------------------------------------
# a figure's peak along nested pools, and its drift with size
# --------------------------------------------------------------------------


def test_nested_peak_curve_finds_a_planted_peak_warm_started_along_the_pool():
    seen = []

    def bump(V, U, init):  # planted peak at n = 23; the state is the previous size
        seen.append((V.shape[1], init))
        return 10.0 - abs(V.shape[1] - 23), V.shape[1]

    curve = sweeps.nested_peak_curve(bump, 4, [5, 10, 20, 40, 80], rng=sweeps.instance_rng(1), refine=8)
    assert curve.peak_n == 23 and curve.interior and curve.coarse_values == (-8.0, -3.0, 7.0, -7.0, -47.0)
    # coarse sizes in order, each started from the previous; then 8 sizes between 10 and 40 from n = 10 upward
    assert seen[:5] == [(5, None), (10, 5), (20, 10), (40, 20), (80, 40)]
    refined = [n for n, _ in seen[5:]]
    assert refined == [11, 15, 19, 23, 27, 31, 35, 39]  # 8 evenly spaced between the neighbours 10 and 40
    assert [init for _, init in seen[5:]] == [10] + refined[:-1]  # warm-started upward from n = 10
    # the instance is the pool's prefix: the same pairs for the same generator
    V1 = []
    sweeps.nested_peak_curve(lambda V, U, i: (V1.append(V.copy()) or 0.0, None), 3, [2, 5],
                             rng=sweeps.instance_rng(7))
    V, _ = sweeps.gaussian_pairs(3, 5, rng=sweeps.instance_rng(7))
    np.testing.assert_array_equal(V1[1], V)
    np.testing.assert_array_equal(V1[0], V[:, :2])
    # resolution: distance to the farther fitted neighbour of the peak, in the given load
    ns = sorted(curve.fitted)
    i = ns.index(23)
    assert curve.resolution(float) == max(23 - ns[i - 1], ns[i + 1] - 23)


def test_nested_peak_curve_at_an_end_of_the_grid_is_not_interior():
    curve = sweeps.nested_peak_curve(lambda V, U, i: (float(V.shape[1]), None), 2, [3, 6, 9],
                                     rng=sweeps.instance_rng(0))
    assert curve.peak_n == 9 and not curve.interior and sorted(curve.fitted) == [3, 6, 7, 8, 9]


def test_peak_drift_recovers_a_planted_slope_and_its_pooled_error():
    rng = np.random.default_rng(4)
    sizes = (8, 16, 32, 64)
    slopes = []
    for _ in range(400):
        samples = [1.0 - 0.2 * math.log(d) + rng.normal(0, 2.0 / d, 6) for d in sizes]
        slope, se, dof = sweeps.peak_drift(sizes, samples)
        slopes.append(slope)
    assert dof == 4 * 6 - 4
    # the pooled standard error matches the spread of the slope across repetitions
    assert np.mean(slopes) == pytest.approx(-0.2, abs=0.01)
    assert np.std(slopes) == pytest.approx(se, rel=0.3)


def test_line_fit_matches_a_planted_line():
    x = np.arange(10.0)
    a, b, se = sweeps.line_fit(x, 3 * x - 1)
    assert (a, b) == pytest.approx((3.0, -1.0)) and se == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(sweeps.line_fit([0, 1], [0, 1])[2])  # two points: no residual degrees of freedom


@pytest.mark.parametrize(
    "call, exc, match",
    [
        pytest.param(lambda: sweeps.nested_peak_curve(lambda V, U, i: (0.0, None), 3, [4, 4],
                                                      rng=sweeps.instance_rng(0)), ValueError, "strictly increasing",
                     id="peak-ns-order"),
        pytest.param(lambda: sweeps.nested_peak_curve(lambda V, U, i: (math.nan, None), 3, [4, 5],
                                                      rng=sweeps.instance_rng(0)), ValueError, "non-finite",
                     id="peak-nan"),
        pytest.param(lambda: sweeps.nested_peak_curve(7, 3, [4, 5], rng=sweeps.instance_rng(0)), TypeError,
                     "fit must be callable", id="peak-fit"),
        pytest.param(lambda: sweeps.nested_peak_curve(lambda V, U, i: (0.0, None), 3, [4, 5], rng=0), TypeError,
                     "Generator", id="peak-rng"),
        pytest.param(lambda: sweeps.peak_drift([6], [[1.0]]), ValueError, "length >= 2", id="drift-short"),
        pytest.param(lambda: sweeps.peak_drift([6, 8], [[1.0], []]), ValueError, "no empty", id="drift-empty"),
        pytest.param(lambda: sweeps.peak_drift([6, -8], [[1.0], [2.0]]), ValueError, "sizes entries",
                     id="drift-size"),
        pytest.param(lambda: sweeps.line_fit([0, 1, 2], [0, math.inf, 1]), ValueError, "finite", id="line-inf"),
    ],
)
def test_peak_and_drift_refuse_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_pooled_peaks_summarises_the_pools_on_their_common_grid():
    def bump(at):
        return lambda V, U, init: (1.0 + 9.0 * (V.shape[1] == at) + 1.0 / V.shape[1], None)

    curves = [sweeps.nested_peak_curve(bump(at), 3, [4, 8, 16, 32], rng=sweeps.instance_rng(at)) for at in (8, 16)]
    s = sweeps.pooled_peaks(curves, lambda n: n / 10)
    assert s["seed_peaks"] == [0.8, 1.6] and s["peak"] == pytest.approx(1.2) and s["seed_peak_sizes"] == [8, 16]
    assert s["interior_share"] == 1.0 and s["loads"] == [0.4, 0.8, 1.6, 3.2]
    # geometric mean over pools at the coarse sizes; the peak stands above both ends
    expected = np.sqrt([c1 * c2 for c1, c2 in zip(curves[0].coarse_values, curves[1].coarse_values)])
    np.testing.assert_allclose(s["mean_curve"], expected)
    assert s["prominence"] == pytest.approx(expected.max() / max(expected[0], expected[-1]))
    assert s["resolution"] == max(c.resolution(lambda n: n / 10) for c in curves)
    flat = [sweeps.nested_peak_curve(lambda V, U, i: (1.0, None), 3, [4, 8], rng=sweeps.instance_rng(0))]
    assert sweeps.pooled_peaks(flat, float)["prominence"] == 1.0  # no peak: prominence exactly 1
    with pytest.raises(ValueError, match="one coarse grid"):
        sweeps.pooled_peaks(curves + [sweeps.nested_peak_curve(bump(5), 3, [4, 6], rng=sweeps.instance_rng(0))],
                            float)
    with pytest.raises(TypeError, match="PeakCurve"):
        sweeps.pooled_peaks([], float)


# --------------------------------------------------------------------------
# 004's norm peak of the cross-entropy memory (fs.ce-norm-peak)
# --------------------------------------------------------------------------


class _Fit:
    def __init__(self, W):
        self.W = W


def test_cross_entropy_norm_peaks_pools_a_planted_peak_in_the_load():
    calls = []

    def memory(V, U, *, ridge, maxiter, init):  # ||W||_F = 20 - |n - 13|: a planted peak at n = 13
        n = V.shape[1]
        calls.append((n, ridge, maxiter, None if init is None else float(np.linalg.norm(init))))
        return _Fit(np.eye(V.shape[0]) * (20.0 - abs(n - 13)) / math.sqrt(V.shape[0]))

    d = 5
    s = sweeps.cross_entropy_norm_peaks(memory, d, (2.0, 0.5, 1.0), pools=3, base_seed=4, effective_ridge=1e-8,
                                        maxiter=7, refine=16)
    coarse = [max(2, round(sweeps.pairs_at_load("ratio", d, 1 / c))) for c in (0.5, 1.0, 2.0)]
    assert s["coarse_n"] == coarse and s["pools"] == 3 and len(s["seed_peaks"]) == 3
    assert s["seed_peak_sizes"] == [13, 13, 13] and s["peak"] == pytest.approx(13 * math.log(13) / d**2)
    assert s["loads"] == pytest.approx([n * math.log(n) / d**2 for n in coarse]) and s["prominence"] > 1
    # each fit gets lambda = effective_ridge d^2 / n and the cap; warm starts after the first size of a pool
    assert all(r == pytest.approx(1e-8 * d * d / n) and m == 7 for n, r, m, _ in calls)
    assert calls[0][3] is None and calls[1][3] == pytest.approx(20.0 - abs(coarse[0] - 13))
    # the pools are independent draws: pool s is instance_rng(base_seed, d, s)
    seen = []
    sweeps.cross_entropy_norm_peaks(lambda V, U, **kw: seen.append(V[:, :1].copy()) or _Fit(np.eye(1)), d,
                                    (1.0, 2.0), pools=2, base_seed=4, effective_ridge=1e-8, maxiter=1)
    for s, first in ((0, seen[0]), (1, seen[-1])):
        np.testing.assert_array_equal(first, sweeps.gaussian_pairs(d, 1, rng=sweeps.instance_rng(4, d, s))[0])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        pytest.param({"memory": 3}, TypeError, "memory must be callable", id="memory"),
        pytest.param({"d": 0}, ValueError, "d must be an integer >= 1", id="d"),
        pytest.param({"loads": "1.0"}, TypeError, "loads must be a sequence", id="loads-str"),
        pytest.param({"loads": ()}, ValueError, "loads must be non-empty", id="loads-empty"),
        pytest.param({"loads": (1.0, -0.5)}, ValueError, "loads entries must be a finite number > 0", id="loads-neg"),
        pytest.param({"pools": 0}, ValueError, "pools must be an integer >= 1", id="pools"),
        pytest.param({"base_seed": -1}, ValueError, "base_seed must be a nonnegative integer", id="seed"),
        pytest.param({"effective_ridge": 0.0}, ValueError, "effective_ridge must be a finite number > 0", id="ridge"),
        pytest.param({"maxiter": 2.5}, TypeError, "maxiter must be an integer", id="maxiter"),
        pytest.param({"refine": 0}, ValueError, "refine must be an integer >= 1", id="refine"),
    ],
)
def test_cross_entropy_norm_peaks_refuses_bad_input(kwargs, exc, match):
    import linmem

    args = {"memory": linmem.cross_entropy_memory, "d": 3, "loads": (1.0,), "pools": 1, "base_seed": 0,
            "effective_ridge": 1e-8, "maxiter": 5, **kwargs}
    memory, d, loads = args.pop("memory"), args.pop("d"), args.pop("loads")
    with pytest.raises(exc, match=match):
        sweeps.cross_entropy_norm_peaks(memory, d, loads, **args)


@pytest.mark.parametrize("bad, error", [(10**400, ValueError), (0, ValueError), (-2.0, ValueError),
                                        (float("nan"), ValueError), (True, TypeError), ("3", TypeError)])
def test_sizes_and_loads_beyond_float_range_or_not_positive_are_refused_naming_the_argument(bad, error):
    # one validator for linmem's positive reals: an integer beyond float range is "not finite", never an
    # OverflowError from inside float()
    with pytest.raises(error, match="^d must be"):
        sweeps.load_value("ratio", bad, 5)
    with pytest.raises(error, match="^load must be"):
        sweeps.pairs_at_load("ratio", 8, bad)
