"""Validation of claims where they are built, in one place.

Every field of a :class:`~theorems.core.model.Claim`, a
:class:`~theorems.core.model.Check` and a
:class:`~theorems.core.model.NegativeControl` is checked when the object is
constructed, and the template arguments that shape the checks (sample
counts, sweep sizes, boundary cases, the control) when a template is called:
a malformed claim is refused before it can run or reach a report, with a
message naming the claim, the field, what it got and what it needs.

>>> text_field("mine.x", "title", 3)
Traceback (most recent call last):
...
TypeError: claim mine.x: title must be a string, got int 3
>>> strings_field("mine.x", "tags", "fast")
Traceback (most recent call last):
...
TypeError: claim mine.x: tags must be a sequence of strings (a list or a tuple), got the string 'fast' (write ('fast',))
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Mapping
from typing import Any, Callable

__all__ = [
    "check_fields",
    "claim_fields",
    "control_fields",
    "controls_cover",
    "strings_field",
    "template_arguments",
    "template_checker",
    "text_field",
]

#: How much of a refused value a message shows, characters.
SHOWN_CHARS = 60


def _shown(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user's object whose repr fails
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 3] + "..."


def _got(value: Any) -> str:
    if isinstance(value, str):
        return f"the string {_shown(value)}"
    return f"{type(value).__name__} {_shown(value)}"


def _who(claim: Any) -> str:
    return f"claim {claim}" if isinstance(claim, str) and claim else f"claim {_shown(claim)}"


def text_field(claim: Any, field: str, value: Any, *, empty: bool = True) -> None:
    """``value`` must be a string (non-empty unless ``empty``)."""
    if not isinstance(value, str):
        raise TypeError(f"{_who(claim)}: {field} must be a string, got {_got(value)}")
    if not empty and not value.strip():
        raise ValueError(f"{_who(claim)}: {field} must be a non-empty string, got {_shown(value)}")


def strings_field(claim: Any, field: str, value: Any) -> tuple[str, ...]:
    """``value`` must be a list or tuple of strings (a string is refused: it
    would be split into its characters); returned as a tuple."""
    if isinstance(value, str):
        raise TypeError(f"{_who(claim)}: {field} must be a sequence of strings (a list or a tuple), got "
                        f"{_got(value)} (write ({value!r},))")
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{_who(claim)}: {field} must be a sequence of strings (a list or a tuple), got "
                        f"{_got(value)}")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"{_who(claim)}: {field}[{i}] must be a string, got {_got(item)}")
    return tuple(value)


def claim_fields(claim, *, Check: type, ClaimKind: type, NegativeControl: type) -> None:  # noqa: N803
    """Check every field of a Claim (called by ``Claim.__post_init__`` with
    the model's classes); lists given for tuple fields are stored as tuples."""
    cid = claim.id
    if not isinstance(cid, str):  # its character set is the registry's to check (CLAIM_ID_PATTERN)
        raise TypeError(f"a claim's id must be a string, got {_got(cid)}")
    for field in ("title", "statement", "source"):
        text_field(cid, field, getattr(claim, field))
    text_field(cid, "reason", claim.reason)
    if not isinstance(claim.kind, ClaimKind):
        kinds = ", ".join(k.value for k in ClaimKind)
        raise TypeError(f"{_who(cid)}: kind must be a ClaimKind ({kinds}), got {_got(claim.kind)}")
    for field in ("assumptions", "depends_on", "tags"):
        object.__setattr__(claim, field, strings_field(cid, field, getattr(claim, field)))
    checks = claim.checks
    if isinstance(checks, Check):
        raise TypeError(f"{_who(cid)}: checks must be a sequence of Check objects, got one Check "
                        f"{checks.name!r} (write ({checks.name!r} check,))")
    if not isinstance(checks, (list, tuple)):
        raise TypeError(f"{_who(cid)}: checks must be a sequence of Check objects, got {_got(checks)}")
    for i, check in enumerate(checks):
        if not isinstance(check, Check):
            raise TypeError(f"{_who(cid)}: checks[{i}] must be a Check, got {_got(check)}")
    object.__setattr__(claim, "checks", tuple(checks))
    control = claim.negative_control
    if control is not None and not isinstance(control, NegativeControl):
        raise TypeError(f"{_who(cid)}: control (negative_control) must be wrong('why', formula=callable), "
                        f"got {_got(control)}")
    more = claim.more_controls
    if isinstance(more, NegativeControl) or not isinstance(more, (list, tuple)):
        raise TypeError(f"{_who(cid)}: more_controls must be a sequence of wrong('why', formula=callable), "
                        f"got {_got(more)}")
    for i, extra in enumerate(more):
        if not isinstance(extra, NegativeControl):
            raise TypeError(f"{_who(cid)}: more_controls[{i}] must be wrong('why', formula=callable), "
                            f"got {_got(extra)}")
    if more and control is None:
        raise ValueError(f"{_who(cid)}: more_controls without a negative_control (give the first as control)")
    object.__setattr__(claim, "more_controls", tuple(more))
    if not isinstance(claim.domain, Mapping):
        raise TypeError(f"{_who(cid)}: domain must be a mapping of variable names to ranges, "
                        f"got {_got(claim.domain)}")
    for name in claim.domain:
        if not isinstance(name, str):
            raise TypeError(f"{_who(cid)}: domain's variable names must be strings, got {_got(name)}")


def check_fields(check, *, EvidenceKind: type) -> None:  # noqa: N803
    """Check every field of a Check (called by ``Check.__post_init__``)."""
    name = check.name
    if not isinstance(name, str) or not name.strip():
        raise TypeError(f"a check's name must be a non-empty string, got {_got(name)}")
    if not isinstance(check.kind, EvidenceKind):
        kinds = ", ".join(k.value for k in EvidenceKind)
        raise TypeError(f"check {name!r}: kind must be an EvidenceKind ({kinds}), got {_got(check.kind)}")
    if not callable(check.run):
        raise TypeError(f"check {name!r}: run must be a callable taking a Context, got {_got(check.run)}")
    if not isinstance(check.description, str):
        raise TypeError(f"check {name!r}: description must be a string, got {_got(check.description)}")


def control_fields(control) -> None:
    """Check a NegativeControl's description and overrides (names of
    formulas mapped to callables)."""
    if not isinstance(control.description, str) or not control.description.strip():
        raise TypeError(f"negative control: the description must be a non-empty string saying what is wrong, "
                        f"got {_got(control.description)}")
    if not isinstance(control.overrides, Mapping):
        raise TypeError(f"negative control {control.description!r}: overrides must map formula names to "
                        f"callables, got {_got(control.overrides)}")
    for name, value in control.overrides.items():
        if not callable(value):
            raise TypeError(f"negative control {control.description!r}: the replacement for {name!r} must be "
                            f"a callable (a wrong variant of the formula), got {_got(value)}")
    aimed = control.aimed_at
    if isinstance(aimed, str) or not isinstance(aimed, (list, tuple)) or not all(
            isinstance(a, str) and a for a in aimed):
        raise TypeError(f"negative control {control.description!r}: aimed_at must be a sequence of check names, "
                        f"got {_got(aimed)}" + (f" (write ({aimed!r},))" if isinstance(aimed, str) else ""))
    spared = control.not_applicable
    if not isinstance(spared, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in spared.items()):
        raise TypeError(f"negative control {control.description!r}: not_applicable must map check names to the "
                        f"reason the control cannot reach that check (a non-empty string), got {_got(spared)}")


def controls_cover(claim) -> None:
    """Every check name a control aims at or spares is a check of the claim,
    and every check is run by some control or declared not applicable by one
    (with its reason): no check is left without a control by accident."""
    names = [c.name for c in claim.checks]
    controls = claim.controls
    for control in controls:
        for name in (*control.aimed_at, *control.not_applicable):
            if name not in names:
                raise ValueError(f"{_who(claim.id)}: negative control {control.description!r} names the check "
                                 f"{name!r}, which the claim does not have (its checks: {', '.join(names)})")
    for name in names:
        if not any(c.runs(name) or name in c.not_applicable for c in controls):
            raise ValueError(f"{_who(claim.id)}: no negative control runs the check {name!r} (each aims elsewhere); "
                             f"aim one at it, or say in a control's not_applicable why none can reach it")


# ---------------------------------------------------------------------------
# template arguments


def _mc_samples(cid: str, value: Any) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{cid}: mc_samples must be an int >= 2 (or None for the profile's), "
                        f"got {_got(value)}")
    if value < 2:
        raise ValueError(f"{cid}: mc_samples must be >= 2 (a variance needs two draws), got {value}")


def _sizes(cid: str, value: Any) -> None:
    if not isinstance(value, Mapping):
        raise TypeError(f"{cid}: sizes must be a mapping of profile levels (quick, standard, thorough) "
                        f"to sequences of sizes, got {_got(value)}")
    missing = sorted({"quick", "standard", "thorough"} - set(value))
    if missing:
        raise ValueError(f"{cid}: sizes must give every profile level (quick, standard, thorough), missing "
                         f"{missing}")
    for level, sizes in value.items():
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__len__") or not hasattr(sizes, "__iter__"):
            raise TypeError(f"{cid}: sizes[{level!r}] must be a list of sizes, got {_got(sizes)}")
        distinct = []
        for s in sizes:
            if s not in distinct:
                distinct.append(s)
        if len(distinct) < 2:
            raise ValueError(f"{cid}: sizes[{level!r}] must hold at least two distinct sizes (a trend "
                             f"needs a spread), got {_shown(list(sizes))}")


def _boundary(cid: str, value: Any) -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{cid}: boundary must be a list of (label, args) pairs, got {_got(value)}")
    for i, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            raise TypeError(f"{cid}: boundary[{i}] must be a (label, args) pair, got {_got(pair)}")
        label, args = pair
        if not isinstance(label, str) or not label.strip():
            raise TypeError(f"{cid}: boundary[{i}]'s label must be a non-empty string, got {_got(label)}")
        if not isinstance(args, (list, tuple)):
            raise TypeError(f"{cid}: boundary[{i}] ({label!r})'s args must be a tuple of the terms' "
                            f"arguments, got {_got(args)}")


def _control(cid: str, value: Any, types: dict) -> None:
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, types["NegativeControl"]) for v in value):
        return  # several controls, each aimed at checks
    if not isinstance(value, types["NegativeControl"]):
        raise TypeError(f"{cid}: control must be wrong('what is wrong', formula=callable) (or a sequence of them), "
                        f"got {_got(value)}")


