"""The vocabulary of the game: powers, unit types, locations, units and phases.

Declared once here and used everywhere else, so that no module passes bare strings for
things that have a meaning.
"""

from __future__ import annotations

import dataclasses
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
        return f"{self.season._value_}{self.year}{self.kind._value_}"   # (an enum's value is a Python property)

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
        if self.season is _SPRING:
            return _phase(_FALL, self.year, _MOVEMENT)
        return _phase(_SPRING, self.year + 1, _MOVEMENT)

    def retreat(self) -> Phase:
        return _phase(self.season, self.year, _RETREAT)

    def adjustment(self) -> Phase:
        return _phase(_WINTER, self.year, _ADJUSTMENT)


def _phase(season: Season, year: int, kind: PhaseKind) -> Phase:
    """``Phase(season, year, kind)``, made faster (the fields filled directly) for the engine,
    which makes the next phase of every phase it adjudicates."""
    phase = object.__new__(Phase)
    phase.__dict__.update(season=season, year=year, kind=kind)
    return phase


# Enum members as module constants: looking one up on its class is slow in a hot loop.
_SPRING, _FALL, _WINTER = Season.SPRING, Season.FALL, Season.WINTER
_MOVEMENT, _RETREAT, _ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT


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

    def without_coast(self) -> Location:
        return Location(self.province) if self.coast else self


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
        return f"{self.power}: {self.type._value_} {self.location}"

    def __repr__(self) -> str:
        return f"Unit.parse({str(self)!r})"

    @property
    def short(self) -> str:
        """``A mun``: the unit without its power."""
        return f"{self.type._value_} {self.location}"

    def at(self, location: Location) -> Unit:
        """This unit standing at ``location`` (after a move)."""
        return Unit(self.power, self.type, location)


def fill_slots(cls: type) -> type:
    """Give the frozen dataclass ``cls`` (with slots, every field in ``__init__``, no default
    factory) an ``__init__`` of the same signature that fills each slot through its descriptor,
    in about half the time of the generated one, which calls ``object.__setattr__`` for each
    field: the engine and the grammar make these values for nearly every order."""
    fields = dataclasses.fields(cls)
    assert "__slots__" in cls.__dict__ and all(f.init and f.default_factory is dataclasses.MISSING for f in fields)
    names = [f.name for f in fields]
    setters = {f"_set_{name}": getattr(cls, name).__set__ for name in names}
    body = "".join(f"    _set_{name}(self, {name})\n" for name in names)
    namespace: dict = {}
    exec(f"def __init__(self, {', '.join(names)}):\n{body}", setters, namespace)
    init = namespace["__init__"]
    init.__defaults__ = tuple(f.default for f in fields if f.default is not dataclasses.MISSING) or None
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    return cls


fill_slots(Location)
fill_slots(Unit)
