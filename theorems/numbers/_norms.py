"""``np.linalg.norm`` (every ``ord`` numpy accepts, ``axis=``, ``keepdims=``)
and ``np.linalg.cond`` written once for a number system given its ``k``-th
root and its singular values (``None``: the system has none, the value is
not exact)."""

from __future__ import annotations

import numpy as np

from theorems.numbers._base import NotExact


def _abs(x):
    return abs(x)


def make_norm(root, singular_values):
    def svals(M, what):
        if singular_values is None:
            raise NotExact(what, "singular values are irrational")
        return singular_values(M)

    def vector(v, ord):
        v = [_abs(e) for e in v]
        if ord is None or ord == 2:
            return root(sum((e * e for e in v), start=0), 2, "norm")
        if ord == np.inf:
            return max(v, default=0)
        if ord == -np.inf:
            return min(v, default=0)
        if ord == 0:
            return sum(1 for e in v if e != 0)
        if ord == 1:
            return sum(v, start=0)
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        k = int(ord) if float(ord).is_integer() else None
        if k is None:
            raise NotExact(f"norm(ord={ord})")
        if k < 0:
            return root(sum((1 / e ** -k for e in v), start=0), -k, f"norm(ord={ord})") ** -1
        return root(sum((e ** k for e in v), start=0), k, f"norm(ord={ord})")

    def matrix(M, ord):
        M = np.asarray(M, dtype=object)
        absolute = np.vectorize(_abs, otypes=[object])(M) if M.size else M
        if ord is None or ord == "fro":
            return root(sum((e * e for e in M.ravel()), start=0), 2, "norm")
        if ord in (1, -1):
            sums = [sum(col, start=0) for col in absolute.T]
            return max(sums) if ord == 1 else min(sums)
        if ord in (np.inf, -np.inf):
            sums = [sum(row, start=0) for row in absolute]
            return max(sums) if ord == np.inf else min(sums)
        if ord in (2, -2):
            s = svals(M, f"norm(ord={ord})")
            return max(s) if ord == 2 else min(s)
        if ord == "nuc":
            return sum(svals(M, "norm(ord='nuc')"), start=0)
        raise ValueError("Invalid norm order for matrices.")

    def norm(x, ord=None, axis=None, keepdims=False):
        x = np.asarray(x, dtype=object)
        if axis is None:
            if ord is None:
                out = vector(x.ravel(), None)
                return np.full((1,) * x.ndim, out, dtype=object) if keepdims else out
            if x.ndim == 1:
                axis = (0,)
            elif x.ndim == 2:
                axis = (0, 1)
            else:
                raise ValueError("Improper number of dimensions to norm.")
        if isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        axis = tuple(a % x.ndim for a in axis)
        if len(axis) == 1:
            moved = np.moveaxis(x, axis[0], -1)
            out = np.empty(moved.shape[:-1], dtype=object)
            for idx in np.ndindex(out.shape):
                out[idx] = vector(moved[idx], ord)
            if keepdims:
                out = np.expand_dims(out, axis[0])
        elif len(axis) == 2:
            if axis[0] == axis[1]:
                raise ValueError("Duplicate axes given.")
            moved = np.moveaxis(x, axis, (-2, -1))
            out = np.empty(moved.shape[:-2], dtype=object)
            for idx in np.ndindex(out.shape):
                out[idx] = matrix(moved[idx], ord)
            if keepdims:
                out = np.expand_dims(out, axis)
        else:
            raise ValueError("Improper number of dimensions to norm.")
        return out if out.ndim else out[()]

    return norm


def make_vector_norm(norm):
    def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
        x = np.asarray(x, dtype=object)
        if axis is None:
            x, axis = x.ravel(), 0
        return norm(x, ord=ord, axis=axis, keepdims=keepdims)

    return vector_norm


def make_matrix_norm(norm):
    def matrix_norm(x, /, *, keepdims=False, ord="fro"):
        return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)

    return matrix_norm


def make_cond(root, singular_values, inv):
    norm = make_norm(root, singular_values)

    def cond(x, p=None):
        x = np.asarray(x, dtype=object)
        if p is None or p in (2, -2):
            if singular_values is None:
                raise NotExact(f"cond(p={p})", "singular values are irrational")
            s = singular_values(x)
            big, small = max(s), min(s)
            return big / small if p in (None, 2) else small / big
        return norm(x, p) * norm(inv(x), p)

    return cond
