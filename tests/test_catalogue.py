"""The registry against the claims catalogue (CLAIMS.md): the exemplar claims
are registered, and every registered id is a catalogue id."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from theorems.registry import load_claims

ROOT = Path(__file__).resolve().parents[1]
CANDIDATES = [ROOT.parent / "shared" / "design" / "CLAIMS.md", ROOT / "docs" / "CLAIMS.md"]

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
    """IDs per section source ('000' or '004') parsed from the catalogue tables."""
    path = next((p for p in CANDIDATES if p.exists()), None)
    if path is None:
        pytest.fail(f"CLAIMS.md not found in {CANDIDATES}")
    ids: dict[str, set[str]] = {"000": set(), "004": set()}
    section = None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^## (000|004) ", line)
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
    allowed = ids["000"] | ids["004"]
    extra = set(load_claims().ids()) - allowed
    assert not extra, f"registered ids not in CLAIMS.md: {sorted(extra)}"


def test_the_bundled_catalogue_copy_is_in_sync_with_the_design():
    shared, bundled = CANDIDATES
    if not shared.exists():
        pytest.skip("the design folder is not beside this checkout")
    assert bundled.read_text(encoding="utf-8") == shared.read_text(encoding="utf-8"), (
        "docs/CLAIMS.md differs from ../shared/design/CLAIMS.md: copy it over"
    )


def test_every_000_claim_of_the_catalogue_is_registered():
    missing = catalogue_ids()["000"] - set(load_claims().ids())
    assert not missing, f"000 claims not registered: {sorted(missing)}"


def test_every_004_claim_of_the_catalogue_is_registered():
    missing = catalogue_ids()["004"] - set(load_claims().ids())
    assert not missing, f"004 claims not registered: {sorted(missing)}"


def test_the_underspecified_percentile_edge_says_why():
    claim = load_claims().get("tam.percentile-edge")
    assert claim.kind.value == "underspecified" and "rho" in claim.reason.lower()
