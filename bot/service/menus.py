"""Orders chosen from menus rather than written: what a front end needs to offer a player only
the orders they may give, and to take the chosen ones exactly as written ones are taken.

The engine decides everything (:func:`adjudicator.turn.commands`, :func:`~adjudicator.turn.choices`,
:func:`~adjudicator.turn.still_to_decide`); the service reads the game and the player's standing
orders, and records a choice through the same submission as a message of orders
(:meth:`bot.service.orders.OrderDesk.submit_many`'s batch, :func:`.reading.read_values`): the
same checks, the same answer, the same standing set, typed and chosen orders mixed freely.

Each question names the phase it was asked in (``version``): a menu shown for a phase that has
been adjudicated since is refused (:class:`StalePanelError`), saying which phase it is now.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from collections.abc import Sequence

from adjudicator.orders import Order, is_rule_order
from adjudicator.turn import Duty, Verdict, choices, commands, duty, rule_choices, slot, still_to_decide
from adjudicator.vocab import PhaseKind, ProvinceId, Unit

from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json
from bot.store import database
from bot.store.rows import GameStatus
from .context import Context, seated_power, started_phase
from .errors import ServiceError
from .orders import OrderDesk
from .submissions import Batch
from .views import OrderLine, SubmissionReport


class StalePanelError(ServiceError):
    """A menu of orders for a phase that is over: ``phase`` is the phase now."""

    def __init__(self, message: str, phase: str) -> None:
        super().__init__(message)
        self.phase = phase


@dataclass(frozen=True)
class PanelUnit:
    """A unit the power orders this phase (:class:`adjudicator.turn.Command`), with its standing order."""

    unit: Unit
    by: str
    standing: OrderLine | None = None


@dataclass(frozen=True)
class Panel:
    """What a player may order now, and what stands: the state of a menu of orders.

    ``kind``: the phase's kind (:class:`adjudicator.vocab.PhaseKind`'s value: ``M``, ``R``, ``B``).
    ``units``: the units the power orders (its own, its vassals, those its bids would command;
    in a retreat phase its dislodged units; in an adjustment phase, when it must remove some, its
    units). ``duty``: what it has still to decide (builds and their sites, removals).
    ``spendable``: what it may spend in this phase (its rule module's prestige; 0 where nothing is spent).
    """

    game: str
    game_id: int
    version: int
    phase: str
    kind: str
    power: str
    variant: str
    units: tuple[PanelUnit, ...]
    standing: tuple[OrderLine, ...]
    duty: Duty
    spendable: int
    ready: bool
    must_decide: bool
    deadline_at: datetime | None
    allowance: Duty | None = None
    """What the power had to decide in the phase before any order (:func:`adjudicator.turn.duty`):
    in winter, every build site, where a later build or waive takes the place of an earlier one."""
    rule_orders: tuple[Verdict, ...] = ()
    """The rule module's own orders the power may give now (:func:`adjudicator.turn.rule_choices`):
    each at its least amount, with what it needs to succeed."""


class Menus:
    """The questions a menu of orders asks, and the orders chosen from it taken."""

    def __init__(self, ctx: Context, desk: OrderDesk) -> None:
        self.ctx, self.desk = ctx, desk

    def _current(self, session, game: str | int, player: str, version: int | None):
        row = self.ctx.game(session, game)
        self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
        me = self.ctx.playing(session, row, database.players_of(session, row.id), player)
        if version is not None and row.version != version:
            raise StalePanelError(f"This menu was for an earlier phase of '{row.name}', which has been adjudicated; "
                                  f"it is {row.phase} now.", started_phase(row))
        variant, position = position_from_dict(row.position)
        standing = tuple(OrderLine(o.text, order_from_json(o.order))
                         for o in database.orders_of(session, row.id, row.version, me.power))
        return row, me, variant, position, standing

    def panel(self, game: str | int, player: str, version: int | None = None) -> Panel:
        """What ``player`` orders in ``game``'s current phase, and their orders standing (``version``:
        the phase the asker's menu was for; another one is refused)."""
        with self.ctx.db.session() as session:
            row, me, variant, position, standing = self._current(session, game, player, version)
            orders = [ln.order for ln in standing]
            by_unit: dict[str, OrderLine] = {}
            for line in standing:
                place = slot(line.order)
                if place is not None and place.kind == "unit":
                    by_unit[place.subject] = line
                elif is_rule_order(line.order) and (inner := getattr(line.order, "order", None)) is not None:
                    by_unit.setdefault(inner.location.province, line)   # a BRIBE with its unit's order
            must = duty(variant, position, me.power)
            units = tuple(PanelUnit(c.unit, c.by, by_unit.get(c.unit.province))
                          for c in commands(variant, position, me.power, orders)
                          if position.phase.kind is not PhaseKind.ADJUSTMENT or must.disbands)
            return Panel(game=row.name, game_id=row.id, version=row.version, phase=row.phase,
                         kind=position.phase.kind.value, power=me.power, variant=row.variant, units=units,
                         standing=standing, duty=still_to_decide(variant, position, me.power, orders),
                         spendable=must.spendable, ready=self.ctx.is_ready(row, me), must_decide=must.must_decide,
                         deadline_at=row.deadline_at, allowance=must, rule_orders=rule_choices(variant, position, me.power, orders))

    def choices(self, game: str | int, player: str, province: str, version: int | None = None) -> tuple[Order, ...]:
        """Every order ``player``'s power may give now for the unit (or build site) in ``province``,
        its standing orders taken into account (:func:`adjudicator.turn.choices`)."""
        with self.ctx.db.session() as session:
            _row, me, variant, position, standing = self._current(session, game, player, version)
            return choices(variant, position, me.power, ProvinceId(province), [ln.order for ln in standing])

    def submit_values(self, game: str | int, player: str, orders: Sequence[Order],
                      version: int | None = None) -> SubmissionReport:
        """``player``'s orders chosen as values, taken as a message of these orders would be: checked
        by the engine with the power's standing orders, each in the place of the one it replaces,
        answered the same way. An order of another power than the player's is refused."""
        from .reading import read_values

        with self.ctx.db.session() as session:
            batch = Batch(session, [game])
            phase = batch.phase(game)
            row = phase.game
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            me = self.ctx.playing(session, row, phase.players, player)
            if version is not None and row.version != version:
                raise StalePanelError(f"This menu was for an earlier phase of '{row.name}', which has been "
                                      f"adjudicated; it is {row.phase} now: nothing was recorded.", started_phase(row))
            if any(o.power != me.power for o in orders):
                raise ServiceError(f"these orders are not {me.power}'s")
            variant, position = phase.board
            power = seated_power(me)
            lines, _ = read_values(orders, variant, position, power, [o.order for o in phase.standing.get(power, [])])
            report = self.desk.record(batch, phase, me, lines, "\n".join(ln.written for ln in lines))
            batch.write()
        return report
