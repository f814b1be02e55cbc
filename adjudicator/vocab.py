"""The vocabulary of the game: powers, unit types, locations, units and phases.

Declared once here and used everywhere else, so that no module passes bare strings for
things that have a meaning.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import NewType

Power = NewType("Power", str)
"""A power's code, three capital letters: ``ENG``, ``ANT``. ``NEU`` stands for the neutrals."""

ProvinceId = NewType("ProvinceId", str)
"""A province's canonical id, lower case: ``lon``, ``spa``."""

NEUTRAL = Power("NEU")


class _Vocabulary(enum.Enum):
    """The enums of the vocabulary. A member is its only instance and equals only itself, so
    it hashes by identity, in C (the Enum default hashes its name in Python, and the engine's
    tables are keyed by unit type on every order)."""

    __hash__ = object.__hash__


class UnitType(_Vocabulary):
    ARMY = "A"
    FLEET = "F"

    @classmethod
    def parse(cls, text: str) -> UnitType:
        try:
            return cls(text.strip().upper()[:1])
        except ValueError:
            raise ValueError(f"unit type must be A or F: {text!r}") from None

    @property
    def noun(self) -> str:
        return "army" if self is UnitType.ARMY else "fleet"

    @property
    def a_noun(self) -> str:
        """``an army``, ``a fleet``: the noun with its article, as reasons use it."""
        return "an army" if self is UnitType.ARMY else "a fleet"

    def __repr__(self) -> str:
        return f"UnitType.{self.name}"


class ProvinceKind(_Vocabulary):
    LAND = "land"
    COAST = "coast"
    SEA = "sea"


class Season(_Vocabulary):
    SPRING = "S"
    FALL = "F"
    WINTER = "W"


class PhaseKind(_Vocabulary):
    MOVEMENT = "M"
    RETREAT = "R"
    ADJUSTMENT = "B"


_PHASE_RE = re.compile(r"^([SFW])(\d{1,4})([MRB])$")
_SEASON_NAMES = {Season.SPRING: "Spring", Season.FALL: "Fall", Season.WINTER: "Winter"}
_KIND_NAMES = {PhaseKind.MOVEMENT: "Movement", PhaseKind.RETREAT: "Retreat", PhaseKind.ADJUSTMENT: "Adjustment"}
_SEASON_LETTERS = {season.value: season for season in Season}   # Season("S"), without the enum's call
_KIND_LETTERS = {kind.value: kind for kind in PhaseKind}
_SEASON_ORDER = {Season.SPRING: 0, Season.FALL: 1, Season.WINTER: 2}
_KIND_ORDER = {PhaseKind.MOVEMENT: 0, PhaseKind.RETREAT: 1, PhaseKind.ADJUSTMENT: 2}


@dataclass(frozen=True)
class Phase:
    """A phase as the e-mail judges write it: ``S1901M``, ``F1901R``, ``W1901B``."""

    season: Season
    year: int
    kind: PhaseKind

    @classmethod
    def parse(cls, text: str) -> Phase:
        m = _PHASE_RE.match(text.strip().upper()) if isinstance(text, str) else None
        if not m:
            raise ValueError(f"phase must look like S1901M, F1901R or W1901B: {text!r}")
        letter, year, kind_letter = m.groups()
        season, kind = _SEASON_LETTERS[letter], _KIND_LETTERS[kind_letter]
        phase = cls(season, int(year), kind)
        if (season is Season.WINTER) != (kind is PhaseKind.ADJUSTMENT):
            raise ValueError(f"only winter has an adjustment phase, and winter has nothing else: {text!r}")
        return phase

    def __str__(self) -> str:
        return f"{self.season.value}{self.year}{self.kind.value}"

    def __repr__(self) -> str:
        return f"Phase.parse({str(self)!r})"

    @property
    def sort_key(self) -> tuple[int, int, int]:
        return (self.year, _SEASON_ORDER[self.season], _KIND_ORDER[self.kind])

    def __lt__(self, other: Phase) -> bool:
        return self.sort_key < other.sort_key

    @property
    def long_name(self) -> str:
        """``Spring 1901 Movement``."""
        return f"{_SEASON_NAMES[self.season]} {self.year} {_KIND_NAMES[self.kind]}"

    def next_movement(self) -> Phase:
        if self.season is Season.SPRING:
            return Phase(Season.FALL, self.year, PhaseKind.MOVEMENT)
        return Phase(Season.SPRING, self.year + 1, PhaseKind.MOVEMENT)

    def retreat(self) -> Phase:
        return Phase(self.season, self.year, PhaseKind.RETREAT)

    def adjustment(self) -> Phase:
        return Phase(Season.WINTER, self.year, PhaseKind.ADJUSTMENT)


_LOCATION_RE = re.compile(r"^([a-z][a-z0-9]*)(?:\s*(?:/|\()\s*([a-z]{2})\s*\)?)?$")


@dataclass(frozen=True, order=True, slots=True)
class Location:
    """A province, and for a fleet on a split coast, the coast: ``spa/nc``."""

    province: ProvinceId
    coast: str | None = None

    @classmethod
    def parse(cls, text: str) -> Location:
        """Parse ``spa``, ``spa/nc`` or ``spa(nc)`` (ids only; names are the grammar's job)."""
        m = _LOCATION_RE.match(text.strip().lower()) if isinstance(text, str) else None
        if not m:
            raise ValueError(f"location must be a province id with an optional coast, like 'spa/nc': {text!r}")
        return cls(ProvinceId(m.group(1)), m.group(2))

    def __str__(self) -> str:
        return f"{self.province}/{self.coast}" if self.coast else self.province

    def __repr__(self) -> str:
        return f"Location.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit on the board: whose it is, what it is, where it stands."""

    power: Power
    type: UnitType
    location: Location

    @classmethod
    def parse(cls, text: str) -> Unit:
        """Parse ``"ENG: F lon"`` or ``"FRA: F spa/sc"``."""
        power, sep, rest = text.partition(":")
        parts = rest.split()
        if not sep or len(parts) != 2 or not re.fullmatch(r"[A-Z]{3}", power.strip()):
            raise ValueError(f"unit must look like 'ENG: F lon': {text!r}")
        return cls(Power(power.strip()), UnitType.parse(parts[0]), Location.parse(parts[1]))

    @property
    def province(self) -> ProvinceId:
        return self.location.province

    def __str__(self) -> str:
        return f"{self.power}: {self.type.value} {self.location}"

    def __repr__(self) -> str:
        return f"Unit.parse({str(self)!r})"

    @property
    def short(self) -> str:
        """``A mun``: the unit without its power. (Its location written out here, and its type's
        value read as the member keeps it: a phase's reasons name a dozen units.)"""
        loc, kind = self.location, self.type._value_
        return f"{kind} {loc.province}/{loc.coast}" if loc.coast else f"{kind} {loc.province}"

    def at(self, location: Location) -> Unit:
        """This unit standing at ``location`` (after a move)."""
        return Unit(self.power, self.type, location)
