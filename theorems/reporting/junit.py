"""JUnit XML from a JSON report, for CI dashboards.

One ``<testcase>`` per claim check, ``classname`` the claim id and ``name``
the check name, ``time`` its seconds, ``status`` its evidence status
(``passed``, ``supported``, ``answered``, ...: a SUPPORTED sweep is told
apart from a VERIFIED identity). Every case carries what the check measured
in ``<system-out>``, one ``key: value`` line each (``figure``,
``threshold``, ``status``, ``cases``): the place every strict consumer
accepts text in a passing case (the Ant/Jenkins ``junit-10.xsd`` has no
per-case ``<properties>``).

A check whose claim status is in the report's fail-on set (``fail_on``,
default FAILED, ERROR, BLOCKED, NOT SUPPORTED) gets a ``<failure>`` (a
crash an ``<error>``), with a one-line ``message`` giving the measured
figure, the threshold and the minimal case (:func:`result_message`), a
``type`` (the evidence status) and a body holding the detail, the minimal
counterexample and the replay command. A check that is not a pass but not
in the fail-on set either (INCONCLUSIVE by default) is ``<skipped>`` with
the same message. Three more cases keep the file in step with the run's
exit status and the catalogue:

- an UNDERSPECIFIED claim (no checks) is a ``<skipped>`` case named
  ``underspecified`` with the reason: listed, never silently dropped;
- a BLOCKED claim gets a case named ``dependencies`` naming the claims it
  waits on (failing when BLOCKED is in the fail-on set);
- a negative control that was run is a case named ``negative-control``,
  failing when the control was not caught.

The layout follows the conventions most consumers read (Jenkins, GitLab,
the Ant/Maven ``junit-10.xsd``): a ``<testsuites>`` root with totals
(``tests``, ``failures``, ``errors``, ``time``), one
``<testsuite>`` per run with ``name``, ``tests``, ``failures``, ``errors``,
``skipped``, ``time``, ``timestamp`` and ``<properties>``; attributes and
text are escaped, and characters XML cannot hold are replaced.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from typing import Any

from theorems.core.controls import missed_text

__all__ = ["MAX_BODY_CHARS", "MAX_MESSAGE_CHARS", "fail_on", "figure_name", "junit_cases", "render_junit",
           "result_message"]

#: Longest failure body (detail + counterexample + replay), characters.
MAX_BODY_CHARS = 8000

#: Longest one-line message, characters.
MAX_MESSAGE_CHARS = 400

#: Longest rendering of the minimal case inside a message, characters.
MAX_CASE_CHARS = 160

#: Characters XML 1.0 cannot hold.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

#: The claim status an evidence status would give its claim (for the fail-on set).
_CLAIM_STATUS = {"failed": "FAILED", "error": "ERROR", "not_supported": "NOT SUPPORTED",
                 "inconclusive": "INCONCLUSIVE"}

#: The fail-on set of a report that does not record one (``theorems.core.model.DEFAULT_FAIL_ON``).
_DEFAULT_FAIL_ON = ("FAILED", "ERROR", "BLOCKED", "NOT SUPPORTED")

#: What the figure of each kind of evidence is.
_FIGURE_NAMES = {
    "symbolic": "residual",
    "expectation": "residual",
    "precise": "scaled ratio",
    "property": "scaled ratio",
    "montecarlo": "z",
    "simulation": "figure",
    "counterexample": "witness figure",
}

_OPS = {"<=": "≤", ">=": "≥", "<": "<", ">": ">", "==": "="}


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _message(text: str) -> str:
    """One line, short: what a dashboard shows beside the test name."""
    first = " ".join(str(text).split())
    cut = MAX_MESSAGE_CHARS
    return _clean(first[:cut] + ("..." if len(first) > cut else ""))


def fail_on(report: dict) -> tuple[str, ...]:
    """The claim statuses that fail the run, as the report records them."""
    recorded = report.get("fail_on")
    return tuple(recorded) if isinstance(recorded, (list, tuple)) else _DEFAULT_FAIL_ON


def figure_name(e: dict) -> str:
    """What an evidence record's figure measures (``data["figure_name"]``
    when the check says, else by the kind of evidence)."""
    named = (e.get("data") or {}).get("figure_name")
    return str(named) if named else _FIGURE_NAMES.get(e.get("kind", ""), "figure")


def _fig(x: Any) -> str:
    if x is None:
        return "none"
    if isinstance(x, str):
        return x
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isfinite(x) and x == int(x) and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.3g}"
    return str(x)


def _compact(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if len(text) <= MAX_CASE_CHARS else text[: MAX_CASE_CHARS - 3] + "..."


def _need(e: dict) -> str:
    op = e.get("comparison") or "<="
    t = e.get("threshold")
    if t is None:
        return ""
    if op in ("<=", "==") and t == 0 and e.get("kind") in ("symbolic", "expectation"):
        return "need 0"
    return f"need {_OPS.get(op, op)} {_fig(t)}"


def _case(e: dict) -> tuple[str | None, str]:
    """``(measured, where)`` from the counterexample: the measured value
    when the counterexample holds it more exactly than ``figure`` (a signed
    residual), and the minimal case."""
    cex = e.get("counterexample")
    if cex is None:
        return None, ""
    kind = e.get("kind")
    if isinstance(cex, dict):
        if kind == "montecarlo" and "quantity" in cex:
            names = (e.get("data") or {}).get("names") or []
            q = cex["quantity"]
            name = cex.get("name") or (names[q] if isinstance(q, int) and 0 <= q < len(names) else f"#{q}")
            bits = [f"quantity {name}"]
            if "mean" in cex and "claimed" in cex:
                bits.append(f"mean {_fig(cex['mean'])} vs claimed {_fig(cex['claimed'])}")
            if "standard_error" in cex:
                bits.append(f"s.e. {_fig(cex['standard_error'])}")
            return None, "at " + ", ".join(bits)
        if kind == "precise" and "case" in cex:
            where = f"at case {cex['case']!r}, {cex.get('digits')} digits"
            return None, where + (f" ({cex['why']})" if cex.get("why") else "")
        rest = dict(cex)
        if "rebuild" in rest or "arrays" in rest:  # a float counterexample: the message names its recipe alone
            for shown_apart in ("arrays", "rebuild", "replay_case", "case", "float64_residual"):
                rest.pop(shown_apart, None)
        measured = rest.pop("residual", None)
        raised = rest.pop("raised", None)
        if "input" in rest and len(rest) == 1:
            rest = rest["input"]
        if isinstance(rest, dict):
            where = ", ".join(f"{k} = {_compact(v)}" for k, v in rest.items())
        else:
            where = _compact(rest)
        where = _compact(where) if where else ""
        if raised:
            where = (where + f" ({raised})") if where else str(raised)
        return (None if measured is None else str(measured)), ("at " + where if where else "")
    return None, "at " + _compact(cex)


def result_message(e: dict) -> str:
    """One line for an evidence record: what was measured against what was
    needed, and where: ``enumeration: residual -1 (need 0) at K = [[1]]``,
    ``montecarlo: z 10.3 (need ≤ 6.68) at quantity h=0.5, ...``. A crash
    gives the exception; a sweep adds its detail (which states its result)."""
    check = e.get("check", "?")
    status = e.get("status", "")
    detail = " ".join(str(e.get("detail") or "").split())
    if status == "error":
        return _message(f"{check}: error: {detail}")
    measured, where = _case(e)
    fig = measured if measured is not None else _fig(e.get("figure"))
    head = f"{check}: {figure_name(e)} {fig}"
    need = _need(e)
    if need:
        head += f" ({need})"
    if status not in ("passed", "supported", "answered", "failed"):
        head += f" [{status.replace('_', ' ')}]"
    if where:
        head += f" {where}"
    if e.get("kind") in ("simulation", "counterexample") or status in ("inconclusive", "answered"):
        head += f"; {detail}" if detail else ""
    return _message(head)


def _facts(e: dict) -> str:
    """The ``key: value`` lines of a case's ``<system-out>``."""
    lines = [f"status: {e.get('status')}", f"{figure_name(e)}: {_fig(e.get('figure'))}"]
    if e.get("threshold") is not None:
        lines.append(f"threshold: {e.get('comparison') or '<='} {_fig(e.get('threshold'))}")
    lines.append(f"cases: {e.get('cases', 0)}")
    if e.get("status") in ("answered", "inconclusive") and e.get("detail"):
        lines.append(f"detail: {' '.join(str(e['detail']).split())}")
    return "\n".join(lines)


