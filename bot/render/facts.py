"""What a picture needs to know about a board and a season, read in one place.

Every read of a season's outcome (:class:`~adjudicator.results.Adjudication`: its results, the
judge's own orders, its events, the next position) and every question asked of a rule module
(how its orders are drawn, the vassals' lords, the bribed units, its standings column) happens here, and nowhere else in :mod:`bot.render`: the rest of the picture code sees only the
plain values below. :func:`season_facts` reads an adjudicated season; :func:`board_facts` a
board with orders not yet adjudicated (or none).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence

from adjudicator.modules import commanded, lords, mark, standing_column
from adjudicator.orders import Order, UnitOrder
from adjudicator.position import Position
from adjudicator.results import Adjudication, Outcome
from adjudicator.turn import supplied_by
from adjudicator.variant import Variant
from adjudicator.vocab import NEUTRAL, PhaseKind, Power, ProvinceId

SUCCEEDED, FAILED, INVALID, PENDING = "succeeded", "failed", "invalid", ""
"""How an order is drawn: carried out, failed, could not be given, not adjudicated yet."""

_STATUS = {Outcome.SUCCEEDS: SUCCEEDED, Outcome.FAILS: FAILED, Outcome.INVALID: INVALID}

GIVEN, RANDOM, BRIBED, DISORDER = "given", "random", "bribe", "disorder"
"""Who gave an order drawn: its power, chance (a neutral's retreat), a briber, civil disorder."""


@dataclass(frozen=True)
class Drawn:
    """A unit's order drawn on the board, with how it went and who gave it."""

    order: UnitOrder
    status: str = PENDING
    given_by: str = GIVEN


@dataclass(frozen=True)
class Bid:
    """A rule module's order that has a place on the map (:class:`adjudicator.modules.Mark`):
    prestige's VASSAL or BRIBE bid for the unit in ``province`` (``on_unit``), a SEIZE FIEF or a
    REBEL bid for the centre there."""

    kind: str
    """The module's word: ``vassal``, ``bribe``, ``fief`` or ``rebel``."""
    power: Power
    province: ProvinceId
    amount: int | None
    status: str = PENDING
    on_unit: bool = False


@dataclass(frozen=True)
class Pledge:
    """A rule module's order with no place on the map: prestige's SECURE LOYALTY, or LEND to ``to``."""

    kind: str
    """The module's word: ``loyalty`` or ``lend``."""
    power: Power
    amount: int
    to: Power | None = None
    status: str = PENDING


@dataclass(frozen=True)
class Standing:
    """A power as the legend shows it after the season: centres, and the rule module's standings
    column (prestige: ``column_name``), each with the change."""

    power: Power
    centres: int
    centres_before: int
    units: int
    column: int | None = None
    column_before: int | None = None
    column_name: str = ""


@dataclass(frozen=True)
class Facts:
    """Everything a picture draws besides the map itself."""

    board: Position
    """The board whose units are drawn (the one the orders were given on)."""
    owners: Mapping[ProvinceId, Power]
    """Who owns each supply centre, as the picture shows it: after the season when it changed hands."""
    orders: tuple[Drawn, ...] = ()
    bids: tuple[Bid, ...] = ()
    pledges: tuple[Pledge, ...] = ()
    dislodged: frozenset[ProvinceId] = frozenset()
    """Provinces whose unit this season dislodged (a movement phase's picture)."""
    lords: Mapping[ProvinceId, Power] = field(default_factory=dict)
    """Neutral units held in vassaldom, by where they stand on ``board``: the lord."""
    bribed: Mapping[ProvinceId, Power] = field(default_factory=dict)
    """Units a briber commanded this season, by where they stand: the briber."""
    standings: tuple[Standing, ...] = ()
    adjudicated: bool = False


def _bid(order: Order, status: str) -> tuple[Bid | Pledge | None, bool]:
    """A rule module's order as the picture draws it, and whether it makes its power the lord of
    the unit it is for when it succeeds."""
    drawn = mark(order)
    if drawn is None:
        return None, False
    if drawn.province is not None:
        return Bid(drawn.kind, drawn.power, drawn.province, drawn.amount, status, drawn.on_unit), drawn.lord
    return Pledge(drawn.kind, drawn.power, drawn.amount or 0, drawn.to, status), False


def _lords(board: Position, won: Mapping[ProvinceId, Power] | None = None) -> dict[ProvinceId, Power]:
    return {**(won or {}), **lords(board)}


def _standings(variant: Variant, before: Position, after: Position) -> tuple[Standing, ...]:
    was, now = before.center_counts(), after.center_counts()
    had, has = standing_column(before), standing_column(after)
    out = []
    for power in variant.powers:
        out.append(Standing(power, now.get(power, 0), was.get(power, 0), len(after.units_of(power)),
                            None if has is None else has[1].get(power, 0), None if had is None else had[1].get(power, 0),
                            "" if has is None else has[0]))
    return tuple(out)


def board_facts(variant: Variant, position: Position, orders: Sequence[Order] = ()) -> Facts:
    """A board, with orders not yet adjudicated (a player's own, say) drawn on it."""
    drawn, bids, pledges = [], [], []
    for order in orders:
        extra, _ = _bid(order, PENDING)
        if isinstance(extra, Bid):
            bids.append(extra)
        elif isinstance(extra, Pledge):
            pledges.append(extra)
        elif isinstance(order, UnitOrder):
            drawn.append(Drawn(order))
    return Facts(position, dict(position.supply_centers), tuple(drawn), tuple(bids), tuple(pledges),
                 lords=_lords(position), standings=_standings(variant, position, position))


def season_facts(variant: Variant, before: Position, adjudication: Adjudication) -> Facts:
    """A season as adjudicated: the board it began from, every order players gave with its
    outcome, the orders the judge gave that change the board (a neutral's random retreat, the
    order written with a winning BRIBE, a removal in civil disorder), the units it dislodged,
    and the centres, counts and prestige as they stand after it."""
    after = adjudication.position
    drawn, bids, pledges = [], [], []
    won_vassals: dict[ProvinceId, Power] = {}
    for result in adjudication.results:
        status = _STATUS[result.outcome]
        extra, lord = _bid(result.order, status)
        if isinstance(extra, Bid):
            bids.append(extra)
            if lord and status == SUCCEEDED:
                won_vassals[extra.province] = extra.power
        elif isinstance(extra, Pledge):
            pledges.append(extra)
        elif isinstance(result.order, UnitOrder):
            drawn.append(Drawn(result.order, status))
    for result in adjudication.implicit:
        why = supplied_by(variant, adjudication, result)
        if why in (RANDOM, BRIBED, DISORDER) and isinstance(result.order, UnitOrder):
            drawn.append(Drawn(result.order, _STATUS[result.outcome], why))
    events = adjudication.events
    dislodged: frozenset[ProvinceId] = frozenset()
    bribed: dict[ProvinceId, Power] = {}
    if before.phase.kind is PhaseKind.MOVEMENT:
        dislodged = frozenset(d.unit.province for d in events.dislodged)
        bribed = dict(commanded(before, events.rule))
    return Facts(before, dict(after.supply_centers), tuple(drawn), tuple(bids), tuple(pledges), dislodged,
                 _lords(before, won_vassals), bribed, _standings(variant, before, after), adjudicated=True)


def is_neutral(power: Power) -> bool:
    return power == NEUTRAL


__all__ = ["BRIBED", "DISORDER", "FAILED", "GIVEN", "INVALID", "PENDING", "RANDOM", "SUCCEEDED", "Bid", "Drawn", "Facts",
           "Pledge", "Standing", "board_facts", "is_neutral", "season_facts"]
