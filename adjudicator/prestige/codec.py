"""The prestige part of a position document (docs/cli.md): its keys read into a
:class:`~.state.PrestigeState` and written back, so that the judge reads every position it writes.

``prestige``, ``prestige_start``, ``home_centers``, ``neutral_homes``, ``vassals`` (by the home of
the neutral; ``vassal_units`` by where it stands, for neutral units that share a home), and the
judge's own ``annihilations``, ``seed`` and (in a retreat phase) ``bribed``. In a retreat phase,
``dislodged_homes`` and ``dislodged_vassals`` give the home and the lord of each dislodged neutral
unit by where it was dislodged (the unit that dislodged it stands there too); ``neutral_homes``,
``vassals`` and ``vassal_units`` then name the units on the board, and a dislodged neutral only
where no neutral unit stands on the board (as documents written before these two keys did).
Every key may be left out: it then says what a fresh game says.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from ..fields import MAX_NUMBER, an_object, expect, power, province, whole_number
from ..notation import read_order, read_unit
from ..position import Position
from ..variant import Variant
from ..vocab import NEUTRAL, Location, Power, ProvinceId, Unit
from .events import Account, PrestigeEvents, PrestigeYear, Spending
from .state import (PrestigeState, initial_state, lord_of, neutral_home, state_of, vassals_by_home,
                    vassals_from_homes)

KEYS = frozenset({"prestige", "prestige_start", "home_centers", "neutral_homes", "vassals", "annihilations",
                  "seed", "bribed", "vassal_units", "dislodged_homes", "dislodged_vassals"})
"""The keys only a position under the prestige rules may have."""


def read_state(variant: Variant, position: Position, doc: Mapping[str, Any]) -> PrestigeState:
    """The prestige state a document gives ``position`` (its units and phase already read)."""
    base = initial_state(variant, position)
    prestige = dict(base.prestige)
    for code, n in an_object(doc, "prestige").items():
        prestige[power(variant, code, "prestige")] = whole_number(n, f"prestige[{code!r}]")
    start = dict(prestige)
    for code, n in an_object(doc, "prestige_start").items():
        start[power(variant, code, "prestige_start")] = whole_number(n, f"prestige_start[{code!r}]")
    homes = dict(base.home_centers)
    for code, provs in an_object(doc, "home_centers").items():
        owner = power(variant, code, "home_centers")
        expect(isinstance(provs, list), f"home_centers[{code!r}]: must be a list of province ids")
        homes[owner] = tuple(province(variant, p, f"home_centers[{code!r}]") for p in provs)
    board = {u.province: u for u in position.units if u.power == NEUTRAL}
    dislodged = {d.unit.province: d.unit for d in position.dislodged if d.unit.power == NEUTRAL}

    def neutral_at(where: Any, key: str, *, on_board: bool = True) -> tuple[Unit, bool]:
        """The neutral unit ``where`` names (a key of ``key``), and whether it is a dislodged one."""
        p = province(variant, where.split("/")[0].split("(")[0], key)
        if on_board and p in board:
            return board[p], False
        expect(p in dislodged, f"{key}: there is no {'' if on_board else 'dislodged '}neutral unit in {where!r}")
        return dislodged[p], True

    neutral_homes: dict[Location, ProvinceId] = {}
    dislodged_homes = {u.location: u.province for u in dislodged.values()}
    for key, on_board in (("neutral_homes", True), ("dislodged_homes", False)):
        for where, home in an_object(doc, key).items():
            unit, moved = neutral_at(where, key, on_board=on_board)
            (dislodged_homes if moved else neutral_homes)[unit.location] = province(variant, home, f"{key}[{where!r}]")
    bribed = {}
    for where, briber in an_object(doc, "bribed").items():
        bribed[province(variant, where, "bribed")] = power(variant, briber, f"bribed[{where!r}]")
    by_home = {province(variant, home, "vassals"): power(variant, lord, f"vassals[{home!r}]")
               for home, lord in an_object(doc, "vassals").items()}
    vassals = vassals_from_homes(PrestigeState(neutral_homes=neutral_homes), list(board.values()), by_home)
    dislodged_vassals = vassals_from_homes(PrestigeState(neutral_homes=dislodged_homes), list(dislodged.values()),
                                           by_home)
    for key, on_board in (("vassal_units", True), ("dislodged_vassals", False)):
        for where, lord in an_object(doc, key).items():
            unit, moved = neutral_at(where, key, on_board=on_board)
            (dislodged_vassals if moved else vassals)[unit.location] = power(variant, lord, f"{key}[{where!r}]")
    annihilations = {}
    for code, n in an_object(doc, "annihilations").items():
        annihilations[power(variant, code, "annihilations")] = whole_number(n, f"annihilations[{code!r}]",
                                                                            low=-MAX_NUMBER)
    seed = whole_number(doc.get("seed", base.seed), "seed", low=-2**63, high=2**63 - 1)
    return PrestigeState(prestige=prestige, prestige_start=start, home_centers=homes,
                         neutral_homes=neutral_homes, vassals=vassals, annihilations=annihilations, seed=seed,
                         bribed=bribed, dislodged_homes=dislodged_homes, dislodged_vassals=dislodged_vassals)


def write_state(position: Position) -> dict[str, Any]:
    """The document keys of ``position``'s prestige state, in the order documents write them."""
    state = state_of(position)
    doc: dict[str, Any] = {
        "prestige": dict(sorted(state.prestige.items())),
        "prestige_start": dict(sorted(state.prestige_start.items())),
        "home_centers": {p: list(h) for p, h in sorted(state.home_centers.items())},
        "neutral_homes": {str(loc): home for loc, home in sorted(state.neutral_homes.items())},
    }
    board = [u for u in position.units if u.power == NEUTRAL]
    dislodged = [d.unit for d in position.dislodged if d.unit.power == NEUTRAL]
    by_home, by_location = vassals_by_home(state, board, dislodged)
    doc["vassals"] = dict(sorted(by_home.items()))
    if by_location:     # neutral units that share a home: each named where it stands
        doc["vassal_units"] = {str(loc): lord for loc, lord in sorted(by_location.items())}
    # dislodged neutrals, each named where it was dislodged (the unit that dislodged it stands there too)
    away = {str(u.location): home for u in dislodged if (home := neutral_home(state, u, dislodged=True)) != u.province}
    if away:
        doc["dislodged_homes"] = dict(sorted(away.items()))
    lords = {str(u.location): lord for u in dislodged if (lord := lord_of(state, u, dislodged=True)) is not None}
    if lords:
        doc["dislodged_vassals"] = dict(sorted(lords.items()))
    if any(state.annihilations.values()):
        doc["annihilations"] = dict(sorted(state.annihilations.items()))
    doc["seed"] = state.seed
    if state.bribed:
        doc["bribed"] = dict(sorted(state.bribed.items()))
    return doc


