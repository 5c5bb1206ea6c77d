"""A user's expectation claim: the outer-product recall error for fixed keys and random values."""
import numpy as np

from theorems.authoring import kit
from theorems.authoring.templates import expectation, wrong


def error(impl, K, V):  # per key; V is one value matrix or a batch of them
    R = kit.store(impl.outer_product_store, K, V) @ K - V
    return np.sum(R * R, axis=-2)


def claimed(impl, K):
    G = K.T @ K
    return np.sum(G * G, axis=0) - 2 * np.diagonal(G) + 1


CLAIMS = [expectation(
    "user.op-error-fixed-keys", title="Outer-product recall error for fixed keys",
    statement=r"\mathbb{E}_V\|W_{OP}k_j - v_j\|^2 = \sum_i (k_i^{\top}k_j)^2 - 2\|k_j\|^2 + 1",
    source="user derivation", quantity=error, claimed=claimed,
    control=wrong("outer-product store doubled", outer_product_store=lambda K, V: 2 * (V @ K.T)),
)]
