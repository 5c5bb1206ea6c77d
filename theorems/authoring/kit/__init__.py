"""The kit: the building blocks every claim (ours or a user's) shares.

Number systems. linmem runs one formula in float64, in mpmath and in exact
rationals (``Fraction`` object arrays), so a claim's terms are written once;
the helpers here move inputs between those systems and give reference
computations that are *not* under test:

* :func:`exact` (integers, floats or rationals to ``Fraction`` arrays),
  :func:`to_mp` (exact inputs rounded at the working mpmath precision, tuples
  and dicts converted entry by entry), :func:`is_exact`, :func:`eye`;
* :func:`rank`, the reference rank in the number system of its argument;
* :func:`scale`, the one tolerance scale ``max(shape K) * cond(K) *
  prod(1 + ||X||)`` of the tolerance model, so nobody invents a scale.

Randomness. :func:`seed` and :func:`generator` derive every stream from a
parent seed and labels through :class:`numpy.random.SeedSequence` (the same
scheme as :meth:`theorems.core.model.Context.rng`): no arithmetic offsets.
The base seed of a sweep that several checks of a run share (one cache
entry serves them all) is ``seed(run_seed, label)``, without the claim id.

Distributions. :func:`spherical_batch` draws batches of unit columns;
:func:`store` evaluates a store that is linear in the values on a batch of
value matrices at the cost of one call (``W(V) = V W(I)``), which is what
makes Monte Carlo over values cheap; :func:`sign_values` builds the exact
random-value design ``v_i = s_i w_i`` (fair signs times fixed exactly-unit
rational ``w_i``) and :func:`sign_expectation` averages over it exactly.

The kit is a package by concern (:mod:`.numbers`, :mod:`.randomness`, :mod:`.laws`, :mod:`.references`, :mod:`.checks`); every name is
imported here, so ``kit.exact`` and ``from theorems.authoring.kit import exact`` keep working.
"""

from __future__ import annotations

from theorems.authoring.kit.numbers import (
    exact,
    eye,
    from_sympy,
    integer_array,
    is_exact,
    norm,
    null_space,
    rank,
    rational_spectrum,
    scale,
    sq,
    stereographic,
    to_mp,
    to_sympy,
    unit_columns,
)
from theorems.numbers import expm, logm, sqrtm
from theorems.authoring.kit.randomness import (
    generator,
    seed,
    spherical_batch,
    store,
)
from theorems.authoring.kit.laws import (
    Law,
    law,
    sign_expectation,
    sign_law,
    sign_values,
)
from theorems.authoring.kit.references import (
    comparisons,
    gaussian_moment,
    gordan_residual,
    leverage,
    pinv_energy,
    sphere_tail,
)
from theorems.authoring.kit.checks import (
    cached,
    levels,
    per_profile,
    plot,
    series,
    sweep_cache,
)

__all__ = [
    "Law",
    "cached",
    "comparisons",
    "exact",
    "expm",
    "eye",
    "from_sympy",
    "gaussian_moment",
    "generator",
    "gordan_residual",
    "integer_array",
    "is_exact",
    "logm",
    "law",
    "levels",
    "per_profile",
    "leverage",
    "norm",
    "null_space",
    "pinv_energy",
    "plot",
    "rank",
    "rational_spectrum",
    "scale",
    "seed",
    "series",
    "sign_expectation",
    "sign_law",
    "sign_values",
    "sphere_tail",
    "spherical_batch",
    "sq",
    "sqrtm",
    "stereographic",
    "store",
    "sweep_cache",
    "to_mp",
    "to_sympy",
    "unit_columns",
]