def _callable(name: str, *, optional: bool):
    def check(cid: str, value: Any) -> None:
        if value is None and optional:
            return
        if not callable(value):
            raise TypeError(f"{cid}: {name} must be a callable{' (or None)' if optional else ''}, "
                            f"got {_got(value)}")
    return check


def _strings(name: str):
    def check(cid: str, value: Any) -> None:
        if isinstance(value, str):
            raise TypeError(f"{cid}: {name} must be a sequence of strings (a list or a tuple), got "
                            f"{_got(value)} (write ({value!r},))")
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"{cid}: {name} must be a sequence of strings (a list or a tuple), got {_got(value)}")
    return check


def _checks(cid: str, value: Any, types: dict) -> None:
    Check = types["Check"]  # noqa: N806
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{cid}: extra_checks must be a sequence of Check objects, got {_got(value)}")
    for i, check in enumerate(value):
        if not isinstance(check, Check):
            raise TypeError(f"{cid}: extra_checks[{i}] must be a Check, got {_got(check)}")


#: What a template argument of each name must be.
_ARGUMENTS: dict[str, Callable[[str, Any], None]] = {
    "assumptions": _strings("assumptions"),
    "depends_on": _strings("depends_on"),
    "tags": _strings("tags"),
    "extra_checks": _checks,
    "mc_samples": _mc_samples,
    "sizes": _sizes,
    "boundary": _boundary,
    "control": _control,
    "terms": _callable("terms", optional=False),
    "quantity": _callable("quantity", optional=False),
    "claimed": _callable("claimed", optional=False),
    "measure": _callable("measure", optional=False),
    "criterion": _callable("criterion", optional=False),
    "scale": _callable("scale", optional=True),
    "algebra": _callable("algebra", optional=True),
    "zero_mean": _callable("zero_mean", optional=True),
    "finish": _callable("finish", optional=True),
}


