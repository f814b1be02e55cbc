"""The fields of a position document (docs/cli.md), read as checked values.

The command line's codec (``bot.codec.documents``) and each rule module's part of it
(:attr:`adjudicator.modules.RuleModule.read_state`) read a document's fields with these: a value
of the right kind, or a :class:`~adjudicator.errors.DocumentError` whose message names the field
and says what it must be.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from .errors import DocumentError
from .variant import Variant
from .vocab import NEUTRAL, Power, ProvinceId

MAX_NUMBER = 10**9
"""The largest prestige (or count) a position document may give."""


def expect(cond: bool, message: str) -> None:
    """A :class:`DocumentError` with ``message`` unless ``cond``."""
    if not cond:
        raise DocumentError(message)


def power(variant: Variant, code: Any, where: str) -> Power:
    """A power code of ``variant`` (or ``NEU``)."""
    if code.__class__ is str and (code in variant.powers or code == NEUTRAL):
        return Power(code)
    expect(isinstance(code, str), f"{where}: a power code must be a string, got {code!r}")
    expect(code == NEUTRAL or code in variant.powers,
           f"{where}: unknown power {code!r}; {variant.name} has {', '.join(sorted(variant.powers))} and NEU")
    return Power(code)


def province(variant: Variant, pid: Any, where: str) -> ProvinceId:
    """A province id of ``variant`` (capitals and spaces around it forgiven)."""
    if pid.__class__ is str and pid in variant.provinces:
        return ProvinceId(pid)
    expect(isinstance(pid, str), f"{where}: a province id must be a string, got {pid!r}")
    key = pid.strip().lower()
    expect(key in variant.provinces, f"{where}: unknown province {pid!r}")
    return ProvinceId(key)


def a_list(doc: Mapping[str, Any], key: str) -> list[Any]:
    """``doc[key]``, a list (empty when the key is absent)."""
    value: list[Any] = doc.get(key, [])
    expect(isinstance(value, list), f"{key}: must be a list, got {type(value).__name__}")
    return value


def an_object(doc: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``doc[key]``, an object (empty when the key is absent)."""
    value: dict[str, Any] = doc.get(key, {})
    expect(isinstance(value, dict), f"{key}: must be an object, got {type(value).__name__}")
    return value


def whole_number(value: Any, where: str, *, low: int = 0, high: int = MAX_NUMBER) -> int:
    """``value`` if it is a whole number (not a boolean) from ``low`` to ``high``; else a
    :class:`DocumentError` saying what is accepted (a huge number shown by its size)."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return value
    shown = (repr(value) if not isinstance(value, int) or abs(value) < 10**30
             else f"a number of about {int(abs(value).bit_length() * 0.30103) + 1} digits")
    raise DocumentError(f"{where}: must be a whole number from {low:,} to {high:,}, got {shown}")
