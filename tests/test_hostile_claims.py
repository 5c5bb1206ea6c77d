"""Malformed claims are refused where they are built (issue 37, item 2): each
field's type and range, with a message naming the claim, the field, what it
got and what it needs; a claims module that builds one fails to load with
exit 2 and one line, before anything runs or any report is written."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from theorems import Check, Claim, ClaimKind, EvidenceKind, NegativeControl
from theorems.authoring import kit
from theorems.authoring.strategies import keys_and_values
from theorems.authoring.templates import asymptotic, expectation, identity, inequality, sweep_check, wrong
from theorems.core.model import Evidence, EvidenceStatus


def _terms(impl, K, V):
    return [(impl.least_squares_store(K, V) @ K @ impl.pinv(K), impl.least_squares_store(K, V))]


def _control():
    return wrong("outer-product store", least_squares_store=lambda K, V: V @ K.T)


def _identity(**changes):
    fields = dict(title="The store absorbs the range projector", statement=r"W K K^+ = W", source="notes",
                  inputs=keys_and_values(), terms=_terms, control=_control())
    fields.update(changes)
    return identity("mine.absorbs", **fields)


def _check(name="sim"):
    return Check(name, EvidenceKind.SIMULATION,
                 lambda ctx: Evidence(check=name, kind=EvidenceKind.SIMULATION, status=EvidenceStatus.SUPPORTED))


def _claim(**changes):
    fields = dict(id="mine.plain", title="A claim", statement="x = x", kind=ClaimKind.CONJECTURE, source="notes",
                  checks=(_check(),), negative_control=_control())
    fields.update(changes)
    return Claim(**fields)


@pytest.mark.parametrize(("field", "value", "needs"), [
    ("title", 3, "title must be a string, got int 3"),
    ("title", None, "title must be a string, got NoneType None"),
    ("title", ["A claim"], "title must be a string, got list ['A claim']"),
    ("statement", ["x = x"], "statement must be a string, got list"),
    ("source", b"notes", "source must be a string, got bytes"),
    ("reason", 0, "reason must be a string, got int 0"),
    ("assumptions", "K has full rank", "assumptions must be a sequence of strings (a list or a tuple), got the "
                                       "string 'K has full rank'"),
    ("assumptions", ["ok", 7], "assumptions[1] must be a string, got int 7"),
    ("tags", "fast", "tags must be a sequence of strings"),
    ("tags", {"fast"}, "tags must be a sequence of strings (a list or a tuple), got set"),
    ("depends_on", "recall.snr", "depends_on must be a sequence of strings"),
    ("kind", "conjecture", "kind must be a ClaimKind"),
    ("checks", _check(), "checks must be a sequence of Check objects, got one Check 'sim'"),
    ("checks", ("sim",), "checks[0] must be a Check, got the string 'sim'"),
    ("negative_control", "swap the store", "control (negative_control) must be wrong('why', formula=callable), "
                                           "got the string 'swap the store'"),
    ("domain", [("d", [1, None])], "domain must be a mapping"),
    ("domain", {1: [1, None]}, "domain's variable names must be strings"),
])
def test_a_malformed_claim_field_is_refused_naming_the_claim_the_field_and_the_value(field, value, needs):
    with pytest.raises((TypeError, ValueError)) as info:
        _claim(**{field: value})
    assert str(info.value).startswith("claim mine.plain: ") and needs in str(info.value)


def test_a_claim_id_that_is_not_a_string_is_refused():
    with pytest.raises(TypeError, match="a claim's id must be a string, got int 5"):
        _claim(id=5)


@pytest.mark.parametrize("field", ["tags", "assumptions", "depends_on"])
def test_a_template_refuses_a_string_where_a_sequence_of_strings_is_needed(field):
    with pytest.raises(TypeError, match=f"claim mine.absorbs: {field} must be a sequence of strings"):
        _identity(**{field: "fast"})


def test_a_single_extra_check_not_in_a_list_is_refused():
    with pytest.raises(TypeError, match="claim mine.absorbs: extra_checks must be a sequence of Check objects"):
        _identity(extra_checks=_check())


def test_a_list_given_for_a_tuple_field_is_kept_as_a_tuple():
    claim = _claim(tags=["fast"], assumptions=["K has full rank"], checks=[_check()])
    assert claim.tags == ("fast",) and claim.assumptions == ("K has full rank",) and isinstance(claim.checks, tuple)


@pytest.mark.parametrize(("args", "needs"), [
    (("", EvidenceKind.SIMULATION, lambda ctx: None), "a check's name must be a non-empty string"),
    (("sim", "simulation", lambda ctx: None), "check 'sim': kind must be an EvidenceKind"),
    (("sim", EvidenceKind.SIMULATION, "not a function"), "check 'sim': run must be a callable"),
    (("sim", EvidenceKind.SIMULATION, lambda ctx: None, 3), "check 'sim': description must be a string"),
])
def test_a_malformed_check_is_refused(args, needs):
    with pytest.raises(TypeError, match=needs.replace("(", r"\(").replace(")", r"\)")):
        Check(*args)


def test_a_control_replacement_that_is_not_callable_is_refused():
    with pytest.raises(TypeError, match="the replacement for 'pinv' must be a callable .* got int 3"):
        wrong("pinv off by three", pinv=3)


def test_a_control_naming_no_formula_of_linmem_is_refused_with_the_nearest_name():
    with pytest.raises(ValueError, match="did you mean 'pinv'"):
        wrong("typo", pinvv=lambda K: K)


def test_a_control_without_a_description_is_refused():
    with pytest.raises(TypeError, match="description must be a non-empty string"):
        NegativeControl(None, {"pinv": lambda K: K})


def test_an_unknown_template_keyword_suggests_the_nearest():
    with pytest.raises(TypeError, match=r"claim mine.absorbs: identity\(\) got an unknown keyword 'boundry'; "
                                        r"did you mean 'boundary'\?"):
        _identity(boundry=[])


@pytest.mark.parametrize(("boundary", "needs"), [
    ("rank one", "boundary must be a list of (label, args) pairs, got the string"),
    ([("rank one",)], "boundary[0] must be a (label, args) pair"),
    ([(3, ())], "boundary[0]'s label must be a non-empty string, got int 3"),
    ([("rank one", 5)], "boundary[0] ('rank one')'s args must be a tuple"),
])
def test_malformed_boundary_cases_are_refused(boundary, needs):
    with pytest.raises(TypeError) as info:
        inequality("mine.bound", title="t", statement="a \\le b", source="s", inputs=keys_and_values(),
                   terms=_terms, control=_control(), boundary=boundary)
    assert str(info.value).startswith("claim mine.bound: ") and needs in str(info.value)


def test_a_control_given_as_a_string_to_a_template_is_refused():
    with pytest.raises(TypeError, match="claim mine.absorbs: control must be wrong"):
        _identity(control="outer-product store")


def test_terms_that_are_not_callable_are_refused():
    with pytest.raises(TypeError, match="claim mine.absorbs: terms must be a callable, got list"):
        _identity(terms=[1, 2])


def _expectation(mc_samples):
    return expectation("mine.mean", title="t", statement="E x = 0", source="s",
                       quantity=lambda impl, K, V: kit.store(K, V).sum(axis=-2),
                       claimed=lambda impl, K: 0 * K[0], control=_control(), mc_samples=mc_samples)


@pytest.mark.parametrize(("mc_samples", "error", "needs"), [
    (1, ValueError, "mc_samples must be >= 2 (a variance needs two draws), got 1"),
    (-5, ValueError, "mc_samples must be >= 2"),
    (2.5, TypeError, "mc_samples must be an int >= 2"),
    (True, TypeError, "mc_samples must be an int >= 2"),
])
def test_monte_carlo_sample_counts_below_two_are_refused(mc_samples, error, needs):
    with pytest.raises(error) as info:
        _expectation(mc_samples)
    assert str(info.value).startswith("claim mine.mean: ") and needs in str(info.value)


@pytest.mark.parametrize(("sizes", "needs"), [
    ({"quick": [8, 8], "standard": [8, 16], "thorough": [8, 16]}, "sizes['quick'] must hold at least two distinct"),
    ({"quick": [8], "standard": [8, 16], "thorough": [8, 16]}, "sizes['quick'] must hold at least two distinct"),
    ({"quick": "816", "standard": [8, 16], "thorough": [8, 16]}, "sizes['quick'] must be a list of sizes"),
    ([8, 16], "sizes must be a mapping of profile levels"),
])
def test_sweep_sizes_without_spread_are_refused(sizes, needs):
    with pytest.raises((TypeError, ValueError)) as info:
        asymptotic("mine.trend", title="t", statement="x \\to 0", source="s", sizes=sizes,
                   measure=lambda impl, n, rng: 1.0 / n, criterion=lambda *a: None, label="1/n", control=_control())
    assert str(info.value).startswith("claim mine.trend: ") and needs in str(info.value)


def test_a_sweep_check_names_itself_when_its_sizes_have_no_spread():
    with pytest.raises(ValueError, match="check 'sweep': sizes\\['standard'\\] must hold at least two"):
        sweep_check("sweep", sizes={"quick": [1, 2], "standard": [4, 4], "thorough": [1, 2]},
                    measure=lambda impl, n, rng: 0.0, criterion=lambda *a: None, label="x")


def _run_cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "theorems", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=60)


@pytest.mark.parametrize(("field", "value"), [("title", "3"), ("tags", "'fast'"), ("control", "'swap the store'")])
def test_a_claims_module_building_a_malformed_claim_fails_to_load_with_one_line_and_writes_nothing(
        tmp_path, field, value):
    module = tmp_path / "mine.py"
    module.write_text(textwrap.dedent(f"""\
        from theorems.authoring.strategies import keys_and_values
        from theorems.authoring.templates import identity, wrong
        fields = dict(title="t", statement="W = W", source="s", inputs=keys_and_values(),
                      terms=lambda impl, K, V: [(K, K)], control=wrong("x", pinv=lambda K: K))
        fields[{field!r}] = {value}
        CLAIMS = [identity("mine.bad", **fields)]
    """))
    out = tmp_path / "reports"
    proc = _run_cli("verify", "--claims", str(module), "--only", "mine.*", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "mine.bad" in lines[0] and field in lines[0] and "mine.py" in lines[0]
    assert not (out / "report.json").exists()
