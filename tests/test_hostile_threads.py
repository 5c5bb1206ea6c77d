"""Runs that do not share state (issue 37, item 4): two ``theorems.verify``
calls in threads give the verdicts and figures each gives alone (mpmath's
working precision is process-wide, so runs in one process are serialized)."""

from __future__ import annotations

import threading

import theorems

#: Two quick identities whose ladders set mpmath's working precision.
CLAIMS = ("op.single-pair-min-norm", "svd.key-returns-value")
ROUNDS = 10


def _outcome(run) -> list:
    return [(c["id"], c["status"], [(e["check"], e["status"], e["figure"], e["threshold"], e["cases"],
                                      e["counterexample"]) for e in c["evidence"]]) for c in run.claims]


def test_two_runs_in_threads_give_what_each_gives_alone_ten_times_over():
    alone = {cid: _outcome(theorems.verify(only=cid)) for cid in CLAIMS}
    assert all(claim[1] == "VERIFIED" for out in alone.values() for claim in out)
    for _ in range(ROUNDS):
        got: dict[str, list] = {}
        errors: list[BaseException] = []

        def run(cid):
            try:
                got[cid] = _outcome(theorems.verify(only=cid))
            except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(cid,)) for cid in CLAIMS]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and got == alone
