"""Variants: a map as data (a TOML file in ``variants/``) plus a registry entry.

The file format is described in ``docs/map-format.md``. A :class:`Variant` answers every
question the rules ask of a map: who may move where, which coasts a province has, where the
supply centres are, and where each power starts.
"""

from __future__ import annotations

import functools
import tomllib
from collections import deque
from dataclasses import dataclass, field
from importlib import resources
from collections.abc import Iterable, Mapping
from typing import Any

from .vocab import NEUTRAL, Location, Phase, Power, ProvinceId, ProvinceKind, Unit, UnitType


class UnknownVariantError(ValueError):
    """The name is in no registry entry."""


class MapFileError(ValueError):
    """A map file breaks a rule of the format."""


@dataclass(frozen=True)
class Province:
    id: ProvinceId
    name: str
    kind: ProvinceKind
    supply_center: bool = False
    coasts: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    lat: float = 0.0
    lon: float = 0.0

    @property
    def is_sea(self) -> bool:
        return self.kind is ProvinceKind.SEA

    @property
    def is_land(self) -> bool:
        return self.kind is ProvinceKind.LAND


@dataclass(frozen=True)
class PowerInfo:
    code: Power
    name: str
    adjective: str
    home_centers: tuple[ProvinceId, ...]
    units: tuple[Unit, ...]
    colour: str = "#888888"


