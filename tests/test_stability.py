"""``theorems stability``: each claim's status distribution and each check's
figure spread over seeds, on claims whose verdict is set by construction
(tests/fake_claims.py), so the tests take well under a second of checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from theorems.cli import main
from theorems.core.profiles import get_profile
from theorems.core.registry import load_claims, select
from theorems.stability import render_table, run_stability, seed_range, spread

FAKE = Path(__file__).resolve().with_name("fake_claims.py")


def _claims(*ids):
    return select(load_claims([str(FAKE)], builtin=False), list(ids))


@pytest.mark.parametrize("jobs", [1, 2])
def test_with_controls_a_control_missed_at_some_seed_is_unstable(jobs, tmp_path, capsys):
    argv = ["stability", "--profile", "quick", "--claims", str(FAKE), "--only", "fake.weak-control",
            "--seeds", "4", "--jobs", str(jobs), "--out", str(tmp_path)]
    assert main(argv) == 0  # without --controls only the statuses count: VERIFIED at every seed
    capsys.readouterr()
    code = main(argv + ["--controls"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "fake.weak-control  VERIFIED 4; negative control not caught at seeds 1, 3   UNSTABLE" in out
    assert "every one of the 1 claims kept one status across seeds 1, 2, 3, 4" in out
    assert "1 of 1 claims had a negative control not caught at some seed: fake.weak-control" in out
    entry = json.loads((tmp_path / "stability.json").read_text())["claims"][0]
    assert entry["controls_caught"] == {"1": False, "2": True, "3": False, "4": True}
    assert entry["controls_missed"] == [1, 3] and entry["stable"] is False


def test_with_controls_every_control_caught_is_stable(tmp_path, capsys):
    claims = select(load_claims([str(FAKE)], builtin=False), ["fake.weak-control"])
    res = run_stability(claims, profile=get_profile("quick"), seeds=[2, 4, 6], controls=True)
    assert res.ok and res.claims[0].controls == {2: True, 4: True, 6: True}
    assert "every negative control that was run was caught at every seed" in render_table(res)
    assert run_stability(claims, profile=get_profile("quick"), seeds=[1, 2]).claims[0].controls == {}


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_seed_dependent_claim_is_unstable_and_the_command_exits_1(jobs, tmp_path, capsys):
    code = main(["stability", "--profile", "quick", "--claims", str(FAKE), "--only", "fake.stable", "--only", "fake.flaky",
                 "--only", "fake.undecided", "--seeds", "4", "--jobs", str(jobs), "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert f"3 claims x 4 seeds (1..4), profile quick, {min(jobs, 4)} process" in out
    assert "fake.flaky      SUPPORTED 2, NOT SUPPORTED 2 (seeds 1, 3)   UNSTABLE" in out
    assert "fake.stable     VERIFIED 4\n" in out and "fake.undecided  INCONCLUSIVE 4\n" in out
    assert "1 of 3 claims changed status across seeds 1, 2, 3, 4: fake.flaky" in out
    table = json.loads((tmp_path / "stability.json").read_text())
    assert table["seeds"] == [1, 2, 3, 4] and table["unstable"] == ["fake.flaky"] and table["stable"] is False
    by = {c["id"]: c for c in table["claims"]}
    assert by["fake.flaky"]["statuses"] == {"1": "NOT SUPPORTED", "2": "SUPPORTED", "3": "NOT SUPPORTED",
                                            "4": "SUPPORTED"}
    assert by["fake.stable"]["distribution"] == {"VERIFIED": 4} and by["fake.stable"]["stable"] is True
    # fake.stable's figure is 0.1 * (seed mod 3): 0.1, 0.2, 0, 0.1 at seeds 1..4
    sim = by["fake.stable"]["checks"][0]
    assert sim["figure"] == pytest.approx({"min": 0.0, "median": 0.1, "max": 0.2})
    assert sim["threshold"] == {"min": 1.0, "median": 1.0, "max": 1.0} and sim["not_passing"] == []
    assert by["fake.flaky"]["checks"][0]["not_passing"] == [1, 3]
    assert by["fake.flaky"]["checks"][0]["details"] == {"1": "the run seed is odd", "3": "the run seed is odd"}


def test_claims_that_keep_one_status_exit_0_inconclusive_counting_as_one(tmp_path, capsys):
    code = main(["stability", "--profile", "quick", "--claims", str(FAKE), "--only", "fake.stable", "--only", "fake.undecided",
                 "--seeds", "3", "--first-seed", "10", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "seeds (10..12)" in out and "every one of the 2 claims kept one status across seeds 10, 11, 12" in out


def test_seeds_of_the_same_parity_make_the_flaky_claim_look_stable():
    """The seeds are a parameter, not a hidden choice: at even seeds only the
    planted claim is SUPPORTED every time."""
    res = run_stability(_claims("fake.flaky"), profile=get_profile("quick"), seeds=[2, 4, 6])
    assert res.ok and res.claims[0].distribution == {"SUPPORTED": 3}
    assert "fake.flaky  SUPPORTED 3" in render_table(res)


def test_the_stability_helpers_refuse_bad_input():
    with pytest.raises(ValueError, match="count must be an integer >= 1, got 0"):
        seed_range(0)
    with pytest.raises(ValueError, match="seeds must be distinct"):
        run_stability(_claims("fake.stable"), profile=get_profile("quick"), seeds=[1, 1])
    with pytest.raises(ValueError, match="jobs must be an integer >= 1"):
        run_stability(_claims("fake.stable"), profile=get_profile("quick"), seeds=[1], jobs=0)
    assert spread([None, float("nan")]) is None and spread([2.0, float("inf"), 1.0]) == (1.0, 1.5, 2.0)


def test_a_question_whose_answer_turns_with_the_seed_is_unstable(tmp_path, capsys):
    code = main(["stability", "--profile", "quick", "--claims", str(FAKE), "--only", "fake.turncoat",
                 "--seeds", "3", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "fake.turncoat  ANSWERED 3; 2 different answers   UNSTABLE" in out
    assert "  answer at seeds 1, 3: raw: heavier" in out and "  answer at seeds 2: raw: lighter" in out
    assert "1 of 1 questions gave different answers across seeds: fake.turncoat" in out
    table = json.loads((tmp_path / "stability.json").read_text())
    entry = table["claims"][0]
    assert entry["answers_changed"] is True and entry["answers"]["2"] == {"sim": {"raw": "lighter"}}
    assert table["unstable"] == ["fake.turncoat"]


def test_a_question_with_one_answer_at_every_seed_is_stable():
    res = run_stability(_claims("fake.turncoat"), profile=get_profile("quick"), seeds=[1, 3, 5])
    assert res.ok and res.claims[0].answer_groups == [({"sim": {"raw": "heavier"}}, [1, 3, 5])]
    table = render_table(res)
    assert "  answer at every seed: raw: heavier" in table and "every question gave one answer at every seed" in table
