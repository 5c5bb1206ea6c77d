"""The number systems of theorems.numbers: a user's numpy code run unchanged
on exact rationals and on mpmath numbers, floats read as the decimals they
were written as, irrational values named, foreign float64 code refused, and
the table of docs/writing-claims.md true to the code."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import strategies as st
from numpy.linalg import inv

from theorems import numbers
from theorems.numbers import EXACT, MPMATH, NotExact, Unsupported

DOCS = Path(__file__).resolve().parents[1] / "docs" / "writing-claims.md"
_A = [[2, 1, 0], [1, 3, 1], [0, 1, 4]]


def _exact(rows):
    return numbers.enter(np.array(rows, dtype=object) * Fraction(1), EXACT)


def _mp(rows):
    return numbers.enter(np.array([[mpmath.mpf(x) for x in r] for r in rows], dtype=object), MPMATH)


def test_numpy_linalg_bound_at_import_runs_exactly_on_rationals():
    A = _exact(_A)
    assert isinstance(inv(A), numbers.ExactArray)
    assert (inv(A) @ A == np.eye(3, dtype=int)).all()
    assert np.linalg.det(A) == Fraction(18)
    assert all(isinstance(x, Fraction) for x in np.linalg.solve(A, np.ones(3)).tolist())
    assert np.linalg.matrix_rank(_exact([[1, 2], [2, 4]])) == 1
    assert np.linalg.pinv(_exact([[1, 2], [2, 4]])).tolist() == [[Fraction(1, 25), Fraction(2, 25)]] * 1 + [
        [Fraction(2, 25), Fraction(4, 25)]]


def test_a_float_that_meets_exact_numbers_is_the_decimal_it_was_written_as():
    A = _exact(_A)
    assert (inv(0.1 * A) == 10 * inv(A)).all()
    assert not (inv(0.1 * A) == 0.1 * inv(A)).all()
    assert (np.full(3, 0.2) @ A == np.array([Fraction(3, 5), 1, 1], dtype=object)).all()
    assert np.linalg.det(A) * 0.1 == Fraction(9, 5)
    assert numbers.decimal_value(1 / 3) == Fraction(1, 3) and numbers.decimal_value(0.1 + 0.2) is None


def test_irrational_values_are_not_exact_and_name_the_function():
    A = _exact(_A)
    for call, name in [(lambda: np.linalg.eigvalsh(A), "eigvalsh"), (lambda: np.linalg.norm(A, 2), "norm(ord=2)"),
                       (lambda: np.sqrt(np.linalg.det(A)), "sqrt"), (lambda: np.linalg.qr(A), "qr"),
                       (lambda: np.linalg.cholesky(A), "cholesky")]:
        with pytest.raises(NotExact) as info:
            call()
        assert info.value.function == name
    assert np.sqrt(np.linalg.det(A) * 2) == 6 and np.linalg.norm(_exact([3, 4])) == 5


def test_a_rational_turned_float_inside_the_terms_is_detected_never_judged_exact():
    A = _exact(_A)
    float_entry = np.array([float(A[0, 0]) * 1.0000001], dtype=object)
    with pytest.raises(NotExact):
        numbers.settle([(float_entry, A[:1, 0])], EXACT)
    with pytest.raises(NotExact):
        A.astype(float)
    with pytest.raises(Unsupported):
        numbers.settle([(float_entry, A[:1, 0])], MPMATH)


def test_mpmath_arrays_run_numpy_linalg_at_the_working_precision():
    with mpmath.workdps(60):
        A = _mp(_A)
        assert abs(np.linalg.det(A) - 18) < mpmath.mpf(10) ** -55
        L = np.linalg.cholesky(A)
        assert max(abs(x) for x in (L @ L.T - A).ravel()) < mpmath.mpf(10) ** -55
        Q, R = np.linalg.qr(A)
        assert max(abs(x) for x in (Q @ R - A).ravel()) < mpmath.mpf(10) ** -55
        e = np.linalg.eigvalsh(A)
        assert abs(sum(e) - 9) < mpmath.mpf(10) ** -55 and e[0] <= e[1] <= e[2]
        U, s, Vh = np.linalg.svd(A)
        assert max(abs(x) for x in ((U * s) @ Vh - A).ravel()) < mpmath.mpf(10) ** -55
        assert abs(np.linalg.norm(A, 2) - s[0]) < mpmath.mpf(10) ** -55
        assert abs(inv(0.1 * A)[0, 0] - 10 * inv(A)[0, 0]) < mpmath.mpf(10) ** -55


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
def test_every_matrix_norm_order_agrees_with_numpy(ord):
    reference = np.linalg.norm(np.array(_A, float), ord)
    with mpmath.workdps(40):
        assert abs(float(np.linalg.norm(_mp(_A), ord)) - reference) <= 1e-13 * reference
    try:
        assert float(np.linalg.norm(_exact(_A), ord)) == pytest.approx(reference, rel=1e-15)
    except NotExact:
        assert ord in (None, "fro", "nuc", 2, -2)


@pytest.mark.parametrize("ord", [None, 0, 1, 2, 3, np.inf, -np.inf])
def test_every_vector_norm_order_agrees_with_numpy_along_an_axis(ord):
    rows = [[3, 4, 0], [0, 5, 12]]
    reference = np.linalg.norm(np.array(rows, float), ord, axis=1)
    with mpmath.workdps(40):
        got = np.linalg.norm(_mp(rows), ord, axis=1)
        assert np.allclose(np.array(got, dtype=float), reference, rtol=1e-13)
    try:
        assert np.allclose(np.array(np.linalg.norm(_exact(rows), ord, axis=1), dtype=float), reference)
    except NotExact:
        assert ord == 3


def test_a_scipy_function_is_refused_in_one_line_naming_it_and_the_alternative():
    import scipy.linalg

    def terms(impl, K):
        return [(scipy.linalg.expm(K), K)]

    with pytest.raises(Unsupported, match=r"^scipy\.linalg\.expm computes in float64 .* use kit\.expm"):
        numbers.refuse_foreign(terms, EXACT)
    numbers.refuse_foreign(terms, numbers.FLOAT64)  # float64 runs scipy as it is


def test_kit_expm_runs_in_each_system():
    from theorems.authoring import kit

    with mpmath.workdps(30):
        E = kit.expm(_mp([[0, 0], [0, 0]]))
        assert E[0, 0] == 1 and E[0, 1] == 0
    with pytest.raises(NotExact):
        kit.expm(_exact([[1]]))
    assert kit.expm(np.zeros((2, 2)))[1, 1] == 1.0


def test_a_float_check_does_not_pass_on_measured_cases_when_the_unmeasured_ones_failed_the_cheap_test():
    from theorems.core.impl import Impl
    from theorems.core.model import Context, EvidenceStatus
    from theorems.core.profiles import get_profile
    from theorems.evidence import property as prop

    ctx = Context(impl=Impl.default(), profile=get_profile("quick"), seed=1, claim_id="t.x", check_name="float")
    ev = prop.check(ctx, st.integers(0, 1000), lambda x: prop.UNMEASURED if x % 3 == 0 else 0.5, examples=30)
    assert ev.status is EvidenceStatus.INCONCLUSIVE and ev.data["unmeasured"] > 0
    assert "could not be formed" in ev.detail


def test_the_enclosure_proves_a_counterexample_with_irrational_terms():
    from theorems.core.residuals import at_most
    from theorems.numbers.interval import enclose

    K = np.array([[1, 2], [3, 4]], dtype=object) * Fraction(1)
    proof = enclose(lambda impl, K: [at_most(np.linalg.norm(K), np.linalg.norm(K, 2))], None, (K,))
    assert proof["proved"] and proof["what"].startswith("lhs - rhs of the bound")
    holds = enclose(lambda impl, K: [at_most(np.linalg.norm(K, 2), np.linalg.norm(K))], None, (K,))
    assert not holds["proved"]
    none = enclose(lambda impl, K: [(np.linalg.qr(K)[0], K)], None, (K,))
    assert not none["proved"] and "qr" in none["why"]


def test_the_docs_table_is_the_supported_function_table():
    text = DOCS.read_text()
    assert numbers.table_markdown() in text
    assert len(numbers.TABLE) >= 60


@pytest.mark.parametrize("row", numbers.TABLE, ids=[r[0] for r in numbers.TABLE])
def test_every_row_of_the_table_runs_as_it_says(row):
    name = row[0]
    if name.startswith("kit.") or name.split(".")[-1] in ("eye", "zeros", "ones", "full", "identity"):
        return  # kit.* has its own test; array constructors are float64 operands
    fn = _function(name)
    for system, make in ((EXACT, _exact), (MPMATH, _mp)):
        with mpmath.workdps(30):
            args = _arguments(name, make)
            try:
                out = fn(*args)
            except NotExact:
                # only a row whose exact column states a condition may leave the exact system
                assert system == EXACT and row[1] not in ("exact", "exact (FLINT fmpq_mat)",
                                                          "exact (numpy on Fractions)"), name
                continue
            floats = fn(*[np.array(a, dtype=float) if isinstance(a, np.ndarray) else a for a in args])
            if name.endswith("lstsq"):  # its singular values are irrational in the exact system
                out, floats = out[:3], floats[:3]
            _close(out, floats, name)


def _function(name):
    obj = np
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _arguments(name, make):
    short = name.split(".")[-1]
    A = make([[4, 1], [1, 3]])
    if short in ("solve", "lstsq"):
        return (A, make([[1], [2]]))
    if short in ("matrix_power",):
        return (A, 3)
    if short in ("multi_dot",):
        return ([A, A, A],)
    if short in ("maximum", "minimum", "power", "float_power", "outer", "kron", "matmul", "dot", "vdot", "inner",
                 "tensordot"):
        return (A, A) if short not in ("power", "float_power") else (A, make([[2, 1], [1, 2]]))
    if short in ("concatenate", "stack", "hstack", "vstack", "block"):
        return ([A, A],)
    if short == "einsum":
        return ("ij,jk->ik", A, A)
    if short == "reshape":
        return (A, (4,))
    if short == "where":
        return (np.array([[True, False], [False, True]]), A, A)
    if short in ("log", "log2", "log10", "log1p"):
        return (make([[1, 1], [1, 1]]),)
    if short in ("exp", "expm1", "sin", "cos", "tan", "arctan", "sinh", "cosh", "tanh"):
        return (make([[0, 0], [0, 0]]),)
    return (A,)


def _close(out, floats, name):
    if isinstance(out, tuple):
        for a, b in zip(out, floats):
            _close(a, b, name)
        return
    got = np.array(np.asarray(out, dtype=object).tolist(), dtype=complex if np.iscomplexobj(floats) else float) \
        if not isinstance(out, (int, np.integer)) else out
    if name.endswith(("eigh", "eig", "svd", "qr")):
        return  # factors are unique up to signs: their identities are the corpus's to check
    assert np.allclose(np.abs(got) if name.endswith("eigvals") else got,
                       np.abs(floats) if name.endswith("eigvals") else floats, rtol=1e-12, atol=1e-12), name