@dataclass(frozen=True, eq=False)
class Variant:
    """A map and its starting position. Build with :func:`get_variant` or :meth:`from_toml`."""

    name: str
    title: str
    start_phase: Phase
    victory_centers: int
    rules: frozenset[str]
    powers: Mapping[Power, PowerInfo]
    provinces: Mapping[ProvinceId, Province]
    neutral_units: tuple[Unit, ...]
    army_edges: frozenset[frozenset[ProvinceId]]
    fleet_edges: frozenset[frozenset[Location]]
    starting_owners: Mapping[ProvinceId, Power] = field(default_factory=dict)
    _army_adj: dict[ProvinceId, frozenset[ProvinceId]] = field(default_factory=dict, repr=False)
    _fleet_adj: dict[Location, frozenset[Location]] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return f"get_variant({self.name!r})"

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_toml(cls, text: str) -> Variant:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise MapFileError(f"not valid TOML: {exc}") from None
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Variant:
        meta = data["variant"]
        provinces: dict[ProvinceId, Province] = {}
        for pid, p in data["provinces"].items():
            if pid != pid.lower():
                raise MapFileError(f"province id must be lower case: {pid!r}")
            provinces[ProvinceId(pid)] = Province(
                id=ProvinceId(pid),
                name=p["name"],
                kind=ProvinceKind(p["kind"]),
                supply_center=bool(p.get("supply_center", False)),
                coasts=tuple(p.get("coasts", ())),
                aliases=tuple(p.get("aliases", ())),
                lat=float(p.get("lat", 0.0)),
                lon=float(p.get("lon", 0.0)),
            )

        def loc(text: str) -> Location:
            location = Location.parse(text)
            prov = provinces.get(location.province)
            if prov is None:
                raise MapFileError(f"unknown province {text!r}")
            if location.coast and location.coast not in prov.coasts:
                raise MapFileError(f"{prov.name} has no coast {location.coast!r}: {text!r}")
            return location

        def unit(power: Power, text: str) -> Unit:
            kind, _, where = text.partition(" ")
            return Unit(power, UnitType.parse(kind), loc(where))

        powers: dict[Power, PowerInfo] = {}
        for code, p in data["powers"].items():
            power = Power(code)
            homes = tuple(ProvinceId(h) for h in p["home_centers"])
            for h in homes:
                if h not in provinces or not provinces[h].supply_center:
                    raise MapFileError(f"{code}: home centre {h!r} is not a supply centre")
            powers[power] = PowerInfo(
                code=power,
                name=p["name"],
                adjective=p.get("adjective", p["name"]),
                home_centers=homes,
                units=tuple(unit(power, u) for u in p["units"]),
                colour=p.get("colour", "#888888"),
            )
        neutral_units = tuple(unit(NEUTRAL, u) for u in data.get("neutral", {}).get("units", ()))

        army_edges: set[frozenset[ProvinceId]] = set()
        for a, b in data["adjacency"].get("army", ()):
            la, lb = loc(a), loc(b)
            for x in (la, lb):
                if provinces[x.province].is_sea:
                    raise MapFileError(f"army border touches a sea: {a}-{b}")
            provs = frozenset((la.province, lb.province))
            if provs in army_edges or len(provs) != 2:
                raise MapFileError(f"army border listed twice or to itself: {a}-{b}")
            army_edges.add(provs)
        fleet_edges: set[frozenset[Location]] = set()
        for a, b in data["adjacency"].get("fleet", ()):
            la, lb = loc(a), loc(b)
            for x in (la, lb):
                prov = provinces[x.province]
                if prov.is_land:
                    raise MapFileError(f"fleet border touches a land province: {a}-{b}")
                if prov.coasts and not x.coast:
                    raise MapFileError(f"fleet border must name a coast of {prov.name}: {a}-{b}")
            edge = frozenset((la, lb))
            if edge in fleet_edges or len(edge) != 2:
                raise MapFileError(f"fleet border listed twice or to itself: {a}-{b}")
            fleet_edges.add(edge)

        owners: dict[ProvinceId, Power] = {}
        for info in powers.values():
            for h in info.home_centers:
                owners[h] = info.code
        for pid, code in data.get("supply_center_owners", {}).items():
            owners[ProvinceId(pid)] = Power(code)
        for pid, prov in provinces.items():
            if prov.supply_center and pid not in owners:
                owners[pid] = NEUTRAL

        army_adj: dict[ProvinceId, set[ProvinceId]] = {pid: set() for pid in provinces}
        for army_edge in army_edges:
            pa, pb = tuple(army_edge)
            army_adj[pa].add(pb)
            army_adj[pb].add(pa)
        fleet_adj: dict[Location, set[Location]] = {}
        for fleet_edge in fleet_edges:
            la, lb = tuple(fleet_edge)
            fleet_adj.setdefault(la, set()).add(lb)
            fleet_adj.setdefault(lb, set()).add(la)

        return cls(
            name=meta["name"],
            title=meta.get("title", meta["name"]),
            start_phase=Phase.parse(meta["start_phase"]),
            victory_centers=int(meta["victory_centers"]),
            rules=frozenset(meta.get("rules", ())),
            powers=powers,
            provinces=provinces,
            neutral_units=neutral_units,
            army_edges=frozenset(army_edges),
            fleet_edges=frozenset(fleet_edges),
            starting_owners=owners,
            _army_adj={k: frozenset(v) for k, v in army_adj.items()},
            _fleet_adj={k: frozenset(v) for k, v in fleet_adj.items()},
        )

    # -- questions the rules ask --------------------------------------------------------

    @functools.cached_property
    def supply_centers(self) -> frozenset[ProvinceId]:
        return frozenset(pid for pid, p in self.provinces.items() if p.supply_center)

    @functools.cached_property
    def starting_units(self) -> tuple[Unit, ...]:
        return tuple(u for p in self.powers.values() for u in p.units) + self.neutral_units

    def home_centers(self, power: Power) -> tuple[ProvinceId, ...]:
        info = self.powers.get(power)
        return info.home_centers if info else ()

    def power_name(self, power: Power) -> str:
        if power == NEUTRAL:
            return "Neutral"
        info = self.powers.get(power)
        return info.name if info else power

    def army_neighbours(self, province: ProvinceId) -> frozenset[ProvinceId]:
        return self._army_adj.get(province, frozenset())

    def fleet_neighbours(self, location: Location) -> frozenset[Location]:
        return self._fleet_adj.get(location, frozenset())

    def army_adjacent(self, a: ProvinceId, b: ProvinceId) -> bool:
        return b in self._army_adj.get(a, ())

    def fleet_adjacent(self, a: Location, b: Location) -> bool:
        return b in self._fleet_adj.get(a, ())

    def fleet_can_reach(self, source: Location, province: ProvinceId) -> tuple[str | None, ...]:
        """The coasts of ``province`` a fleet at ``source`` can move to (``None`` for no coast)."""
        return tuple(sorted((x.coast for x in self.fleet_neighbours(source) if x.province == province),
                            key=lambda c: c or ""))

    def adjacent(self, unit_type: UnitType, a: Location, b: Location) -> bool:
        """May a unit of this type move from ``a`` to ``b`` in one step (coasts respected)."""
        if unit_type is UnitType.ARMY:
            return self.army_adjacent(a.province, b.province)
        return self.fleet_adjacent(a, b)

    def province_neighbours(self, province: ProvinceId) -> frozenset[ProvinceId]:
        """Every province touching this one, for any unit type and any coast."""
        out = set(self._army_adj.get(province, ()))
        for coast in self.fleet_locations(province):
            out.update(x.province for x in self._fleet_adj.get(coast, ()))
        return frozenset(out)

    def fleet_locations(self, province: ProvinceId) -> tuple[Location, ...]:
        """Where a fleet can stand in this province: each split coast, the province, or nowhere."""
        prov = self.provinces[province]
        if prov.is_land:
            return ()
        if prov.coasts:
            return tuple(Location(province, c) for c in prov.coasts)
        return (Location(province),)

    def can_hold(self, unit_type: UnitType, location: Location) -> bool:
        """May a unit of this type stand at ``location`` (a fleet needs a named split coast)."""
        prov = self.provinces.get(location.province)
        if prov is None:
            return False
        if unit_type is UnitType.ARMY:
            return not prov.is_sea and location.coast is None
        return location in self.fleet_locations(location.province)

    def can_build_fleet(self, province: ProvinceId) -> bool:
        """A fleet can be built only where it could move to a sea."""
        return any(self._fleet_adj.get(x) for x in self.fleet_locations(province))

    def distances_to(self, targets: Iterable[ProvinceId], unit_type: UnitType) -> dict[ProvinceId, int]:
        """Civil-disorder distance from every province to the nearest of ``targets``.

        Counted in moves, where a unit may pass through any province of any kind (armies may
        be convoyed across seas, fleets may be thought to travel over land), as the rulebook
        says. ``unit_type`` is accepted for symmetry; both count the same way.
        """
        dist: dict[ProvinceId, int] = {}
        queue: deque[ProvinceId] = deque()
        for t in targets:
            if t not in dist:
                dist[t] = 0
                queue.append(t)
        while queue:
            here = queue.popleft()
            for nxt in self.province_neighbours(here):
                if nxt not in dist:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        return dist


