"""What a check searched and what a claim states, as text for the reports.

A check's evidence may record its searched ``domain`` (a dict such as
``{"d": [2, 8], "n": "1..5"}`` or a sentence); a claim may state the domain its
statement covers. Both reports (Markdown and HTML) show the searched domains
and say when a statement is wider than anything searched.
"""

from __future__ import annotations

from typing import Any

__all__ = ["domain_text", "searched_domains", "wider_than_searched"]


def _fmt(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def domain_text(domain: Any) -> str:
    """A domain record (what a check searched, or a statement's domain) as
    one line: ``d in [2, 8]; n: 1..5`` from a dict, the text itself from a
    string."""
    if domain is None or domain == {} or domain == []:
        return ""
    if isinstance(domain, str):
        return domain
    if isinstance(domain, dict):
        bits = []
        for k, v in domain.items():
            if isinstance(v, (list, tuple)) and len(v) > 8:
                v = f"{len(v)} values in [{_fmt(min(v, key=_sortable))}, {_fmt(max(v, key=_sortable))}]"
            elif isinstance(v, (list, tuple)):
                v = "[" + ", ".join(_fmt(x) for x in v) + "]"
            elif isinstance(v, dict):
                v = "{" + domain_text(v) + "}"
            bits.append(f"{k}: {_fmt(v)}")
        return "; ".join(bits)
    if isinstance(domain, (list, tuple)):
        return ", ".join(_fmt(x) for x in domain)
    return str(domain)


def _sortable(x: Any):
    return (0, float(x), "") if isinstance(x, (int, float)) and not isinstance(x, bool) else (1, 0.0, str(x))


def searched_domains(claim: dict) -> list[tuple[str, str]]:
    """``(check, what it searched)`` for each check that records a domain."""
    out = []
    for e in claim.get("evidence") or []:
        text = domain_text((e.get("data") or {}).get("domain"))
        if text:
            out.append((e["check"], text))
    return out


def wider_than_searched(claim: dict) -> bool:
    """True when the claim states a domain that no check's searched domain
    equals: the statement is wider than what was checked."""
    stated = claim.get("domain")
    if not stated:
        return False
    searched = [(e.get("data") or {}).get("domain") for e in claim.get("evidence") or []]
    searched = [s for s in searched if s]
    return bool(searched) and all(s != stated for s in searched)
