"""The JSON documents of the command-line contract: positions in, results out.

A position document names a variant, a phase, the units and everything else a judge needs to
adjudicate a phase (see ``docs/cli.md``). These functions turn documents into domain values and
back, and :func:`adjudicate_document` runs one document through the grammar and the engine.
Every problem with a document is a :class:`DocumentError` with a one-line reason.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable, Mapping

from adjudicator.adjudicate import adjudicate
from adjudicator.orders import (
    Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, canonical,
)
from adjudicator.position import Dislodgement, Position, PrestigeState, starting_position
from adjudicator.results import Adjudication
from adjudicator.variant import UnknownVariantError, Variant, get_variant
from adjudicator.vocab import NEUTRAL, Location, Phase, PhaseKind, Power, ProvinceId, Unit, UnitType

POSITION_KEYS = frozenset({
    "variant", "rules", "phase", "units", "dislodged", "standoffs", "supply_centers", "orders",
    "prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "eliminated",
    # written by this judge so that a position can be fed back in unchanged
    "annihilations", "seed", "bribed",
})
PRESTIGE_KEYS = frozenset({"prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "annihilations",
                           "seed", "bribed"})
"""The keys only a position under the prestige rules may have."""
_REQUIRED_KEYS = frozenset({"variant", "phase", "units"})
DISLODGED_KEYS = frozenset({"unit", "from", "by_convoy"})
KNOWN_RULES = frozenset({"prestige"})

_UNIT_RE = re.compile(r"^\s*([A-Z]{3})\s*:\s*([AaFf])\s+([A-Za-z][A-Za-z0-9]*)\s*(?:(?:/|\()\s*([A-Za-z]{2})\s*\)?)?\s*$")


class DocumentError(ValueError):
    """A document that cannot be used: bad JSON shape, unknown variant, unknown province..."""


def _expect(cond: bool, message: str) -> None:
    if not cond:
        raise DocumentError(message)


def _power(variant: Variant, code: Any, where: str) -> Power:
    if code.__class__ is str and (code in variant.powers or code == NEUTRAL):
        return code
    _expect(isinstance(code, str), f"{where}: a power code must be a string, got {code!r}")
    _expect(code == NEUTRAL or code in variant.powers,
            f"{where}: unknown power {code!r}; {variant.name} has {', '.join(sorted(variant.powers))} and NEU")
    return Power(code)


def _province(variant: Variant, pid: Any, where: str) -> ProvinceId:
    if pid.__class__ is str and pid in variant.provinces:
        return pid
    _expect(isinstance(pid, str), f"{where}: a province id must be a string, got {pid!r}")
    key = pid.strip().lower()
    _expect(key in variant.provinces, f"{where}: unknown province {pid!r}")
    return ProvinceId(key)


@functools.cache
def _unit_table(variant: Variant) -> dict[tuple[str, str, str | None], tuple[UnitType, Location]]:
    """Every unit a province of ``variant`` can hold, as written in a document: (type letter
    as written, province id as written in lower case, coast as written or ``None``) -> (unit
    type, location). Armies are listed without a coast (a coast written for one is dropped)."""
    table = {}
    for pid, prov in variant.provinces.items():
        if not prov.is_sea:
            for letter in "Aa":
                table[letter, pid, None] = (UnitType.ARMY, Location(pid))
        for location in variant.fleet_locations(pid):
            coasts = (None,) if location.coast is None else (location.coast, location.coast.upper(),
                                                               location.coast.capitalize())
            for letter in "Ff":
                for coast in coasts:
                    table[letter, pid, coast] = (UnitType.FLEET, location)
    return table


@functools.cache
def _units_as_written(variant: Variant) -> dict[str, Unit]:
    """Every unit of ``variant`` in the spelling :func:`position_to_dict` writes
    (``"ENG: F stp/nc"``): the documents this judge writes are read back with one look-up."""
    table = {}
    for (letter, _, coast), (unit_type, location) in _unit_table(variant).items():
        if letter in "AF" and (coast is None or coast == location.coast):
            for power in (*variant.powers, NEUTRAL):
                unit = Unit(power, unit_type, location)
                table[str(unit)] = unit
    return table


def parse_unit(variant: Variant, text: Any, where: str = "units") -> Unit:
    """``"ENG: F lon"`` (also ``"FRA: F spa/sc"``, ``"FRA: F spa(sc)"``) checked against the map."""
    if text.__class__ is not str:
        return _parse_unit_checked(variant, text, where)
    unit = _units_as_written(variant).get(text)
    if unit is not None:
        return unit
    m = _UNIT_RE.match(text)
    if m is not None:
        code, letter, pid, coast = m.groups()
        if letter in "Aa":
            coast = None
        known = _unit_table(variant).get((letter, pid.lower(), coast))
        if known is not None and (code in variant.powers or code == NEUTRAL):
            return Unit(code, known[0], known[1])
    return _parse_unit_checked(variant, text, where)


def _parse_unit_checked(variant: Variant, text: Any, where: str) -> Unit:
    """:func:`parse_unit` for a unit the table does not know: the checks one by one."""
    _expect(isinstance(text, str), f"{where}: a unit must be a string like 'ENG: F lon', got {text!r}")
    m = _UNIT_RE.match(text)
    _expect(m is not None, f"{where}: a unit must look like 'ENG: F lon' or 'FRA: F spa/sc', got {text!r}")
    power = _power(variant, m.group(1), where)
    unit_type = UnitType.parse(m.group(2))
    province = _province(variant, m.group(3), f"{where} {text!r}")
    coast = m.group(4).lower() if m.group(4) else None
    prov = variant.provinces[province]
    if unit_type is UnitType.FLEET and prov.coasts and coast is None:
        raise DocumentError(f"{where}: {text!r} must name a coast of {prov.name} ({', '.join(prov.coasts)})")
    if unit_type is UnitType.ARMY:
        coast = None
    location = Location(province, coast)
    _expect(variant.can_hold(unit_type, location),
            f"{where}: {text!r}: {'an army' if unit_type is UnitType.ARMY else 'a fleet'} cannot stand in {prov.name}"
            + (f" (coast {coast!r})" if coast else ""))
    return Unit(power, unit_type, location)


def _list(doc: Mapping, key: str) -> list:
    value = doc.get(key, [])
    _expect(isinstance(value, list), f"{key}: must be a list, got {type(value).__name__}")
    return value


def _dict(doc: Mapping, key: str) -> dict:
    value = doc.get(key, {})
    _expect(isinstance(value, dict), f"{key}: must be an object, got {type(value).__name__}")
    return value


def _int(value: Any, where: str) -> int:
    _expect(isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            f"{where}: must be a whole number of at least 0, got {value!r}")
    return value


@functools.cache
def _supply_centres(variant: Variant) -> frozenset[ProvinceId]:
    return frozenset(pid for pid, prov in variant.provinces.items() if prov.supply_center)


def position_from_dict(doc: Any) -> tuple[Variant, Position]:
    """Read a position document (without looking at its ``orders``)."""
    _expect(isinstance(doc, dict), "a position document must be a JSON object")
    if not POSITION_KEYS.issuperset(doc):
        unknown = sorted(set(doc) - POSITION_KEYS)
        raise DocumentError(f"unknown key {unknown[0]!r} in the position document"
                            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    if not _REQUIRED_KEYS.issubset(doc):
        _expect("variant" in doc, "missing key 'variant' (standard or crusader)")
        _expect("phase" in doc, "missing key 'phase' (like S1901M)")
        _expect("units" in doc, "missing key 'units' (a list, may be empty)")
    if not isinstance(doc["variant"], str):
        raise DocumentError(f"variant must be a string, got {doc['variant']!r}")
    try:
        variant = get_variant(doc["variant"])
    except UnknownVariantError as exc:
        raise DocumentError(str(exc)) from None
    if not isinstance(doc["phase"], str):
        raise DocumentError(f"phase must be a string like S1901M, got {doc['phase']!r}")
    try:
        phase = Phase.parse(doc["phase"])
    except ValueError as exc:
        raise DocumentError(str(exc)) from None

    rules = _list(doc, "rules")
    for rule in rules:
        _expect(isinstance(rule, str) and rule in KNOWN_RULES,
                f"rules: unknown rule module {rule!r}; known: {', '.join(sorted(KNOWN_RULES))}")
    all_rules = frozenset(rules) | variant.rules

    units = _units(variant, _list(doc, "units"))
    owners = _owners(variant, _dict(doc, "supply_centers"))

    dislodged = []
    for entry in _list(doc, "dislodged"):
        _expect(isinstance(entry, dict), "dislodged: each entry must be an object with unit, from, by_convoy")
        extra = sorted(set(entry) - DISLODGED_KEYS)
        _expect(not extra, f"unknown key {extra[0]!r} in a dislodged entry" if extra else "")
        _expect("unit" in entry and "from" in entry, "dislodged: each entry needs 'unit' and 'from'")
        by_convoy = entry.get("by_convoy", False)
        _expect(isinstance(by_convoy, bool), "dislodged: by_convoy must be true or false")
        dislodged.append(Dislodgement(parse_unit(variant, entry["unit"], "dislodged"),
                                      _province(variant, entry["from"], "dislodged from"), by_convoy))
    _expect(not dislodged or phase.kind is PhaseKind.RETREAT, "dislodged: only a retreat phase has dislodged units")
    standoffs, eliminated = _list(doc, "standoffs"), _list(doc, "eliminated")
    standoffs = frozenset([_province(variant, p, "standoffs") for p in standoffs] if standoffs else ())
    eliminated = frozenset([_power(variant, p, "eliminated") for p in eliminated] if eliminated else ())

    position = Position(variant=variant.name, phase=phase, units=tuple(units), supply_centers=owners,
                        dislodged=tuple(dislodged), standoffs=standoffs, rules=all_rules, eliminated=eliminated)
    if "prestige" in all_rules:
        position = position.with_changes(prestige=_prestige_from_dict(variant, position, doc))
    elif not PRESTIGE_KEYS.isdisjoint(doc):
        present = sorted(PRESTIGE_KEYS.intersection(doc))
        raise DocumentError(f"{present[0]!r} needs the prestige rules: add \"rules\": [\"prestige\"]")
    return variant, position


def _units(variant: Variant, entries: list) -> list[Unit]:
    """The ``units`` of a document, each checked against the map, no two in one province."""
    written = _units_as_written(variant)
    try:
        units = [written.get(entry) for entry in entries]    # as this judge writes them: one look-up each
    except TypeError:       # an entry that is no string, and cannot even be looked up
        units = [None]
    if not all(units):      # (not ``None in units``, which would compare each unit with None)
        units = [parse_unit(variant, entry) for entry in entries]
    if len({unit.location.province for unit in units}) == len(units):
        return units
    seen: dict[ProvinceId, Unit] = {}
    for unit in units:
        if unit.location.province in seen:
            raise DocumentError(f"units: two units in {unit.province}: {seen[unit.province]} and {unit}")
        seen[unit.location.province] = unit
    return units


def _owners(variant: Variant, written: dict) -> dict[ProvinceId, Power]:
    """The owner of every supply centre: the variant's starting owners, changed as ``written``."""
    owners = dict(variant.starting_owners)
    centres = _supply_centres(variant)
    try:
        plain = centres.issuperset(written) and _owner_codes(variant).issuperset(written.values())
    except TypeError:       # an owner that is no string, and cannot even be looked up
        plain = False
    if plain:
        owners.update(written)      # ids and codes as this judge writes them: checked as sets
        return owners
    for pid, owner in written.items():
        if pid in centres and owner.__class__ is str and (owner in variant.powers or owner == NEUTRAL):
            owners[pid] = owner
            continue
        province = _province(variant, pid, "supply_centers")
        _expect(variant.provinces[province].supply_center, f"supply_centers: {pid!r} is not a supply centre")
        owners[province] = _power(variant, owner, f"supply_centers[{pid!r}]")
    return owners


