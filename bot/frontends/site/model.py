"""What the archive site shows, read from the archive's documents.

A season (:class:`bot.codec.season.Season`, as :meth:`GameService.season` and
:func:`bot.archive.games.game_archive` give it) holds the position the season started
from, the orders as written and as understood, the results and the seed. :func:`season_record`
turns one into a :class:`SeasonRecord`: domain values for the map picture, and rows for the
pages (orders with outcomes and reasons, the bids and the prestige ledger); :func:`season_line`
keeps what the game's page shows of it. A :class:`GameRecord` is what a game's pages show.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any
from collections.abc import Mapping

from adjudicator.modules import ledger, spent, standing_column
from adjudicator.orders import canonical, is_rule_order
from adjudicator.events import Events
from adjudicator.position import Position
from adjudicator.results import Adjudication, OrderResult
from adjudicator.turn import supplied_by
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, Phase, Power

from bot.codec.season import Season
from bot.codec.spelled import named
from bot.service.report import SUPPLIED, Report, order_outcome, report_of


@dataclass(frozen=True)
class SeasonOrder:
    """One order of a season: as the player wrote it, as the judge understood it, and its result.

    ``written`` is empty for an order the judge supplied (``implicit``); ``supplied`` then says why
    (a unit left without orders holds, a neutral nobody commands, the order written with a BRIBE).
    ``reason`` is the judge's reason as the results report words it: units and places by name.
    """

    power: str
    written: str
    understood: str
    outcome: str
    reason: str
    implicit: bool = False
    supplied: str = ""


@dataclass(frozen=True)
class Bid:
    """A prestige order of a season: who bid for what, whether it was won, and what it cost."""

    power: str
    order: str
    outcome: str
    reason: str
    spent: int
    verdict: str = ""
    """The outcome as the results report words it (``won, 2 spent``, ``lent, 1 spent``, ``secured``...)."""


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
    """The orders players gave, as the judge understood them, as domain values, for the map picture
    (the judge's own orders for units nobody ordered are in ``orders`` only)."""
    bids: tuple[Bid, ...]
    ledger: tuple[LedgerLine, ...]
    nmr: tuple[str, ...]
    seed: int
    events: Events
    adjudication: Adjudication
    """The season's adjudication as values (to draw its picture when none was stored)."""
    report: Report
    """The season's results report (:func:`bot.service.report.report_of`: made once for every front
    end that shows the season), its standings apart."""
    adjudicated_at: str | None = None
    picture: bytes | None = None
    """The season's picture as the judge drew it when it adjudicated the season and stored it (the
    PNG Discord and the mail sent); ``None`` for a season stored without one."""

    @property
    def slug(self) -> str:
        """The file name of the season's page, without ``.html``: the phase, like ``S1101M``."""
        return str(self.phase)

    @property
    def given(self) -> int:
        """How many orders the players gave (not those the judge supplied)."""
        return sum(not line.implicit for line in self.orders)

    @property
    def failed(self) -> int:
        """How many of the orders the players gave did not succeed."""
        return sum(not line.implicit and line.outcome != "succeeds" for line in self.orders)

    @cached_property
    def centers(self) -> dict[Power, int]:
        """Supply centres per power after the season."""
        return self.after.center_counts()

    @cached_property
    def column(self) -> dict[str, int] | None:
        """The rule module's standings column (prestige) per power after the season; ``None``
        without a rule module that has one."""
        return _column(self.after)

    def orders_by_power(self) -> list[tuple[str, list[SeasonOrder]]]:
        by_power: dict[str, list[SeasonOrder]] = {}
        for line in self.orders:
            by_power.setdefault(line.power, []).append(line)
        return sorted(by_power.items(), key=lambda item: (item[0] == NEUTRAL, item[0]))  # neutrals last


@dataclass(frozen=True)
class GameRecord:
    """What a game's pages show: the game as it stands, one line per season (:func:`season_line`),
    and the seasons whose own pages are being written (all of them when the game is written
    afresh, the new ones when it is brought up to date)."""

    name: str
    variant: Variant
    status: str
    phase: str | None
    outcome: Mapping[str, Any] | None
    start: Mapping[str, Any]
    """The board before the first archived season (the opening, if nothing was rolled back), as
    :func:`start_line` keeps it."""
    lines: tuple[Mapping[str, Any], ...]
    """Every season, oldest first, as :func:`season_line` keeps it."""
    seasons: tuple[SeasonRecord, ...] = ()
    """The seasons read and decoded for this writing, oldest first."""
    current: Position | None = None
    """The board as it stands now (the game's position)."""
    players: tuple[Mapping[str, Any], ...] = ()
    """The game's players: power, status, missed deadlines in a row (who plays is not shown)."""
    press: tuple[Mapping[str, Any], ...] = ()
    """The press the game published at its end (``phase``, ``at``, ``from``: a power or ``None``
    for anonymous press, ``to``, ``broadcast``, ``text``), oldest first; none while it is under way."""

    @property
    def has_prestige(self) -> bool:
        """Is the game played with a rule module that keeps a standings column (prestige)?"""
        return self.start["prestige"] is not None

    def centre_history(self) -> list[tuple[str, Mapping[str, int]]]:
        """(label, centres per power) at the start and after every season."""
        return [("start", self.start["centres"])] + [(line["slug"], line["centres"]) for line in self.lines]

    def prestige_history(self) -> list[tuple[Mapping[str, Any], Mapping[str, int]]]:
        """Every season (its line) after which some power's prestige differs from the season before."""
        out = []
        last = self.start["prestige"]
        for line in self.lines:
            now = line["prestige"]
            if now is not None and now != last:
                out.append((line, now))
            last = now
        return out


def season_line(season: SeasonRecord) -> dict[str, Any]:
    """What a game's page shows of one season, kept in the game's summary so that the seasons
    before a new one are not read again: its page (``slug``) and ``version``, its phase's name,
    how many orders were given and failed, how many bids, who sent none, and the centres and the
    standings column (prestige, or ``None``) per power after it."""
    return {"slug": season.slug, "version": season.version, "phase": season.phase.long_name,
            "given": season.given, "failed": season.failed, "bids": len(season.bids), "nmr": list(season.nmr),
            "centres": {str(p): n for p, n in season.centers.items()}, "prestige": season.column}


def start_line(position: Position) -> dict[str, Any]:
    """What a game's page shows of the board before its first season: centres and standings
    column (prestige, or ``None``) per power."""
    return {"centres": {str(p): n for p, n in position.center_counts().items()}, "prestige": _column(position)}


def _column(position: Position) -> dict[str, int] | None:
    """The rule module's standings column of ``position`` per power, or None."""
    column = standing_column(position)
    return {str(p): n for p, n in column[1].items()} if column is not None else None


def season_record(season: Season) -> SeasonRecord:
    """The :class:`SeasonRecord` of one season: its orders in rows, its bids and prestige ledger."""
    events = season.events
    lines: list[SeasonOrder] = []
    results: list[OrderResult] = []
    bids: list[Bid] = []
    for given, result in zip(season.orders, season.results):
        order, power = result.order, result.order.power
        lines.append(SeasonOrder(power, given.written, canonical(order), result.outcome.value,
                                 named(result.reason, season.variant)))
        results.append(result)
        if is_rule_order(order):
            cost = spent(season.position, events.rule, order)
            verdict = order_outcome(result, season.variant, season.position, events).verdict
            bids.append(Bid(power, str(order), result.outcome.value, named(result.reason, season.variant), cost,
                            verdict))
    for result in season.adjudication.implicit:
        # listed on the page, not drawn: a unit nobody ordered gets no ring on the map
        lines.append(SeasonOrder(result.order.power, "", canonical(result.order), result.outcome.value,
                                 named(result.reason, season.variant), implicit=True,
                                 supplied=SUPPLIED[supplied_by(season.variant, season.adjudication, result)]))
    accounts = tuple(LedgerLine(a.power, a.start, a.received, tuple((str(order), n) for order, n in a.spent), a.left)
                     for a in ledger(season.position, events.rule))
    return SeasonRecord(phase=season.phase, version=season.version, variant=season.variant, before=season.position,
                        after=season.after, orders=tuple(lines), results=tuple(results), bids=tuple(bids),
                        ledger=accounts, nmr=tuple(season.nmr), seed=season.seed, events=events,
                        adjudicated_at=season.adjudicated_at.isoformat() if season.adjudicated_at else None,
                        picture=season.picture, adjudication=season.adjudication, report=report_of(season))
