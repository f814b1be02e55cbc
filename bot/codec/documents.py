"""The JSON documents of the command-line contract: positions in, results out.

A position document names a variant, a phase, the units and everything else a judge needs to
adjudicate a phase (see ``docs/cli.md``). These functions turn documents into domain values and
back, and :func:`adjudicate_document` runs one document through the grammar and the engine.
Every problem with a document is a :class:`DocumentError` with a one-line reason.
"""

from __future__ import annotations

import functools
import re
from typing import Any
from collections.abc import Iterable, Mapping

from adjudicator.adjudicate import adjudicate
from adjudicator.errors import DocumentError
from adjudicator.notation import NotationError, read_order, read_unit
from adjudicator.orders import Order, canonical
from adjudicator.fields import a_list as _list, an_object as _dict, expect as _expect, power as _power
from adjudicator.fields import province as _province
from adjudicator.modules import all_rule_modules, known_rules, rule_modules, seeded
from adjudicator.opening import starting_position
from adjudicator.position import Dislodgement, Position
from adjudicator.results import Adjudication
from adjudicator.variant import UnknownVariantError, Variant, get_variant
from adjudicator.vocab import NEUTRAL, Location, Phase, PhaseKind, Power, ProvinceId, Unit, UnitType

from . import limits
from .events import events_to_json

CORE_KEYS = frozenset({"variant", "rules", "phase", "units", "dislodged", "standoffs", "supply_centers", "orders",
                       "eliminated"})
"""The keys of any position document; each rule module adds its own (``RuleModule.keys``)."""
_REQUIRED_KEYS = frozenset({"variant", "phase", "units"})
DISLODGED_KEYS = frozenset({"unit", "from", "by_convoy"})


@functools.cache
def _module_keys() -> dict[str, str]:
    """Each rule module's document keys: key -> the module's name."""
    return {key: module.name for module in all_rule_modules() for key in module.keys}

_UNIT_RE = re.compile(r"^\s*([A-Z]{3})\s*:\s*([AaFf])\s+([A-Za-z][A-Za-z0-9]*)\s*(?:(?:/|\()\s*([A-Za-z]{2})\s*\)?)?\s*$")



def parse_unit(variant: Variant, text: Any, where: str = "units") -> Unit:
    """``"ENG: F lon"`` (also ``"FRA: F spa/sc"``, ``"FRA: F spa(sc)"``) checked against the map."""
    try:
        return read_unit(text, variant)     # as this judge writes them
    except NotationError:
        return _parse_unit_checked(variant, text, where)


def _parse_unit_checked(variant: Variant, text: Any, where: str) -> Unit:
    """:func:`parse_unit` for a unit written otherwise: the checks one by one, each with its reason."""
    _expect(isinstance(text, str), f"{where}: a unit must be a string like 'ENG: F lon', got {text!r}")
    m = _UNIT_RE.match(text)
    if m is None:
        raise DocumentError(f"{where}: a unit must look like 'ENG: F lon' or 'FRA: F spa/sc', got {text!r}")
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


@functools.cache
def _supply_centres(variant: Variant) -> frozenset[ProvinceId]:
    return frozenset(pid for pid, prov in variant.provinces.items() if prov.supply_center)


def position_from_dict(doc: Any) -> tuple[Variant, Position]:
    """Read a position document (without looking at its ``orders``)."""
    _expect(isinstance(doc, dict), "a position document must be a JSON object")
    if not CORE_KEYS.issuperset(doc) and not _module_keys().keys() >= set(doc) - CORE_KEYS:
        unknown = sorted(set(doc) - CORE_KEYS - _module_keys().keys())
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
        _expect(isinstance(rule, str) and rule in known_rules(),
                f"rules: unknown rule module {rule!r}; known: {', '.join(sorted(known_rules()))}")
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
    written_standoffs, written_eliminated = _list(doc, "standoffs"), _list(doc, "eliminated")
    standoffs = frozenset(_province(variant, p, "standoffs") for p in written_standoffs)
    eliminated = frozenset(_power(variant, p, "eliminated") for p in written_eliminated)

    position = Position(variant=variant.name, phase=phase, units=tuple(units), supply_centers=owners,
                        dislodged=tuple(dislodged), standoffs=standoffs, rules=all_rules, eliminated=eliminated)
    modules = rule_modules(all_rules)
    for module in modules:
        if (read_state := module.read_state) is not None:  # (a module that keeps no state has none)
            position = position.with_module_state(module.name, read_state(variant, position, doc))
    if not CORE_KEYS.issuperset(doc):
        off = sorted(k for k in set(doc) - CORE_KEYS if _module_keys()[k] not in all_rules)
        if off:
            name = _module_keys()[off[0]]
            raise DocumentError(f"{off[0]!r} needs the {name} rules: add \"rules\": [\"{name}\"]")
    return variant, position


