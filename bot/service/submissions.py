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

from .. import storage
from ..storage import GameRow
from . import engine
from .base import CIVIL_DISORDER_STATES, game_not_found


@dataclass
class Standing:
    """One standing order as the batch sees it: stored (``id``) or given in this batch (``submission``)."""

    key: str
    seq: int
    text: str
    canonical: str
    submitted_at: datetime
    id: int | None = None
    submission: int | None = None  # index of the audit row in the batch


@dataclass
class Phase:
    """A game's current phase during a batch: its row, players and every power's standing orders."""

    game: GameRow
    players: list  # plain player rows (``storage.player_rows``)
    standing: dict[str, list[Standing]] = field(default_factory=dict)
    reactivated: set[int] = field(default_factory=set)  # players back from civil disorder
    ordered_here: bool = False  # at least one message of this batch was taken

    @cached_property
    def board(self):
        return engine.load(self.game.position)

    def status_of(self, player) -> str:
        return "active" if player.id in self.reactivated else player.status

    def everyone_ordered(self) -> bool:
        variant, position = self.board
        playing = {p.power for p in self.players if self.status_of(p) not in CIVIL_DISORDER_STATES}
        need = engine.powers_to_order(variant, position) & playing
        have = {power for power, orders in self.standing.items() if orders}
        return bool(need) and need <= have


class Batch:
    """The games a batch of messages names, locked and read at once; what the messages change, kept until written."""

    def __init__(self, session: Session, refs: list[str | int]) -> None:
        self.session = session
        names = [r for r in refs if isinstance(r, str)]
        ids = [r if isinstance(r, int) else int(r) for r in refs if isinstance(r, int) or r.isdigit()]
        games = storage.lock_games(session, names, ids)
        self.by_name = {g.name: g for g in games}
        self.by_id = {g.id: g for g in games}
        started = [g for g in games if g.position is not None]
        players: dict[int, list] = {g.id: [] for g in games}
        for row in storage.player_rows(session, [g.id for g in games]):
            players[row.game_id].append(row)
        self.phases = {g.id: Phase(g, players[g.id]) for g in games}
        for row in storage.standing_order_rows(session, [(g.id, g.version) for g in started]):
            game = self.by_id[row.game_id]
            if row.version == game.version:
                self.phases[game.id].standing.setdefault(row.power, []).append(
                    Standing(row.key, row.seq, row.text, row.canonical, row.submitted_at, id=row.id))
        self.audit: list[dict] = []
        self.deleted: set[int] = set()

    def phase(self, ref: str | int) -> Phase:
        """The game ``ref`` names (a name, or a number that is no game's name), as ``ServiceBase._game`` reads it."""
        game = self.by_name.get(ref) if isinstance(ref, str) else None
        if game is None and (isinstance(ref, int) or ref.isdigit()):
            game = self.by_id.get(int(ref))
        if game is None:
            raise game_not_found(self.session, ref)
        return self.phases[game.id]

    def take(self, phase: Phase, player, lines: list[engine.Line], text: str, now: datetime) -> list[Standing]:
        """Record one message of ``player``'s (its read ``lines``); the power's standing orders after it."""
        game, power = phase.game, player.power
        accepted = [ln for ln in lines if ln.order is not None]
        self.audit.append(dict(
            game_id=game.id, version=game.version, phase=game.phase, power=power, player=player.player, text=text,
            accepted=[{"written": ln.written, "canonical": ln.canonical} for ln in accepted],
            rejected=[{"written": ln.written, "reason": ln.reason} for ln in lines if ln.order is None], at=now))
        existing = phase.standing.get(power, [])
        keyed = dict((engine.order_key(ln.order, i), ln) for i, ln in enumerate(accepted))  # the later line stands
        replaced = set(keyed)
        if any(k.startswith("waive:") for k in keyed):
            replaced |= {o.key for o in existing if o.key.startswith("waive:")}
        self.deleted |= {o.id for o in existing if o.key in replaced and o.id is not None}
        seq = max((o.seq for o in existing), default=0) + 1
        added = [Standing(key, seq + i, line.written, line.canonical, now, submission=len(self.audit) - 1)
                 for i, (key, line) in enumerate(keyed.items())]
        standing = phase.standing[power] = [o for o in existing if o.key not in replaced] + added
        if player.status == "civil_disorder" and accepted:
            phase.reactivated.add(player.id)
        phase.ordered_here = True
        return standing

    def write(self) -> None:
        """The audit rows, the replaced orders deleted, the new ones inserted, the players back from civil disorder."""
        ids = storage.add_submissions(self.session, self.audit)
        storage.delete_orders_by_id(self.session, self.deleted)
        rows = []
        for phase in self.phases.values():
            game = phase.game
            for power, orders in phase.standing.items():
                rows += [dict(game_id=game.id, version=game.version, phase=game.phase, power=power, key=o.key,
                              seq=o.seq, text=o.text, canonical=o.canonical, submission_id=ids[o.submission],
                              submitted_at=o.submitted_at)
                         for o in orders if o.id is None]
        storage.add_orders(self.session, rows)
        storage.reactivate_players(self.session, {i for p in self.phases.values() for i in p.reactivated})
