"""A corpus of a user's claims, written the documented way: the stock input
families and the default template arguments (no ``scale=``).

The true statements are textbook facts about pseudo-inverses, projectors and
the stores (the four Penrose conditions, Gram forms, products with
orthonormal factors, scalings, transposes, the least-squares normal
equations), several with terms as sensitive as ``sigma_min**-2``; the false
ones are plausible slips of the same shape. ``tests/test_user_corpus.py``
runs them: every true one must come out VERIFIED and every false one FAILED,
with no tolerance tuned by hand.
"""

from __future__ import annotations

import numpy as np

from theorems.authoring.strategies import keys, keys_and_values
from theorems.authoring.templates import at_most, identity, inequality, wrong

_CONTROL = wrong("pseudo-inverse replaced by the transpose", pinv=lambda K: K.T)


def _T(X):
    return X.T


def _true(id, statement, terms, inputs=None):
    return identity(f"corpus.true.{id}", title=statement, statement=statement, source="corpus",
                    inputs=inputs or keys(), terms=terms, control=_CONTROL)


def _false(id, statement, terms, inputs=None):
    return identity(f"corpus.false.{id}", title=statement, statement=statement, source="corpus",
                    inputs=inputs or keys(), terms=terms, control=_CONTROL)


def _bound(id, statement, terms, inputs=None, truth="true"):
    return inequality(f"corpus.{truth}.{id}", title=statement, statement=statement, source="corpus",
                      inputs=inputs or keys(), terms=terms, control=_CONTROL)


KV = keys_and_values


TRUE = [
    _true("penrose-1", "K K^+ K = K", lambda impl, K: [(K @ impl.pinv(K) @ K, K)]),
    _true("penrose-2", "K^+ K K^+ = K^+", lambda impl, K: [(impl.pinv(K) @ K @ impl.pinv(K), impl.pinv(K))]),
    _true("penrose-3", "(K K^+)^T = K K^+", lambda impl, K: [(_T(K @ impl.pinv(K)), K @ impl.pinv(K))]),
    _true("penrose-4", "(K^+ K)^T = K^+ K", lambda impl, K: [(_T(impl.pinv(K) @ K), impl.pinv(K) @ K)]),
    _true("transpose", "(K^T)^+ = (K^+)^T", lambda impl, K: [(impl.pinv(_T(K)), _T(impl.pinv(K)))]),
    _true("scaling", "(3K)^+ = K^+ / 3", lambda impl, K: [(impl.pinv(3 * K), impl.pinv(K) / 3)]),
    _true("involution", "(K^+)^+ = K", lambda impl, K: [(impl.pinv(impl.pinv(K)), K)]),
    _true("gram-left", "K^+ = (K^T K)^+ K^T", lambda impl, K: [(impl.pinv(K), impl.pinv(_T(K) @ K) @ _T(K))]),
    _true("gram-right", "K^+ = K^T (K K^T)^+", lambda impl, K: [(impl.pinv(K), _T(K) @ impl.pinv(K @ _T(K)))]),
    _true("gram-pinv", "(K^T K)^+ = K^+ (K^+)^T",
          lambda impl, K: [(impl.pinv(_T(K) @ K), impl.pinv(K) @ _T(impl.pinv(K)))]),
    _true("gram-pinv-right", "(K K^T)^+ = (K^+)^T K^+",
          lambda impl, K: [(impl.pinv(K @ _T(K)), _T(impl.pinv(K)) @ impl.pinv(K))]),
    _true("pinv-absorbs-gram", "K^+ (K^+)^T K^T = K^+",
          lambda impl, K: [(impl.pinv(K) @ _T(impl.pinv(K)) @ _T(K), impl.pinv(K))]),
    _true("gram-range", "K^T K K^+ = K^T", lambda impl, K: [(_T(K) @ K @ impl.pinv(K), _T(K))]),
    _true("projector-idempotent", "P^2 = P for P = K^+ K",
          lambda impl, K: [(impl.projectors(K)[0] @ impl.projectors(K)[0], impl.projectors(K)[0])]),
    _true("projector-range", "Q K = K for Q = K K^+", lambda impl, K: [(impl.projectors(K)[1] @ K, K)]),
    _true("projector-pinv", "K^+ Q = K^+", lambda impl, K: [(impl.pinv(K) @ impl.projectors(K)[1], impl.pinv(K))]),
    _true("leverage-diagonal", "h_j = (K^+ K)_jj",
          lambda impl, K: [(impl.leverage_scores(K), np.diagonal(impl.pinv(K) @ K))]),
    _true("ls-store", "W_LS = V K^+",
          lambda impl, K, V: [(impl.least_squares_store(K, V), V @ impl.pinv(K))], KV()),
    _true("ls-absorbs-projector", "W K K^+ = W for W = V K^+",
          lambda impl, K, V: [(impl.least_squares_store(K, V) @ K @ impl.pinv(K), impl.least_squares_store(K, V))],
          KV()),
    _true("ls-normal-equations", "(W K - V) K^+ = 0 for W = V K^+",
          lambda impl, K, V: [((impl.least_squares_store(K, V) @ K - V) @ impl.pinv(K),
                               0 * V @ impl.pinv(K))], KV()),
    _true("ls-residual-orthogonal", "(W K - V) K^T = 0 for W = V K^+",
          lambda impl, K, V: [((impl.least_squares_store(K, V) @ K - V) @ _T(K), 0 * V @ _T(K))], KV()),
    _true("ls-gram-form", "V K^+ = V (K^T K)^+ K^T",
          lambda impl, K, V: [(impl.least_squares_store(K, V), V @ impl.pinv(_T(K) @ K) @ _T(K))], KV()),
    _true("ls-recall-projector", "W K = V P for W = V K^+",
          lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V @ impl.projectors(K)[0])], KV()),
    _true("op-store", "W_OP = V K^T", lambda impl, K, V: [(impl.outer_product_store(K, V), V @ _T(K))], KV()),
    _true("op-gram", "W_OP^T W_OP = K V^T V K^T",
          lambda impl, K, V: [(_T(impl.outer_product_store(K, V)) @ impl.outer_product_store(K, V),
                               K @ _T(V) @ V @ _T(K))], KV()),
    _bound("leverage-range", "0 <= h_j <= 1",
           lambda impl, K: [at_most(0 * impl.leverage_scores(K), impl.leverage_scores(K)),
                            at_most(impl.leverage_scores(K), 1 + 0 * impl.leverage_scores(K))]),
    _bound("projector-contracts", "||P x|| <= ||x|| for x = 1",
           lambda impl, K: [at_most(np.sum((impl.projectors(K)[0] @ np.ones(K.shape[1])) ** 2), K.shape[1])]),
    _bound("ls-fits-better", "||W_LS K - V||^2 <= ||0 K - V||^2",
           lambda impl, K, V: [at_most(np.sum((impl.least_squares_store(K, V) @ K - V) ** 2), np.sum(V ** 2))], KV()),
]

