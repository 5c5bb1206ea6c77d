"""templates.crossing_check / crossing_results / crossing_plot: finite-size
crossings per dimension that tend to a limit pass, crossings that stay away
from it or leave the band fail, and the evidence carries the table and the
success curves."""

from __future__ import annotations

import math

import pytest
from scipy.special import ndtr

from theorems.evidence import simulation
from theorems.core.model import Claim, ClaimKind
from theorems.core.profiles import PROFILES
from theorems.core.runner import run_claim
from theorems.authoring.templates import CROSSING_COLUMNS, crossing_check, crossing_plot, wrong

QUICK = PROFILES["quick"]


def _planted(offset):
    """success(impl): an instance at load d^2/(n ln n) succeeds with probability
    1 / (1 + exp(-8 (load - c_d))), c_d = 4 + offset(d); the uniform comes from
    the instance's first key entry (N(0, 1/d))."""

    def success(impl):
        def test(V, U):
            d, n = V.shape
            load = d * d / (n * math.log(n))
            return bool(ndtr(V[0, 0] * math.sqrt(d)) < 1 / (1 + math.exp(-8 * (load - 4 - offset(d)))))

        return test

    return success


def _claim_of(offset, band=(2.0, 16.0)):
    check = crossing_check(
        "trend", success=_planted(offset), dims=dict(quick=(8, 16, 32), standard=(8, 16, 32), thorough=(8, 16, 32)),
        band=band, limit=4, distance=lambda c, limit: abs(c - limit), shrink=simulation.shrinks(max_slope=-0.3,
                                                                                     max_last_over_first=0.6),
        label="|crossing - 4|", series="planted", plot_title="planted crossings", x_label="d^2 / (n ln n)",
        marks=((4, "4"),), load_kind="ratio", bracket=(1.0, 32.0), trials=dict(quick=16, standard=16, thorough=16),
        steps=6, seed_label="planted", cache_name="test.crossing", params={})
    return Claim(id="t.crossing", title="", statement="", kind=ClaimKind.ASYMPTOTIC, source="test", checks=(check,),
                 negative_control=wrong("unused", cmm=lambda V, U: U))


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    monkeypatch.setenv("THEOREMS_CACHE", "off")


def test_crossings_that_tend_to_the_limit_pass_with_their_table_and_plot():
    (ev,) = run_claim(_claim_of(lambda d: 48.0 / d), profile=QUICK, seed=1).evidence
    assert ev.status.value == "supported", ev.detail
    table = ev.data["table"]
    assert table["columns"] == ["d", *CROSSING_COLUMNS]
    crossings = [row[1] for row in table["rows"]]
    assert [row[0] for row in table["rows"]] == [8, 16, 32]
    assert crossings[0] > crossings[1] > crossings[2] > 4  # c_d = 4 + 48/d, up to the sampling
    assert ev.data["domain"]["d"]["values"] == [8, 16, 32]
    plot = ev.data["plot"]
    assert [s["label"] for s in plot["series"]] == ["planted, d = 8", "planted, d = 16", "planted, d = 32"]
    assert plot["vlines"] == [{"x": 4, "label": "4"}] and plot["xscale"] == "log"


def test_crossings_that_stay_away_from_the_limit_fail():
    (ev,) = run_claim(_claim_of(lambda d: 4.0), profile=QUICK, seed=1).evidence
    assert ev.status.value == "not_supported", ev.detail
    assert "distance to 4" in ev.detail


def test_a_crossing_outside_the_band_fails_even_when_the_trend_holds():
    (ev,) = run_claim(_claim_of(lambda d: 48.0 / d, band=(2.0, 8.0)), profile=QUICK, seed=1).evidence
    assert ev.status.value == "not_supported"
    assert "outside the band or censored at d = [8]" in ev.detail


def test_a_censored_crossing_fails_even_when_it_is_finite_and_inside_the_band():
    # at d = 32 the planted crossing, load 0.9, lies below the bracket (1, 32): even the hardest end succeeds
    # half the time, so the crossing is censored, yet the logistic fit still places it (finite, inside the band)
    (ev,) = run_claim(_claim_of(lambda d: -3.1 if d == 32 else 48.0 / d, band=(0.5, 64.0)), profile=QUICK,
                      seed=1).evidence
    row = dict(zip(ev.data["table"]["columns"], ev.data["table"]["rows"][2]))
    assert row["d"] == 32 and row["censored"] and 0.5 <= row["crossing"] <= 64.0
    assert ev.status.value == "not_supported" and "outside the band or censored at d = [32]" in ev.detail


