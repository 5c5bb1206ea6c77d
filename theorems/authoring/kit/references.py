"""References that are not under test: Gordan's alternative for the top-1 comparisons, exact
Gaussian moments, reference leverage and pseudo-inverse energy, the law of spherical inner products."""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np

from theorems.authoring.kit.numbers import exact, is_exact, to_sympy  # noqa: F401  (exact: the doctests)

__all__ = [
    "comparisons",
    "gaussian_moment",
    "gordan_residual",
    "leverage",
    "pinv_energy",
    "sphere_tail",
]


def comparisons(V, U) -> dict:
    """The top-1 comparison matrices ``A_ij = (u_i - u_j) v_i^T``, ``i != j``,
    keyed by ``(i, j)``, in the number system of the keys ``V`` and targets
    ``U`` (columns are pairs); independent of linmem.

    >>> comparisons(exact([[1, 2]]), exact([[1, 0]]))[0, 1].tolist()
    [[Fraction(1, 1)]]
    """
    n = V.shape[1]
    return {(i, j): np.outer(U[:, i] - U[:, j], V[:, i]) for i in range(n) for j in range(n) if i != j}


def gordan_residual(A: dict, *, W=None, lam: dict | None = None):
    """``(residual, scale)`` of one side of Gordan's alternative for the
    comparisons ``A`` (:func:`comparisons`), in the number system of the side:
    for a memory ``W``, 0 when every ``<W, A_ij> > 0``, else ``1 + |worst
    margin|``; for a dependence ``lam`` (``{(i, j): weight}`` on its support),
    ``||sum lam A|| + negative mass + |sum lam - 1|`` (the squared norm in
    exact rationals, so the residual is 0 exactly when ``lam`` is a
    certificate) with scale ``max(1, sum lam ||A||) * |support|`` (1 when
    exact). Neither side given: ``(inf, 1)``.

    >>> A = comparisons(exact([[1, 1]]), exact([[1, -1]]))
    >>> gordan_residual(A, lam={(0, 1): Fraction(1, 2), (1, 0): Fraction(1, 2)})
    (Fraction(0, 1), 2)
    >>> gordan_residual(A, W=exact([[1]]))[0]
    Fraction(3, 1)
    """
    if W is None and lam is None:
        return float("inf"), 1
    if W is not None:
        worst = min(np.sum(W * Aij) for Aij in A.values())
        return (0 if worst > 0 else abs(worst) + 1), 1
    is_rational = is_exact(next(iter(lam.values())))
    total = sum((v * A[p] for p, v in lam.items()), start=0 * next(iter(A.values())))
    sq = sum(e * e for e in total.ravel())
    resid = (sq if is_rational else mpmath.sqrt(sq)) + sum(max(0, -x) for x in lam.values()) + abs(sum(lam.values()) - 1)
    scale = 1 if is_rational else sum(v * mpmath.sqrt(sum(e * e for e in A[p].ravel())) for p, v in lam.items())
    return resid, max(scale, 1) * len(lam)


def gaussian_moment(expr, variables, variance):
    """``E expr`` exactly for a sympy polynomial ``expr`` in the
    ``variables``, independent ``N(0, variance)``: Isserlis' rule
    coordinatewise (``E x^(2k) = (2k-1)!! variance^k``, odd moments 0).

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> gaussian_moment((x + y) ** 4, (x, y), sympy.Rational(1, 2))
    3
    """
    import sympy

    total = sympy.Rational(0)
    for exps, coeff in sympy.Poly(sympy.expand(expr), *variables).terms():
        if not any(e % 2 for e in exps):
            total += coeff * sympy.prod(sympy.factorial2(e - 1) * variance ** (e // 2) for e in exps)
    return total


def leverage(K) -> list:
    """Reference leverage scores ``h_j = P_jj`` (``P = K^+ K``) of exact keys,
    as sympy ``Rational``: computed outside the implementation under test
    (sympy's pseudoinverse), cached (an enumeration asks once per sign pattern).

    >>> leverage(exact([[1, 1, 1, 0], [0, 0, 0, 1]]))
    [1/3, 1/3, 1/3, 1]
    """
    if not is_exact(K) or np.ndim(K) != 2:
        raise TypeError(f"K must be a 2-D exact (integer or Fraction) array, got {type(K).__name__}")
    return _sympy_leverage(K.shape, tuple(Fraction(x) for x in K.ravel()))


@functools.lru_cache(maxsize=4096)
def _sympy_leverage(shape: tuple[int, int], entries: tuple[Fraction, ...]) -> list:
    import sympy

    S = to_sympy(np.array(entries, dtype=object).reshape(shape))
    P = S.pinv() * S
    return [sympy.Rational(P[j, j]) for j in range(shape[1])]


def pinv_energy(K) -> Fraction:
    """Reference ``||K^+||_F^2 = sum_l s_l^-2`` of exact keys, without
    singular values or the implementation under test: the nonzero
    eigenvalues ``mu`` of the smaller Gram matrix are the ``s_l^2``, and with
    its characteristic polynomial ``x^n + a_1 x^(n-1) + ...`` of rank ``r``,
    ``sum 1/mu = -a_(r-1) / a_r`` (sympy, exact).

    >>> pinv_energy(exact([[1, 1], [0, 1]])), pinv_energy(exact([[0, 0]]))
    (Fraction(3, 1), Fraction(0, 1))
    """
    import sympy

    if not is_exact(K) or np.ndim(K) != 2:
        raise TypeError(f"K must be a 2-D exact (integer or Fraction) array, got {type(K).__name__}")
    G = K.T @ K if K.shape[1] <= K.shape[0] else K @ K.T
    S = sympy.Matrix(G.tolist())
    r = S.rank()
    a = S.charpoly().all_coeffs()
    value = sympy.Rational(-a[r - 1], a[r]) if r else sympy.Integer(0)
    return Fraction(int(value.p), int(value.q))


def sphere_tail(d: int, t):
    """Reference ``Pr(|k_i^T k_j| >= t)`` for independent uniform unit keys of
    R^d, in the number system of ``t`` (an mpmath ``mpf`` at the working
    precision, or a float): ``(1 + k_i^T k_j)/2 ~ Beta((d-1)/2, (d-1)/2)``
    for d >= 2, so the tail is ``2 I_{(1-t)/2}((d-1)/2, (d-1)/2)``; d = 1 is
    the two-point sphere (``k_i^T k_j = ±1``). Closed forms: ``(2/pi) arccos t``
    for d = 2, ``1 - t`` for d = 3 (Archimedes).

    >>> round(sphere_tail(3, 0.25), 12), sphere_tail(1, 0.5), sphere_tail(2, 1.0)
    (0.75, 1.0, 0.0)
    """
    import mpmath
    from scipy.special import betainc

    if not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not t > 0:
        raise ValueError(f"t must be > 0, got {t!r}")
    one = t * 0 + 1
    if d == 1 or t >= 1:
        return one * (d == 1 and t <= 1)
    if isinstance(t, float):
        return float(2 * betainc((d - 1) / 2, (d - 1) / 2, (1 - t) / 2))
    a = mpmath.mpf(d - 1) / 2
    return 2 * mpmath.betainc(a, a, 0, (1 - t) / 2, regularized=True)
