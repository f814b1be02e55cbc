"""The game master's actions. ``actor`` is the asker (checked against the game's GM);
``None`` is the judge's own operator at a shell, who may do anything."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any
from collections.abc import Callable, Mapping

from adjudicator.turn import to_decide
from adjudicator.vocab import Power

from bot.codec.documents import position_from_dict
from bot.store import database
from bot.store.rows import GameRow, GameStatus, OrderRow, PlayerRow, PlayerStatus
from . import texts
from .context import WAITING, Context
from .judge import Judge
from .durations import MAX_DURATION, format_duration
from .errors import ServiceError, WrongStateError
from .policy import SETTINGS
from .views import GameView, PolicyChange


class GameMaster:
    """What the game master of a game does (``actor`` the asker, checked; ``None`` the judge's
    operator at a shell): the clock, forced adjudication and rollback, the players, the end."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self.ctx, self.judge = ctx, judge

    def pause(self, game: str | int, actor: str | None) -> GameView:
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.ACTIVE)
            remaining = (row.deadline_at - now).total_seconds() if row.deadline_at else None
            row.status, row.paused_remaining = GameStatus.PAUSED, max(remaining, 0.0) if remaining is not None else None
            self.ctx.arm(session, row, None, now)
            self.ctx.record(session, row, actor, "pause", remaining=row.paused_remaining)
            self.ctx.announce(session, row, "paused", "public", f"{row.name}: paused",
                           f"The game master has paused '{row.name}' in {row.phase}; the deadline is suspended.\n",
                           key=self._once(row, "paused", now))
            session.add(row)
            return self.ctx.view(session, row)

    def resume(self, game: str | int, actor: str | None) -> GameView:
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.PAUSED)
            remaining = row.paused_remaining
            deadline = now + timedelta(seconds=remaining) if remaining is not None else self.ctx.phase_deadline(row, now)
            row.status, row.paused_remaining = GameStatus.ACTIVE, None
            timers = self.ctx.arm(session, row, deadline, now)
            self.ctx.record(session, row, actor, "resume", deadline=deadline.isoformat())
            self.ctx.announce(session, row, "resumed", "public", f"{row.name}: resumed",
                           f"'{row.name}' has resumed; orders for {row.phase} are due by {texts.when(deadline, self.ctx.policy(row).timezone)}.\n",
                           key=self._once(row, "resumed", now))
            session.add(row)
            view = self.ctx.view(session, row)
        self.ctx.notify(timers)
        return self._end_early(view)  # every power may have said it was ready while the game was paused

    def extend(self, game: str | int, actor: str | None, by: timedelta) -> GameView:
        if not timedelta(0) < by <= MAX_DURATION:
            raise ServiceError(f"an extension is more than nothing and at most {format_duration(MAX_DURATION)}, "
                               f"like 24h: not {format_duration(by)}")
        now = self.ctx.now()
        return self._new_deadline(game, actor, now, lambda row: max(row.deadline_at or now, now) + by,
                                  "deadline extended", "extended", by=by.total_seconds())

    def set_deadline(self, game: str | int, actor: str | None, at: datetime) -> GameView:
        """Move this phase's deadline to ``at`` (timezone-aware, in the future); reminders follow it."""
        now = self.ctx.now()
        if at.tzinfo is None or at <= now:
            raise ServiceError(f"a new deadline must be a timezone-aware time after now ({texts.when(now)}): {at}")
        return self._new_deadline(game, actor, now, lambda row: at, "new deadline", "deadline")

    def _new_deadline(self, game: str | int, actor: str | None, now: datetime,
                      deadline_of: Callable[[GameRow], datetime], subject: str, tag: str, **details) -> GameView:
        """The active game's deadline moved to ``deadline_of(game)``, its reminders re-armed, the players told."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.ACTIVE)
            deadline = deadline_of(row)
            if deadline - now > MAX_DURATION:
                raise ServiceError(f"a deadline is at most {format_duration(MAX_DURATION)} away "
                                   f"({texts.when(now + MAX_DURATION)}), not {texts.when(deadline)}; "
                                   "pause the game instead")
            self.ctx.record(session, row, actor, tag, was=row.deadline_at.isoformat() if row.deadline_at else None,
                            deadline=deadline.isoformat(), **details)
            timers = self.ctx.arm(session, row, deadline, now)
            self.ctx.announce(session, row, "extended", "public", f"{row.name}: {subject}",
                           f"The deadline for {row.phase} in '{row.name}' is now {texts.when(deadline, self.ctx.policy(row).timezone)}.\n",
                           key=self._once(row, tag, now))
            session.add(row)
            view = self.ctx.view(session, row)
        self.ctx.notify(timers)
        return view

    def force_adjudicate(self, game: str | int, actor: str | None) -> str:
        """Adjudicate now, whatever the deadline says (missing orders are NMR)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            if row.status == GameStatus.PAUSED:
                raise WrongStateError(f"game '{row.name}' is paused; resume it first")
            self.ctx.record(session, row, actor, "adjudicate")
            game_id, version = row.id, row.version
        return self.judge.adjudicate(game_id, version, trigger="forced")

    def rollback(self, game: str | int, actor: str | None) -> GameView:
        """Undo the last adjudication: position, standing orders and players as they were before it."""
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            season = database.last_season(session, row.id)
            if season is None:
                raise WrongStateError(f"game '{row.name}' has no adjudicated phase to roll back")
            undone = [season.phase]
            while not to_decide(*position_from_dict(season.position)):
                # a phase adjudicated at once (nobody had anything to decide) goes with the one before it
                earlier = database.season_before(session, row.id, season.version)
                if earlier is None:
                    break
                session.delete(season)
                season = earlier
                undone.append(season.phase)
            was = row.phase
            self.ctx.record(session, row, actor, "rollback", to=season.phase, undone=undone)
            row.position, row.phase, row.version = season.position, season.phase, row.version + 1
            row.status, row.outcome, row.ended_at = GameStatus.ACTIVE, None, None
            for o in database.orders_of(session, row.id, season.version):
                session.add(OrderRow(game_id=row.id, version=row.version, phase=o.phase, power=o.power, key=o.key,
                                     seq=o.seq, text=o.text, order=o.order, submission_id=o.submission_id,
                                     submitted_at=o.submitted_at))
            by_power = {s["power"]: s for s in season.players if s.get("power")}
            players = database.players_of(session, row.id)
            back = {s["player"] for s in by_power.values()}
            for p in players:  # a player restored to a power leaves the waiting list
                if p.status == WAITING and p.player in back:
                    session.delete(p)
            session.flush()
            for p in players:
                saved = by_power.get(p.power) if p.power else None
                if saved is not None:
                    p.player, p.status, p.nmr_count, p.draw_vote = (saved["player"], saved["status"],
                                                                    saved["nmr_count"], saved["draw_vote"])
                    session.add(p)
            session.delete(season)
            timers = self.ctx.arm(session, row, self.ctx.phase_deadline(row, now), now)
            self.ctx.announce(session, row, "rolled_back", "public", f"{row.name}: {season.phase} rolled back",
                           f"The game master has rolled '{row.name}' back from {was} to {season.phase}. "
                           f"Standing orders are restored; the new deadline is {texts.when(row.deadline_at, self.ctx.policy(row).timezone)}.\n")
            self.ctx.announce_decisions(session, row, players)
            session.add(row)
            view = self.ctx.view(session, row)
        self.ctx.notify(timers)
        return view

    def replace_player(self, game: str | int, actor: str | None, power: str, player: str, *,
                       abandoned_only: bool = False) -> GameView:
        """``player`` plays ``power`` from now on; whoever played it leaves the game.

        Before the start this is :meth:`assign` with the power's previous player (if any) leaving.
        Once started, a power in civil disorder, removed or never played gets a player again
        (active, no NMRs). ``player`` may come off the waiting list; one who plays another power
        is refused (remove them from it first). ``abandoned_only``: only a power nobody plays
        (removed, or never played) of a started game (:meth:`take_over`).
        """
        player = self.ctx.identity(player)
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, *((GameStatus.ACTIVE, GameStatus.PAUSED) if abandoned_only else (GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED)))
            power = self._power_code(row, power)
            players = database.players_of(session, row.id)
            newcomer = next((p for p in players if p.player == player), None)
            target = next((p for p in players if p.power == power), None)
            old = target.player if target is not None else None
            if abandoned_only and target is not None and target.status != PlayerStatus.REMOVED:
                why = ("is in civil disorder; its player may still come back" if target.status == PlayerStatus.CIVIL_DISORDER
                       else "has a player")
                raise WrongStateError(f"{power} in '{row.name}' {why}: only a power nobody plays can be taken over")
            if newcomer is not None and newcomer is target and target.status == PlayerStatus.ACTIVE:
                raise ServiceError(f"{player} already plays {power} in '{row.name}'")
            self.ctx.record(session, row, actor, "take_over" if abandoned_only else "replace", power=power,
                            player=player, previous=old, before_start=row.status == GameStatus.FORMING)
            if row.status == GameStatus.FORMING:
                if target is not None:
                    session.delete(target)
                    players.remove(target)
                self.ctx.seat(session, row, players, player, power)
                if old is not None and old != player:
                    self._tell_unseated(session, row, old, power, "replaced", now)
                self._tell_seated(session, row, player, power, now)
                return self.ctx.view(session, row)
            if newcomer is not None and newcomer is not target and newcomer.status != WAITING:
                raise ServiceError(f"{player} already plays {newcomer.power} in '{row.name}'; "
                                   f"remove them from {newcomer.power} first")
            if newcomer is not None and newcomer is not target:  # off the waiting list
                session.delete(newcomer)
                session.flush()
            if target is None:
                target = PlayerRow(game_id=row.id, player=player, power=power, joined_at=now)
            told = old is not None and old != player and target.status != PlayerStatus.REMOVED  # a removed player was told then
            target.player, target.status, target.nmr_count, target.draw_vote = player, PlayerStatus.ACTIVE, 0, False
            target.concede_to = target.ready_version = None
            session.add(target)
            session.flush()
            if told and old is not None:
                self._tell_unseated(session, row, old, power, "replaced", now)
            if old != player:
                self._tell_seated(session, row, player, power, now)
            hidden = self.ctx.hidden(row)
            text = (f"{power} has its player back.\n" if hidden and old == player else
                    f"{player} plays {power} again.\n" if old == player else
                    f"{power} has a new player.\n" if hidden else
                    f"{power} is now played by {player}{f' (was {old})' if old else ' (it had no player)'}.\n")
            self.ctx.announce(session, row, "replaced", "public", f"{row.name}: {power} has a new player", text,
                           key=self._once(row, f"replaced:{power}", now),
                           data={"power": power, "player": player, "previous": old})
            return self.ctx.view(session, row)

    def take_over(self, game: str | int, player: str, power: str) -> GameView:
        """``player`` takes over ``power`` in a started game where nobody plays it (its player was
        removed or resigned, or it never had one), without the game master, who is told with the
        game (as for :meth:`replace_player`)."""
        return self.replace_player(game, None, power, player, abandoned_only=True)

    def remove_player(self, game: str | int, actor: str | None, power: str | None = None, *,
                      player: str | None = None) -> GameView:
        """Take a player out of the game, named by ``power`` or by ``player``.

        Before the start (or from the waiting list) the player leaves the game, and the first
        player waiting takes the seat. Once started the power stays on the board in civil
        disorder, without a player, until :meth:`replace_player` gives it one.

        ``actor`` is the game master, ``None`` (the judge's operator), or the player themself,
        who may resign their own seat and nobody else's.
        """
        if (power is None) == (player is None):
            raise ServiceError("name the player to remove, or the power whose player it is (one of the two)")
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            resigning = actor is not None and actor != row.gm
            self.ctx.require_status(row, GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED)
            players = database.players_of(session, row.id)
            try:
                if player is not None:
                    target = self.ctx.player(players, self.ctx.identity(player), row)
                elif power is not None:     # (one of the two, as checked above)
                    target = self.ctx.power_row(players, self._power_code(row, power), row)
            except ServiceError:
                if resigning:   # a player learns nothing of other seats: only that it is not theirs
                    self.ctx.require_gm(row, actor)
                raise
            if resigning and (target.player != actor or target.status == PlayerStatus.REMOVED):
                self.ctx.require_gm(row, actor)
            if row.status == GameStatus.FORMING or target.status == WAITING:
                gone, how = (target.player, target.power), PlayerStatus.WAITING if target.status == WAITING else PlayerStatus.REMOVED
                self.ctx.record(session, row, actor, "remove", power=target.power, player=target.player,
                                waiting=how == PlayerStatus.WAITING, before_start=row.status == GameStatus.FORMING)
                self.ctx.unseat(session, row, players, target)
                self._tell_unseated(session, row, *gone, how, now)
                return self.ctx.view(session, row)
            if target.status == PlayerStatus.REMOVED:
                raise WrongStateError(f"{target.power} in '{row.name}' has no player already")
            self._change_status(session, row, target, PlayerStatus.REMOVED, now, actor)
            view = self.ctx.view(session, row)
        return self._end_early(view)  # the power that was not ready is out of play

    def set_civil_disorder(self, game: str | int, actor: str | None, power: str, on: bool = True) -> GameView:
        """Put ``power`` in civil disorder (its player stays, and comes back by sending orders or
        by :meth:`restore_player`), or, with ``on=False``, bring it back (:meth:`restore_player`)."""
        if not on:
            return self.restore_player(game, actor, power)
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            target = self.ctx.power_row(database.players_of(session, row.id), self._power_code(row, power), row)
            if target.status != PlayerStatus.ACTIVE:
                raise WrongStateError(f"{target.power} in '{row.name}' is {target.status.replace('_', ' ')} already")
            self._change_status(session, row, target, PlayerStatus.CIVIL_DISORDER, now, actor)
            view = self.ctx.view(session, row)
        return self._end_early(view)

    def restore_player(self, game: str | int, actor: str | None, power: str) -> GameView:
        """Bring ``power`` back from civil disorder: its player plays again, its NMR count is reset.
        A power that has no player (removed, or never played) gets one with :meth:`replace_player`."""
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            code = self._power_code(row, power)
            target = next((p for p in database.players_of(session, row.id) if p.power == code), None)
            if target is None or target.status == PlayerStatus.REMOVED:
                raise WrongStateError(f"{code} in '{row.name}' has no player to bring back; give it one with replace")
            if target.status == PlayerStatus.ACTIVE:
                raise WrongStateError(f"{code} in '{row.name}' is not in civil disorder; {target.player} plays it")
            self._change_status(session, row, target, PlayerStatus.ACTIVE, now, actor)
            return self.ctx.view(session, row)

    def _change_status(self, session, row: GameRow, target: PlayerRow, status: PlayerStatus, now: datetime,
                       actor: str | None = None) -> None:
        action = {PlayerStatus.REMOVED: "remove", PlayerStatus.CIVIL_DISORDER: "civil_disorder",
                  PlayerStatus.ACTIVE: "restore"}[status]
        self.ctx.record(session, row, actor, action, power=target.power, player=target.player)
        target.status, target.nmr_count = status, 0
        session.add(target)
        words = {PlayerStatus.REMOVED: "has been removed; the power is in civil disorder",
                 PlayerStatus.CIVIL_DISORDER: "is in civil disorder", PlayerStatus.ACTIVE: "is back in play"}[status]
        self.ctx.announce(session, row, status, "public", f"{row.name}: {target.power} {words}",
                       f"{target.power} ({texts.shown_player(target.player, self.ctx.hidden(row))}) {words}.\n",
                       key=self._once(row, f"{status}:{target.power}", now),
                       data={"power": target.power, "player": target.player})
        if status == PlayerStatus.REMOVED:
            self._tell_unseated(session, row, target.player, target.power, "removed", now)

    def _tell_unseated(self, session, row: GameRow, player: str, power: str | None, how: str, now: datetime) -> None:
        """Tell ``player``, at once and alone, that the game master took them off ``power`` (``how``:
        ``removed``, ``replaced``, or ``waiting``: off the waiting list)."""
        from adjudicator.variant import get_variant

        name = get_variant(row.variant).power_name(Power(power)) if power else "a power"
        body = (f"The game master has taken you off the waiting list of '{row.name}'.\n" if how == "waiting"
                else texts.unseated(row.name, name, how, started=row.status != GameStatus.FORMING))
        self.ctx.announce(session, row, "unseated", "players", f"{row.name}: you no longer play"
                          + (f" {power}" if power and how != "waiting" else " in it"), body,
                          key=self._once(row, f"unseated:{player}", now), recipients=[player],
                          data={"power": power, "player": player, "how": how})

    def _tell_seated(self, session, row: GameRow, player: str, power: str, now: datetime) -> None:
        """Tell ``player``, at once and alone, that the game master gave them ``power``, and what it has
        to decide in the phase under way."""
        from adjudicator.variant import get_variant

        started = row.status != GameStatus.FORMING
        lines = self.ctx.to_decide_lines(session, row, power) if started else []
        body = texts.seated(row.name, row.phase, get_variant(row.variant).power_name(Power(power)), lines, row.deadline_at,
                            self.ctx.policy(row).timezone, started=started)
        self.ctx.announce(session, row, "seated", "players", f"{row.name}: you play {power}", body,
                          key=self._once(row, f"seated:{player}", now), recipients=[player],
                          data={"power": power, "player": player})

    @staticmethod
    def _once(row: GameRow, what: str, now: datetime) -> str:
        """The outbox key of a game master's action: the same action may come twice in a phase (a player
        replaced, then brought back), even within one tick of the clock."""
        return f"{row.id}:{row.version}:{what}:{now.isoformat()}:{secrets.token_hex(4)}"

    @staticmethod
    def _power_code(game: GameRow, power: str) -> str:
        """The power ``power`` names in the game (its code, name or adjective)."""
        from .lobby import Lobby

        return Lobby.power_code(game.variant, str(power).strip())

    def set_policy(self, game: str | int, actor: str | None, changes: Mapping[str, Any]) -> PolicyChange:
        """Change the game's settings (its :class:`~bot.service.policy.DeadlinePolicy`): ``changes``
        maps setting names (:data:`~bot.service.policy.SETTINGS`) to typed values, checked as a new
        game's are (:meth:`DeadlinePolicy.changed`). Stored, kept in the game's record of actions,
        and announced to the game with every setting as it now is.

        They apply from the next deadline: this phase keeps its deadline, the phases after it last
        as set; grace, the NMR limit and early adjudication are read when this phase's deadline comes
        (early: at once, when every power that must decide is ready already); the reminders of this phase
        still to come are re-armed as set. Any state but ended; nothing that would change: nothing
        done or announced."""
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED)
            before = self.ctx.policy(row)
            after = before.changed(changes)
            changed = tuple(key for key in SETTINGS if getattr(before, key) != getattr(after, key))
            if "anonymous" in changed and row.status != "forming":
                raise WrongStateError(f"whether '{row.name}' is anonymous is chosen before it starts: its players "
                                      "have been named (or hidden) since")
            timers = []
            if changed:
                row.policy = {**after.to_dict(), "extra": before.extra}
                session.add(row)
                if row.status == GameStatus.ACTIVE and row.deadline_at is not None and "reminders" in changed:
                    timers = self._rearm_reminders(session, row, row.deadline_at, now)
                self.ctx.record(session, row, actor, "set_policy",
                                changes={key: [_plain(getattr(before, key)), _plain(getattr(after, key))]
                                         for key in changed})
                self.ctx.announce(session, row, "policy", "public", f"{row.name}: settings changed",
                                  texts.policy_changed(row.name, before, after, list(changed),
                                                       running=row.status != GameStatus.FORMING),
                                  key=self._once(row, "policy", now), data={"changed": list(changed)})
            view = self.ctx.view(session, row)
        self.ctx.notify(timers)
        if "early" in changed:  # every power may be ready already: no "ready" is to come to set it off
            view = self._end_early(view)
        return PolicyChange(view, before, after, changed)

    def _end_early(self, view: GameView) -> GameView:
        """Early adjudication when something else than a "ready" makes every power ready (the game
        resumed, early adjudication turned on, the last power not ready taken out of play): the
        game's phase adjudicated now, and the game as it then is."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, view.id)
            if row.status != GameStatus.ACTIVE or not self.ctx.policy(row).early or not self.judge.all_ready(session, row):
                return view
            version = row.version
        self.judge.adjudicate(view.id, version, trigger="early")
        with self.ctx.db.session() as session:
            return self.ctx.view(session, self.ctx.game(session, view.id))

    def _rearm_reminders(self, session, row: GameRow, deadline: datetime, now: datetime) -> list[database.Timer]:
        """The reminders still to come of the pending ``deadline``, as the game's policy now sets them
        (the deadline and a grace period under way are left as they are)."""
        database.cancel_timers(session, row.id, now, kinds=("reminder",))
        timers = self.ctx.reminder_timers(row, deadline, now)
        database.add_timers(session, timers)
        return timers

    def end_game(self, game: str | int, actor: str | None, reason: str = "") -> GameView:
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED)
            self.ctx.record(session, row, actor, "end", reason=reason)
            self.ctx.finish(session, row, {"ended_by_gm": True, "reason": reason})
            return self.ctx.view(session, row)


def _plain(value: Any) -> Any:
    """A setting's value as JSON keeps it (durations in seconds)."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