def _units(variant: Variant, entries: list) -> list[Unit]:
    """The ``units`` of a document, each checked against the map, no two in one province."""
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
            owners[pid] = Power(owner)
            continue
        province = _province(variant, pid, "supply_centers")
        _expect(variant.provinces[province].supply_center, f"supply_centers: {pid!r} is not a supply centre")
        owners[province] = _power(variant, owner, f"supply_centers[{pid!r}]")
    return owners


@functools.cache
def _owner_codes(variant: Variant) -> frozenset[Power]:
    """The codes that may own a supply centre: the powers' and ``NEU``."""
    return frozenset(variant.powers) | {NEUTRAL}


def position_to_dict(position: Position, variant: Variant | None = None) -> dict[str, Any]:
    """The position document of ``position``, with ``orders`` empty."""
    variant = variant or get_variant(position.variant)
    doc: dict[str, Any] = {
        "variant": variant.name,
        "rules": sorted(position.rules - variant.rules),
        "phase": str(position.phase),
        "units": [str(u) for u in position.units],
    }
    if position.phase.kind is PhaseKind.RETREAT:
        doc["dislodged"] = [{"unit": str(d.unit), "from": d.attacker_from, "by_convoy": d.by_convoy}
                            for d in position.dislodged]
        doc["standoffs"] = sorted(position.standoffs)
    start = variant.starting_owners
    doc["supply_centers"] = dict(sorted((p, o) for p, o in position.supply_centers.items() if start.get(p) != o))
    if position.eliminated:
        doc["eliminated"] = sorted(position.eliminated)
    for module in rule_modules(position.rules):
        if module.write_state is not None:
            doc.update(module.write_state(position))
    doc["orders"] = []
    return doc


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
        entries.append({"order": text, "canonical": canonical(r.order), "result": r.outcome._value_,
                        "reason": r.reason})
    doc: dict[str, Any] = {
        "results": entries,
        "position": position_to_dict(adjudication.position, variant),
    }
    if adjudication.implicit:
        doc["implicit"] = [{"canonical": canonical(r.order), "result": r.outcome.value, "reason": r.reason}
                           for r in adjudication.implicit]
    events = events_to_json(adjudication.events, adjudication.position.rules)
    if events:
        doc["events"] = events
    return doc


def adjudicate_document(doc: Any) -> dict[str, Any]:
    """Adjudicate one position document and return its result document."""
    return adjudicate_position(doc)[3]


def adjudicate_position(doc: Any) -> tuple[Variant, Position, Adjudication, dict[str, Any]]:
    """Adjudicate one position document: the variant, the position it held, the adjudication as
    values, and the result document."""
    variant, position = position_from_dict(doc)
    _expect(position.phase.kind is not PhaseKind.ADJUSTMENT or position.phase.year < limits.LAST_YEAR,
            f"phase {position.phase} is not adjudicated: the year after it would have five digits, and the phase "
            f"notation has four (W{limits.LAST_YEAR}B is the last phase a game reaches)")
    texts = _list(doc, "orders")
    orders, errors = read_orders(texts, variant, position.phase)
    adjudication = adjudicate(variant, position, orders)
    return variant, position, adjudication, result_to_dict(adjudication, texts, errors, variant)


def read_orders(texts: list, variant: Variant, phase: Phase) -> tuple[list[Order], dict[int, str]]:
    """The ``orders`` of a document: the orders read, and the reason for each line (by its
    index) that could not be read. An order as this judge writes it is read by the strict
    reader of that notation; any other goes to the players' grammar, which reads every
    notation the contract allows."""
    from grammar import OrderError, parse_order

    orders, errors = [], {}
    for i, text in enumerate(texts):
        if isinstance(text, str) and len(text) > limits.MAX_LINE:
            errors[i] = f"the order is {len(text):,} characters long; an order has at most {limits.MAX_LINE}"
            continue
        try:
            orders.append(read_order(text, variant, phase=phase))
            continue
        except NotationError:
            pass
        if not isinstance(text, str):
            raise DocumentError(f"orders: each order must be a string like 'ENG: F nth - nwy', got {text!r}")
        try:
            orders.append(parse_order(text, variant, phase=phase))
        except OrderError as exc:
            errors[i] = str(exc)
    return orders, errors


def new_game_document(variant_name: str, rules: Iterable[str] = (), *, seed: int | None = None) -> dict[str, Any]:
    """The opening position document of a variant; with ``seed``, its rule module's random draws
    seeded by it (:func:`adjudicator.modules.seeded`)."""
    try:
        variant = get_variant(variant_name)
    except UnknownVariantError as exc:
        raise DocumentError(str(exc)) from None
    position = starting_position(variant, rules)
    return position_to_dict(seeded(position, seed) if seed is not None else position, variant)
