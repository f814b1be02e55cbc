"""Neutral units under the prestige rules: the leash, the march home, random retreats.

A neutral unit nobody commands holds in its home centre, and away from home tries to go back
(2.4.7, 3.1; decision 16). A vassal may go no further than one province from its home
(2.4.4). A neutral nobody commands retreats at random (3.4), from a generator seeded by the
game's seed and the phase, so a phase replays identically (decision 17).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..orders import Hold, Move, UnitOrder
from ..variant import Variant
from ..vocab import NEUTRAL, Location, Phase, ProvinceId, Unit, UnitType
from .state import PrestigeState, neutral_home


def within_leash(variant: Variant, home: ProvinceId, province: ProvinceId) -> bool:
    """May a vassal whose home is ``home`` enter ``province`` (2.4.4)?"""
    return province == home or province in variant.province_neighbours(home)


def leash_reason(variant: Variant, home: ProvinceId) -> str:
    name = variant.provinces[home].name
    return f"a vassal may move only to its home centre {name} or a province next to it (rule 2.4.4)"


def home_location(variant: Variant, unit: Unit, home: ProvinceId) -> Location | None:
    """Where in ``home`` the unit could arrive in one move from where it stands, if it can."""
    if unit.type is UnitType.ARMY:
        return Location(home) if variant.army_adjacent(unit.province, home) else None
    coasts = variant.fleet_can_reach(unit.location, home)
    return Location(home, coasts[0]) if coasts else None


def default_order(variant: Variant, state: PrestigeState, unit: Unit) -> UnitOrder:
    """The order of a neutral unit nobody commands: hold at home, else move home when it can."""
    home = neutral_home(state, unit)
    if unit.province != home:
        target = home_location(variant, unit, home)
        if target is not None:
            return Move(NEUTRAL, unit.type, unit.location, target)
    return Hold(NEUTRAL, unit.type, unit.location)


def phase_rng(seed: int, phase: Phase) -> random.Random:
    """The generator for one phase: the same seed and phase always draw the same choices."""
    return random.Random(f"{seed}:{phase}")


def random_retreats(seed: int, phase: Phase,
                    choices: Iterable[tuple[Unit, Sequence[Location]]]) -> dict[Location, Location | None]:
    """A random retreat for each dislodged neutral unit (rule 3.4), ``None`` when it has none.

    Units are drawn in order of the province they stand in, each among its options sorted, so
    the draw depends on nothing but the seed, the phase and the board.
    """
    rng = phase_rng(seed, phase)
    out: dict[Location, Location | None] = {}
    for unit, options in sorted(choices, key=lambda c: str(c[0].location)):
        ordered = sorted(options, key=str)
        out[unit.location] = rng.choice(ordered) if ordered else None
    return out
