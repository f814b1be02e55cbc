"""The prestige part of a position: the opening state and small questions asked of it.

:class:`~adjudicator.position.PrestigeState` lives in ``position.py`` (a position carries it);
this module builds it and answers the questions the other prestige modules ask.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..position import Position, PrestigeState
from ..vocab import NEUTRAL, Location, Power, ProvinceId, Unit

STARTING_PRESTIGE = 2
"""Rule 2.2: every power begins the first year with two prestige."""


def initial_state(variant, position: Position, *, seed: int = 0) -> PrestigeState:
    """The prestige state of a fresh game: 2 prestige each, the variant's home centres.

    Every neutral unit stands in its own home, so ``neutral_homes`` starts empty. ``seed``
    drives the random neutral retreats (rule 3.4); a game stores it so that every phase can
    be replayed exactly.
    """
    powers = [p for p in variant.powers if p not in position.eliminated]
    prestige = {p: STARTING_PRESTIGE for p in powers}
    homes = {p: tuple(variant.home_centers(p)) for p in variant.powers}
    return PrestigeState(prestige=prestige, prestige_start=dict(prestige), home_centers=homes, seed=seed)


def state_of(position: Position) -> PrestigeState:
    """The position's prestige state, or an empty one when the position has none yet."""
    return position.prestige if position.prestige is not None else PrestigeState()


def neutral_home(state: PrestigeState, unit: Unit) -> ProvinceId:
    """Where a neutral unit belongs: its recorded home, else where it stands."""
    return state.neutral_homes.get(unit.location, unit.province)


def lord_of(state: PrestigeState, unit: Unit) -> Power | None:
    """The power holding this neutral unit in vassaldom this year, if any."""
    if unit.power != NEUTRAL:
        return None
    return state.vassals.get(neutral_home(state, unit))


def is_home_center(state: PrestigeState, power: Power, province: ProvinceId) -> bool:
    return province in state.home_centers.get(power, ())


def moved_homes(state: PrestigeState, moves: Mapping[Location, Location],
                removed: frozenset[Location] | set[Location] = frozenset()) -> dict[Location, ProvinceId]:
    """``neutral_homes`` after neutral units moved (``moves``: from -> to) or left the board.

    ``moves`` must name only neutral units; every neutral unit not named stays where it was.
    Entries for a unit standing in its own home are dropped (the default says it already).
    """
    homes: dict[Location, ProvinceId] = {}
    moving = set(moves)
    for loc, home in state.neutral_homes.items():
        if loc not in moving and loc not in removed:
            homes[loc] = home
    for src, dst in moves.items():
        home = state.neutral_homes.get(src, src.province)
        if dst.province != home:
            homes[dst] = home
        else:
            homes.pop(dst, None)
    return homes


def with_state(position: Position, **changes) -> Position:
    """The position with its prestige state changed (an immutable copy)."""
    return position.with_changes(prestige=replace(state_of(position), **changes))