#: The arguments whose check needs the model's classes.
_TYPED = {"control", "extra_checks"}


def template_checker(*, Claim: type, Check: type, NegativeControl: type) -> Callable:  # noqa: N803
    """The decorator :func:`template_arguments` for the model's classes
    (given by the caller, so that this module imports nothing of theorems)."""
    import dataclasses

    types = {"Check": Check, "NegativeControl": NegativeControl,
             "fields": frozenset(f.name for f in dataclasses.fields(Claim))}
    return functools.partial(template_arguments, types=types)


def template_arguments(template: Callable, *, types: dict) -> Callable:
    """Decorate a claim template: its arguments are checked before it builds
    anything (see ``_ARGUMENTS``), and a keyword it does not know (neither
    its own nor a Claim field) is refused with the nearest names
    (``boundry=`` -> ``boundary``)."""
    signature = inspect.signature(template)
    own = [n for n, p in signature.parameters.items() if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)]
    takes_fields = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())

    @functools.wraps(template)
    def build(*args, **kwargs):
        first = args[0] if args else kwargs.get(own[0] if own else "id", "?")
        cid = f"check {first!r}" if own and own[0] == "name" else _who(first)
        known = set(own) | (set(types["fields"]) if takes_fields else set())
        for key in kwargs:
            if key not in known:
                close = difflib.get_close_matches(key, sorted(known), n=3, cutoff=0.6)
                hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
                raise TypeError(f"{cid}: {template.__name__}() got an unknown keyword {key!r}{hint}")
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{cid}: {template.__name__}(): {exc}") from None
        for name, value in bound.arguments.items():
            check = _ARGUMENTS.get(name)
            if check is not None:
                check(cid, value, types) if name in _TYPED else check(cid, value)
        return template(*args, **kwargs)

    return build
