"""What the archive site shows, read from the archive's documents.

A season archive (a season of :func:`bot.archive.export_game`, or :meth:`GameService.season`)
holds the position the season started from, the orders as written and as understood, the
result document and the seed. :func:`season_record` turns one into a :class:`SeasonRecord`:
domain values for the map picture, and rows for the pages (orders with outcomes and reasons,
the bids and the prestige ledger). :func:`game_record` does the same for a whole export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from adjudicator.orders import PRESTIGE_ORDER_TYPES, Order
from adjudicator.position import Position
from adjudicator.results import OrderResult, Outcome
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Phase, Power

from ..documents import position_from_dict


@dataclass(frozen=True)
class SeasonOrder:
    """One order of a season: as the player wrote it, as the judge understood it, and its result.

    ``written`` is empty for an order the judge supplied (a unit left without orders holds).
    """

    power: str
    written: str
    understood: str
    outcome: str
    reason: str
    implicit: bool = False


@dataclass(frozen=True)
class Bid:
    """A prestige order of a season: who bid for what, whether it was won, and what it cost."""

    power: str
    order: str
    outcome: str
    reason: str
    spent: int


@dataclass(frozen=True)
class LedgerLine:
    """A power's prestige over one season: what it had, received (loans), spent and kept."""

    power: str
    start: int
    received: int
    spent: tuple[tuple[str, int], ...]
    left: int

    @property
    def total_spent(self) -> int:
        return sum(amount for _, amount in self.spent)


@dataclass(frozen=True)
class SeasonRecord:
    phase: Phase
    version: int
    variant: Variant
    before: Position
    after: Position
    orders: tuple[SeasonOrder, ...]
    results: tuple[OrderResult, ...]
    """The orders the judge understood, as domain values, for the map picture."""
    bids: tuple[Bid, ...]
    ledger: tuple[LedgerLine, ...]
    nmr: tuple[str, ...]
    seed: int
    events: Mapping[str, Any] = field(default_factory=dict)
    adjudicated_at: str | None = None

    @property
    def slug(self) -> str:
        """The file name of the season's page, without ``.html``: the phase, like ``S1101M``."""
        return str(self.phase)

    @property
    def centers(self) -> dict[Power, int]:
        """Supply centres per power after the season."""
        return self.after.center_counts()

    @property
    def prestige(self) -> dict[str, int] | None:
        """Prestige per power after the season; ``None`` without the prestige rules."""
        state = self.after.prestige
        return dict(state.prestige) if state is not None else None

    @property
    def controllers(self) -> dict[str, str] | None:
        """Province -> the power that bribed the unit there this season, if any did."""
        bribed = self.events.get("bribed")
        return dict(bribed) if isinstance(bribed, Mapping) and bribed else None

    def orders_by_power(self) -> list[tuple[str, list[SeasonOrder]]]:
        by_power: dict[str, list[SeasonOrder]] = {}
        for line in self.orders:
            by_power.setdefault(line.power, []).append(line)
        return sorted(by_power.items(), key=lambda item: (item[0] == NEUTRAL, item[0]))  # neutrals last

    def legend_lines(self) -> list[str]:
        """Who won which bid, in a line each, for the legend of the map picture."""
        return [f"{b.power}: {b.order} - {'won' if b.outcome == 'succeeds' else b.outcome}"
                f"{f', {b.spent} spent' if b.spent else ''}" for b in self.bids]


@dataclass(frozen=True)
class GameRecord:
    name: str
    variant: Variant
    status: str
    phase: str | None
    outcome: Mapping[str, Any] | None
    start: Position
    """The board before the first archived season (the opening, if nothing was rolled back)."""
    seasons: tuple[SeasonRecord, ...]

    @property
    def has_prestige(self) -> bool:
        return self.start.prestige is not None

    def centre_history(self) -> list[tuple[str, dict[Power, int]]]:
        """(label, centres per power) at the start and after every season."""
        return [("start", self.start.center_counts())] + [(s.slug, s.centers) for s in self.seasons]

    def prestige_history(self) -> list[tuple[SeasonRecord, dict[str, int]]]:
        """Every season after which some power's prestige differs from the season before."""
        out = []
        last = dict(self.start.prestige.prestige) if self.start.prestige is not None else None
        for season in self.seasons:
            now = season.prestige
            if now is not None and now != last:
                out.append((season, now))
            last = now
        return out


