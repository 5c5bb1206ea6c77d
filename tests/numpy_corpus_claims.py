"""A corpus of claims written the way a researcher writes numpy: ``np.linalg``
(``inv``, ``solve``, ``det``, ``pinv``, ``lstsq``, ``matrix_rank``,
``matrix_power``, ``norm`` with its orders, ``eigvalsh``, ``svd``,
``cholesky``, ``qr``), ``np.kron``, ``np.sqrt``, ``np.trace``, decimal
literals, over the stock input families (no ``scale=``, nothing tuned per
claim). Square matrices are built as a user builds them from keys:
``A = I + K K^T`` is symmetric positive definite, so invertible.

``tests/test_numpy_corpus.py`` runs them: every true one VERIFIED, every
false one FAILED, none ERROR.
"""

from __future__ import annotations

import numpy as np
from numpy.linalg import det, inv, pinv

from theorems.authoring.strategies import keys, keys_and_values
from theorems.authoring.templates import at_most, identity, inequality, wrong

_CONTROL = wrong("pseudo-inverse replaced by the transpose", pinv=lambda K: K.T)


def _A(K):
    """I + K K^T, symmetric positive definite (d x d)."""
    return np.eye(K.shape[0]) + K @ K.T


def _B(K):
    """I + K^T K (M x M)."""
    return np.eye(K.shape[1]) + K.T @ K


def _C(K):
    """diag(1..d) + K K^T: positive definite, and in general not commuting with A."""
    return np.diag(np.arange(1, K.shape[0] + 1)) + K @ K.T


def _vec(X):
    return X.reshape(-1, order="F")


def _claim(truth, id, statement, terms, inputs=None, bound=False):
    make = inequality if bound else identity
    return make(f"numpy.{truth}.{id}", title=statement, statement=statement, source="numpy corpus",
                inputs=inputs or keys(), terms=terms, control=_CONTROL)


def _true(id, statement, terms, inputs=None, bound=False):
    return _claim("true", id, statement, terms, inputs, bound)


def _false(id, statement, terms, inputs=None, bound=False):
    return _claim("false", id, statement, terms, inputs, bound)


KV = keys_and_values

