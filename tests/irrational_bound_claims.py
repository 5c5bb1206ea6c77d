"""A user's bound whose terms are irrational on every input (the spectral
norm), so the exact check cannot apply and the precision ladder and the
float64 search alone judge it; declared ``falls=False`` without ``scale=``,
the ladder judges its violation at the top rung (the measured mode).
``tests/test_control_teeth.py`` plants bugs in those two paths."""

from __future__ import annotations

import numpy as np

from theorems.authoring.strategies import keys
from theorems.authoring.templates import at_most, gram_projectors, inequality, wrong

CLAIMS = [
    inequality("teeth.projector-norm", title="A projector's spectral norm is at most 1",
               statement=r"\|K^{+}K\|_2 \le 1", source="tests (a user's bound with irrational terms)",
               inputs=keys(), terms=lambda impl, K: [at_most(np.linalg.norm(impl.projectors(K)[0], 2), 1)],
               falls=False, control=wrong("P = K^T K (no pseudo-inverse)", projectors=gram_projectors)),
]