@functools.cache
def _owner_codes(variant: Variant) -> frozenset[Power]:
    """The codes that may own a supply centre: the powers' and ``NEU``."""
    return frozenset(variant.powers) | {NEUTRAL}


def _prestige_from_dict(variant: Variant, position: Position, doc: Mapping) -> PrestigeState:
    from adjudicator.prestige import initial_state

    base = initial_state(variant, position)
    prestige = dict(base.prestige)
    for code, n in _dict(doc, "prestige").items():
        prestige[_power(variant, code, "prestige")] = _int(n, f"prestige[{code!r}]")
    start = dict(prestige)
    for code, n in _dict(doc, "prestige_start").items():
        start[_power(variant, code, "prestige_start")] = _int(n, f"prestige_start[{code!r}]")
    homes = dict(base.home_centers)
    for code, provs in _dict(doc, "home_centers").items():
        power = _power(variant, code, "home_centers")
        _expect(isinstance(provs, list), f"home_centers[{code!r}]: must be a list of province ids")
        homes[power] = tuple(_province(variant, p, f"home_centers[{code!r}]") for p in provs)
    neutral_homes = {}
    neutrals = {u.province: u for u in position.units if u.power == NEUTRAL}
    neutrals.update({d.unit.province: d.unit for d in position.dislodged if d.unit.power == NEUTRAL})
    for where, home in _dict(doc, "neutral_homes").items():
        unit_province = _province(variant, where.split("/")[0].split("(")[0], "neutral_homes")
        unit = neutrals.get(unit_province)
        _expect(unit is not None, f"neutral_homes: there is no neutral unit in {where!r}")
        neutral_homes[unit.location] = _province(variant, home, f"neutral_homes[{where!r}]")
    bribed = {}
    for where, briber in _dict(doc, "bribed").items():
        bribed[_province(variant, where, "bribed")] = _power(variant, briber, f"bribed[{where!r}]")
    vassals = {}
    for home, lord in _dict(doc, "vassals").items():
        vassals[_province(variant, home, "vassals")] = _power(variant, lord, f"vassals[{home!r}]")
    annihilations = {}
    for code, n in _dict(doc, "annihilations").items():
        _expect(isinstance(n, int) and not isinstance(n, bool), f"annihilations[{code!r}]: must be a whole number")
        annihilations[_power(variant, code, "annihilations")] = n
    seed = doc.get("seed", base.seed)
    _expect(isinstance(seed, int) and not isinstance(seed, bool), f"seed: must be a whole number, got {seed!r}")
    return PrestigeState(prestige=prestige, prestige_start=start, home_centers=homes,
                         neutral_homes=neutral_homes, vassals=vassals, annihilations=annihilations, seed=seed,
                         bribed=bribed)