TRUE = [
    _true("push-through", "(I + K K^T)^-1 K = K (I + K^T K)^-1",
          lambda impl, K: [(inv(_A(K)) @ K, K @ inv(_B(K)))]),
    _true("woodbury", "(I + K K^T)^-1 = I - K (I + K^T K)^-1 K^T",
          lambda impl, K: [(inv(_A(K)), np.eye(K.shape[0]) - K @ inv(_B(K)) @ K.T)]),
    _true("sherman-morrison", "(A + u u^T)^-1 = A^-1 - A^-1 u u^T A^-1 / (1 + u^T A^-1 u)",
          lambda impl, K: [(inv(_A(K) + np.outer(K[:, 0], K[:, 0])),
                            inv(_A(K)) - inv(_A(K)) @ np.outer(K[:, 0], K[:, 0]) @ inv(_A(K))
                            / (1 + K[:, 0] @ inv(_A(K)) @ K[:, 0]))]),
    _true("sylvester", "det(I + K K^T) = det(I + K^T K)", lambda impl, K: [(det(_A(K)), det(_B(K)))]),
    _true("det-product", "det(A C) = det(A) det(C)", lambda impl, K: [(det(_A(K) @ _C(K)), det(_A(K)) * det(_C(K)))]),
    _true("det-inverse", "det(A^-1) = 1 / det(A)", lambda impl, K: [(det(inv(_A(K))), 1 / det(_A(K)))]),
    _true("inverse-product", "(A C)^-1 = C^-1 A^-1", lambda impl, K: [(inv(_A(K) @ _C(K)), inv(_C(K)) @ inv(_A(K)))]),
    _true("solve", "solve(A, K) = A^-1 K", lambda impl, K: [(np.linalg.solve(_A(K), K), inv(_A(K)) @ K)]),
    _true("decimal-inverse", "(0.1 A)^-1 = 10 A^-1", lambda impl, K: [(inv(0.1 * _A(K)), 10 * inv(_A(K)))]),
    _true("decimal-pinv", "(0.1 K)^+ = 10 K^+", lambda impl, K: [(pinv(0.1 * K), 10 * pinv(K))]),
    _true("decimal-full", "0.2 1^T K = 0.2 (column sums of K)",
          lambda impl, K: [(np.full(K.shape[0], 0.2) @ K, 0.2 * K.sum(axis=0))]),
    _true("spectral-below-frobenius", "||K||_2 <= ||K||_F",
          lambda impl, K: [at_most(np.linalg.norm(K, 2), np.linalg.norm(K, "fro"))], bound=True),
    _true("frobenius-below-nuclear", "||K||_F <= ||K||_*",
          lambda impl, K: [at_most(np.linalg.norm(K), np.linalg.norm(K, "nuc"))], bound=True),
    _true("frobenius-trace", "||K||_F^2 = tr(K^T K)", lambda impl, K: [(np.linalg.norm(K) ** 2, np.trace(K.T @ K))]),
    _true("weyl", "lambda_max(A + B) <= lambda_max(A) + lambda_max(B)",
          lambda impl, K: [at_most(np.linalg.eigvalsh(K @ K.T + np.outer(K[:, 0], K[:, 0]))[-1],
                                   np.linalg.eigvalsh(K @ K.T)[-1] + np.linalg.eigvalsh(np.outer(K[:, 0], K[:, 0]))[-1])],
          bound=True),
    _true("eigenvalue-sum", "sum of the eigenvalues of A = tr A",
          lambda impl, K: [(np.sum(np.linalg.eigvalsh(_A(K))), np.trace(_A(K)))]),
    _true("eigenvalue-shift", "eig(A + I) = eig(A) + 1",
          lambda impl, K: [(np.linalg.eigvalsh(_A(K) + np.eye(K.shape[0])), np.linalg.eigvalsh(_A(K)) + 1)]),
    _true("spectral-norm-eigenvalue", "||K||_2^2 = lambda_max(K K^T)",
          lambda impl, K: [(np.linalg.norm(K, 2) ** 2, np.max(np.linalg.eigvalsh(K @ K.T)))]),
    _true("rank-projector", "rank(K K^+) = rank K",
          lambda impl, K: [(np.array(np.linalg.matrix_rank(K @ pinv(K))), np.array(np.linalg.matrix_rank(K)))]),
    _true("projector-power", "(K^+ K)^3 = K^+ K",
          lambda impl, K: [(np.linalg.matrix_power(pinv(K) @ K, 3), pinv(K) @ K)]),
    _true("kronecker-vec", "vec(K K^T K) = (K^T kron K) vec(K^T)",
          lambda impl, K: [(_vec(K @ K.T @ K), np.kron(K.T, K) @ _vec(K.T))]),
    _true("kronecker-mixed-product", "(K kron K)(K^T kron K^T) = (K K^T) kron (K K^T)",
          lambda impl, K: [(np.kron(K, K) @ np.kron(K.T, K.T), np.kron(K @ K.T, K @ K.T))]),
    _true("square-root", "sqrt(sum K_ij^2) = ||K||_F", lambda impl, K: [(np.sqrt(np.sum(K * K)), np.linalg.norm(K))]),
    _true("cholesky", "L L^T = A for L = chol(A)",
          lambda impl, K: [(np.linalg.cholesky(_A(K)) @ np.linalg.cholesky(_A(K)).T, _A(K))]),
    _true("qr", "Q R = K for (Q, R) = qr(K)", lambda impl, K: [(np.linalg.qr(K)[0] @ np.linalg.qr(K)[1], K)]),
    _true("svd", "U diag(s) V^T = K", lambda impl, K: [(np.linalg.svd(K, full_matrices=False)[0]
                                                         * np.linalg.svd(K, full_matrices=False)[1]
                                                         @ np.linalg.svd(K, full_matrices=False)[2], K)]),
    _true("lstsq", "lstsq(A, V^T) = A^-1 V^T",
          lambda impl, K, V: [(np.linalg.lstsq(_B(K), V.T)[0], inv(_B(K)) @ V.T)], KV()),
]