def junit_cases(report: dict) -> list[dict]:
    """The test cases of a report as dicts: classname, name, time, outcome
    (``passed`` | ``failure`` | ``error`` | ``skipped``), status, message,
    type, body, out (the ``<system-out>`` text)."""
    failing = set(fail_on(report))
    cases = []
    for c in report["claims"]:
        for e in c["evidence"]:
            st = e["status"]
            claim_status = _CLAIM_STATUS.get(st)
            if claim_status is None:
                outcome = "passed"
            elif claim_status in failing:
                outcome = "error" if st == "error" else "failure"
            else:
                outcome = "skipped"
            body = ""
            if outcome in ("failure", "error"):
                parts = [e.get("detail") or ""]
                if e.get("counterexample") is not None:
                    parts.append("minimal counterexample: " + json.dumps(e["counterexample"]))
                tb = (e.get("data") or {}).get("traceback")
                if tb:
                    parts.append(str(tb))
                if e.get("replay"):
                    parts.append("replay: " + e["replay"])
                body = "\n".join(p for p in parts if p)
            cases.append({
                "classname": c["id"], "name": e["check"], "time": float(e.get("seconds") or 0.0),
                "outcome": outcome, "type": st, "status": st,
                "message": result_message(e), "body": body, "out": _facts(e),
            })
        if c["status"] == "UNDERSPECIFIED":
            cases.append({"classname": c["id"], "name": "underspecified", "time": 0.0, "outcome": "skipped",
                          "status": "underspecified", "type": "underspecified",
                          "message": c.get("reason") or "underspecified", "body": "", "out": ""})
        if c["status"] == "BLOCKED":
            waits = ", ".join(c.get("blocked_by") or [])
            cases.append({"classname": c["id"], "name": "dependencies", "time": 0.0,
                          "outcome": "failure" if "BLOCKED" in failing else "skipped", "status": "blocked",
                          "type": "blocked", "message": f"BLOCKED: depends on {waits}, which did not pass",
                          "body": f"claim {c['id']} depends on {waits}; fix those first", "out": ""})
        nc = c.get("negative_control")
        if nc and nc.get("caught") is not None:
            caught = bool(nc["caught"])
            cases.append({
                "classname": c["id"], "name": "negative-control", "time": 0.0,
                "outcome": "passed" if caught else "failure", "status": "caught" if caught else "not-caught",
                "type": "negative-control-not-caught",
                "message": f"negative control NOT caught: {nc.get('description')} ({missed_text(nc)})",
                "body": json.dumps(nc.get("per_check") or nc.get("checks") or {}),
                "out": f"negative control: {nc.get('description')}\nclaim status under it: {nc.get('status')}",
            })
    return cases


