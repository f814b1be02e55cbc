"""A phase's :class:`~adjudicator.events.Events` as the ``events`` of a result document, and back.

The keys, in the order written: the rule module's own for the phase (prestige: ``prestige`` (the
ledger), ``rebellions``, ``bribed``, ``vassals``); in a movement phase ``dislodged`` and
``standoffs`` (always) and ``annihilated``; in a retreat phase ``disbanded`` (always); after the
fall ``centers`` and the module's end of the year (``prestige_year``) and ``victory``; in an
adjustment phase ``built`` and ``removed`` (always); ``eliminated``. The same bytes the engine
wrote when its events were this JSON themselves (the command-line contract's result documents).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from adjudicator.events import Annihilation, CentreChange, Events
from adjudicator.modules import RuleModule, rule_modules
from adjudicator.notation import read_unit
from adjudicator.position import Dislodgement
from adjudicator.variant import Variant
from adjudicator.vocab import PhaseKind, Power, ProvinceId

MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT


def _module(rules: frozenset[str]) -> RuleModule | None:
    modules = rule_modules(rules)
    return modules[0] if modules else None


def events_to_json(events: Events, rules: frozenset[str]) -> dict[str, Any]:
    """The ``events`` of a result document (``rules``: the position's rule modules)."""
    module = _module(rules)
    doc: dict[str, Any] = {}
    if module is not None and module.write_events is not None:
        doc.update(module.write_events(events.rule))
    if events.kind is MOVEMENT:
        doc["dislodged"] = [{"unit": str(d.unit), "from": d.attacker_from, "by_convoy": d.by_convoy}
                            for d in events.dislodged]
        doc["standoffs"] = list(events.standoffs)
        if events.annihilated:
            doc["annihilated"] = [{"unit": str(a.unit), "by": a.by} for a in events.annihilated]
    elif events.kind is RETREAT:
        doc["disbanded"] = [str(u) for u in events.disbanded]
    if events.centres:
        doc["centers"] = [{"province": c.province, "from": c.before, "to": c.after} for c in events.centres]
    if module is not None and module.write_year is not None:
        doc.update(module.write_year(events.rule_year))
    if events.victory:
        doc["victory"] = list(events.victory)
    if events.kind is ADJUSTMENT:
        doc["built"] = [str(u) for u in events.built]
        doc["removed"] = [str(u) for u in events.removed]
    if events.eliminated:
        doc["eliminated"] = list(events.eliminated)
    return doc


def events_from_json(doc: Mapping[str, Any], kind: PhaseKind, variant: Variant, rules: frozenset[str]) -> Events:
    """The events :func:`events_to_json` wrote for a phase of kind ``kind``."""
    module = _module(rules)
    rule, year = (module.read_events(variant, doc) if module is not None and module.read_events is not None
                  else (None, None))

    def units(key: str) -> tuple[Any, ...]:
        return tuple(read_unit(u, variant) for u in doc.get(key) or ())

    return Events(
        kind,
        dislodged=tuple(Dislodgement(read_unit(d["unit"], variant), ProvinceId(d["from"]), bool(d["by_convoy"]))
                        for d in doc.get("dislodged") or ()),
        standoffs=tuple(ProvinceId(p) for p in doc.get("standoffs") or ()),
        annihilated=tuple(Annihilation(read_unit(a["unit"], variant), Power(a["by"]) if a.get("by") else None)
                          for a in doc.get("annihilated") or ()),
        disbanded=units("disbanded"),
        centres=tuple(CentreChange(ProvinceId(c["province"]), Power(c["from"]), Power(c["to"]))
                      for c in doc.get("centers") or ()),
        built=units("built"), removed=units("removed"),
        eliminated=tuple(Power(p) for p in doc.get("eliminated") or ()),
        victory=tuple(Power(p) for p in doc.get("victory") or ()),
        rule=rule, rule_year=year)