def position_to_dict(position: Position, variant: Variant | None = None) -> dict[str, Any]:
    """The position document of ``position``, with ``orders`` empty."""
    variant = variant or get_variant(position.variant)
    doc: dict[str, Any] = {
        "variant": variant.name,
        "rules": sorted(position.rules - variant.rules),
        "phase": str(position.phase),
        "units": [_unit_text(u) for u in position.units],
    }
    if position.phase.kind is PhaseKind.RETREAT:
        doc["dislodged"] = [{"unit": str(d.unit), "from": d.attacker_from, "by_convoy": d.by_convoy}
                            for d in position.dislodged]
        doc["standoffs"] = sorted(position.standoffs)
    start = variant.starting_owners
    doc["supply_centers"] = dict(sorted((p, o) for p, o in position.supply_centers.items() if start.get(p) != o))
    if position.eliminated:
        doc["eliminated"] = sorted(position.eliminated)
    state = position.prestige
    if state is not None:
        doc["prestige"] = dict(sorted(state.prestige.items()))
        doc["prestige_start"] = dict(sorted(state.prestige_start.items()))
        doc["home_centers"] = {p: list(h) for p, h in sorted(state.home_centers.items())}
        doc["neutral_homes"] = {str(loc): home for loc, home in sorted(state.neutral_homes.items())}
        doc["vassals"] = dict(sorted(state.vassals.items()))
        if any(state.annihilations.values()):
            doc["annihilations"] = dict(sorted(state.annihilations.items()))
        doc["seed"] = state.seed
        if state.bribed:
            doc["bribed"] = dict(sorted(state.bribed.items()))
    doc["orders"] = []
    return doc