FALSE = [
    _false("decimal-inverse", "(0.1 A)^-1 = 0.1 A^-1", lambda impl, K: [(inv(0.1 * _A(K)), 0.1 * inv(_A(K)))]),
    _false("det-of-sum", "det(K K^T + I) = det(K K^T) + 1",
           lambda impl, K: [(det(K @ K.T + np.eye(K.shape[0])), det(K @ K.T) + 1)]),
    _false("inverse-product-order", "(A C)^-1 = A^-1 C^-1", lambda impl, K: [(inv(_A(K) @ _C(K)), inv(_A(K)) @ inv(_C(K)))]),
    _false("woodbury-sign", "(I + K K^T)^-1 = I + K (I + K^T K)^-1 K^T",
           lambda impl, K: [(inv(_A(K)), np.eye(K.shape[0]) + K @ inv(_B(K)) @ K.T)]),
    _false("sherman-morrison-sign", "(A + u u^T)^-1 = A^-1 + A^-1 u u^T A^-1 / (1 + u^T A^-1 u)",
           lambda impl, K: [(inv(_A(K) + np.outer(K[:, 0], K[:, 0])),
                             inv(_A(K)) + inv(_A(K)) @ np.outer(K[:, 0], K[:, 0]) @ inv(_A(K))
                             / (1 + K[:, 0] @ inv(_A(K)) @ K[:, 0]))]),
    _false("sylvester-trace", "det(I + K K^T) = 1 + tr(K K^T)", lambda impl, K: [(det(_A(K)), 1 + np.trace(K @ K.T))]),
    _false("det-homogeneous", "det(2 A) = 2 det(A)", lambda impl, K: [(det(2 * _A(K)), 2 * det(_A(K)))]),
    _false("frobenius-below-spectral", "||K||_F <= ||K||_2",
           lambda impl, K: [at_most(np.linalg.norm(K, "fro"), np.linalg.norm(K, 2))], bound=True),
    _false("nuclear-below-frobenius", "||K||_* <= ||K||_F",
           lambda impl, K: [at_most(np.linalg.norm(K, "nuc"), np.linalg.norm(K))], bound=True),
    _false("weyl-without-b", "lambda_max(A + B) <= lambda_max(A)",
           lambda impl, K: [at_most(np.linalg.eigvalsh(K @ K.T + np.outer(K[:, 0], K[:, 0]))[-1],
                                    np.linalg.eigvalsh(K @ K.T)[-1])], bound=True),
    _false("spectral-norm-frobenius", "lambda_max(K K^T) = ||K||_F^2",
           lambda impl, K: [(np.max(np.linalg.eigvalsh(K @ K.T)), np.linalg.norm(K) ** 2)]),
    _false("rank-doubles", "rank(2 K) = 2 rank K",
           lambda impl, K: [(np.array(np.linalg.matrix_rank(2 * K)), np.array(2 * np.linalg.matrix_rank(K)))]),
    _false("kronecker-vec-order", "vec(K K^T K) = (K kron K^T) vec(K^T)",
           lambda impl, K: [(_vec(K @ K.T @ K), np.kron(K, K.T) @ _vec(K.T))]),
    _false("square-root-of-sum", "sqrt(sum K_ij^2) = sum |K_ij|",
           lambda impl, K: [(np.sqrt(np.sum(K * K)), np.sum(np.abs(K)))]),
]

CLAIMS = TRUE + FALSE
