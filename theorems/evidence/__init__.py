"""One reusable checker per evidence kind; each returns an :class:`~theorems.core.model.Evidence`.

======================  ==========================================================
module                  evidence
======================  ==========================================================
``symbolic``            sympy scalar algebra simplified to zero; exact rational
                        matrices (Hypothesis-generated) with zero residual
``precise``             mpmath precision ladder: scaled residual within bound and
                        falling as the precision grows
``property``            Hypothesis over float64 inputs: scaled residual ratio
                        under the shared threshold, search steered by ``target``
``expectation``         exact expectation by enumerating a finite distribution
``montecarlo``          sample mean against the claimed value, stated false-failure rate
``simulation``          finite-size sweep against a criterion fixed in the code
``counterexample``      a witness built or found, verified in exact arithmetic
======================  ==========================================================
"""

from theorems.evidence import (
    counterexample,
    expectation,
    montecarlo,
    precise,
    property,
    simulation,
    symbolic,
)

__all__ = [
    "counterexample",
    "expectation",
    "montecarlo",
    "precise",
    "property",
    "simulation",
    "symbolic",
]
