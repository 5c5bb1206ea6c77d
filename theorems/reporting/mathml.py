"""LaTeX and ASCII mathematics as MathML for the HTML report.

:func:`latex_to_mathml` converts a statement's LaTeX with latex2mathml,
repairs what that converter leaves (applied functions, stray commands) and
reports a :class:`MathFallback` when the result still holds untranslated
LaTeX; :func:`split_statement` breaks a long statement at its top-level
separators; :func:`ascii_to_latex` and :func:`ascii_math_spans` find and
translate the plain-text mathematics of titles and details ("d^2/(n ln n)").
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html import escape, unescape

__all__ = [
    "INLINE_MATH",
    "ascii_chunks",
    "ASCII_MATH_CHUNK_CHARS",
    "ASCII_MATH_MIN_CHARS",
    "FUNCTION_NAMES",
    "MathFallback",
    "PROSE_MIN_WORDS",
    "STATEMENT_PIECE_CHARS",
    "ascii_math_spans",
    "ascii_to_latex",
    "is_prose",
    "latex_to_mathml",
    "split_statement",
]


#: Any backslash left in a MathML token is LaTeX the converter did not
#: translate (a command, or an escaped symbol such as ``\|``).
_LEFTOVER_COMMAND = re.compile(r"\\(?:[A-Za-z]+|.)")

#: Escaped symbols latex2mathml leaves as they are in a token (``\Big\|``
#: becomes ``<mo>\|</mo>``), and what they stand for.
_ESCAPED_SYMBOLS = {"\\|": "\u2016", "\\{": "{", "\\}": "}", "\\#": "#", "\\%": "%", "\\&": "&", "\\_": "_",
                    "\\,": "\u2009", "\\;": "\u2005", "\\:": "\u2005", "\\!": "", "\\ ": "\u00a0"}

#: Function names after which MathML needs FUNCTION APPLICATION (U+2061),
#: so that "log n" is read and spaced as log applied to n, not log times n.
FUNCTION_NAMES = frozenset({
    "log", "ln", "lg", "exp", "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "coth",
    "arcsin", "arccos", "arctan", "arg", "det", "dim", "ker", "deg", "gcd", "hom", "Pr", "max", "min", "sup",
    "inf", "lim", "liminf", "limsup", "lim\u2006inf", "lim\u2006sup", "tr", "rank", "row", "col", "range", "Var",
    "Cov", "diag", "sgn", "erf", "erfc", "erfcx", "Unif", "span",
})

_MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_APPLY = "\u2061"

#: The MathML a report may carry: presentation elements only. Nothing that
#: links (``href`` on any element, ``maction``), embeds other markup
#: (``annotation-xml``, ``semantics``) or belongs to another namespace.
MATHML_ELEMENTS = frozenset({
    "math", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "mfrac", "msqrt", "mroot", "mstyle", "merror",
    "mpadded", "mphantom", "msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts",
    "mprescripts", "none", "mtable", "mtr", "mtd", "menclose",
})
#: Presentational attributes a report's MathML may carry (never ``href``,
#: ``style``, ``class``, ``id``, ``src``, ``on*`` or a namespaced attribute).
MATHML_ATTRIBUTES = frozenset({
    "display", "displaystyle", "scriptlevel", "mathvariant", "mathcolor", "mathbackground", "mathsize",
    "lspace", "rspace", "stretchy", "symmetric", "maxsize", "minsize", "largeop", "movablelimits", "accent",
    "accentunder", "fence", "separator", "form", "width", "height", "depth", "voffset", "linethickness",
    "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame",
    "framespacing", "columnspan", "rowspan", "notation", "dir", "align", "bevelled", "numalign", "denomalign",
})
#: An attribute value that could name a resource or run code (``url(``,
#: ``javascript:``, an expression) is refused even on an allowed attribute.
_UNSAFE_VALUE = re.compile(r"[()\\<>]|javascript:|data:|&", re.I)


def _disallowed(tree) -> str | None:
    """Why ``tree`` (parsed MathML) may not go into a report, or None: an
    element or attribute outside :data:`MATHML_ELEMENTS` /
    :data:`MATHML_ATTRIBUTES`, another namespace, or an attribute value that
    could load or run something."""
    for node in tree.iter():
        if not isinstance(node.tag, str) or not node.tag.startswith("{" + _MATHML_NS + "}"):
            return f"the converted MathML holds markup outside MathML ({str(node.tag).rsplit('}', 1)[-1]!r})"
        name = _tag(node)
        if name not in MATHML_ELEMENTS:
            return f"the converted MathML holds a <{name}> element, which a report never carries"
        for attr, value in node.attrib.items():
            if attr not in MATHML_ATTRIBUTES:
                return f"the converted MathML holds a {attr.rsplit('}', 1)[-1]!r} attribute, which a report never carries"
            if _UNSAFE_VALUE.search(value):
                return f"the converted MathML gives {attr} the value {value!r}, which a report never carries"
    return None


def _nh3_agrees(markup: str) -> bool:
    """True when nh3 (Ammonia, parsing as an HTML5 browser does) keeps
    ``markup`` exactly as it is under the same allowlist: a second,
    independent sanitizer, so that markup an HTML parser would read
    differently from the XML it was checked as never reaches a report."""
    import nh3

    cleaned = nh3.clean(markup, tags=set(MATHML_ELEMENTS), attributes={"*": set(MATHML_ATTRIBUTES)},
                        url_schemes=set(), strip_comments=True, link_rel=None)
    # compared as characters: nh3 writes U+00A0 as &nbsp;, the XML serializer as the character
    return unescape(cleaned) == unescape(markup)

#: Top-level spacing in a statement at which it may be broken into lines.
_BREAK_AT = re.compile(r"\\qquad(?![A-Za-z])|(?<=[,;:])\s*\\quad(?![A-Za-z])")
#: A statement piece longer than this (LaTeX characters) is broken further
#: at a top-level ",\ " or ";\ ".
STATEMENT_PIECE_CHARS = 110
_BREAK_SOFT = re.compile(r"(?<=[,;:])\s*\\ (?=\s*\S)|\s*\\quad(?![A-Za-z])\s*")

#: A statement with no LaTeX command and this many words of three letters or
#: more is prose (a behaviour of the code, stated in words), shown as text.
PROSE_MIN_WORDS = 6


def is_prose(statement: str) -> bool:
    """True for a statement written in words rather than LaTeX: it holds no
    backslash and at least :data:`PROSE_MIN_WORDS` words.

    >>> is_prose("max_margin_memory returns W and multipliers that are optimal")
    True
    >>> is_prose(r"\\|W\\|_F \\ge 0")
    False
    """
    return "\\" not in statement and len(re.findall(r"\b[A-Za-z]{3,}\b", statement)) >= PROSE_MIN_WORDS

#: Standard LaTeX that latex2mathml does not know, rewritten before conversion
#: (``\arg`` as in ``\arg\min``; equation bookkeeping that renders as nothing).
_LATEX_REWRITES = (
    (re.compile(r"\\arg(?![A-Za-z])"), r"\\operatorname{arg}"),
    (re.compile(r"\\nonumber(?![A-Za-z])|\\label\{[^{}]*\}"), ""),
)
INLINE_MATH = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$")


@dataclass(frozen=True)
class MathFallback:
    """A piece of LaTeX shown as source because it could not be converted."""

    claim: str
    where: str
    latex: str
    error: str


@functools.lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, *, display: bool = False) -> tuple[str, str | None]:
    """``(markup, error)``: MathML for ``latex``, or, when it cannot be
    converted faithfully, escaped source in ``<code class="latex-fallback">``
    and the reason.

    The conversion is refused (so the reader sees the source, not a wrong
    formula) when latex2mathml raises, when its output is not well-formed
    XML, when a command it did not know is left in the output, or when the
    braces of the source do not balance.

    >>> markup, error = latex_to_mathml(r"\\frac{1}{M}")
    >>> error is None and markup.startswith("<math") and "<mfrac>" in markup
    True
    >>> latex_to_mathml(r"\\frac{1}{")[1] is not None
    True
    """
    import latex2mathml.converter

    def fallback(why: str) -> tuple[str, str]:
        return f'<code class="latex-fallback" title="{escape(why)}">{escape(latex)}</code>', why

    depth = 0
    for i, ch in enumerate(latex):
        if ch in "{}" and (i == 0 or latex[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
            if depth < 0:
                return fallback("unbalanced braces: a '}' closes nothing")
    if depth:
        return fallback(f"unbalanced braces: {depth} '{{' left open")
    source = latex
    for pattern, repl in _LATEX_REWRITES:
        source = pattern.sub(repl, source)
    try:
        markup = latex2mathml.converter.convert(source, display="block" if display else "inline")
    except Exception as exc:  # noqa: BLE001 - any converter failure means: show the source
        return fallback(f"latex2mathml could not convert it ({type(exc).__name__}: {exc})".replace(" ()", ""))
    try:
        tree = ET.fromstring(markup)
    except ET.ParseError as exc:
        return fallback(f"the converted MathML is not well-formed ({exc})")
    unsafe = _disallowed(tree)
    if unsafe:
        return fallback(unsafe)
    _repair_mathml(tree)
    for node in tree.iter():
        left = _LEFTOVER_COMMAND.search(node.text or "")
        if left:
            return fallback(f"unknown command {left.group(0)}")
    markup = ET.tostring(tree, encoding="unicode", short_empty_elements=False)
    # The HTML parser puts <math> in the MathML namespace by itself.
    markup = re.sub(r"<(/?)(?:ns0|html):", r"<\1", markup)
    markup = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", markup)
    if not _nh3_agrees(markup):
        return fallback("the converted MathML does not survive the report's sanitizer (nh3) unchanged")
    return markup, None


def _tag(node) -> str:
    return node.tag.rsplit("}", 1)[-1]


def _function_name(node) -> str | None:
    """The function name a token (or the base of a script) holds, if any."""
    while _tag(node) in ("msub", "msup", "msubsup", "munder", "mover", "munderover") and len(node):
        node = node[0]
    if _tag(node) in ("mi", "mo") and (node.text or "").strip() in FUNCTION_NAMES:
        return node.text.strip()
    return None


def _repair_mathml(tree) -> None:
    """Mend what latex2mathml leaves: escaped symbols kept verbatim in a
    token (``<mo>\\|</mo>`` for ``\\Big\\|``), and function names with no
    FUNCTION APPLICATION after them (``<mi>log</mi><mi>n</mi>`` reads as a
    product)."""
    for node in tree.iter():
        if node.text and "\\" in node.text:
            text = node.text
            for k, v in _ESCAPED_SYMBOLS.items():
                text = text.replace(k, v)
            node.text = text
    for parent in list(tree.iter()):
        kids = list(parent)
        for i in range(len(kids) - 1, -1, -1):
            if _function_name(kids[i]) is None or _tag(parent) in ("msub", "msup", "msubsup", "munder", "mover",
                                                                  "munderover", "mfrac", "mroot"):
                continue
            nxt = kids[i + 1] if i + 1 < len(kids) else None
            if nxt is not None and _tag(nxt) == "mo" and (nxt.text or "") == _APPLY:
                continue
            # TeX sets a thin space on either side of an operator name; MathML
            # Core gives an <mi> none, so the application operator carries it.
            apply = ET.Element(f"{{{_MATHML_NS}}}mo", {"lspace": "0", "rspace": "0.1667em"})
            apply.text = _APPLY
            parent.insert(i + 1, apply)
            prev = kids[i - 1] if i > 0 else None
            if prev is not None and not (_tag(prev) == "mo" and (prev.text or "") == _APPLY) and _tag(prev) != "mo":
                parent.insert(i, ET.Element(f"{{{_MATHML_NS}}}mspace", {"width": "0.1667em"}))


def split_statement(latex: str) -> list[str]:
    """A long statement cut into the pieces it lists, at top-level
    ``\\qquad`` and at ``\\quad`` after a comma, semicolon or colon (pieces
    longer than :data:`STATEMENT_PIECE_CHARS` also at ``,\\ `` and ``;\\ ``),
    never inside braces, ``\\left...\\right``, an environment or sized
    brackets. The pieces render as separate displays that wrap on a narrow
    page instead of overflowing it.

    >>> split_statement(r"a = b,\\quad c = \\frac{1}{2}\\qquad d")
    ['a = b,', 'c = \\\\frac{1}{2}', 'd']
    """
    def cuts(text: str, pattern) -> list[str]:
        depth = [0] * (len(text) + 1)
        level = 0
        i = 0
        opened = re.compile(r"\\left(?![A-Za-z])|\\begin\{|\\[Bb]ig+l(?![A-Za-z])")
        closed = re.compile(r"\\right(?![A-Za-z])|\\end\{|\\[Bb]ig+r(?![A-Za-z])")
        while i < len(text):
            if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "{}":
                depth[i] = depth[i + 1] = level
                i += 2
                continue
            if text[i] == "{":
                level += 1
            elif text[i] == "}":
                level -= 1
            elif opened.match(text, i):
                level += 1
            elif closed.match(text, i):
                level -= 1
            depth[i] = level
            i += 1
        pieces, last = [], 0
        for m in pattern.finditer(text):
            if depth[m.start()] == 0 and not _inside_sized_brackets(text, m.start()):
                pieces.append(text[last:m.start()].strip())
                last = m.end()
        pieces.append(text[last:].strip())
        return [p for p in pieces if p]

    out = []
    for piece in cuts(latex, _BREAK_AT):
        out += cuts(piece, _BREAK_SOFT) if len(piece) > STATEMENT_PIECE_CHARS else [piece]
    return out or [latex]


_SIZED = re.compile(r"\\(?:[Bb]ig+)([(\[]|\\\{|\\langle|\\\||\\[Vv]ert|\||[)\]]|\\\}|\\rangle)")


def _inside_sized_brackets(text: str, pos: int) -> bool:
    """True when ``pos`` lies between a ``\\Big(``-style opening and its closing."""
    level = 0
    for m in _SIZED.finditer(text, 0, pos):
        d = m.group(1)
        if d in ("(", "[", "\\{", "\\langle"):
            level += 1
        elif d in (")", "]", "\\}", "\\rangle"):
            level -= 1
        else:  # | and \| open and close alike
            level = 0 if level % 2 else level + 1
    return level > 0


# ---------------------------------------------------------------------------
# ASCII math in plain text (titles, assumptions): "h_j/(1 - h_j)", "R^d",
# "k_i^T k_j", "d^2/(n ln n) > 2" are found and rendered as MathML.

_GREEK = frozenset("""alpha beta gamma delta epsilon varepsilon zeta eta theta kappa lambda mu nu xi pi rho sigma
tau phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega""".split())
#: Multi-letter words that are mathematics (rendered upright, as functions).
_MATH_WORDS = {"ln": r"\ln", "log": r"\log", "exp": r"\exp", "lnln": r"\ln\ln", "max": r"\max", "min": r"\min",
               "sup": r"\sup", "inf": r"\inf", "lim": r"\lim", "Pr": r"\Pr", "Var": r"\operatorname{Var}",
               "Cov": r"\operatorname{Cov}", "tr": r"\operatorname{tr}", "sqrt": r"\sqrt", "erfcx": r"\operatorname{erfcx}",
               "argmin": r"\arg\min", "sum": r"\sum", "prod": r"\prod", "argmax": r"\arg\max", "det": r"\det", "sgn": r"\operatorname{sgn}"}
#: Words that are functions: a following argument is applied, not multiplied.
_FUNCTION_WORDS = frozenset({"ln", "log", "exp", "lnln", "Pr", "Var", "Cov", "tr", "erfcx", "det", "sgn"})
_ASCII_TOKEN = re.compile(r"""
  (?P<id>[A-Za-z][A-Za-z0-9]*(?:_\{[^{}]*\}|_[A-Za-z0-9*]+|\^\{[^{}]*\}|\^[A-Za-z0-9*+]+|\^-1|\^-[0-9]+|')*)
| (?P<num>\d+(?:\.\d+)?(?:e-?\d+)?(?:\^\{[^{}]*\}|\^-?[A-Za-z0-9]+)?)
| (?P<norm>\|\|(?:_\{[^{}]*\}|_[A-Za-z0-9]+|\^\{[^{}]*\}|\^[A-Za-z0-9*+]+)+)
| (?P<op><=>|<=|>=|!=|->|=>|>>|<<|\|\||[=<>+\-*/~|±])
| (?P<open>[(\[])
| (?P<close>[)\]](?:\^\{[^{}]*\}|\^-?[A-Za-z0-9*+]+|_[A-Za-z0-9]+)?)
| (?P<comma>,)
| (?P<space>[ ]+)
| (?P<other>.)
""", re.X | re.S)
_ASCII_OPS = {"<=>": r"\iff", "<=": r"\le", ">=": r"\ge", "!=": r"\ne", "->": r"\to", "=>": r"\Rightarrow",
              "||": r"\|", "*": r"\cdot", ">>": r"\gg", "<<": r"\ll", "~": r"\sim", "±": r"\pm", "<": "<", ">": ">"}
#: Shortest ASCII-math span worth rendering, characters.
ASCII_MATH_MIN_CHARS = 3


def _id_is_math(tok: str) -> bool:
    base = re.match(r"[A-Za-z][A-Za-z0-9]*", tok).group(0)
    if base in ("sum", "prod"):  # "sum_{i != j}" is a sum; "the sum of" is English
        return tok != base
    if len(base) == 1 or base in _GREEK or base in _MATH_WORDS or re.fullmatch(r"[A-Za-z]\d+", base):
        return True
    # a multi-letter word is code or English ("tam_erm", "store's"), not a symbol
    return False


def _script(body: str) -> str:
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1]
    if body == "T":
        return r"\top"
    if body in ("+", "*"):
        return "+" if body == "+" else r"\ast"
    if re.fullmatch(r"[A-Z]{2,}", body):
        return r"\mathrm{" + body + "}"
    if re.fullmatch(r"[a-z]{2,3}", body) and body not in _MATH_WORDS:  # S_ij: two indices
        return body
    return ascii_to_latex(body) if body else body


def _id_latex(tok: str) -> str:
    m = re.match(r"[A-Za-z][A-Za-z0-9]*", tok)
    base, rest = m.group(0), tok[m.end():]
    if base in _GREEK:
        out = "\\" + base
    elif base in _MATH_WORDS:
        out = _MATH_WORDS[base]
    elif base == "R" and rest.startswith("^"):
        out = r"\mathbb{R}"
    elif re.fullmatch(r"[A-Za-z]\d+", base):
        out = base[0] + "_{" + base[1:] + "}"
    elif len(base) > 1:
        out = r"\mathrm{" + base + "}"
    else:
        out = base
    for part in re.findall(r"_\{[^{}]*\}|_[A-Za-z0-9*]+|\^\{[^{}]*\}|\^-1|\^-[0-9]+|\^[A-Za-z0-9*+]+|'", rest):
        if part == "'":
            out += "'"
        else:
            out += part[0] + "{" + _script(part[1:]) + "}"
    return out


def ascii_to_latex(text: str) -> str:
    """LaTeX for a span of ASCII math (see :func:`ascii_math_spans`).

    >>> ascii_to_latex("h_j/(1 - h_j)")
    'h_{j}/(1 - h_{j})'
    >>> ascii_to_latex("k_i^T k_j <= 1")
    'k_{i}^{\\\\top} k_{j} \\\\le 1'
    """
    out = []
    toks = [(m.lastgroup, m.group(0)) for m in _ASCII_TOKEN.finditer(text)]
    n = 0
    while n < len(toks):
        kind, tok = toks[n]
        n += 1
        if kind == "id" and tok == "sqrt" and n < len(toks) and toks[n][1] == "(":
            depth, j = 0, n
            while j < len(toks):
                depth += (toks[j][1] == "(") - (toks[j][1] == ")")
                if depth == 0:
                    break
                j += 1
            inner = "".join(t for _, t in toks[n + 1:j])
            out.append(r"\sqrt{" + ascii_to_latex(inner) + "}")
            n = j + 1
            continue
        if kind == "id":
            if tok == "x" and 1 < n < len(toks):  # "p x d": a dimension
                out.append(r"\times")
            elif tok == "E" and n < len(toks) and toks[n][1] == "[":
                out.append(r"\mathbb{E}")
            else:
                out.append(_id_latex(tok))
        elif kind == "num":
            base, caret, power = tok.partition("^")
            m = re.fullmatch(r"([\d.]+)e(-?\d+)", base)
            out.append(f"{m.group(1)} \\times 10^{{{m.group(2)}}}" if m else base)
            if caret:
                out.append("^{" + _script(power) + "}")
        elif kind == "norm":
            out.append(r"\|" + _id_latex("N" + tok[2:])[1:])
        elif kind == "op":
            out.append(_ASCII_OPS.get(tok, tok))
        elif kind == "close" and len(tok) > 1:  # ")^2"
            out.append(tok[0] + tok[1] + "{" + _script(tok[2:]) + "}")
        elif tok in "{}":
            out.append("\\" + tok)
        else:
            out.append(tok)
    return "".join(out)


def ascii_math_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each run of ASCII math in plain ``text``: single
    letters, subscripted or superscripted names, Greek names, numbers,
    operators and brackets, holding an operator, a subscript or a
    superscript. English words end a run; so does a comma outside brackets."""
    spans: list[tuple[int, int]] = []
    toks = [(m.lastgroup, m.group(0), m.start(), m.end()) for m in _ASCII_TOKEN.finditer(text)]
    for i, (kind, tok, a, b) in enumerate(toks):
        # "<W, A>" is an inner product, not two comparisons: a bare < or > counts only between spaces
        if kind == "op" and tok in ("<", ">") and not (0 < i < len(toks) - 1 and toks[i - 1][0] == "space"
                                                        and toks[i + 1][0] == "space"):
            toks[i] = ("other", tok, a, b)

    def close(run: list) -> None:
        while run and run[-1][0] in ("space", "comma", "op") and run[-1][1] not in ("'",):
            if run[-1][0] == "op" and run[-1][1] in ("||", "|"):
                break
            run.pop()
        while run and run[0][0] in ("space", "comma") or (run and run[0][0] == "op" and run[0][1] in "=<>*/"):
            run.pop(0)
        # split the run at its unmatched brackets: "R^p (p and d" gives "R^p" and "p"
        stack, unmatched = [], []
        for n, (kind, *_rest) in enumerate(run):
            if kind == "open":
                stack.append(n)
            elif kind == "close":
                if stack:
                    stack.pop()
                else:
                    unmatched.append(n)
        unmatched = sorted(unmatched + stack)
        if unmatched:
            edges = [-1, *unmatched, len(run)]
            for lo, hi in zip(edges, edges[1:]):
                close(run[lo + 1:hi])
            return
        # drop unmatched brackets at the ends
        depth = 0
        for kind, tok, *_ in run:
            depth += (kind == "open") - (kind == "close")
        while run and depth > 0 and run[-1][0] in ("open", "space"):
            depth -= run[-1][0] == "open"
            run.pop()
        while run and depth > 0 and run[0][0] in ("open", "space"):
            depth -= run[0][0] == "open"
            run.pop(0)
        while run and depth < 0 and run[-1][0] in ("close", "space"):
            depth += run[-1][0] == "close"
            run.pop()
        while run and run[-1][0] == "space":
            run.pop()
        while run and run[0][0] == "space":
            run.pop(0)
        if not run or depth != 0:
            return
        strong = any((k == "op" and t not in ("-", "+")) or k == "norm" or (k == "num" and "^" in t) or (k == "id" and t != re.match(r"[A-Za-z]+[0-9]*", t).group(0))
                     or (k == "id" and t in _GREEK) for k, t, *_ in run)
        has_term = any(k in ("id", "num") for k, *_ in run)
        start, end = run[0][2], run[-1][3]
        if strong and has_term and end - start >= ASCII_MATH_MIN_CHARS:
            spans.append((start, end))

    run: list = []
    depth = 0
    for i, (kind, tok, a, b) in enumerate(toks):
        joins = ((kind == "id" and _id_is_math(tok)) or kind in ("num", "op", "norm", "space", "open", "close")
                 or (kind == "comma" and depth > 0))
        # a letter glued to a following word ("a b" is fine, "x-axis" is not)
        if joins and kind == "id" and i + 1 < len(toks) and toks[i + 1][0] == "other" and toks[i + 1][1] in "'.":
            joins = toks[i + 1][1] == "'" and False
        if not joins:
            close(run)
            run, depth = [], 0
            continue
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
        run.append((kind, tok, a, b))
    close(run)
    return spans


#: A run of ASCII math longer than this is set as several inline pieces
#: (cut after commas, then at spaces), characters.
ASCII_MATH_CHUNK_CHARS = 32


def ascii_chunks(span: str) -> list[str]:
    """``span`` cut after its commas, and pieces still longer than
    :data:`ASCII_MATH_CHUNK_CHARS` at their spaces, never inside braces."""
    if len(span) <= ASCII_MATH_CHUNK_CHARS:
        return [span]

    def cut(text: str, sep) -> list[str]:
        out, depth, start = [], 0, 0
        for i, ch in enumerate(text):
            depth += (ch == "{") - (ch == "}")
            if depth == 0 and sep(text, i):
                out.append(text[start:i + 1].strip())
                start = i + 1
        out.append(text[start:].strip())
        return [p for p in out if p]

    pieces = []
    for piece in cut(span, lambda t, i: t[i] == "," and t[i + 1:i + 2] == " "):
        pieces += cut(piece, lambda t, i: t[i] == " ") if len(piece) > ASCII_MATH_CHUNK_CHARS else [piece]
    return pieces
