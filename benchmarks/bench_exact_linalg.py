"""Exact rational linear algebra for theorems.numbers, reported as ratios.

Run from the repository root::

    python benchmarks/bench_exact_linalg.py

At the stock families' sizes (n = 2, 4, 6, 8; small-integer numerators,
denominators 1..4, 50 nonsingular matrices per size) it times the inverse
by FLINT's ``fmpq_mat`` (python-flint, conversions to and from ``Fraction``
included: what theorems.numbers.exact does), by Gauss-Jordan elimination in
``Fraction`` and by sympy's ``Matrix.inv``, and prints each as a ratio to
FLINT. Nothing is asserted: this is not a test.
"""

from __future__ import annotations

import time
from fractions import Fraction as F

import numpy as np
import sympy
from flint import fmpq, fmpq_mat


def gauss_jordan_inverse(A):
    n = len(A)
    M = [[F(x) for x in row] + [F(int(i == j)) for j in range(n)] for i, row in enumerate(A)]
    for c in range(n):
        p = next(i for i in range(c, n) if M[i][c] != 0)
        M[c], M[p] = M[p], M[c]
        pivot = M[c][c]
        M[c] = [x / pivot for x in M[c]]
        for i in range(n):
            if i != c and M[i][c] != 0:
                f = M[i][c]
                M[i] = [a - f * b for a, b in zip(M[i], M[c])]
    return [row[n:] for row in M]


def flint_inverse(A):
    n = len(A)
    m = fmpq_mat(n, n, [fmpq(x.numerator, x.denominator) for row in A for x in row]).inv()
    return [[F(int(m[i, j].p), int(m[i, j].q)) for j in range(n)] for i in range(n)]


def sympy_inverse(A):
    return sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in row] for row in A]).inv()


def main() -> None:
    rng = np.random.default_rng(0)
    print("n   flint us   fraction-GJ / flint   sympy / flint")
    for n in (2, 4, 6, 8):
        mats = []
        while len(mats) < 50:
            A = [[F(int(x), int(rng.integers(1, 5))) for x in row] for row in rng.integers(-3, 4, (n, n))]
            if fmpq_mat(n, n, [fmpq(x.numerator, x.denominator) for row in A for x in row]).det() != 0:
                mats.append(A)
        seconds = {}
        for name, fn in (("flint", flint_inverse), ("gj", gauss_jordan_inverse), ("sympy", sympy_inverse)):
            start = time.perf_counter()
            for A in mats:
                fn(A)
            seconds[name] = (time.perf_counter() - start) / len(mats)
        print(f"{n}   {seconds['flint'] * 1e6:8.0f}   {seconds['gj'] / seconds['flint']:19.1f}   "
              f"{seconds['sympy'] / seconds['flint']:13.1f}")


if __name__ == "__main__":
    main()
