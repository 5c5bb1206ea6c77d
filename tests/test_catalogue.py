"""The registry against the claims catalogue (CLAIMS.md): the exemplar claims
are registered, and every registered id is a catalogue id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorems.core.registry import load_claims

ROOT = Path(__file__).resolve().parents[1]
# the shipped catalogue first: it is the design's seed catalogue plus our own
# sections ("## ours — ..."), folded in from the design's CLAIMS-BEYOND.md
CANDIDATES = [ROOT / "docs" / "CLAIMS.md", ROOT.parent / "shared" / "design" / "CLAIMS.md"]

EXEMPLARS = {
    "proj.coefficient-projector",
    "lev.range",
    "recall.error",
    "recall.mean-error",
    "ls.pseudoinverse-minimizer",
    "cex.duplicated-keys",
    "cap.uniform-leverage-accuracy",
    "op.not-least-squares",
}


def catalogue_ids() -> dict[str, set[str]]:
    """IDs per section source ('000', '004' or 'ours') parsed from the catalogue tables."""
    path = next((p for p in CANDIDATES if p.exists()), None)
    if path is None:
        pytest.fail(f"CLAIMS.md not found in {CANDIDATES}")
    ids: dict[str, set[str]] = {"000": set(), "004": set(), "ours": set()}
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^## (000|004|ours) ", line)
        if m:
            section = m.group(1)
        row = re.match(r"^\| ([a-z0-9]+(?:\.[a-z0-9-]+)+) \|", line)
        if row and section:
            ids[section].add(row.group(1))
    return ids


def test_the_catalogue_parses_into_both_sources():
    ids = catalogue_ids()
    assert len(ids["000"]) > 50 and len(ids["004"]) > 15


def test_every_exemplar_is_registered():
    registered = set(load_claims().ids())
    assert EXEMPLARS <= registered


def test_every_registered_id_is_in_the_catalogue():
    ids = catalogue_ids()
    allowed = ids["000"] | ids["004"] | ids["ours"]
    extra = set(load_claims().ids()) - allowed
    assert not extra, f"registered ids not in CLAIMS.md: {sorted(extra)}"


def test_the_bundled_catalogue_copy_is_in_sync_with_the_design():
    bundled, shared = CANDIDATES
    if not shared.exists():
        pytest.skip("the design folder is not beside this checkout")
    text, seeds = bundled.read_text(encoding="utf-8"), shared.read_text(encoding="utf-8")
    assert text.startswith(seeds.rstrip("\n") + "\n"), (
        "docs/CLAIMS.md does not begin with ../shared/design/CLAIMS.md: copy it over"
    )
    assert all(line.startswith("## ours — ") for line in text[len(seeds):].splitlines() if line.startswith("## ")), (
        "docs/CLAIMS.md adds sections other than '## ours — ...' after the design catalogue"
    )


def test_every_000_claim_of_the_catalogue_is_registered():
    missing = catalogue_ids()["000"] - set(load_claims().ids())
    assert not missing, f"000 claims not registered: {sorted(missing)}"


def test_every_004_claim_of_the_catalogue_is_registered():
    missing = catalogue_ids()["004"] - set(load_claims().ids())
    assert not missing, f"004 claims not registered: {sorted(missing)}"


def test_the_percentile_edge_states_its_derivation_as_ours():
    claim = load_claims().get("tam.percentile-edge")
    text = " ".join(claim.assumptions)
    assert claim.kind.value == "asymptotic" and "our specification" in text and "maximal-stability" in text


def test_every_claim_of_our_sections_is_registered():
    ids = catalogue_ids()["ours"]
    assert {"learn.max-margin-kkt", "learn.cutting-plane-exact", "learn.cross-entropy-stationary",
            "learn.tam-erm-stationary"} <= ids
    missing = ids - set(load_claims().ids())
    assert not missing, f"claims of the ours sections not registered: {sorted(missing)}"


def test_the_real_embedding_questions_are_catalogued_and_registered():
    ids = catalogue_ids()["ours"]
    real = {"real.geometry", "real.cmm-capacity", "real.ls-capacity", "real.optimal-capacity",
            "real.learned-store-assessed"}
    assert real | {"assess.measured-residuals"} <= ids
    registry = load_claims()
    assert all(registry.get(cid).kind.value == "question" for cid in real)
