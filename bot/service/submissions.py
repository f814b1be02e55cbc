"""Messages of orders taken together: one transaction for all the messages waiting at that moment.

Each message is read, checked and answered exactly as if it had come alone, in the order given
(a later message replaces the earlier orders for the same unit, even within one batch); what a
batch shares is the work around them: the games are locked and read once, the players and the
standing orders of their phases are read in one query each, and the audit rows and order rows
are written in one statement each. The answers go out after the commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from sqlmodel import Session

from adjudicator.orders import Order
from adjudicator.turn import replaced

from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json, order_to_json
from bot.store import database
from bot.store.rows import GameRow, PlayerStatus
from .context import game_not_found
from .reading import order_key
from .views import OrderLine


@dataclass
class Standing:
    """One standing order as the batch sees it: stored (``id``) or given in this batch (``submission``)."""

    key: str
    seq: int
    text: str
    order: Order
    submitted_at: datetime
    id: int | None = None
    submission: int | None = None  # index of the audit row in the batch


@dataclass
class OpenPhase:
    """A game's current phase during a batch: its row, players and every power's standing orders."""

    game: GameRow
    players: list  # plain player rows (``database.player_rows``)
    standing: dict[str, list[Standing]] = field(default_factory=dict)
    reactivated: set[int] = field(default_factory=set)  # players back from civil disorder
    unready: set[int] = field(default_factory=set)  # players whose orders changed after they said they were ready

    @cached_property
    def board(self):
        return position_from_dict(self.game.position)


class Batch:
    """The games a batch of messages names, locked and read at once; what the messages change, kept until written."""

    def __init__(self, session: Session, refs: list[str | int]) -> None:
        self.session = session
        names = [r for r in refs if isinstance(r, str)]
        ids = [r if isinstance(r, int) else int(r) for r in refs if isinstance(r, int) or r.isdigit()]
        games = database.lock_games(session, names, ids)
        self.by_name = {g.name: g for g in games}
        self.by_id = {g.id: g for g in games}
        started = [g for g in games if g.position is not None]
        players: dict[int, list] = {g.id: [] for g in games}
        for row in database.player_rows(session, [g.id for g in games]):
            players[row.game_id].append(row)
        self.phases = {g.id: OpenPhase(g, players[g.id]) for g in games}
        for row in database.standing_order_rows(session, [(g.id, g.version) for g in started]):
            game = self.by_id[row.game_id]
            if row.version == game.version:
                self.phases[game.id].standing.setdefault(row.power, []).append(
                    Standing(row.key, row.seq, row.text, order_from_json(row.order), row.submitted_at, id=row.id))
        self.audit: list[dict] = []
        self.deleted: set[int] = set()

    def phase(self, ref: str | int) -> OpenPhase:
        """The game ``ref`` names (a name, or a number that is no game's name), as ``Context.game`` reads it."""
        game = self.by_name.get(ref) if isinstance(ref, str) else None
        if game is None and (isinstance(ref, int) or ref.isdigit()):
            game = self.by_id.get(int(ref))
        if game is None:
            raise game_not_found(self.session, ref)
        return self.phases[game.id]

    def take(self, phase: OpenPhase, player, lines: list[OrderLine], text: str, now: datetime) -> list[Standing]:
        """Record one message of ``player``'s (what each of its ``lines`` became); each accepted
        order takes the place of the standing orders it replaces (:func:`adjudicator.turn.replaced`,
        as the engine judged them); the power's standing orders after it. A player who had said
        their orders were final (ready) and changes them is no longer ready."""
        game, power = phase.game, player.power
        accepted = [(ln, ln.order) for ln in lines if ln.order is not None]
        self.audit.append(dict(
            game_id=game.id, version=game.version, phase=game.phase, power=power, player=player.player, text=text,
            accepted=[{"written": ln.written, "canonical": ln.canonical} for ln, _ in accepted],
            rejected=[{"written": ln.written, "reason": ln.reason} for ln in lines if ln.order is None], at=now))
        standing = list(phase.standing.get(power, []))
        seq = max((o.seq for o in standing), default=0)
        for line, order in accepted:
            gone = replaced(order, [o.order for o in standing], *phase.board)
            for earlier in [o for o in standing if any(o.order is g for g in gone)]:
                standing.remove(earlier)
                if earlier.id is not None:
                    self.deleted.add(earlier.id)
            seq += 1
            standing.append(Standing(order_key(order, seq), seq, line.written, order, now,
                                     submission=len(self.audit) - 1))
        phase.standing[power] = standing
        if player.status == PlayerStatus.CIVIL_DISORDER and accepted:
            phase.reactivated.add(player.id)
        if accepted and player.ready_version is not None:
            phase.unready.add(player.id)
        return standing

    def write(self) -> None:
        """The audit rows, the replaced orders deleted, the new ones inserted, the players back from civil
        disorder, those whose orders changed no longer ready."""
        ids = database.add_submissions(self.session, self.audit)
        database.delete_orders_by_id(self.session, self.deleted)
        rows = []
        for phase in self.phases.values():
            game = phase.game
            for power, orders in phase.standing.items():
                rows += [dict(game_id=game.id, version=game.version, phase=game.phase, power=power, key=o.key,
                              seq=o.seq, text=o.text, order=order_to_json(o.order), submission_id=ids[o.submission],
                              submitted_at=o.submitted_at)
                         for o in orders if o.submission is not None]  # (those of this batch: not stored yet)
        database.add_orders(self.session, rows)
        database.reactivate_players(self.session, {i for p in self.phases.values() for i in p.reactivated})
        database.set_ready(self.session, {i for p in self.phases.values() for i in p.unready}, None)
