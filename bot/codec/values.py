"""The JSON the tables keep for domain values: an order as its fields, read back without parsing.

An order is kept as an object of its fields, named as the order's dataclass names them, with
its type (``{"type": "Move", "power": "ENG", "unit_type": "F", "location": "lon",
"destination": "nth", "via_convoy": false}``): a unit type as its letter, a location as
``str(location)`` (``stp/nc``), an order given with a BRIBE as an object of its own. Reading it
back builds the same value field by field; no grammar and no notation is involved. Every order
type (:func:`adjudicator.modules.all_order_types`) is covered, whatever fields it has.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import Any
from collections.abc import Callable

from adjudicator.modules import all_order_types
from adjudicator.orders import Order
from adjudicator.vocab import Location, ProvinceId, UnitType

ORDER_TYPES: dict[str, type] = {cls.__name__: cls for cls in all_order_types()}
"""Every order type (the classic game's and every rule module's), by the name its JSON carries."""


def order_to_json(order: Order) -> dict[str, Any]:
    """``order`` as a JSON-ready object of its fields."""
    cls: type = type(order)
    out: dict[str, Any] = {"type": cls.__name__}
    for name in _names(cls):
        out[name] = _to_json(getattr(order, name))
    return out


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    """The names of an order type's fields, in order."""
    return tuple(f.name for f in dataclasses.fields(cls))


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, (str, int)):      # a power, a province id, a bid, a flag
        return value
    if isinstance(value, UnitType):
        return value.value
    if isinstance(value, Location):
        return str(value)
    if type(value).__name__ in ORDER_TYPES:
        return order_to_json(value)
    raise TypeError(f"an order field of an unknown kind: {value!r}")


def order_from_json(data: dict[str, Any]) -> Order:
    """The order :func:`order_to_json` wrote."""
    cls = ORDER_TYPES[data["type"]]
    return cls(**{name: read(data[name]) for name, read in _readers(cls)})


def _location(text: str) -> Location:
    province, _, coast = text.partition("/")
    return Location(ProvinceId(province), coast or None)


def _optional(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


def _reader(hint: Any) -> Callable[[Any], Any]:
    """How to read a field of type ``hint`` back from its JSON."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args and len(args) < len(typing.get_args(hint)):      # ``X | None``
        return _optional(_reader(args[0] if len(args) == 1 else typing.Union[tuple(args)]))  # noqa: UP007 (built at run time)
    if hint is UnitType:
        return UnitType
    if hint is Location:
        return _location
    if dataclasses.is_dataclass(hint) or any(dataclasses.is_dataclass(a) for a in args):
        return order_from_json      # an order given inside another (a BRIBE's)
    return lambda value: value      # a power, a province id, a number, a flag


@functools.cache
def _readers(cls: type) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((name, _reader(hints[name])) for name in _names(cls))
