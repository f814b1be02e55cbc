"""The judge's clock: timers firing, deadlines, grace, reminders, and adjudication exactly once.

Exactly once: the adjudication of version ``v`` of a game happens in one transaction that
locks the game row (PostgreSQL ``FOR UPDATE SKIP LOCKED``; SQLite ``BEGIN IMMEDIATE``), checks
that the game is still at ``v``, writes the season, the next position (version ``v + 1``), its
timers and its announcements, and commits. A second process finds the row locked or the
version moved on and does nothing; a process killed before the commit leaves everything as
it was, and the still-pending deadline fires again after restart.
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
import structlog

from .. import storage
from ..faults import crash_point
from ..storage import GameRow, SeasonRow, TimerRow
from . import engine, texts
from .base import CIVIL_DISORDER_STATES, ServiceBase

log = structlog.get_logger("crusader.judge")


class Judge(ServiceBase):
    def fire_due(self, *, limit: int | None = None) -> int:
        """Fire every pending timer that is due (the scheduler's sweep; tests call it after moving the clock)."""
        with self.db.session() as session:
            due = [(t.id, t.kind) for t in storage.pending_timers(session, due_before=self.now(), limit=limit)]
        # reminders first, so that a reminder due with its deadline still goes out before the results
        for timer_id, _ in sorted(due, key=lambda t: t[1] != "reminder"):
            self.fire_timer(timer_id)
        return len(due)

    def fire_timer(self, timer_id: int) -> str:
        """Run one timer (a deadline, grace end or reminder) in one transaction; say what happened."""
        now = self.now()
        with self.db.session() as session:
            timer = session.get(TimerRow, timer_id)
            if timer is None or timer.fired_at is not None:
                return "spent"
            if timer.due_at > now:
                return "not due"
            if timer.kind == "reminder":
                return self._remind(session, timer)
            game_id, version, trigger = timer.game_id, timer.version, timer.kind
            outcome, timers = self._run(session, game_id, version, trigger, timer_id, now)
        return self._after(outcome, timers, game_id, version, trigger)

    def _claim_timer(self, session, timer_id: int) -> bool:
        result = session.exec(sa.update(TimerRow).where(TimerRow.id == timer_id, TimerRow.fired_at.is_(None))
                              .values(fired_at=self.now()).execution_options(synchronize_session=False))
        return result.rowcount == 1

    def _missing(self, session, game: GameRow) -> tuple[list[str], dict[str, str]]:
        """Powers that must order and have not, and who plays each."""
        variant, position = engine.load(game.position)
        players = storage.players_of(session, game.id)
        playing = {p.power: p.player for p in players if p.status not in CIVIL_DISORDER_STATES and p.power}
        have = {o.power for o in storage.orders_of(session, game.id, game.version)}
        missing = sorted(p for p in engine.powers_to_order(variant, position) if p in playing and p not in have)
        return missing, playing

    def _remind(self, session, timer: TimerRow) -> str:
        game = storage.lock_game(session, timer.game_id)
        if game is None:
            return "busy"
        if not self._claim_timer(session, timer.id):
            return "spent"
        if game.version != timer.version or game.status != "active":
            return "stale"
        missing, playing = self._missing(session, game)
        if missing:
            before = int(timer.payload.get("before", 0))
            self._announce(session, game, "reminder", "players", f"{game.name}: orders due for {game.phase}",
                           texts.reminder(game.name, game.phase, game.deadline_at, missing, self.policy(game).timezone),
                           key=f"{game.id}:{game.version}:reminder:{before}", powers=missing,
                           recipients=[playing[p] for p in missing], data={"before": before})
        return "reminded"

    def adjudicate(self, game_id: int, version: int, *, trigger: str = "deadline", timer_id: int | None = None) -> str:
        """Adjudicate ``game_id`` if it still stands at ``version``; ``adjudicated``, ``grace``, ``busy`` or ``stale``."""
        now = self.now()
        with self.db.session() as session:
            outcome, timers = self._run(session, game_id, version, trigger, timer_id, now)
        return self._after(outcome, timers, game_id, version, trigger)

    def _after(self, outcome: str, timers: list[TimerRow], game_id: int, version: int, trigger: str) -> str:
        """After the commit: arm the new timers, say what happened."""
        self._notify(timers)
        if outcome in ("adjudicated", "grace"):
            log.info("phase run", game=game_id, version=version, trigger=trigger, outcome=outcome, node=self.node)
        return outcome

    def _run(self, session, game_id: int, version: int, trigger: str, timer_id: int | None,
             now) -> tuple[str, list[TimerRow]]:
        game = storage.lock_game(session, game_id)
        if game is None:
            return "busy", []
        if timer_id is not None and not self._claim_timer(session, timer_id):
            return "stale", []
        if game.version != version or game.status != "active":
            return "stale", []
        policy = self.policy(game)
        if trigger == "deadline" and policy.grace > timedelta(0):
            missing, playing = self._missing(session, game)
            if missing:
                return "grace", self._grace(session, game, now, policy.grace, missing, playing)
        crash_point("before_adjudication")
        timers = self._adjudicate_locked(session, game, now, trigger)
        session.flush()
        crash_point("after_results")
        return "adjudicated", timers

    def _grace(self, session, game: GameRow, now, grace, missing, playing) -> list[TimerRow]:
        storage.cancel_timers(session, game.id, now)
        game.deadline_at = (game.deadline_at or now) + grace
        timer = TimerRow(game_id=game.id, version=game.version, kind="grace", due_at=game.deadline_at, payload={})
        session.add_all([timer, game])
        self._announce(session, game, "late", "players", f"{game.name}: orders late for {game.phase}",
                       texts.late(game.name, game.phase, game.deadline_at, missing, self.policy(game).timezone),
                       powers=missing, recipients=[playing[p] for p in missing])
        session.flush()
        return [timer]

    def _adjudicate_locked(self, session, game: GameRow, now, trigger: str) -> list[TimerRow]:
        variant, position = engine.load(game.position)
        orders = storage.orders_of(session, game.id, game.version)
        result = engine.adjudicate(game.position, [o.canonical for o in orders])
        players = storage.players_of(session, game.id)
        snapshot = [{"player": p.player, "power": p.power, "status": p.status, "nmr_count": p.nmr_count,
                     "draw_vote": p.draw_vote} for p in players]
        need = engine.powers_to_order(variant, position)
        have = {o.power for o in orders}
        limit = self.policy(game).nmr_limit
        nmr, disorder = [], []
        for p in players:
            if p.power not in need or p.status in CIVIL_DISORDER_STATES:
                continue
            if p.power in have:
                p.nmr_count = 0
            else:
                nmr.append(p.power)
                p.nmr_count += 1
                if limit and p.nmr_count >= limit:
                    p.status = "civil_disorder"
                    disorder.append(p)
            session.add(p)
        session.add(SeasonRow(
            game_id=game.id, version=game.version, phase=game.phase, position=game.position,
            orders=[{"power": o.power, "text": o.text, "canonical": o.canonical, "key": o.key, "seq": o.seq,
                     "submitted_at": o.submitted_at.isoformat()} for o in orders],
            result=result, seed=int(game.position.get("seed", game.seed)), nmr=sorted(nmr), players=snapshot,
            deadline_at=game.deadline_at, adjudicated_at=now, adjudicated_by=f"{self.node}:{trigger}"))
        phase, version = game.phase, game.version
        game.position, game.phase, game.version = result["position"], result["position"]["phase"], version + 1
        winner = engine.winner(game.position)
        outcome = {"winner": winner} if winner else None
        timers = [] if winner else self._arm(session, game, self._phase_deadline(game, now), now)
        session.add(game)
        key = f"{game.id}:{version}"
        self._announce(session, game, "results", "public", f"{game.name}: results of {phase}",
                       texts.results(game.name, phase, result, sorted(nmr), None if winner else game.phase,
                                     game.deadline_at, outcome, self.policy(game).timezone),
                       key=f"{key}:results", data={"phase": phase, "next_phase": game.phase, "nmr": sorted(nmr),
                                                   "version": version})
        for p in disorder:
            self._announce(session, game, "civil_disorder", "gm", f"{game.name}: {p.power} is in civil disorder",
                           f"{p.power} ({p.player}) sent no orders for {p.nmr_count} phases in a row and is now "
                           f"in civil disorder: its units hold and its builds are waived.\n",
                           key=f"{key}:civil_disorder:{p.power}", powers=[p.power], recipients=[p.player])
        if nmr and not disorder:
            self._announce(session, game, "nmr", "gm", f"{game.name}: no orders from {', '.join(sorted(nmr))}",
                           f"No orders for {phase} from: {', '.join(sorted(nmr))}.\n", key=f"{key}:nmr",
                           powers=sorted(nmr))
        if outcome:
            self._finish(session, game, outcome, now=now, key=f"{key}:ended")
        return timers
