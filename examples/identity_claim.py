"""A user's identity claim: the least-squares residual is orthogonal to the recall."""
from theorems.authoring import kit
from theorems.authoring.strategies import keys_and_values
from theorems.authoring.templates import identity, wrong

CLAIMS = [identity(
    "user.residual-orthogonal",
    title="The least-squares residual is orthogonal to the recall",
    statement=r"(W_{LS}K - V)(W_{LS}K)^{\top} = 0", source="user derivation",
    inputs=keys_and_values(), scale=lambda K, V: kit.scale(K, V, V),
    terms=lambda impl, K, V: [((impl.least_squares_store(K, V) @ K - V) @ (impl.least_squares_store(K, V) @ K).T,
                               0 * V @ V.T)],
    control=wrong("outer-product store V K^T in place of V K^+", least_squares_store=lambda K, V: V @ K.T),
)]