VARIANT_FILES: dict[str, str] = {
    "standard": "standard.toml",
    "crusader": "crusader.toml",
}
VARIANT_ALIASES: dict[str, str] = {
    "classic": "standard",
    "outremer": "crusader",
}


_LOADED: dict[str, Variant] = {}
"""Each variant loaded so far, by its registered name: one object per variant for the life of
the process (the per-variant tables elsewhere are keyed by it)."""


def get_variant(name: str) -> Variant:
    """The registered variant called ``name`` (or one of its aliases, in any case and spacing)."""
    variant = _LOADED.get(name) if isinstance(name, str) else None
    if variant is not None:
        return variant
    key = name.strip().lower() if isinstance(name, str) else None
    key = VARIANT_ALIASES.get(key, key)
    filename = VARIANT_FILES.get(key)
    if filename is None:
        known = ", ".join(sorted(VARIANT_FILES))
        raise UnknownVariantError(f"unknown variant {name!r}; known variants: {known}")
    variant = _LOADED.get(key)
    if variant is None:     # loaded once; only registered names are kept, however a name is spelled
        text = resources.files("adjudicator.variants").joinpath(filename).read_text(encoding="utf-8")
        variant = _LOADED.setdefault(key, Variant.from_toml(text))
    return variant


def variant_names() -> list[str]:
    return sorted(VARIANT_FILES)
