"""The real.* questions: every profile's design is declared, each question
decides on per-draw n* paired against its Gaussian baseline, and each
question's negative control moves its answer (not only its reference check)."""

from __future__ import annotations

import pytest

from linmem import embeddings
from theorems.core.model import ClaimKind
from theorems.core.profiles import LEVELS, get_profile
from theorems.core.runner import Impl, run_check, run_negative_control


@pytest.fixture
def real(monkeypatch):
    """The real.* claims on the shipped sample (their row source is cached per process)."""
    from theorems.claims import real

    monkeypatch.setenv(embeddings.MINILM_ENV, "off")
    real._source.cache_clear()
    real._trained.cache_clear()
    yield real
    real._source.cache_clear()
    real._trained.cache_clear()


def _claim(real, claim_id):
    return next(c for c in real.CLAIMS if c.id == claim_id)


def _answer(real, claim_id, *, seed=1, profile="quick", overrides=None):
    claim = _claim(real, claim_id)
    check = next(c for c in claim.checks if c.name == "answer")
    impl = Impl.default() if overrides is None else Impl.default().with_overrides(overrides)
    return run_check(claim, check, impl=impl, profile=get_profile(profile), seed=seed)


@pytest.mark.parametrize("level", LEVELS)
def test_every_profile_declares_a_design_for_every_question(level):
    design = embeddings.COMPARISON_DESIGN[level]
    assert set(design) == {"cmm", "ls", "lp", "geometry", "learned"}
    for memory in ("cmm", "ls", "lp"):
        q = design[memory]
        assert q["draws"] >= 2 and q["dims"] == tuple(sorted(q["dims"]))
        assert q["conditions"] and set(q["conditions"]) <= set(embeddings.REAL_CONDITIONS)
    assert all(n > design["learned"]["d"] for n in design["learned"]["ns"])  # only n > d is informative


def test_the_profiles_reach_the_sizes_the_issue_asks():
    d = embeddings.COMPARISON_DESIGN
    for memory in ("cmm", "ls"):
        assert d["quick"][memory]["dims"][-1] == 64 and {"raw", "centered"} <= set(d["quick"][memory]["conditions"])
        assert d["standard"][memory]["dims"][-1] == 128
        assert d["standard"][memory]["conditions"] == embeddings.REAL_CONDITIONS
        assert d["thorough"][memory]["dims"][-1] == 384


def test_the_whitening_orders_are_named_conditions_against_the_unit_gaussian():
    assert embeddings.WHITENING_ORDERS == ("project-then-whiten", "whiten-then-project")
    assert all(embeddings.BASELINES[c] == "gaussian-unit" for c in embeddings.WHITENING_ORDERS)


def test_the_cmm_answer_reads_per_draw_n_star_and_the_shuffled_control_moves_it(real, monkeypatch):
    monkeypatch.setitem(real.DESIGN["quick"], "cmm", {"dims": (64,), "conditions": ("centered",), "draws": 40})
    right = _answer(real, "real.cmm-capacity")
    assert right.status.value == "answered" and right.data["answers"] == {"centered": "heavier"}
    row = next(r for r in right.data["answer_table"] if r["condition"] == "centered")
    measured = next(r for r in right.data["rows"] if r["condition"] == "centered")
    base = next(r for r in right.data["rows"] if r["condition"] == "gaussian-unit")
    want = embeddings.paired_decision(measured["n_star_draws"], base["n_star_draws"], rate=real.RATE)
    assert row["decision"] == want["decision"] and row["t"] == pytest.approx(want["t"])
    assert row["baseline_n_star"] == base["n_star"] and right.data["plot"]["series"]
    shuffled = _answer(real, "real.cmm-capacity", overrides=_claim(real, "real.cmm-capacity").negative_control.overrides)
    assert shuffled.data["answers"]["centered"] != "heavier"  # Gaussian-like rows: no heavier tax


def test_the_geometry_criterion_fails_on_gaussian_rows(real):
    right = _answer(real, "real.geometry")
    assert right.data["answers"] == {"centred rows": "more correlated than isotropic Gaussian rows"}
    gauss = _answer(real, "real.geometry", overrides=_claim(real, "real.geometry").negative_control.overrides)
    assert gauss.data["answers"]["centred rows"] != right.data["answers"]["centred rows"]


def test_the_learned_store_question_and_its_control_through_the_runner(real):
    claim = _claim(real, "real.learned-store-assessed")
    assert claim.kind is ClaimKind.QUESTION
    right = _answer(real, claim.id)
    assert right.data["answers"] == {"64": "does not describe", "256": "describes"}
    out = run_negative_control(claim, profile=get_profile("quick"), seed=1)
    assert out["caught"] and out["answer_moved"]


@pytest.mark.parametrize("seed", [1, 2])
def test_the_quick_ls_answer_does_not_move_with_the_seed(real, seed):
    ev = _answer(real, "real.ls-capacity", seed=seed)
    assert ev.status.value == "answered" and ev.data["answers"] == {"raw": "heavier", "centered": "heavier"}


@pytest.mark.parametrize("level", ["quick", "standard"])
def test_the_lp_question_doubles_its_draws_while_undecided_up_to_eight_times(level):
    q = embeddings.COMPARISON_DESIGN[level]["lp"]
    assert q["max_draws"] == 8 * q["draws"]
