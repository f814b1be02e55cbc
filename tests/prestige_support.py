"""Helpers for the prestige tests: positions on the classic map with the prestige rules on."""

from __future__ import annotations

from dataclasses import replace

from adjudicator.position import Position, starting_position
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Phase, Power, ProvinceId, Unit

STANDARD = get_variant("standard")


def board(phase: str = "S1907M", units: list[str] = (), centers: dict[str, str] | None = None, *,
          prestige: dict[str, int] | None = None, start: dict[str, int] | None = None,
          vassals: dict[str, str] | None = None, homes: dict[str, list[str]] | None = None,
          neutral_homes: dict[str, str] | None = None, eliminated: tuple[str, ...] = (),
          seed: int = 0, variant=STANDARD) -> Position:
    """A position: ``units`` like ``"NEU: A nwy"``, ``centers`` the owners that differ from the start."""
    base = starting_position(variant, ["prestige"])
    owners = dict(base.supply_centers)
    owners.update({ProvinceId(k): Power(v) for k, v in (centers or {}).items()})
    state = base.prestige
    now = dict(state.prestige)
    now.update(prestige or {})
    begun = dict(now)
    begun.update(start or {})
    home_centers = dict(state.home_centers)
    home_centers.update({Power(k): tuple(v) for k, v in (homes or {}).items()})
    state = replace(state, prestige=now, prestige_start=begun, home_centers=home_centers,
                    vassals={ProvinceId(k): Power(v) for k, v in (vassals or {}).items()},
                    neutral_homes={Location.parse(k): ProvinceId(v) for k, v in (neutral_homes or {}).items()},
                    seed=seed)
    return base.with_changes(phase=Phase.parse(phase), units=tuple(Unit.parse(u) for u in units),
                             supply_centers=owners, eliminated=frozenset(eliminated), prestige=state)


# -- orders in the rules text's notation (province ids), for tests -----------------------

from adjudicator.orders import (Bribe, Convoy, Disband, Hold, Lend, Move, Rebel, Retreat,  # noqa: E402
                                SecureLoyalty, SeizeFief, SupportHold, SupportMove, Vassal)
from adjudicator.vocab import UnitType  # noqa: E402


def _unit_order(power: Power, words: list[str], retreat: bool = False):
    t, loc, rest = UnitType.parse(words[0]), Location.parse(words[1]), words[2:]
    if not rest or rest == ["H"]:
        return Hold(power, t, loc)
    if rest[0] == "-":
        if retreat:
            return Retreat(power, t, loc, Location.parse(rest[1]))
        return Move(power, t, loc, Location.parse(rest[1]), via_convoy=rest[2:] == ["via", "convoy"])
    if rest == ["disband"]:
        return Disband(power, t, loc)
    kind, tt, target, tail = rest[0], UnitType.parse(rest[1]), Location.parse(rest[2]), rest[3:]
    if kind == "S" and not tail:
        return SupportHold(power, t, loc, tt, target)
    if kind == "S":
        return SupportMove(power, t, loc, tt, target, Location.parse(tail[1]))
    return Convoy(power, t, loc, tt, target, Location.parse(tail[1]))


def order(text: str, retreat: bool = False, variant=STANDARD):
    """``"FRA: VASSAL A nwy BID 3"``, ``"FRA: A nwy - swe"``, ``"RUS: LEND ENG 3"``, ...

    Read by the order grammar, as a player's message is; a move in a retreat phase is a retreat.
    """
    if not retreat:
        from grammar import parse_order

        return parse_order(text, variant)
    return _plain_order(text, retreat)


def _plain_order(text: str, retreat: bool = False):
    head, _, body = text.partition(":")
    power, words = Power(head.strip()), body.split()
    key = words[0].upper()
    if key == "VASSAL":
        return Vassal(power, UnitType.parse(words[1]), Location.parse(words[2]), int(words[4]))
    if key == "BRIBE":
        owner = None
        if words[1].isupper() and len(words[1]) == 3:
            owner, words = Power(words[1]), [words[0]] + words[2:]
        inner = _unit_order(power, words[5:]) if len(words) > 5 else None
        return Bribe(power, UnitType.parse(words[1]), Location.parse(words[2]), int(words[4]), owner, inner)
    if key == "SEIZE":
        return SeizeFief(power, ProvinceId(words[2]))
    if key == "REBEL":
        return Rebel(power, ProvinceId(words[1]), int(words[3]))
    if key == "SECURE":
        return SecureLoyalty(power, int(words[3]))
    if key == "LEND":
        return Lend(power, Power(words[1]), int(words[2]))
    return _unit_order(power, words, retreat)


def orders(*texts: str, retreat: bool = False, variant=STANDARD) -> list:
    return [order(t, retreat, variant) for t in texts]
