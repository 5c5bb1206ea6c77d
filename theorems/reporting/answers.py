"""A question's answer on the page: its one-sentence answer and its answer
table (memory x condition x d: the figure's median [IQR] against the
baseline's, their ratio, the decision), rendered for report.md and
report.html from the answer evidence's ``data["answer"]`` and
``data["answer_table"]`` (rows as :func:`theorems.claims.real.answer_table`
writes them). The plot of n* against the baselines is the evidence's
``data["plot"]``, drawn with the other plots.
"""
from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["ANSWER_COLUMNS", "answer_rows", "answers_html", "answers_markdown", "question_answers"]

#: Header of the answer table.
ANSWER_COLUMNS = ("memory", "condition", "d", "figure median [IQR]", "baseline median [IQR]", "ratio", "draws",
                  "decision")


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _median_iqr(m: Any, iqr: Any) -> str:
    return _num(m) + (f" [{_num(iqr[0])}, {_num(iqr[1])}]" if iqr else "")


def answer_rows(table: list[dict]) -> list[tuple[str, ...]]:
    """The answer table's cells, one tuple per row (:data:`ANSWER_COLUMNS`).

    >>> answer_rows([{"memory": "cmm", "condition": "raw", "d": 64, "n_star": 10.5, "n_star_iqr": [7.0, 16.0],
    ...               "baseline": "gaussian", "baseline_n_star": 69.5, "baseline_n_star_iqr": [59.0, 80.0],
    ...               "ratio": 0.15, "draws": 40, "decision": "heavier"}])
    [('cmm', 'raw', '64', '10.5 [7, 16]', 'gaussian 69.5 [59, 80]', '0.15', '40', 'heavier')]
    """
    return [(str(r["memory"]), str(r["condition"]), str(r["d"]), _median_iqr(r["n_star"], r.get("n_star_iqr")),
             f"{r['baseline']} {_median_iqr(r['baseline_n_star'], r.get('baseline_n_star_iqr'))}",
             _num(r.get("ratio")), _num(r.get("draws")), str(r["decision"])) for r in table]


def question_answers(report: dict) -> list[tuple[dict, str, list[dict]]]:
    """``(claim, answer sentence, answer table)`` for every claim of the
    report whose evidence carries an answer table."""
    out = []
    for c in report.get("claims", []):
        for e in c.get("evidence") or []:
            data = e.get("data") if isinstance(e, dict) else None
            if isinstance(data, dict) and data.get("answer_table"):
                out.append((c, str(data.get("answer", "")), list(data["answer_table"])))
    return out


def answers_markdown(report: dict) -> list[str]:
    """The "Answers" section of report.md (empty when no claim has an answer table)."""
    found = question_answers(report)
    if not found:
        return []
    lines = ["## Answers", ""]
    for c, sentence, table in found:
        lines += [f"### `{c['id']}`: {c['status']}", "", sentence.replace("|", "\\|") + ".", "",
                  "| " + " | ".join(ANSWER_COLUMNS) + " |", "|" + "---|" * len(ANSWER_COLUMNS)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in answer_rows(table)]
        lines.append("")
    return lines


def answers_html(claim: dict) -> str:
    """The answer of one claim as HTML (a sentence and a table), or ``""``."""
    found = question_answers({"claims": [claim]})
    if not found:
        return ""
    parts = []
    for _, sentence, table in found:
        head = "".join(f"<th>{escape(h)}</th>" for h in ANSWER_COLUMNS)
        body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                       for row in answer_rows(table))
        parts.append(f'<div class="answer"><p class="answer-sentence"><strong>Answer:</strong> {escape(sentence)}.'
                     f'</p><table class="answer-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
                     "</div>")
    return "".join(parts)