def _unit(unit_type: UnitType | None, location: Location) -> str:
    """``A par``, ``F stp/sc``, or ``par`` for a unit of no type; the type's letter read as
    ``_value_``, since an enum's ``value`` and its hash are Python code."""
    return _at(location) if unit_type is None else f"{unit_type._value_} {_at(location)}"


def _at(location: Location) -> str:
    return f"{location.province}/{location.coast}" if location.coast else location.province


def _unit_text(unit: Unit) -> str:
    """``str(unit)`` (``ENG: F stp/nc``), written out for the two dozen units of every position."""
    return f"{unit.power}: {unit.type._value_} {_at(unit.location)}"


_TEXTS = {
    Hold: lambda o: f"{o.power}: {_unit(o.unit_type, o.location)} H",
    Move: lambda o: (f"{o.power}: {_unit(o.unit_type, o.location)} - {_at(o.destination)}"
                     + (" via convoy" if o.via_convoy else "")),
    SupportHold: lambda o: f"{o.power}: {_unit(o.unit_type, o.location)} S {_unit(o.target_type, o.target)}",
    SupportMove: lambda o: (f"{o.power}: {_unit(o.unit_type, o.location)} S {_unit(o.target_type, o.target)}"
                            f" - {_at(o.destination)}"),
    Convoy: lambda o: (f"{o.power}: {_unit(o.unit_type, o.location)} C {_unit(o.target_type, o.target)}"
                       f" - {_at(o.destination)}"),
    Retreat: lambda o: f"{o.power}: {_unit(o.unit_type, o.location)} - {_at(o.destination)}",
    Disband: lambda o: f"{o.power}: {_unit(o.unit_type, o.location)} disband",
    Build: lambda o: f"{o.power}: {_unit(o.unit_type, o.location)} build",
}


