"""Every up-front memory guard in linmem counts the bytes it documents.

linmem refuses an allocation larger than ``linmem._validation.MAX_ARRAY_BYTES``
before making it, naming the size it would need. For each guard this table
gives a small valid call and the size the guard must charge for it (its
documented array: ``p x d`` float64 for a store, ``n x n`` for a score matrix,
and so on). With the limit set to exactly that size the call goes through; one
byte less and it is refused with a message naming the array. A guard that
charges too little or too much (a product turned into a quotient, a wrong
item size) fails one side.
"""

from __future__ import annotations

import numpy as np
import pytest

import linmem
import linmem._validation as validation
from linmem import capacity, ensembles, learn, recall, retrieval, sweeps

F8 = 8  # bytes of a float64

_rng = np.random.default_rng(7)
K34 = _rng.standard_normal((3, 4))  # d = 3, M = 4
V24 = _rng.standard_normal((2, 4))  # p = 2
KEYS = _rng.standard_normal((3, 5))  # d_v = 3, n = 5
TARGETS = _rng.standard_normal((2, 5))  # d_u = 2
W23 = _rng.standard_normal((2, 3))
MEM = linmem.LinearMemory.fit(K34, V24)
UNIT34 = K34 / np.linalg.norm(K34, axis=0)  # the outer-product diagnostics assume unit keys
KEYS63 = _rng.standard_normal((6, 3))  # d = 6 > n = 3: the repaired W is the largest array


def _rng_kw():
    return {"rng": np.random.default_rng(0)}


# (id, call, bytes the guard must charge, fragment of its message)
GUARDS = [
    ("projectors", lambda: linmem.projectors(K34), (4 * 4 + 3 * 3) * F8, "projectors P"),
    ("least-squares-store", lambda: linmem.least_squares_store(K34, V24), 2 * 3 * F8, "the store W"),
    ("outer-product-store", lambda: linmem.outer_product_store(K34, V24), 2 * 3 * F8, "the store W"),
    ("single-pair-store", lambda: linmem.single_pair_store(np.ones(3), np.ones(2)), 2 * 3 * F8, "the store A"),
    ("recall-one-query", lambda: MEM.recall(np.ones(3)), 2 * 1 * F8,
     "recalled values"),
    ("recall-batch", lambda: MEM.recall(np.ones((3, 5))), 2 * 5 * F8,
     "recalled values"),
    ("gram-op-recall", lambda: recall.op_recall_decomposition(UNIT34, V24), 4 * 4 * F8, "Gram matrix"),
    ("gram-op-conditional", lambda: recall.op_conditional_error(UNIT34), 4 * 4 * F8, "Gram matrix"),
    ("cmm", lambda: retrieval.cmm(KEYS, TARGETS), 2 * 3 * F8, "W_CMM"),
    ("scores", lambda: retrieval.scores(W23, KEYS, TARGETS), 5 * 5 * F8, "full 5 x 5 score matrix"),
    ("score-blocks", lambda: retrieval.top1_correct(W23, KEYS, TARGETS, chunk=2), 2 * 5 * F8, "score block"),
    ("comparison-matrices", lambda: learn.comparison_matrices(KEYS, TARGETS), 5 * 5 * 2 * 3 * F8,
     "comparison matrices"),
    ("max-margin-rows", lambda: learn.max_margin_memory(KEYS, TARGETS), 20 * (2 * 3 + 2) * F8,
     "comparison matrices A_ij"),
    ("tam-lp-rows", lambda: learn.tam_feasible(KEYS, TARGETS, k=2), 20 * (2 * 3 + 2) * F8, "score rows"),
    ("tam-erm", lambda: learn.tam_erm(KEYS, TARGETS, k=2, beta=4.0, maxiter=5), 5 * 5 * F8,
     "score matrix of the ERM"),
    ("cross-entropy", lambda: learn.cross_entropy_memory(KEYS, TARGETS, maxiter=5), 5 * 5 * F8,
     "score matrix of the cross-entropy"),
    ("sparse-repair", lambda: learn.sparse_repair_memory(KEYS63, KEYS63, gamma=1.0, rng=np.random.default_rng(0)),
     6 * 6 * F8, "repaired memory"),
    ("gaussian-vectors", lambda: ensembles.gaussian_vectors(3, 4, **_rng_kw()), 3 * 4 * F8, "3 x 4 float64"),
    ("spherical-vectors", lambda: ensembles.spherical_vectors(3, 4, **_rng_kw()), 3 * 4 * F8, "3 x 4 float64"),
    ("consistent-values", lambda: ensembles.consistent_values(np.ones((2, 3)), K34), 2 * 4 * F8, "the values A K"),
    ("rational-orthogonal", lambda: ensembles.rational_orthogonal(4, **_rng_kw()), 4 * 4 * F8,
     "orthogonal matrix"),
    ("rational-controlled-spectrum",
     lambda: ensembles.rational_controlled_spectrum(3, 4, cond=4, **_rng_kw()), (3 * 3 + 4 * 4) * F8,
     "orthogonal"),
    ("gaussian-pairs", lambda: sweeps.gaussian_pairs(3, 5, **_rng_kw()), 2 * 5 * 3 * F8, "Gaussian pairs"),
    ("mp-digits", lambda: capacity.alpha_c_mp(0.1, dps=1000), -(-1000 * 415 // 1000), "mpmath number"),
    # log2(10) / 8 = 0.415 bytes a digit, rounded up (the private check, not a 10^4-digit alpha_c)
    ("mp-digits-exact", lambda: capacity._dps(10_000), 4150, "mpmath number"),
    ("cover-count", lambda: capacity.cover_count(100, 3), min(100, 3 * 7) // 8 + 1, "Cover's count"),
    ("cover-probability", lambda: capacity.cover_probability(100, 3), 100 // 8 + 1, "2**n"),
]


@pytest.mark.parametrize("call,need,fragment", [g[1:] for g in GUARDS], ids=[g[0] for g in GUARDS])
def test_guard_charges_exactly_its_documented_size(call, need, fragment, monkeypatch):
    monkeypatch.setattr(validation, "MAX_ARRAY_BYTES", need)
    call()  # the limit is exactly the need: allowed
    monkeypatch.setattr(validation, "MAX_ARRAY_BYTES", need - 1)
    with pytest.raises(ValueError, match="would need") as info:
        call()
    assert fragment in str(info.value)
