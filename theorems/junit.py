"""JUnit XML from a JSON report, for CI dashboards.

One ``<testcase>`` per claim check, ``classname`` the claim id and ``name``
the check name, ``time`` its seconds. A failed or not-supported check gets a
``<failure>``, a crashed one an ``<error>``, each with a one-line
``message``, a ``type`` (the evidence status) and a body holding the detail,
the minimal counterexample and the replay command. Three more cases keep
the file in step with the run's exit status and the catalogue:

- an UNDERSPECIFIED claim (no checks) is a ``<skipped>`` case named
  ``underspecified`` with the reason: listed, never silently dropped;
- a BLOCKED claim gets a failing case named ``dependencies`` naming the
  claims it waits on (its own checks may all have passed);
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
import re
import xml.etree.ElementTree as ET

__all__ = ["MAX_BODY_CHARS", "junit_cases", "render_junit"]

#: Longest failure body (detail + counterexample + replay), characters.
MAX_BODY_CHARS = 8000

#: Characters XML 1.0 cannot hold.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _message(text: str) -> str:
    """One line, short: what a dashboard shows beside the test name."""
    first = " ".join(str(text).split())
    return _clean(first[:300] + ("..." if len(first) > 300 else ""))


def junit_cases(report: dict) -> list[dict]:
    """The test cases of a report as dicts: classname, name, time, outcome
    (``passed`` | ``failure`` | ``error`` | ``skipped``), message, type, body."""
    cases = []
    for c in report["claims"]:
        for e in c["evidence"]:
            outcome = {"failed": "failure", "not_supported": "failure", "error": "error"}.get(e["status"], "passed")
            body = ""
            if outcome != "passed":
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
                "outcome": outcome, "type": e["status"],
                "message": f"{e['check']} {e['status']}: {e.get('detail') or ''}",
                "body": body,
            })
        if c["status"] == "UNDERSPECIFIED":
            cases.append({"classname": c["id"], "name": "underspecified", "time": 0.0, "outcome": "skipped",
                          "type": "underspecified", "message": c.get("reason") or "underspecified", "body": ""})
        if c["status"] == "BLOCKED":
            waits = ", ".join(c.get("blocked_by") or [])
            cases.append({"classname": c["id"], "name": "dependencies", "time": 0.0, "outcome": "failure",
                          "type": "blocked", "message": f"BLOCKED: depends on {waits}, which did not pass",
                          "body": f"claim {c['id']} depends on {waits}; fix those first"})
        nc = c.get("negative_control")
        if nc and nc.get("caught") is not None:
            caught = bool(nc["caught"])
            cases.append({
                "classname": c["id"], "name": "negative-control", "time": 0.0,
                "outcome": "passed" if caught else "failure", "type": "negative-control-not-caught",
                "message": f"negative control NOT caught: {nc.get('description')} "
                           f"(the claim still comes out {nc.get('status')})",
                "body": json.dumps(nc.get("checks") or {}),
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
    for name, value in (("profile", report["profile"]["name"]), ("seed", report["seed"]),
                        ("python", env.get("python")), ("platform", env.get("platform")),
                        ("schema_version", report.get("schema_version"))):
        ET.SubElement(props, "property", {"name": name, "value": _clean(str(value))})
    for k in cases:
        case = ET.SubElement(suite, "testcase", {"classname": _clean(k["classname"]), "name": _clean(k["name"]),
                                                  "time": f"{k['time']:.3f}"})
        if k["outcome"] == "skipped":
            ET.SubElement(case, "skipped", {"message": _message(k["message"])})
        elif k["outcome"] in ("failure", "error"):
            el = ET.SubElement(case, k["outcome"], {"message": _message(k["message"]), "type": k["type"]})
            body = k["body"]
            if len(body) > MAX_BODY_CHARS:
                body = body[:MAX_BODY_CHARS] + f"\n... ({len(body) - MAX_BODY_CHARS} more characters in report.json)"
            el.text = _clean(body)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
