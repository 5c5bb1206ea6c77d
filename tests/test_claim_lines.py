"""tools/claim_lines.py charges each claim the lines the issue-10 attribution says."""

from __future__ import annotations

import textwrap

import pytest


MODULE = textwrap.dedent('''
    """Docstring."""

    import math

    SHARED = 1


    def _only_a():
        # a comment
        return SHARED + 1


    def _both():
        """Shared helper."""
        return SHARED


    def _unused():
        return 0


    CLAIMS = [
        claim(
            "a",
            title="A",
            statement=(
                "x"
                "y"
            ),
            terms=_only_a,
            more=_both,
        ),
        claim("b", terms=_both),
    ]
''')


@pytest.fixture(scope="module")
def tool(load_tool):
    return load_tool("claim_lines")


@pytest.fixture
def module_path(tmp_path):
    path = tmp_path / "example.py"
    path.write_text(MODULE, encoding="utf-8")
    return path


def test_attribution_charges_declarations_helpers_shares_and_remainder(tool, module_path):
    table = tool.module_table(module_path)
    # remainder: docstring, import, _unused (2), "CLAIMS = [" and "]" = 6 lines over two claims;
    # SHARED (1) is reached by both (through _only_a and _both): half each;
    # a: its declaration 10 + _only_a 3 + half of _both (3) + half of SHARED + 3
    assert table == {"a": 10 + 3 + 1.5 + 0.5 + 3, "b": 1 + 1.5 + 0.5 + 3}
    total = sum(1 for line in MODULE.splitlines() if line.strip())
    assert sum(table.values()) == total


def test_text_and_code_split_the_same_attribution(tool, module_path):
    every, text, code = (tool.module_table(module_path, only=k) for k in ("all", "text", "code"))
    # a: title (1) and statement (3, from its keyword), _only_a's comment, half of each docstring
    assert text == {"a": 1 + 3 + 1 + 0.5 + 0.5, "b": 0.5 + 0.5}
    for cid in every:
        assert text[cid] + code[cid] == pytest.approx(every[cid])


def test_unknown_count_is_refused(tool, module_path):
    with pytest.raises(ValueError, match="only must be"):
        tool.module_table(module_path, only="comments")


def test_catalogue_sums_agree(tool):
    paths = [p for p in tool.CLAIMS_DIR.glob("*.py") if not p.name.startswith("_")]
    for path in paths:
        every, text, code = (tool.module_table(path, only=k) for k in ("all", "text", "code"))
        assert every and set(every) == set(text) == set(code)
        for cid in every:
            assert text[cid] + code[cid] == pytest.approx(every[cid]), (path.stem, cid)
