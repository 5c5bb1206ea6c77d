"""templates.exact_check: one more exact check of an identity's terms over a
second family of exact inputs passes on a true identity, fails (and reports
the shrunk case by its argument names) on a false one."""

from __future__ import annotations

import numpy as np

from theorems.authoring import kit
from theorems.core.profiles import PROFILES
from theorems.core.runner import run_claim
from theorems.authoring.strategies import exact_keys_and_values, keys
from theorems.authoring.templates import exact_check, identity, wrong

QUICK = PROFILES["quick"]


def _claim(extra):
    return identity("t.exact-check", title="P is symmetric", statement="P^T = P", source="test", inputs=keys(),
                    terms=lambda impl, K: [(impl.projectors(K)[0], impl.projectors(K)[0].T)],
                    extra_checks=(extra,), control=wrong("P replaced by the upper triangle of K^T K",
                                   projectors=lambda K: (np.triu(K.T @ K), K)))


def test_exact_check_passes_on_a_true_identity_and_its_control_is_caught():
    extra = exact_check("exact-pairs", exact=exact_keys_and_values(), names=("K", "V"), about="integer pairs",
                        terms=lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V @ impl.projectors(K)[0])])
    assert extra.description == "exact rationals, residual == 0: integer pairs"
    result = run_claim(_claim(extra), profile=QUICK, seed=3, controls=True)
    ev = {e.check: e for e in result.evidence}["exact-pairs"]
    assert ev.status.value == "passed" and ev.figure == 0 and ev.cases > 0
    assert result.negative_control["caught"] is True


def test_exact_check_fails_a_false_identity_with_the_named_shrunk_case():
    extra = exact_check("exact-false", exact=exact_keys_and_values(), names=("K", "V"), about="integer pairs",
                        terms=lambda impl, K, V: [(impl.least_squares_store(K, V) @ K, V)])  # only for r_K = M
    ev = {e.check: e for e in run_claim(_claim(extra), profile=QUICK, seed=1).evidence}["exact-false"]
    assert ev.status.value == "failed"
    case = ev.counterexample["input"]
    assert set(case) == {"K", "V"} and kit.rank(case["K"]) < case["K"].shape[1]  # dependent keys, shrunk
    assert ev.counterexample["residual"] != "0"
