"""The order language: text in, order values out.

    >>> from adjudicator.variant import get_variant
    >>> from grammar import parse_order
    >>> str(parse_order("Army Paris moves to Burgundy", get_variant("standard"), "FRA"))
    'A par - bur'

- :func:`parse_order` reads one order line, :func:`parse_message` a whole message.
- :func:`parse_order_text` reads a line that need not say whose order it is.
- :func:`as_phase_order` turns a move into a retreat in a retreat phase.
- :func:`resolve_province`, :func:`resolve_power_name` and :func:`suggestions` are the name
  matching the grammar uses, for other layers (autocomplete, the CLI).

Errors are :class:`OrderError` (a :class:`~adjudicator.errors.CrusaderError` and a
``ValueError``): :class:`OrderSyntaxError`, :class:`UnknownNameError`,
:class:`AmbiguousNameError`. An order read but not allowed in a position is the engine's to
say, as a reason.
"""

from __future__ import annotations

from adjudicator.variant import Variant
from adjudicator.vocab import Location, Power, ProvinceId

from . import names as _names
from .errors import AmbiguousNameError, OrderError, OrderSyntaxError, UnknownNameError
from .message import MessageParse, ParsedLine, joined_order, parse_message
from adjudicator.notation import as_phase_order

from .parser import _variant, parse_order, parse_order_text
from .transform import NO_POWER, with_power


def resolve_province(name: str, variant: Variant | str) -> Location:
    """The location a player means by ``name``: an id, name, alias or unique start of one,
    with an optional coast (``"spa/nc"``, ``"St Petersburg (north coast)"``, ``"stp nc"``).

    Raises :class:`UnknownNameError` (with suggestions) or :class:`AmbiguousNameError`.
    """
    index = _names.name_index(_variant(variant))
    try:
        return _names.parse_location_text(index, name)
    except OrderError as err:
        raise err.located(name) from None


def resolve_power_name(name: str, variant: Variant | str) -> Power:
    """The power a player means by ``name``: code, name, adjective or a word of its name."""
    index = _names.name_index(_variant(variant))
    try:
        return _names.resolve_power(index, name)
    except OrderError as err:
        raise err.located(name) from None


def suggestions(name: str, variant: Variant | str, limit: int = 3) -> list[ProvinceId]:
    """Up to ``limit`` provinces a player may mean by ``name``, best first: an exact match,
    then those whose names start so, then those spelled alike (for autocomplete and "did
    you mean")."""
    return _names.province_suggestions(_names.name_index(_variant(variant)), name, limit)


__all__ = [
    "NO_POWER",
    "AmbiguousNameError",
    "MessageParse",
    "OrderError",
    "OrderSyntaxError",
    "ParsedLine",
    "UnknownNameError",
    "as_phase_order",
    "joined_order",
    "parse_message",
    "parse_order",
    "parse_order_text",
    "resolve_power_name",
    "resolve_province",
    "suggestions",
    "with_power",
]
