"""Per-check negative controls: every check of a claim has teeth of its own.

Under ``--controls`` each of a claim's controls (:attr:`Claim.controls`) runs
the checks it is aimed at on its wrong variant, and each check is judged
alone:

* ``caught``: the check failed (FAILED, or NOT SUPPORTED for a sweep); for a
  question, also when its answer moved from the right variant's;
* ``not applicable``, with its reason: an exact check whose terms are
  irrational on every case it drew (``not exact: eigvalsh``: the ladder and
  float64 decide there), or a check the control declares it cannot reach
  (``NegativeControl.not_applicable``);
* ``missed``: anything else (passed, inconclusive, an error): the check is
  blind to this wrong variant.

A control is caught only when every applicable check it runs catches it
(and at least one does); the claim's control is caught only when each of its
controls is. Checks backing each other up can no longer hide a blind one.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from theorems.core.model import Claim, Evidence, EvidenceStatus, NegativeControl, Status

__all__ = [
    "CAUGHT",
    "MISSED",
    "NOT_AIMED",
    "NOT_APPLICABLE",
    "RESULTS",
    "judge_check",
    "missed_text",
    "judge_control",
    "summarise",
]

CAUGHT = "caught"
MISSED = "missed"
NOT_APPLICABLE = "not applicable"
#: A check outside a control's ``aimed_at`` (another control is aimed at it).
NOT_AIMED = "not aimed"
#: The results of a check under one control, in the order a report lists them.
RESULTS = (CAUGHT, MISSED, NOT_APPLICABLE, NOT_AIMED)

#: How much of a missed check's detail its reason keeps, characters.
_DETAIL_CHARS = 200


def _not_exact_everywhere(ev: Evidence) -> list[str] | None:
    """The functions that made an exact check's terms irrational on every
    case it drew (so it judged none), or None where it judged some."""
    info = ev.data.get("not_exact") if isinstance(ev.data, dict) else None
    if not isinstance(info, dict) or not info.get("of") or info.get("cases") != info.get("of"):
        return None
    return [str(f) for f in info.get("functions", ())]


def judge_check(ev: Evidence, *, right_answers: dict | None = None) -> tuple[str, str]:
    """``(result, reason)`` of one check's evidence under a wrong variant.

    >>> from theorems.core.model import EvidenceKind
    >>> judge_check(Evidence("float", EvidenceKind.PROPERTY, EvidenceStatus.FAILED))
    ('caught', 'failed')
    >>> judge_check(Evidence("exact", EvidenceKind.SYMBOLIC, EvidenceStatus.PASSED,
    ...                      data={"not_exact": {"functions": ["eigvalsh"], "cases": 5, "of": 5}}))
    ('not applicable', 'not exact: eigvalsh')
    >>> judge_check(Evidence("ladder", EvidenceKind.PRECISE, EvidenceStatus.PASSED, detail="residual falls"))
    ('missed', 'passed: residual falls')
    """
    if ev.status in (EvidenceStatus.FAILED, EvidenceStatus.NOT_SUPPORTED):
        return CAUGHT, ev.status.value
    answers = ev.data.get("answers") if isinstance(ev.data, dict) else None
    if right_answers and ev.check in right_answers and answers != right_answers[ev.check]:
        return CAUGHT, "the answer moved"
    if ev.status is EvidenceStatus.PASSED:
        functions = _not_exact_everywhere(ev)
        if functions is not None:
            return NOT_APPLICABLE, "not exact: " + ", ".join(functions)
    detail = " ".join(str(ev.detail).split())
    if len(detail) > _DETAIL_CHARS:
        detail = detail[:_DETAIL_CHARS - 1] + "…"
    return MISSED, f"{ev.status.value}: {detail}" if detail else ev.status.value


def judge_control(claim: Claim, control: NegativeControl, evidence: Sequence[Evidence], status: Status, *,
                  right_answers: dict | None = None, reads: Mapping[str, frozenset] | None = None) -> dict:
    """One control's record: each check of ``claim`` caught / missed / not
    applicable (with the reason) / not aimed, from ``evidence`` (the checks
    the control ran, on its wrong variant) and the claim's ``status`` there.
    ``reads``: the replaced formulas each check looked up
    (:meth:`theorems.core.impl.Impl.take_reads`); a check that did not catch
    the control and looked up none cannot see it: not applicable, saying so
    (unless it crashed: an error is missed).
    ``caught``: no applicable check missed and at least one caught."""
    by_name = {e.check: e for e in evidence}
    checks: dict[str, dict[str, Any]] = {}
    for check in claim.checks:
        name = check.name
        ev = by_name.get(name)
        if name in control.not_applicable:
            checks[name] = {"result": NOT_APPLICABLE, "status": None, "reason": control.not_applicable[name]}
        elif ev is None:
            aimed = ", ".join(control.aimed_at)
            checks[name] = {"result": NOT_AIMED, "status": None, "reason": f"this control is aimed at {aimed}"}
        else:
            result, reason = judge_check(ev, right_answers=right_answers)
            # a crash is never "not applicable": it gave no verdict on the wrong variant
            if result == MISSED and ev.status is not EvidenceStatus.ERROR and reads is not None and name in reads \
                    and not set(reads[name]) & set(control.overrides):
                read = sorted(reads[name])
                result, reason = NOT_APPLICABLE, (
                    "reads none of the formulas this control replaces (" + ", ".join(sorted(control.overrides))
                    + "; it reads " + (", ".join(read) if read else "no formula of linmem") + ")")
            checks[name] = {"result": result, "status": ev.status.value, "reason": reason}
    results = [c["result"] for c in checks.values()]
    out = {"description": control.description, "aimed_at": list(control.aimed_at), "status": status.value,
           "caught": MISSED not in results and CAUGHT in results, "checks": checks}
    if right_answers is not None:
        out["answer_moved"] = any(c["reason"] == "the answer moved" for c in checks.values())
    return out


def summarise(claim: Claim, judged: Sequence[dict]) -> dict:
    """The claim's control record (report.json's ``negative_control``): the
    first control's description, status and per-check statuses (as before
    schema 1.4), ``caught`` when every control is, ``controls`` (each
    control's record) and ``per_check``: each check's result over all
    controls (missed when any control it ran under missed it; else caught
    when one caught it; else not applicable, with the reasons), and
    ``counts`` of those results."""
    first = judged[0]
    per_check: dict[str, dict[str, Any]] = {}
    for check in claim.checks:
        name = check.name
        rows = [(k, j["checks"][name]) for k, j in enumerate(judged) if j["checks"][name]["result"] != NOT_AIMED]
        for result in (MISSED, CAUGHT, NOT_APPLICABLE):
            hit = [(k, row) for k, row in rows if row["result"] == result]
            if hit:
                break
        reasons = list(dict.fromkeys(row["reason"] for _, row in hit))
        per_check[name] = {"result": result, "reason": "; ".join(reasons), "controls": [k for k, _ in hit]}
    counts = {r: sum(1 for p in per_check.values() if p["result"] == r) for r in (CAUGHT, MISSED, NOT_APPLICABLE)}
    out = {
        "description": first["description"],
        "status": first["status"],
        "caught": all(j["caught"] for j in judged),
        "checks": {name: row["status"] for name, row in first["checks"].items() if row["status"] is not None},
        "per_check": per_check,
        "counts": counts,
        "controls": list(judged),
    }
    if "answer_moved" in first:
        out["answer_moved"] = any(j.get("answer_moved") for j in judged)
    return out


def missed_text(record: dict) -> str:
    """Why a claim's control record (:func:`summarise`) is not caught, in
    words: each missed check with its control and reason; the claim's status
    on the wrong variant where the record has no per-check results (a
    record of before schema 1.4, or a worker that died).

    >>> missed_text({"status": "VERIFIED", "per_check": {"ladder": {"result": "missed", "reason": "passed",
    ...     "controls": [0]}}, "controls": [{"description": "d"}]})
    "check 'ladder' missed it (passed)"

    A control that no check missed and that still was not caught reached no
    check (a caught one is not named):

    >>> missed_text({"status": "VERIFIED", "per_check": {}, "controls": [
    ...     {"description": "a", "caught": True, "checks": {}},
    ...     {"description": "b", "caught": False, "checks": {"float": {"result": "not applicable"}}}]})
    'control 2 (b) reached no check'
    """
    per_check = record.get("per_check") or {}
    controls = record.get("controls") or []
    parts = []
    for name, row in per_check.items():
        if row.get("result") != MISSED:
            continue
        which = [k for k in row.get("controls", ()) if isinstance(k, int)]
        named = (" under control " + ", ".join(f"{k + 1} ({controls[k].get('description')})" for k in which)
                 if len(controls) > 1 and which and all(k < len(controls) for k in which) else "")
        parts.append(f"check {name!r} missed it{named} ({row.get('reason')})")
    if parts:
        return "; ".join(parts)
    if record.get("detail"):
        return str(record["detail"])
    dead = [f"control {k + 1} ({c.get('description')}) reached no check" for k, c in enumerate(controls)
            if not c.get("caught") and not any(r.get("result") == MISSED for r in (c.get("checks") or {}).values())]
    return "; ".join(dead) or f"the claim still comes out {record.get('status')} on the wrong variant"
