"""A user's claims judged right without tuning: the corpus of
``tests/user_corpus_claims.py`` (true and false statements about
pseudo-inverses, projectors and stores, written with the stock input
families and no ``scale=``) comes out VERIFIED for every true statement and
FAILED for every false one."""

from __future__ import annotations

from pathlib import Path

import pytest

import theorems

CORPUS = Path(__file__).with_name("user_corpus_claims.py")


@pytest.fixture(scope="module")
def corpus_run():
    return theorems.verify(claims=str(CORPUS), only="corpus.*")


def _statuses(run):
    return {c["id"]: c["status"] for c in run.claims}


def test_the_corpus_is_large_enough():
    import importlib.util

    spec = importlib.util.spec_from_file_location("user_corpus_claims", CORPUS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.TRUE) >= 25 and len(module.FALSE) >= 10


def test_every_true_statement_is_verified(corpus_run):
    wrong = {k: v for k, v in _statuses(corpus_run).items() if k.startswith("corpus.true.") and v != "VERIFIED"}
    assert not wrong, wrong


def test_every_false_statement_fails_on_a_genuine_counterexample(corpus_run):
    statuses = _statuses(corpus_run)
    wrong = {k: v for k, v in statuses.items() if k.startswith("corpus.false.") and v != "FAILED"}
    assert not wrong, wrong
    for claim in corpus_run.claims:
        if claim["id"].startswith("corpus.false."):
            failed = [e for e in claim["evidence"] if e["status"] == "failed"]
            assert failed and all(e["counterexample"] is not None for e in failed), claim["id"]