def render_junit(report: dict) -> str:
    """The JUnit XML text of a JSON report."""
    cases = junit_cases(report)
    totals = {
        "tests": len(cases),
        "failures": sum(k["outcome"] == "failure" for k in cases),
        "errors": sum(k["outcome"] == "error" for k in cases),
        "skipped": sum(k["outcome"] == "skipped" for k in cases),
    }
    time_s = f"{float(report.get('duration_s') or 0.0):.3f}"
    suite_name = f"theorems.{report['profile']['name']}"
    # junit-10.xsd has no "skipped" on the root; the suite carries it.
    root = ET.Element("testsuites", {"name": "theorems", **{k: str(v) for k, v in totals.items() if k != "skipped"},
                                     "time": time_s})
    suite = ET.SubElement(root, "testsuite", {
        "name": suite_name, **{k: str(v) for k, v in totals.items()}, "time": time_s,
        "timestamp": str(report.get("generated_at", ""))[:19], "hostname": "localhost", "id": "0",
        "package": "theorems",
    })
    props = ET.SubElement(suite, "properties")
    env = report.get("environment") or {}
    source = env.get("source") or {}
    for name, value in (("profile", report["profile"]["name"]), ("seed", report["seed"]),
                        ("python", env.get("python")), ("platform", env.get("platform")),
                        ("schema_version", report.get("schema_version")),
                        ("commit", source.get("commit")), ("dirty", source.get("dirty")),
                        ("fail_on", ", ".join(fail_on(report))), ("ok", report.get("ok"))):
        if value is not None:
            ET.SubElement(props, "property", {"name": name, "value": _clean(str(value))})
    for k in cases:
        case = ET.SubElement(suite, "testcase", {"classname": _clean(k["classname"]), "name": _clean(k["name"]),
                                                  "time": f"{k['time']:.3f}", "status": _clean(k["status"])})
        if k["outcome"] == "skipped":
            ET.SubElement(case, "skipped", {"message": _message(k["message"])})
        elif k["outcome"] in ("failure", "error"):
            el = ET.SubElement(case, k["outcome"], {"message": _message(k["message"]), "type": k["type"]})
            body = k["body"]
            if len(body) > MAX_BODY_CHARS:
                body = body[:MAX_BODY_CHARS] + f"\n... ({len(body) - MAX_BODY_CHARS} more characters in report.json)"
            el.text = _clean(body)
        if k.get("out"):
            ET.SubElement(case, "system-out").text = _clean(k["out"])
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