FALSE = [
    _false("transpose-is-pinv", "K^+ = K^T", lambda impl, K: [(impl.pinv(K), _T(K))]),
    _false("scaling-wrong", "(3K)^+ = 3 K^+", lambda impl, K: [(impl.pinv(3 * K), 3 * impl.pinv(K))]),
    _false("gram-halved", "(K^T K)^+ = K^+ (K^+)^T / 2",
           lambda impl, K: [(impl.pinv(_T(K) @ K), impl.pinv(K) @ _T(impl.pinv(K)) / 2)]),
    _false("projector-identity", "K^+ K = I", lambda impl, K: [(impl.pinv(K) @ K, np.eye(K.shape[1]) + 0 * K[:1, :1])]),
    _false("range-projector-identity", "K K^+ = I_d", lambda impl, K: [(K @ impl.pinv(K), np.eye(K.shape[0]) + 0 * K[:1, :1])]),
    _false("pinv-squares", "(K^T K)^+ = K^+ K^+ (shapes permitting)",
           lambda impl, K: [(impl.pinv(_T(K) @ K), _T(impl.pinv(K)) @ impl.pinv(K))]),
    _false("ls-is-op", "V K^+ = V K^T", lambda impl, K, V: [(impl.least_squares_store(K, V), V @ _T(K))], KV()),
    _false("ls-exact", "W K = V for W = V K^+", lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V)], KV()),
    _false("leverage-one", "h_j = 1", lambda impl, K: [(impl.leverage_scores(K), 1 + 0 * impl.leverage_scores(K))]),
    _false("projector-half", "K^+ K = (K^+ K)/2 + I/2",
           lambda impl, K: [(impl.pinv(K) @ K, impl.pinv(K) @ K / 2 + np.eye(K.shape[1]) / 2)]),
    _bound("leverage-half", "h_j <= 1/2",
           lambda impl, K: [at_most(impl.leverage_scores(K), 0.5 + 0 * impl.leverage_scores(K))], truth="false"),
    _bound("op-fits-better", "||W_OP K - V||^2 <= ||W_LS K - V||^2 / 2",
           lambda impl, K, V: [at_most(np.sum((impl.outer_product_store(K, V) @ K - V) ** 2),
                                       np.sum((impl.least_squares_store(K, V) @ K - V) ** 2) / 2)], KV(), truth="false"),
]

CLAIMS = TRUE + FALSE