def _split_power(text: str) -> tuple[str, str]:
    power, sep, rest = text.partition(": ")
    return (power, rest) if sep else ("", text)


def _parse(text: str, variant: Variant, phase: Phase) -> Order | None:
    from grammar import OrderError, parse_order

    try:
        return parse_order(text, variant, phase=phase)
    except OrderError:
        return None


def season_record(season: Mapping[str, Any]) -> SeasonRecord:
    """The :class:`SeasonRecord` of one season archive (a dict with ``position``, ``orders``, ``result``...)."""
    variant, before = position_from_dict({k: v for k, v in season["position"].items() if k != "orders"})
    result = season["result"]
    _, after = position_from_dict({k: v for k, v in result["position"].items() if k != "orders"})
    events = result.get("events") or {}
    ledger_doc = events.get("prestige") if isinstance(events.get("prestige"), dict) else {}

    written = list(season.get("orders") or [])
    entries = list(result.get("results") or [])
    paired = len(written) == len(entries)
    by_canonical = {o.get("canonical"): o.get("text", "") for o in written}
    lines: list[SeasonOrder] = []
    results: list[OrderResult] = []
    bids: list[Bid] = []
    for i, entry in enumerate(entries):
        understood = entry.get("canonical") or ""
        text = written[i].get("text", "") if paired else by_canonical.get(understood, entry.get("order", ""))
        power = (written[i].get("power") if paired else None) or _split_power(understood or entry["order"])[0]
        lines.append(SeasonOrder(power, text, understood, entry["result"], entry.get("reason") or ""))
        order = _parse(understood, variant, before.phase) if understood else None
        if order is None:
            continue
        results.append(OrderResult(order, Outcome(entry["result"]), entry.get("reason") or ""))
        if isinstance(order, PRESTIGE_ORDER_TYPES):
            spent = sum(s.get("amount", 0) for s in (ledger_doc.get(power) or {}).get("spent", [])
                        if s.get("order") == str(order))
            bids.append(Bid(power, str(order), entry["result"], entry.get("reason") or "", spent))
    for entry in result.get("implicit") or []:
        power, _ = _split_power(entry["canonical"])
        lines.append(SeasonOrder(power, "", entry["canonical"], entry["result"], entry.get("reason") or "", implicit=True))
        order = _parse(entry["canonical"], variant, before.phase)
        if order is not None:
            results.append(OrderResult(order, Outcome(entry["result"]), entry.get("reason") or ""))

    ledger = tuple(
        LedgerLine(power, int(d.get("start", 0)), int(d.get("received", 0)),
                   tuple((s.get("order", ""), int(s.get("amount", 0))) for s in d.get("spent", [])), int(d.get("left", 0)))
        for power, d in sorted(ledger_doc.items()) if isinstance(d, dict))
    return SeasonRecord(phase=before.phase, version=int(season.get("version", 0)), variant=variant, before=before,
                        after=after, orders=tuple(lines), results=tuple(results), bids=tuple(bids), ledger=ledger,
                        nmr=tuple(season.get("nmr") or ()), seed=int(season.get("seed") or 0), events=events,
                        adjudicated_at=season.get("adjudicated_at"))


def game_record(export: Mapping[str, Any]) -> GameRecord:
    """The :class:`GameRecord` of a whole-game export (:func:`bot.archive.export_game`)."""
    game = export["game"]
    seasons = tuple(season_record(s) for s in sorted(export.get("seasons", []), key=lambda s: s["version"]))
    if seasons:
        start = seasons[0].before
        variant = seasons[0].variant
    else:
        variant, start = position_from_dict({k: v for k, v in game["position"].items() if k != "orders"})
    return GameRecord(name=game["name"], variant=variant,
                      status=game.get("status", ""), phase=game.get("phase"), outcome=game.get("outcome"),
                      start=start, seasons=seasons)
