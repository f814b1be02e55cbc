"""A season: one adjudicated phase as values, and the two JSON forms it takes.

:class:`Season` is what the service hands to whatever shows a phase's results (the results
post, the season report, the archive site): the board the phase began from, the orders each
power had standing, the :class:`~adjudicator.results.Adjudication` (results, the judge's own
orders, events, the next position) and the book-keeping around them. Nothing that reads one
reads JSON.

The tables keep a season as JSON through :func:`season_columns` and :func:`season_from_row`:
positions as the command-line contract's position documents (:mod:`bot.codec.documents`),
orders and results as values (:mod:`bot.codec.values`), so that reading a season back parses no
text. An export keeps a season as the contract's documents (:func:`season_document`: the result
document ``crusader adjudicate`` writes for the same position and orders, which ``crusader
verify`` recomputes); :func:`season_from_document` reads one back, reading each order's text
once with the reader of position documents.

A reason that names units or places is a :class:`~adjudicator.results.Phrase`: the tables keep
its parts beside its text (``phrase``), so that it reads back as the same value; the contract's
documents have the text alone, and :func:`with_phrases` makes the values again by adjudicating
the phase again (an import does). A season stored before the tables kept the parts reads back
with its reasons as text, which the front ends show as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from collections.abc import Mapping

from adjudicator.orders import Order, canonical
from adjudicator.position import Position
from adjudicator.adjudicate import adjudicate
from adjudicator.notation import read_unit
from adjudicator.results import Adjudication, OrderResult, Outcome, Part, Phrase
from adjudicator.variant import Variant
from adjudicator.events import Events
from adjudicator.vocab import Location, Phase, PhaseKind, Power, Unit

from .events import events_from_json, events_to_json
from .documents import DocumentError, position_from_dict, position_to_dict, read_orders, result_to_dict
from .values import order_from_json, order_to_json


@dataclass(frozen=True)
class GivenOrder:
    """An order a power had standing when its phase was adjudicated: as written, and as understood."""

    power: Power
    written: str
    order: Order
    key: str = ""
    seq: int = 0
    submitted_at: datetime | None = None


@dataclass(frozen=True)
class Season:
    """One adjudicated phase of a game.

    ``adjudication.results`` has one result per order of ``orders``, in the same order;
    ``adjudication.implicit`` the judge's own orders (units nobody ordered hold...);
    ``adjudication.position`` the board after. ``players`` is the players as they stood before
    the phase (what a rollback restores); ``nmr`` the powers that had to order and did not.
    """

    game: str
    version: int
    variant: Variant
    position: Position
    orders: tuple[GivenOrder, ...]
    adjudication: Adjudication
    nmr: tuple[Power, ...] = ()
    players: tuple[Mapping[str, Any], ...] = ()
    seed: int = 0
    deadline_at: datetime | None = None
    adjudicated_at: datetime | None = None
    adjudicated_by: str = ""
    picture: bytes | None = None

    @property
    def phase(self) -> Phase:
        return self.position.phase

    @property
    def after(self) -> Position:
        """The board after the phase (the next phase's)."""
        return self.adjudication.position

    @property
    def results(self) -> tuple[OrderResult, ...]:
        return self.adjudication.results

    @property
    def events(self) -> Events:
        return self.adjudication.events

    @property
    def at_once(self) -> bool:
        """Was the phase adjudicated as soon as it began, nobody having anything to decide in it?"""
        return self.adjudicated_by.endswith(":nothing to decide")


# -- as the tables keep it --------------------------------------------------------------------


def _result_to_json(result: OrderResult) -> dict[str, Any]:
    """A result as the tables keep it: a reason that is a :class:`Phrase` keeps its parts beside
    its text (``phrase``: words, ``{"unit": "RUM: A ico"}``, ``{"location": "spa/nc"}``), for the
    front ends to name them."""
    out: dict[str, Any] = {"order": order_to_json(result.order), "outcome": result.outcome.value,
                           "reason": result.reason}
    if isinstance(result.reason, Phrase):
        out["phrase"] = [_part_to_json(p) for p in result.reason.parts]
    return out


def _part_to_json(part: Part) -> str | dict[str, str]:
    if isinstance(part, str):
        return part
    return {"unit": str(part)} if isinstance(part, Unit) else {"location": str(part)}


def _result_from_json(data: Mapping[str, Any], variant: Variant) -> OrderResult:
    """The result :func:`_result_to_json` wrote; the reason a :class:`Phrase` again when its parts
    were kept (a season stored before they were has the text alone, which the front ends show as
    it is)."""
    reason = data["reason"]
    if "phrase" in data:
        phrase = Phrase(*(_part_from_json(p, variant) for p in data["phrase"]))
        if phrase == reason:
            reason = phrase
    return OrderResult(order_from_json(data["order"]), Outcome(data["outcome"]), reason)


def _part_from_json(part: str | Mapping[str, str], variant: Variant) -> Part:
    if isinstance(part, str):
        return part
    return read_unit(part["unit"], variant) if "unit" in part else Location.parse(part["location"])


def adjudication_to_json(adjudication: Adjudication, variant: Variant) -> dict[str, Any]:
    """An adjudication as the tables keep it: results as values, the next position as its document."""
    return {"results": [_result_to_json(r) for r in adjudication.results],
            "implicit": [_result_to_json(r) for r in adjudication.implicit],
            "events": events_to_json(adjudication.events, adjudication.position.rules),
            "position": position_to_dict(adjudication.position, variant)}


def adjudication_from_json(data: Mapping[str, Any], kind: PhaseKind) -> Adjudication:
    """The adjudication :func:`adjudication_to_json` wrote for a phase of kind ``kind``."""
    variant, after = position_from_dict(_board(data["position"]))
    return Adjudication(results=tuple(_result_from_json(r, variant) for r in data["results"]), position=after,
                        implicit=tuple(_result_from_json(r, variant) for r in data["implicit"]),
                        events=events_from_json(data["events"], kind, variant, after.rules))


def _given_to_json(given: GivenOrder) -> dict[str, Any]:
    return {"power": given.power, "text": given.written, "order": order_to_json(given.order), "key": given.key,
            "seq": given.seq, "submitted_at": _iso(given.submitted_at)}


def _given_from_json(data: Mapping[str, Any]) -> GivenOrder:
    return GivenOrder(data["power"], data["text"], order_from_json(data["order"]), data["key"], data["seq"],
                      _time(data["submitted_at"]))


def season_columns(season: Season) -> dict[str, Any]:
    """The season as the columns of its table row (``bot.store.rows.SeasonRow``)."""
    return dict(version=season.version, phase=str(season.phase),
                position=position_to_dict(season.position, season.variant),
                orders=[_given_to_json(o) for o in season.orders],
                result=adjudication_to_json(season.adjudication, season.variant), seed=season.seed,
                nmr=list(season.nmr), players=[dict(p) for p in season.players], deadline_at=season.deadline_at,
                adjudicated_at=season.adjudicated_at, adjudicated_by=season.adjudicated_by, picture=season.picture)


def season_from_row(row: Any, game: str) -> Season:
    """The season a table row keeps (anything with :func:`season_columns`'s names as attributes)."""
    variant, before = position_from_dict(_board(row.position))
    return Season(game=game, version=row.version, variant=variant, position=before,
                  orders=tuple(_given_from_json(o) for o in row.orders),
                  adjudication=adjudication_from_json(row.result, before.phase.kind), nmr=tuple(row.nmr),
                  players=tuple(row.players), seed=row.seed, deadline_at=row.deadline_at,
                  adjudicated_at=row.adjudicated_at, adjudicated_by=row.adjudicated_by,
                  picture=getattr(row, "picture", None))


# -- as an export keeps it (the contract's documents) ------------------------------------------


def season_document(season: Season) -> dict[str, Any]:
    """The season as a whole-game export keeps it: the position document, the orders with their
    text in the judge's notation, and the result document ``crusader adjudicate`` writes."""
    texts = [canonical(o.order) for o in season.orders]
    return {"phase": str(season.phase), "version": season.version,
            "position": position_to_dict(season.position, season.variant),
            "orders": [{"power": o.power, "text": o.written, "canonical": text, "key": o.key, "seq": o.seq,
                        "submitted_at": _iso(o.submitted_at)} for o, text in zip(season.orders, texts)],
            "result": result_to_dict(season.adjudication, texts, {}, season.variant),
            "seed": season.seed, "nmr": list(season.nmr), "players": [dict(p) for p in season.players],
            "deadline_at": _iso(season.deadline_at), "adjudicated_at": _iso(season.adjudicated_at),
            "adjudicated_by": season.adjudicated_by}


def season_from_document(doc: Mapping[str, Any], game: str) -> Season:
    """The season an export keeps (:func:`season_document`), its orders' text read once."""
    variant, before = position_from_dict(_board(doc["position"]))
    result = doc["result"]
    phase = before.phase
    given = _read(variant, phase, [o["canonical"] for o in doc["orders"]])
    results = [OrderResult(order, Outcome(e["result"]), e["reason"] or "")
               for order, e in zip(_read(variant, phase, [e["canonical"] for e in result["results"]]),
                                   result["results"])]
    implicit = [OrderResult(order, Outcome(e["result"]), e["reason"] or "")
                for order, e in zip(_read(variant, phase, [e["canonical"] for e in result.get("implicit", [])]),
                                    result.get("implicit", []))]
    _, after = position_from_dict(_board(result["position"]))
    adjudication = Adjudication(results=tuple(results), position=after, implicit=tuple(implicit),
                                events=events_from_json(result.get("events", {}), phase.kind, variant, after.rules))
    return Season(game=game, version=doc["version"], variant=variant, position=before,
                  orders=tuple(GivenOrder(o["power"], o["text"], order, o["key"], o["seq"], _time(o["submitted_at"]))
                               for o, order in zip(doc["orders"], given)),
                  adjudication=adjudication, nmr=tuple(doc["nmr"]), players=tuple(doc["players"]), seed=doc["seed"],
                  deadline_at=_time(doc.get("deadline_at")), adjudicated_at=_time(doc.get("adjudicated_at")),
                  adjudicated_by=doc.get("adjudicated_by", ""))


def with_phrases(season: Season, again: Adjudication | None = None) -> Season:
    """``season`` with its reasons as the engine makes them (a :class:`Phrase` where a reason names
    units or places), for a season whose reasons are text alone (read from an export, whose
    documents are the contract's): the phase is adjudicated again (``again``, when that is done
    already: the engine's adjudication of the season's position and orders), the engine being a
    pure function of the position and the orders, and each result whose order, outcome and reason
    come out the same takes the engine's; any other keeps its text."""
    if again is None:
        again = adjudicate(season.variant, season.position, [o.order for o in season.orders])

    def keep(stored: tuple[OrderResult, ...], made: tuple[OrderResult, ...]) -> tuple[OrderResult, ...]:
        if len(stored) != len(made):
            return stored
        return tuple(m if m == s and isinstance(m.reason, Phrase) else s for s, m in zip(stored, made))

    adjudication = season.adjudication
    return replace(season, adjudication=replace(adjudication, results=keep(adjudication.results, again.results),
                                                implicit=keep(adjudication.implicit, again.implicit)))


def _read(variant: Variant, phase: Phase, texts: list[str]) -> list[Order]:
    orders, errors = read_orders(texts, variant, phase)
    if errors:
        i, reason = next(iter(errors.items()))
        raise DocumentError(f"{phase}: an order of the season cannot be read: {texts[i]!r}: {reason}")
    return orders


def _board(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A position document without its ``orders``."""
    return {k: v for k, v in doc.items() if k != "orders"}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None