# -- its part of a result document's events ---------------------------------------------------

EVENT_KEYS = ("prestige", "rebellions", "bribed", "vassals")
"""The result document's ``events`` keys of a movement phase's :class:`~.events.PrestigeEvents`;
``prestige_year`` is the end of the year's :class:`~.events.PrestigeYear`."""


def write_events(rule: object | None) -> dict[str, Any]:
    """The ``events`` keys of a movement phase's prestige events, in the order documents write them."""
    if not isinstance(rule, PrestigeEvents):
        return {}
    doc: dict[str, Any] = {"prestige": {
        p: {"start": a.start, "received": a.received,
            "spent": [{"order": str(s.order), "amount": s.amount} for s in a.spent], "left": a.left}
        for p, a in rule.ledger.items()}}
    if rule.rebellions:
        doc["rebellions"] = list(rule.rebellions)
    if rule.bribed:
        doc["bribed"] = dict(rule.bribed)
    if rule.vassals:
        doc["vassals"] = dict(rule.vassals)
    return doc


def write_year(year: object | None) -> dict[str, Any]:
    """The ``prestige_year`` key of the end of a year."""
    if not isinstance(year, PrestigeYear):
        return {}
    doc: dict[str, Any] = {"centers": dict(year.centres), "award": dict(year.award),
                           "annihilations": dict(year.annihilations), "prestige": dict(year.prestige),
                           "disbanded": [str(u) for u in year.disbanded]}
    if year.fiefs_lost:
        doc["fiefs_lost"] = {p: list(c) for p, c in year.fiefs_lost.items()}
    return {"prestige_year": doc}


def read_events(variant: Variant, doc: Mapping[str, Any]) -> tuple[PrestigeEvents | None, PrestigeYear | None]:
    """The prestige events a result document's ``events`` give (what :func:`write_events` and
    :func:`write_year` wrote)."""
    rule = None
    if "prestige" in doc:
        ledger = {}
        for code, a in an_object(doc, "prestige").items():
            p = power(variant, code, "events.prestige")
            spent = tuple(Spending(read_order(f"{p}: {s['order']}", variant), whole_number(s["amount"], "amount"))
                          for s in a["spent"])
            ledger[p] = Account(start=a["start"], received=a["received"], spent=spent, left=a["left"])
        rule = PrestigeEvents(ledger=ledger,
                              rebellions=tuple(province(variant, c, "events.rebellions")
                                               for c in doc.get("rebellions") or ()),
                              bribed={province(variant, c, "events.bribed"): power(variant, b, "events.bribed")
                                      for c, b in an_object(doc, "bribed").items()},
                              vassals={province(variant, c, "events.vassals"): power(variant, b, "events.vassals")
                                       for c, b in an_object(doc, "vassals").items()})
    year = None
    if "prestige_year" in doc:
        y = an_object(doc, "prestige_year")

        def counts(key: str) -> dict[Power, int]:
            return {power(variant, c, key): int(n) for c, n in an_object(y, key).items()}

        year = PrestigeYear(centres=counts("centers"), award=counts("award"), annihilations=counts("annihilations"),
                            prestige=counts("prestige"),
                            disbanded=tuple(read_unit(u, variant) for u in y.get("disbanded") or ()),
                            fiefs_lost={power(variant, c, "fiefs_lost"): tuple(ps)
                                        for c, ps in an_object(y, "fiefs_lost").items()})
    return rule, year
