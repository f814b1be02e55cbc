"""The game master's actions. ``actor`` is the asker (checked against the game's GM);
``None`` is the judge's own operator at a shell, who may do anything."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable

from .. import storage
from ..storage import GameRow, OrderRow
from . import texts
from .base import ServiceBase
from .errors import ServiceError, WrongStateError
from .views import GameView


class GameMasterActions(ServiceBase):
    def pause(self, game: str | int, actor: str | None) -> GameView:
        now = self.now()
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "active")
            remaining = (row.deadline_at - now).total_seconds() if row.deadline_at else None
            row.status, row.paused_remaining = "paused", max(remaining, 0.0) if remaining is not None else None
            self._arm(session, row, None, now)
            self._announce(session, row, "paused", "public", f"{row.name}: paused",
                           f"The game master has paused '{row.name}' in {row.phase}; the deadline is suspended.\n",
                           key=f"{row.id}:{row.version}:paused:{now.isoformat()}")
            session.add(row)
            return self._view(session, row)

    def resume(self, game: str | int, actor: str | None) -> GameView:
        now = self.now()
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "paused")
            remaining = row.paused_remaining
            deadline = now + timedelta(seconds=remaining) if remaining is not None else self._phase_deadline(row, now)
            row.status, row.paused_remaining = "active", None
            timers = self._arm(session, row, deadline, now)
            self._announce(session, row, "resumed", "public", f"{row.name}: resumed",
                           f"'{row.name}' has resumed; orders for {row.phase} are due by {texts.when(deadline, self.policy(row).timezone)}.\n",
                           key=f"{row.id}:{row.version}:resumed:{now.isoformat()}")
            session.add(row)
            view = self._view(session, row)
        self._notify(timers)
        return view

    def extend(self, game: str | int, actor: str | None, by: timedelta) -> GameView:
        if by <= timedelta(0):
            raise ServiceError(f"an extension must be positive, like 24h: {by}")
        now = self.now()
        return self._new_deadline(game, actor, now, lambda row: max(row.deadline_at or now, now) + by,
                                  "deadline extended", "extended")

    def set_deadline(self, game: str | int, actor: str | None, at: datetime) -> GameView:
        """Move this phase's deadline to ``at`` (timezone-aware, in the future); reminders follow it."""
        now = self.now()
        if at.tzinfo is None or at <= now:
            raise ServiceError(f"a new deadline must be a timezone-aware time after now ({texts.when(now)}): {at}")
        return self._new_deadline(game, actor, now, lambda row: at, "new deadline", "deadline")

    def _new_deadline(self, game: str | int, actor: str | None, now: datetime,
                      deadline_of: Callable[[GameRow], datetime], subject: str, tag: str) -> GameView:
        """The active game's deadline moved to ``deadline_of(game)``, its reminders re-armed, the players told."""
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "active")
            deadline = deadline_of(row)
            timers = self._arm(session, row, deadline, now)
            self._announce(session, row, "extended", "public", f"{row.name}: {subject}",
                           f"The deadline for {row.phase} in '{row.name}' is now {texts.when(deadline, self.policy(row).timezone)}.\n",
                           key=f"{row.id}:{row.version}:{tag}:{now.isoformat()}")
            session.add(row)
            view = self._view(session, row)
        self._notify(timers)
        return view

    def force_adjudicate(self, game: str | int, actor: str | None) -> str:
        """Adjudicate now, whatever the deadline says (missing orders are NMR)."""
        with self.db.session() as session:
            row = self._game(session, game)
            self._require_gm(row, actor)
            self._require_status(row, "active", "paused")
            if row.status == "paused":
                raise WrongStateError(f"game '{row.name}' is paused; resume it first")
            game_id, version = row.id, row.version
        return self.adjudicate(game_id, version, trigger="forced")

    def rollback(self, game: str | int, actor: str | None) -> GameView:
        """Undo the last adjudication: position, standing orders and players as they were before it."""
        now = self.now()
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            season = storage.last_season(session, row.id)
            if season is None:
                raise WrongStateError(f"game '{row.name}' has no adjudicated phase to roll back")
            undone = row.phase
            row.position, row.phase, row.version = season.position, season.phase, row.version + 1
            row.status, row.outcome, row.ended_at = "active", None, None
            for o in storage.orders_of(session, row.id, season.version):
                session.add(OrderRow(game_id=row.id, version=row.version, phase=o.phase, power=o.power, key=o.key,
                                     seq=o.seq, text=o.text, canonical=o.canonical, submission_id=o.submission_id,
                                     submitted_at=o.submitted_at))
            by_power = {s["power"]: s for s in season.players}
            for p in storage.players_of(session, row.id):
                saved = by_power.get(p.power)
                if saved is not None:
                    p.player, p.status, p.nmr_count, p.draw_vote = (saved["player"], saved["status"],
                                                                    saved["nmr_count"], saved["draw_vote"])
                    session.add(p)
            session.delete(season)
            timers = self._arm(session, row, self._phase_deadline(row, now), now)
            self._announce(session, row, "rolled_back", "public", f"{row.name}: {season.phase} rolled back",
                           f"The game master has rolled '{row.name}' back from {undone} to {season.phase}. "
                           f"Standing orders are restored; the new deadline is {texts.when(row.deadline_at, self.policy(row).timezone)}.\n")
            session.add(row)
            view = self._view(session, row)
        self._notify(timers)
        return view

    def replace_player(self, game: str | int, actor: str | None, power: str, player: str) -> GameView:
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            players = storage.players_of(session, row.id)
            if any(p.player == player and p.power != power for p in players):
                raise ServiceError(f"{player!r} already plays another power in '{row.name}'")
            target = self._power_row(players, power.upper(), row)
            old = target.player
            target.player, target.status, target.nmr_count, target.draw_vote = player, "active", 0, False
            session.add(target)
            self._announce(session, row, "replaced", "public", f"{row.name}: {target.power} has a new player",
                           f"{target.power} is now played by {player} (was {old}).\n",
                           key=f"{row.id}:{row.version}:replaced:{target.power}:{player}")
            return self._view(session, row)

    def remove_player(self, game: str | int, actor: str | None, power: str) -> GameView:
        """The power stays on the board in civil disorder, without a player."""
        return self._set_status(game, actor, power, "removed")

    def set_civil_disorder(self, game: str | int, actor: str | None, power: str, on: bool = True) -> GameView:
        return self._set_status(game, actor, power, "civil_disorder" if on else "active")

    def _set_status(self, game, actor, power: str, status: str) -> GameView:
        now = self.now()
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            target = self._power_row(storage.players_of(session, row.id), power.upper(), row)
            target.status, target.nmr_count = status, 0
            session.add(target)
            words = {"removed": "has been removed; the power is in civil disorder",
                     "civil_disorder": "is in civil disorder", "active": "is back in play"}[status]
            self._announce(session, row, status, "public", f"{row.name}: {target.power} {words}",
                           f"{target.power} ({target.player}) {words}.\n",
                           key=f"{row.id}:{row.version}:{status}:{target.power}:{now.isoformat()}")
            return self._view(session, row)

    def end_game(self, game: str | int, actor: str | None, reason: str = "") -> GameView:
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "forming", "active", "paused")
            self._finish(session, row, {"ended_by_gm": True, "reason": reason})
            return self._view(session, row)