def test_crossing_plot_marks_the_constants():
    spec = crossing_plot("t", [], x_label="x", marks=((2, "2"), (8, "8")))
    assert spec["vlines"] == [{"x": 2, "label": "2"}, {"x": 8, "label": "8"}]
    assert spec["hlines"] == [{"y": 0.5, "label": "1/2"}] and spec["y_label"] == "success rate"
    with pytest.raises(ValueError, match="sizes must give every profile level"):
        crossing_check("x", success=_planted(lambda d: 0.0), dims={"quick": (8, 16)}, band=(0, 1), limit=0,
                       distance=lambda c, limit: abs(c - limit), shrink=None, label="", series="", plot_title="", x_label="")


def test_band_limit_and_marks_may_be_formulas_of_impl_so_a_control_reaches_them():
    import dataclasses
    from types import SimpleNamespace

    from theorems.core.model import Context
    from theorems.authoring.templates import crossing_results

    def success(impl):  # the planted crossing, counting its calls
        test = _planted(lambda d: 48.0 / d)(impl)

        def counted(V, U):
            counted.counts["calls"] = counted.counts.get("calls", 0) + 1
            return test(V, U)

        counted.counts = {}
        return counted

    sweep = dict(load_kind="ratio", bracket=(1.0, 32.0), trials=dict(quick=16, standard=16, thorough=16), steps=6,
                 seed_label="planted", cache_name="test.crossing", params={})
    check = crossing_check(
        "trend", success=success, dims=dict(quick=(8, 16, 32), standard=(8, 16, 32), thorough=(8, 16, 32)),
        band=lambda impl: (impl.limit / 2, 4 * impl.limit), limit=lambda impl: impl.limit,
        distance=lambda c, limit: abs(c - limit), shrink=simulation.shrinks(max_slope=-0.3, max_last_over_first=0.6),
        label="|crossing - limit|", series="planted", plot_title="planted", x_label="load",
        marks=lambda impl: [(impl.limit, "limit")], domain={"rate": [8]}, **sweep)
    ctx = lambda limit: Context(impl=SimpleNamespace(limit=limit), profile=QUICK, seed=1, claim_id="t",  # noqa: E731
                                check_name="trend")
    right, wrong_limit = check.run(ctx(4.0)), check.run(ctx(1.0))
    assert right.status.value == "supported" and wrong_limit.status.value == "not_supported", wrong_limit.detail
    assert "distance to 1.0" in wrong_limit.detail and "outside the band or censored" in wrong_limit.detail
    assert right.data["plot"]["vlines"] == [{"x": 4.0, "label": "limit"}] and right.data["domain"]["rate"] == [8]
    rows = right.data["table"]["rows"]
    for row in rows:  # every instance the bisection evaluated went through the test and was counted
        assert right.data["counts"][str(row[0])] == {"calls": row[6]} and row[6] > 0
    # the instances come from kit.seed(run seed, seed_label): the same for every claim, not for every label
    def first_entries(label, claim_id="t"):
        seen = []
        crossing_results(dataclasses.replace(ctx(4.0), claim_id=claim_id),
                         lambda impl: lambda V, U: seen.append(V[0, 0]) or True, [8], **{**sweep, "seed_label": label})
        return seen

    ours = first_entries(sweep["seed_label"])
    assert ours == first_entries(sweep["seed_label"], claim_id="another") != first_entries("another label")


def test_the_band_holds_its_ends():
    """A crossing exactly at either end of the band is inside it."""
    (ev,) = run_claim(_claim_of(lambda d: 48.0 / d), profile=QUICK, seed=1).evidence
    crossings = [row[1] for row in ev.data["table"]["rows"]]
    for band in ((min(crossings), 16.0), (2.0, max(crossings))):
        (at_end,) = run_claim(_claim_of(lambda d: 48.0 / d, band=band), profile=QUICK, seed=1).evidence
        assert at_end.status.value == "supported", (band, at_end.detail)


def test_a_crossing_check_needs_two_sizes_at_every_level():
    with pytest.raises(ValueError, match=r"crossing_check 'trend': dims needs at least two sizes per profile level"
                                         r".*'quick': \[8\]"):
        crossing_check("trend", success=_planted(lambda d: 0.0), dims=dict(quick=(8,), standard=(8, 16), thorough=(8, 16)),
                       band=(2.0, 16.0), limit=4, distance=lambda c, limit: abs(c - limit),
                       shrink=simulation.shrinks(max_slope=-0.3, max_last_over_first=0.6), label="", series="",
                       plot_title="", x_label="")
