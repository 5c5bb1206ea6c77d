"""linmem: linear key-value memories and their diagnostics.

Keys are the columns of ``K`` (d x M), values the columns of ``V`` (p x M);
a memory is a matrix ``W`` (p x d) answering ``W q``. The two constructions
of 000 (outer-product and least-squares stores), the projectors and leverage
scores that govern their recall, and the capacity, retrieval and learning
results of 004 live in one module each; this package re-exports the public
names.

>>> import numpy as np, linmem
>>> K = np.array([[1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
>>> linmem.leverage_scores(K).round(4).tolist()
[0.3333, 0.3333, 0.3333, 1.0]
>>> float(linmem.snr(0.5))
1.0
"""

from linmem import (
    capacity,
    embeddings,
    ensembles,
    estimates,
    learn,
    precise,
    recall,
    retrieval,
    spectral,
    stores,
    tolerances,
)
from linmem.assess import Assessment, assess
from linmem.embeddings import (
    condition_embeddings,
    critical_pairs,
    critical_size_draws,
    draw_pairs,
    embedding_geometry,
    gaussian_pairs,
    random_subspace,
    retrieval_failures,
    spread_side,
)
from linmem.capacity import (
    CMM_TOP1_CONSTANT,
    OPTIMAL_TOP1_CONSTANT,
    alpha_c,
    alpha_c_mp,
    cover_probability,
    critical_d,
    critical_n,
    kappa,
    kappa_mp,
    load_ratio,
)
from linmem.ensembles import (
    consistent_values,
    controlled_spectrum,
    duplicated_keys,
    gaussian_vectors,
    random_sign_values,
    random_sign_vectors,
    rational_orthogonal,
    rational_unit_vectors,
    spherical_vectors,
)
from linmem.estimates import (
    op_spherical_error,
    op_spherical_snr,
    snr_capacity,
    uniform_leverage_snr,
)
from linmem.learn import (
    cross_entropy_memory,
    gordan_certificate,
    max_margin_memory,
    sparse_repair_memory,
    tam_erm,
    tam_feasible,
)
from linmem.precise import exact_array, mp_array, to_float
from linmem.recall import (
    consistency_residual,
    crosstalk_power,
    expected_error,
    fixed_store_noise_error,
    is_consistent,
    leverage_scores,
    mean_expected_error,
    op_conditional_error,
    op_recall_decomposition,
    query_noise_error,
    recall_decomposition,
    snr,
    snr_jensen_gap,
)
from linmem.retrieval import (
    all_retrieved,
    cmm,
    margins,
    percentile_rank,
    scores,
    smoothed_topk_average,
    tam_margins,
    top1_correct,
    topk_average,
)
from linmem.spectral import (
    CompactSVD,
    compact_svd,
    condition_number,
    effective_pairs,
    numerical_rank,
    pinv,
    pinv_energy,
    projectors,
    svd_key_value_view,
)
from linmem.stores import (
    LinearMemory,
    least_squares_store,
    outer_product_store,
    ridge_store,
    single_pair_store,
)

__version__ = "0.1.0"

__all__ = [
    "Assessment",
    "CMM_TOP1_CONSTANT",
    "CompactSVD",
    "LinearMemory",
    "OPTIMAL_TOP1_CONSTANT",
    "all_retrieved",
    "alpha_c",
    "alpha_c_mp",
    "assess",
    "capacity",
    "cmm",
    "compact_svd",
    "condition_embeddings",
    "condition_number",
    "consistency_residual",
    "consistent_values",
    "controlled_spectrum",
    "cover_probability",
    "critical_d",
    "critical_n",
    "critical_pairs",
    "critical_size_draws",
    "cross_entropy_memory",
    "crosstalk_power",
    "draw_pairs",
    "duplicated_keys",
    "effective_pairs",
    "embedding_geometry",
    "embeddings",
    "ensembles",
    "estimates",
    "exact_array",
    "expected_error",
    "fixed_store_noise_error",
    "gaussian_pairs",
    "gaussian_vectors",
    "gordan_certificate",
    "is_consistent",
    "kappa",
    "kappa_mp",
    "learn",
    "least_squares_store",
    "leverage_scores",
    "load_ratio",
    "margins",
    "max_margin_memory",
    "mean_expected_error",
    "mp_array",
    "numerical_rank",
    "op_conditional_error",
    "op_recall_decomposition",
    "op_spherical_error",
    "op_spherical_snr",
    "outer_product_store",
    "percentile_rank",
    "pinv",
    "pinv_energy",
    "precise",
    "projectors",
    "query_noise_error",
    "random_sign_values",
    "random_sign_vectors",
    "random_subspace",
    "rational_orthogonal",
    "rational_unit_vectors",
    "recall",
    "recall_decomposition",
    "retrieval",
    "retrieval_failures",
    "ridge_store",
    "scores",
    "single_pair_store",
    "smoothed_topk_average",
    "snr",
    "snr_capacity",
    "snr_jensen_gap",
    "sparse_repair_memory",
    "spectral",
    "spherical_vectors",
    "spread_side",
    "stores",
    "svd_key_value_view",
    "tam_erm",
    "tam_feasible",
    "tam_margins",
    "to_float",
    "tolerances",
    "top1_correct",
    "topk_average",
    "uniform_leverage_snr",
]
