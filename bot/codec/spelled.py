"""Orders and units spelled out for people: every province by its name, every power by its name.

The judge's notation (``str(order)``) is short and exact: ``A nic - lyd``, ``LEND ANT 1``. A
player reading an answer or a results post gets the same value in words:

    >>> from adjudicator.notation import read_order
    >>> from adjudicator.variant import get_variant
    >>> from adjudicator.vocab import Phase
    >>> crusader = get_variant("crusader")
    >>> spell(read_order("BYZ: A nic - lyd", crusader, phase=Phase.parse("F1101R")), crusader)
    'A Nicaea retreats to Lydia'
    >>> spell(read_order("JER: LEND ANT 1", crusader), crusader)
    'LEND 1 prestige to The Principality of Antioch'

The judge's reasons likewise (:func:`named`): ``dislodged by A ico (2 against 1)`` in the
command-line contract's documents, ``dislodged by A Iconium (2 against 1)`` to a player.

A pure function of values: the front ends (Discord, mail, the site) show orders this one way.
"""

from __future__ import annotations

from adjudicator.orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, UnitOrder,
                                Waive)
from adjudicator import modules
from adjudicator.results import Phrase
from adjudicator.turn import Duty
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Location, Power, Unit, UnitType

COASTS = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}


def place(location: Location, variant: Variant) -> str:
    """``Spain (north coast)``; an id the variant does not know stays as it is."""
    province = variant.provinces.get(location.province)
    name = province.name if province is not None else str(location.province)
    return f"{name} ({COASTS.get(location.coast, location.coast)})" if location.coast else name


def power_name(power: str | None, variant: Variant) -> str:
    """The power's name (``The Principality of Antioch``); the neutrals are ``the neutrals``."""
    if power == NEUTRAL:
        return "the neutrals"
    return variant.power_name(Power(power)) if power is not None and power in variant.powers else str(power)


def _unit(unit_type: UnitType | None, location: Location, variant: Variant) -> str:
    where = place(location, variant)
    return f"{unit_type.value} {where}" if unit_type is not None else where


def unit(u: Unit, variant: Variant) -> str:
    """``A Nicaea``."""
    return _unit(u.type, u.location, variant)


def spell(order: Order | UnitOrder, variant: Variant) -> str:
    """``order`` in words, without its power: ``A Paris - Burgundy``, ``A Nicaea retreats to Lydia``,
    ``Build F Acre``, ``LEND 1 prestige to The Kingdom of Jerusalem``."""
    match order:
        case Hold():
            return f"{_unit(order.unit_type, order.location, variant)} H"
        case Retreat():
            return f"{_unit(order.unit_type, order.location, variant)} retreats to {place(order.destination, variant)}"
        case Move():
            via = " by convoy" if order.via_convoy else ""
            return f"{_unit(order.unit_type, order.location, variant)} - {place(order.destination, variant)}{via}"
        case SupportHold():
            return (f"{_unit(order.unit_type, order.location, variant)} S "
                    f"{_unit(order.target_type, order.target, variant)}")
        case SupportMove():
            return (f"{_unit(order.unit_type, order.location, variant)} S "
                    f"{_unit(order.target_type, order.target, variant)} - {place(order.destination, variant)}")
        case Convoy():
            return (f"{_unit(order.unit_type, order.location, variant)} C "
                    f"{_unit(order.target_type, order.target, variant)} - {place(order.destination, variant)}")
        case Disband():
            return f"Disband {_unit(order.unit_type, order.location, variant)}"
        case Build():
            return f"Build {_unit(order.unit_type, order.location, variant)}"
        case Waive():
            return "Waive a build"
    words = modules.spell(order, names(variant))      # a rule module's order, in its words
    return words if words is not None else str(order)


class _Names:
    """How a rule module's words name places, powers, units and orders (:class:`adjudicator.modules.Names`)."""

    __slots__ = ("variant",)

    def __init__(self, variant: Variant) -> None:
        self.variant = variant

    def place(self, location: Location) -> str:
        return place(location, self.variant)

    def power(self, power: Power | None) -> str:
        return power_name(power, self.variant)

    def titled(self, power: Power) -> str:
        return f"{self.variant.power_name(power)} ({power})" if power in self.variant.powers else str(power)

    def unit(self, unit_type: UnitType | None, location: Location) -> str:
        return _unit(unit_type, location, self.variant)

    def owned(self, unit: Unit) -> str:
        variant = self.variant
        whose = "neutral" if unit.power == NEUTRAL else variant.powers[unit.power].name if unit.power in variant.powers \
            else unit.power
        return f"{_unit(unit.type, unit.location, variant)} ({whose})"

    def order(self, order: Order) -> str:
        return spell(order, self.variant)


def names(variant: Variant) -> modules.Names:
    """Places, powers, units and orders named in words on ``variant``'s map, for a rule module's words."""
    return _Names(variant)


def named(reason: str, variant: Variant) -> str:
    """A reason of the judge as a player reads it: a :class:`~adjudicator.results.Phrase`'s units
    and places by their names (``dislodged by A ico (2 against 1)`` -> ``dislodged by A Iconium (2
    against 1)``); any other text as it is. The one place a reason is put in words: every front
    end's results (the report, the archive site's orders) show reasons through it."""
    if not isinstance(reason, Phrase):
        return reason
    return "".join(p if isinstance(p, str) else unit(p, variant) if isinstance(p, Unit) else place(p, variant)
                   for p in reason.parts)


def _either(words: list[str], word: str = "or") -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {word} {words[-1]}"


def duty(todo: Duty, variant: Variant) -> list[str]:
    """What a power has to decide this phase (:class:`adjudicator.turn.Duty`), a line each:
    ``Units to order: A Antioch, A Aleppo (vassal)``, ``A Nicaea: retreat to Lydia or Bithynia,
    or disband``, ``Builds: 2, at Antioch or Aleppo (or waive)``, ``Units to remove: 1, of A Tarsus, A Antioch (with
    no order, civil disorder removes A Tarsus)``."""
    out = []
    if todo.units:
        why = {"vassal": " (vassal)", "bid": " (if your bid wins)"}
        out.append("Units to order: " + ", ".join(unit(c.unit, variant) + why.get(c.by, "") for c in todo.units))
    for u, options in todo.retreats:
        places = [place(o, variant) for o in options]
        out.append(f"{unit(u, variant)}: " + (f"retreat to {_either(places)}, or disband" if places else "disband"))
    if todo.builds:
        sites = [place(Location(s), variant) for s in todo.sites]
        out.append(f"Builds: {todo.builds}, at {_either(sites)} (or waive)")
    if todo.disbands:
        units = [unit(u, variant) for u in todo.removable]
        line = f"Units to remove: {todo.disbands}, of {', '.join(units)}"
        if len(units) > todo.disbands:
            line += f" (with no order, civil disorder removes {_either(units[:todo.disbands], 'and')})"
        out.append(line)
    return out