def _hold_text(o: Hold) -> str:
    if o.location.coast is None and o.unit_type:
        return f"{o.power}: {o.unit_type._value_} {o.location.province} H"
    return _TEXTS[Hold](o)


def _move_text(o: Move) -> str:
    at, to = o.location, o.destination
    if at.coast is None and to.coast is None and o.unit_type and not o.via_convoy:
        return f"{o.power}: {o.unit_type._value_} {at.province} - {to.province}"
    return _TEXTS[Move](o)


def _support_hold_text(o: SupportHold) -> str:
    if o.location.coast is None and o.target.coast is None and o.unit_type and o.target_type:
        return f"{o.power}: {o.unit_type._value_} {o.location.province} S {o.target_type._value_} {o.target.province}"
    return _TEXTS[SupportHold](o)


def _support_move_text(o: SupportMove) -> str:
    at, target, to = o.location, o.target, o.destination
    if at.coast is None and target.coast is None and to.coast is None and o.unit_type and o.target_type:
        return (f"{o.power}: {o.unit_type._value_} {at.province} S {o.target_type._value_} {target.province}"
                f" - {to.province}")
    return _TEXTS[SupportMove](o)


# The commonest orders, where no place has a coast and every unit its type, in one f-string each.
_PLAIN_TEXTS = {**_TEXTS, Hold: _hold_text, Move: _move_text, SupportHold: _support_hold_text,
                SupportMove: _support_move_text}


def order_text(order: Order) -> str:
    """``canonical(order)`` (``ENG: F nth - pic``), written here without the enum and
    property look-ups of ``str(order)`` for the orders every phase is full of."""
    text = _PLAIN_TEXTS.get(order.__class__)
    return canonical(order) if text is None else text(order)


def result_to_dict(adjudication: Adjudication, order_texts: Iterable[str], parse_errors: Mapping[int, str],
                   variant: Variant) -> dict[str, Any]:
    """The result document: one entry per input order string, in input order."""
    texts = list(order_texts)
    results_iter = iter(adjudication.results)
    entries = []
    for i, text in enumerate(texts):
        if i in parse_errors:
            entries.append({"order": text, "canonical": None, "result": "invalid", "reason": parse_errors[i]})
            continue
        r = next(results_iter)
        entries.append({"order": text, "canonical": order_text(r.order), "result": r.outcome._value_,
                        "reason": r.reason})
    doc: dict[str, Any] = {
        "results": entries,
        "position": position_to_dict(adjudication.position, variant),
    }
    if adjudication.implicit:
        doc["implicit"] = [{"canonical": order_text(r.order), "result": r.outcome.value, "reason": r.reason}
                           for r in adjudication.implicit]
    if adjudication.events:
        doc["events"] = adjudication.events
    return doc


def adjudicate_document(doc: Any) -> dict[str, Any]:
    """Adjudicate one position document and return its result document."""
    from grammar import OrderError, parse_order

    variant, position = position_from_dict(doc)
    texts = _list(doc, "orders")
    # Only a retreat phase reads a move as something else (a retreat): the others need no phase.
    phase = position.phase if position.phase.kind is PhaseKind.RETREAT else None
    try:    # most documents: every line an order
        orders, errors = [parse_order(text, variant, phase=phase) for text in texts], {}
    except OrderError:  # (a line that is no string is an OrderError too, and a DocumentError below)
        orders, errors = [], {}
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise DocumentError(f"orders: each order must be a string like 'ENG: F nth - nwy', got {text!r}")
            try:
                orders.append(parse_order(text, variant, phase=phase))
            except OrderError as exc:
                errors[i] = str(exc)
    adjudication = adjudicate(variant, position, orders)
    return result_to_dict(adjudication, texts, errors, variant)


def new_game_document(variant_name: str, rules: Iterable[str] = ()) -> dict[str, Any]:
    """The opening position document of a variant."""
    try:
        variant = get_variant(variant_name)
    except UnknownVariantError as exc:
        raise DocumentError(str(exc)) from None
    return position_to_dict(starting_position(variant, rules), variant)
