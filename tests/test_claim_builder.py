"""The claim builder for hand-made checks, the sign-value design cases, and
counterexample verifiers that return the details the report shows."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from theorems.authoring import kit
from theorems.core.model import Check, ClaimKind, EvidenceKind
from theorems.core.profiles import PROFILES
from theorems.core.runner import run_claim
from theorems.authoring.strategies import exact_key_matrices
from theorems.authoring.strategies import keys
from theorems.authoring.templates import claim, counterexample, exact_check, keys_and_directions, wrong

QUICK = PROFILES["quick"]
CONTROL = wrong("x", snr=lambda h: h)


def _never_run(ctx):
    raise AssertionError("declaring a claim runs no check")


def test_claim_takes_each_checks_kind_from_the_entry_and_keeps_names_and_order():
    c = claim("t.built", kind=ClaimKind.IDENTITY, title="t", statement="s", source="test",
              checks={"algebra": (EvidenceKind.SYMBOLIC, _never_run, "sympy"),
                      "agreement in floats": (EvidenceKind.PROPERTY, _never_run),
                      "exact rows": (EvidenceKind.PRECISE, _never_run, "an explicit kind, whatever the name")},
              control=CONTROL, assumptions=("a",), tags=("t",))
    assert [(k.name, k.kind, k.description) for k in c.checks] == [
        ("algebra", EvidenceKind.SYMBOLIC, "sympy"), ("agreement in floats", EvidenceKind.PROPERTY, ""),
        ("exact rows", EvidenceKind.PRECISE, "an explicit kind, whatever the name")]
    assert (c.id, c.kind, c.assumptions, c.tags, c.negative_control) == ("t.built", ClaimKind.IDENTITY, ("a",),
                                                                         ("t",), CONTROL)
    # checks made by the check builders come as a sequence
    built = exact_check("exact-keys", exact=keys().exact, names=("K",), about="integer keys",
                        terms=lambda impl, K: [(K, K)])
    c2 = claim("t.seq", kind=ClaimKind.IDENTITY, title="t", statement="s", source="test",
               checks=[built, Check("ladder", EvidenceKind.PRECISE, _never_run),
                       Check("float", EvidenceKind.PROPERTY, _never_run)], control=CONTROL)
    assert [k.name for k in c2.checks] == ["exact-keys", "ladder", "float"]


def test_an_underspecified_claim_needs_no_checks():
    open_claim = claim("t.open", kind=ClaimKind.UNDERSPECIFIED, title="", statement="", source="test",
                       reason="no precise statement")
    assert open_claim.checks == ()


def test_one_way_a_check_without_its_kind_the_old_control_spelling_and_an_unknown_formula_are_refused():
    with pytest.raises(ValueError, match=r"t\.bad: check 'ladder' needs its evidence kind first: "
                                         r"'ladder': \(EvidenceKind\.PRECISE, run, about\)"):
        claim("t.bad", kind=ClaimKind.IDENTITY, title="", statement="", source="test",
              checks={"ladder": (_never_run, "")}, control=CONTROL)
    with pytest.raises(ValueError, match=r"'agreement'.*\(EvidenceKind\.X, run, about\)"):
        claim("t.bad", kind=ClaimKind.IDENTITY, title="", statement="", source="test",
              checks={"agreement": (_never_run, "")}, control=CONTROL)
    with pytest.raises(TypeError, match=r"t\.old: give the negative control as control="):
        claim("t.old", kind=ClaimKind.IDENTITY, title="", statement="", source="test",
              checks={"algebra": (EvidenceKind.SYMBOLIC, _never_run)}, negative_control=CONTROL)
    with pytest.raises(TypeError, match="checks must be a mapping"):
        claim("t.seq", kind=ClaimKind.IDENTITY, title="", statement="", source="test", checks=[_never_run],
              control=CONTROL)
    with pytest.raises(ValueError, match="no_such_formula"):
        claim("t.unknown", kind=ClaimKind.IDENTITY, title="", statement="", source="test",
              checks={"algebra": (EvidenceKind.SYMBOLIC, _never_run)},
              control=wrong("x", no_such_formula=lambda h: h))


def test_the_catalogue_is_written_one_way():
    # every catalogue claim is built by a template of theorems.authoring (no plain Claim(...) and no
    # negative_control= in the topic modules; the low-level API stays for users who need it), and its sizes
    # per profile are declared with kit.per_profile or kit.levels (no raw dict(quick=...))
    import re
    from pathlib import Path

    claims_dir = Path(__file__).resolve().parents[1] / "theorems" / "claims"
    offenders = [f"{p.name}:{i}" for p in sorted(claims_dir.glob("*.py"))
                 for i, line in enumerate(p.read_text().splitlines(), 1)
                 if re.search(r"\bClaim\(|\bnegative_control=|\bdict\(quick=", line)
                 and not line.lstrip().startswith("#")]
    assert not offenders, offenders


@settings(max_examples=25, deadline=None)
@given(keys_and_directions(exact_key_matrices(max_count=4)))
def test_keys_and_directions_gives_exact_keys_and_exactly_unit_rational_directions(case):
    K, W0 = case
    assert kit.is_exact(K) and kit.is_exact(W0)
    assert 1 <= W0.shape[0] <= 3 and W0.shape[1] == K.shape[1] <= 4
    assert all(sum(x * x for x in W0[:, j]) == 1 for j in range(W0.shape[1]))


def _two_columns(impl, K):
    h = impl.leverage_scores(K)
    return kit.rank(K) == K.shape[0] and min(h) < 1, 1 - min(h), {"h": h, "rank": kit.rank(K)}


@pytest.mark.parametrize("describe", [None, lambda K: {"K": K}])
def test_a_verifier_s_details_are_what_the_report_shows_of_the_witness(describe):
    c = counterexample("t.details", title="", statement="", source="test", control=CONTROL, about="", how="built",
                       witness=lambda ctx: kit.exact([[1, 1]]), verify=_two_columns, describe=describe)
    (ev,) = run_claim(c, profile=QUICK, seed=0).evidence
    assert ev.status.value == "passed" and ev.figure == 0.5
    assert list(ev.data["witness"]) == ["h", "rank"] and ev.data["witness"]["rank"] == 1
    np.testing.assert_array_equal(np.asarray(ev.data["witness"]["h"], dtype=float), [0.5, 0.5])
