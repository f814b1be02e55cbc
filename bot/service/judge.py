"""The judge's clock: timers firing, deadlines, grace, reminders, and adjudication exactly once.

Exactly once: the adjudication of version ``v`` of a game happens in one transaction that
locks the game row (PostgreSQL ``FOR UPDATE SKIP LOCKED``; SQLite ``BEGIN IMMEDIATE``), checks
that the game is still at ``v``, writes the season, the next position (version ``v + 1``), its
timers and its announcements, and commits. A second process finds the row locked or the
version moved on and does nothing; a process killed before the commit leaves everything as
it was, and the still-pending deadline fires again after restart.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import timedelta

import structlog

from adjudicator.adjudicate import adjudicate
from adjudicator.modules import module_seed
from adjudicator.orders import Order
from adjudicator.position import Position
from adjudicator.results import Adjudication
from adjudicator.turn import to_decide, winners
from adjudicator.vocab import Phase, Power

from bot.codec import limits
from bot.codec.documents import position_from_dict
from bot.codec.season import GivenOrder, Season, season_columns
from bot.codec.values import order_from_json
from bot.store import database
from bot.store.faults import crash_point
from bot.store.database import Timer
from bot.store.rows import GameRow, GameStatus, PlayerStatus
from . import texts
from .context import CIVIL_DISORDER_STATES, Context, started_phase
from adjudicator.variant import Variant

log = structlog.get_logger("crusader.judge")


class _Timings(threading.local):
    """Where a run's time goes, in this thread: the engine's adjudication and the picture, summed
    over the phases of the run; the rest of the run is storage (reading, locking, writing, committing)."""

    def start(self) -> None:
        self.began, self.cpu, self.adjudicate, self.picture = time.perf_counter(), time.thread_time(), 0.0, 0.0

    def fields(self) -> dict[str, float]:
        """The ``phase run`` log line's timings, in ms: the whole run, its CPU time, the engine, the picture."""
        ms = lambda seconds: round(seconds * 1000, 2)  # noqa: E731
        return {"run_ms": ms(time.perf_counter() - self.began), "cpu_ms": ms(time.thread_time() - self.cpu),
                "adjudicate_ms": ms(self.adjudicate), "picture_ms": ms(self.picture)}


_timings = _Timings()


@dataclass(frozen=True)
class _Drawn:
    """A season adjudicated and its picture drawn before its game was locked, and what from: the
    game's position document and standing orders as stored, and as values."""

    game_id: int
    version: int
    position: dict | None
    orders: list
    picture: bytes | None
    variant: Variant
    board: Position
    given: tuple[Order, ...]
    adjudication: Adjudication

    def fits(self, game: GameRow, orders) -> bool:
        """Whether the picture shows the season of ``game`` adjudicated with ``orders``."""
        return ((self.game_id, self.version) == (game.id, game.version) and self.position == game.position
                and self.orders == _standing(orders))


def _seed(position: Position, game_seed: int) -> int:
    """The seed a season is stored with: the one the rule module draws from, as the position
    carries it (prestige: the neutrals' random retreats), else the game's."""
    seed = module_seed(position)
    return seed if seed is not None else game_seed


def _standing(orders) -> list[tuple]:
    """The standing orders' rows as they were read, to compare (each whole: the adjudication reads
    a part of each)."""
    return [tuple(o) for o in orders]


class Judge:
    """The judge's clock: timers fire, deadlines pass, phases are adjudicated exactly once."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def fire_due(self, *, limit: int | None = None) -> int:
        """Fire every pending timer that is due (the scheduler's sweep; tests call it after moving the clock)."""
        with self.ctx.db.session(read_only=True) as session:
            due = [(t.id, t.kind) for t in database.pending_timers(session, due_before=self.ctx.now(), limit=limit)]
        # reminders first, so that a reminder due with its deadline still goes out before the results
        for timer_id, _ in sorted(due, key=lambda t: t[1] != "reminder"):
            self.fire_timer(timer_id)
        return len(due)

    def fire_timer(self, timer_id: int) -> str:
        """Run one timer (a deadline, grace end or reminder) in one transaction; say what happened."""
        now = self.ctx.now()
        _timings.start()
        drawn = self._draw_ahead(timer_id=timer_id, now=now)
        with self.ctx.db.session() as session:
            timer = database.timer(session, timer_id)
            if timer is None or timer.fired_at is not None:
                return "spent"
            if timer.due_at > now:
                return "not due"
            if timer.kind == "reminder":
                return self._remind(session, timer)
            game_id, version, trigger = timer.game_id, timer.version, timer.kind
            outcome, timers = self._run(session, game_id, version, trigger, timer_id, now, drawn)
        return self._after(outcome, timers, game_id, version, trigger)

    def _claim_timer(self, session, timer_id: int) -> bool:
        return database.claim_timer(session, timer_id, self.ctx.now())

    def _missing(self, session, game: GameRow) -> tuple[list[Power], dict[str, str]]:
        """Powers that must order and have not (nor said they are ready without), and who plays each."""
        variant, position = position_from_dict(game.position)
        players = database.players_of(session, game.id)
        playing = {p.power: p.player for p in players if p.status not in CIVIL_DISORDER_STATES and p.power}
        have: set[str | None] = set(database.powers_with_orders(session, game.id, game.version))
        have |= {p.power for p in players if self.ctx.is_ready(game, p)}
        missing = sorted(p for p in to_decide(variant, position) if p in playing and p not in have)
        return missing, playing

    def all_ready(self, session, game: GameRow) -> bool:
        """Is every power that must decide in the game's phase, and is played, ready (and one at least)?"""
        variant, position = position_from_dict(game.position)
        players = database.players_of(session, game.id)
        must = to_decide(variant, position)
        deciding = [p for p in players if p.power in must and p.status not in CIVIL_DISORDER_STATES]
        return bool(deciding) and all(self.ctx.is_ready(game, p) for p in deciding)

    def unready(self, session, game: GameRow) -> list[str]:
        """The powers that must decide in the game's phase, are played, and have not marked their
        orders final (ready): none left, and early adjudication ends the phase."""
        variant, position = position_from_dict(game.position)
        players = database.players_of(session, game.id)
        playing = {p.power for p in players if p.status not in CIVIL_DISORDER_STATES and p.power}
        ready = {p.power for p in players if self.ctx.is_ready(game, p)}
        return sorted(p for p in to_decide(variant, position) if p in playing and p not in ready)

    def _remind(self, session, timer) -> str:
        """Run the reminder ``timer`` (its row, as :func:`database.timer` reads it): the powers still
        without orders told, unless its game has moved on."""
        game = database.lock_game(session, timer.game_id)
        if game is None:
            return "busy"
        if not self._claim_timer(session, timer.id):
            return "spent"
        if game.version != timer.version or game.status != GameStatus.ACTIVE:
            return "stale"
        if game.deadline_at is not None and game.deadline_at <= self.ctx.now():
            return "stale"  # the judge was down past the deadline: the deadline itself is due, not a reminder
        missing, playing = self._missing(session, game)
        if missing:
            before = int(timer.payload.get("before", 0))
            self.ctx.announce(session, game, "reminder", "players", f"{game.name}: orders due for {game.phase}",
                           texts.reminder(game.name, started_phase(game), game.deadline_at, missing,
                                          self.ctx.policy(game).timezone),
                           key=f"{game.id}:{game.version}:reminder:{before}", powers=missing,
                           recipients=[playing[p] for p in missing], data={"before": before})
        return "reminded"

    def adjudicate(self, game_id: int, version: int, *, trigger: str = "deadline", timer_id: int | None = None) -> str:
        """Adjudicate ``game_id`` if it still stands at ``version``; ``adjudicated``, ``grace``, ``busy`` or ``stale``."""
        now = self.ctx.now()
        _timings.start()
        drawn = self._draw_ahead(game_id=game_id, version=version, trigger=trigger, now=now)
        with self.ctx.db.session() as session:
            outcome, timers = self._run(session, game_id, version, trigger, timer_id, now, drawn)
        return self._after(outcome, timers, game_id, version, trigger)

    def _after(self, outcome: str, timers: list[Timer], game_id: int, version: int, trigger: str) -> str:
        """After the commit: arm the new timers, say what happened."""
        if outcome == "adjudicated":
            crash_point("after_adjudication")
        self.ctx.notify(timers)
        if outcome in ("adjudicated", "grace", "ended"):
            log.info("phase run", game=game_id, version=version, trigger=trigger, outcome=outcome, node=self.ctx.node,
                     **_timings.fields())
        return outcome

    def _run(self, session, game_id: int, version: int, trigger: str, timer_id: int | None,
             now, drawn: _Drawn | None = None) -> tuple[str, list[Timer]]:
        game = database.lock_game(session, game_id)
        if game is None:
            return "busy", []
        if timer_id is not None and not self._claim_timer(session, timer_id):
            return "stale", []
        if game.version != version or game.status != GameStatus.ACTIVE:
            return "stale", []
        policy = self.ctx.policy(game)
        if trigger == "deadline" and policy.grace > timedelta(0):
            missing, playing = self._missing(session, game)
            if missing:
                return "grace", self._grace(session, game, now, policy.grace, missing, playing)
        crash_point("before_adjudication")
        if limits.calendar_ends(Phase.parse(started_phase(game))):
            self.ctx.finish(session, game, {"calendar": True, "reason": texts.CALENDAR_ENDS}, now=now,
                         key=f"{game.id}:{game.version}:ended")
            return "ended", []
        timers = self._adjudicate_locked(session, game, now, trigger, drawn)
        session.flush()
        crash_point("after_results")
        return "adjudicated", timers

    def _grace(self, session, game: GameRow, now, grace, missing, playing) -> list[Timer]:
        database.cancel_timers(session, game.id, now)
        game.deadline_at = (game.deadline_at or now) + grace
        timer = Timer(game_id=game.id, version=game.version, kind="grace", due_at=game.deadline_at)
        database.add_timers(session, [timer])
        session.add(game)
        self.ctx.announce(session, game, "late", "players", f"{game.name}: orders late for {game.phase}",
                       texts.late(game.name, started_phase(game), game.deadline_at, missing,
                                  self.ctx.policy(game).timezone),
                       powers=missing, recipients=[playing[p] for p in missing])
        session.flush()
        return [timer]

    def _draw_ahead(self, *, now, timer_id: int | None = None, game_id: int | None = None, version: int | None = None,
                    trigger: str = "deadline") -> _Drawn | None:
        """The picture of the season a run is about to adjudicate, drawn before the game is locked,
        on SQLite: there the lock holds back every other writer (the outbox recording its
        deliveries among them) and the picture is most of a run. Read in a short read-only
        transaction of its own (which holds no writer back); the run uses it, and the adjudication
        it was drawn from, when the game and its orders are still what they were
        (:meth:`_Drawn.fits`), and adjudicates and draws again otherwise. ``None`` when there is
        nothing to draw (no pictures, a reminder, a grace period about to begin, a game moved on)
        and on PostgreSQL, whose lock holds back only that game's row, and where every server
        sharing the database would draw the picture of every game whose deadline passes."""
        if not self.ctx.pictures or not self.ctx.db.is_sqlite:
            return None
        with self.ctx.db.session(read_only=True) as session:
            if timer_id is not None:
                timer = database.timer(session, timer_id)
                if timer is None or timer.fired_at is not None or timer.due_at > now or timer.kind == "reminder":
                    return None
                game_id, version, trigger = timer.game_id, timer.version, timer.kind
            game = session.get(GameRow, game_id)
            if game is None or game.version != version or game.status != GameStatus.ACTIVE:
                return None
            if limits.calendar_ends(Phase.parse(started_phase(game))):
                return None
            if trigger == "deadline" and self.ctx.policy(game).grace > timedelta(0) and self._missing(session, game)[0]:
                return None
            orders = database.standing_order_rows(session, [(game.id, game.version)])
        variant, position = position_from_dict(game.position)
        given = tuple(order_from_json(o.order) for o in orders)
        began = time.perf_counter()
        adjudication = adjudicate(variant, position, list(given))
        adjudicated = time.perf_counter()
        _timings.adjudicate += adjudicated - began
        picture = self._picture(game, variant, position, adjudication)
        _timings.picture += time.perf_counter() - adjudicated
        return _Drawn(game.id, game.version, game.position, _standing(orders), picture, variant, position, given,
                      adjudication)

    def _picture(self, game: GameRow, variant: Variant, before, adjudication) -> bytes | None:
        """The season's picture (:func:`bot.render.season.season_picture`), drawn once, here, and
        stored with the season for every front end; ``None`` and a warning when it cannot be
        drawn: the results go out without it."""
        try:
            from bot.render.season import season_picture

            return season_picture(variant, before, adjudication, game=game.name)
        except Exception:
            log.warning("season picture not drawn", game=game.id, phase=game.phase, exc_info=True)
            return None

    def _adjudicate_locked(self, session, game: GameRow, now, trigger: str,
                           drawn: _Drawn | None = None) -> list[Timer]:
        """Adjudicate the game's phase, then at once every following phase in which no power has
        anything to decide; arm the deadline of the phase that waits for orders, announce each."""
        orders = database.standing_order_rows(session, [(game.id, game.version)])
        players = database.players_of(session, game.id)
        ahead = drawn if drawn is not None and drawn.fits(game, orders) else None
        variant, position = (ahead.variant, ahead.board) if ahead else position_from_dict(game.position)
        snapshot = self._snapshot(players)      # the players as they were before this phase
        answered = {o.power for o in orders} | {p.power for p in players if self.ctx.is_ready(game, p)}
        nmr, disorder = self._count_nmr(session, game, players, to_decide(variant, position), answered)
        again = self._again(session, game)      # phases adjudicated before, and rolled back since
        runs = [self._archive(session, game, variant, position, orders, snapshot, nmr, now, trigger, ahead)]
        won = winners(variant, runs[-1].after)
        must_now = to_decide(variant, runs[-1].after)
        while not won and not must_now and not limits.calendar_ends(runs[-1].after.phase):
            runs.append(self._archive(session, game, variant, runs[-1].after, [], self._snapshot(players), [], now,
                                      "nothing to decide"))
            won = winners(variant, runs[-1].after)
            must_now = to_decide(variant, runs[-1].after)
        winner = won[0] if won else None
        outcome = {"winner": winner} if winner else None
        timers = [] if winner else self.ctx.arm(session, game, self.ctx.phase_deadline(game, now), now)
        session.add(game)
        tz = self.ctx.policy(game).timezone
        for i, season in enumerate(runs):
            last = i == len(runs) - 1
            phase, following = str(season.phase), game.phase if last else str(runs[i + 1].phase)
            rerun = phase in again
            self.ctx.announce(session, game, "results", "public",
                           f"{game.name}: results of {phase}" + (" (adjudicated again)" if rerun else ""),
                           texts.results(season, None if winner and last else following,
                                         game.deadline_at if last else None, outcome if last else None, tz,
                                         again=rerun),
                           key=f"{game.id}:{season.version}:results",
                           data={"phase": phase, "next_phase": following, "nmr": list(season.nmr),
                                 "version": season.version, "at_once": i > 0, "again": rerun})
        key = f"{game.id}:{runs[0].version}"
        phase = str(runs[0].phase)
        if disorder:  # the game master told once, however many fell at the same deadline
            fallen = [p.power for p in disorder]
            self.ctx.announce(session, game, "civil_disorder", "gm",
                           f"{game.name}: {', '.join(fallen)} {'is' if len(fallen) == 1 else 'are'} in civil disorder",
                           "".join(f"{p.power} ({p.player}) sent no orders for {p.nmr_count} phases in a row and is "
                                   "now in civil disorder: its units hold and its builds are waived.\n" for p in disorder),
                           key=f"{key}:civil_disorder", powers=fallen, recipients=[p.player for p in disorder])
        for p in disorder:
            back = (f"Send orders for {game.phase} to play it again." if p.power in must_now and not winner else
                    f"It has nothing to decide in {game.phase}; send orders in a later phase in which it has, to play "
                    "it again.")
            self.ctx.announce(session, game, "civil_disorder", "players", f"{game.name}: {p.power} is in civil disorder",
                           f"No orders came for {p.power} in '{game.name}' for {p.nmr_count} phases in a row, so it "
                           f"is now in civil disorder: its units hold and its builds are waived. {back}\n",
                           key=f"{key}:civil_disorder:{p.power}:player", powers=[p.power], recipients=[p.player])
        missed = [power for power in nmr if power not in {p.power for p in disorder}]  # those told above apart
        if missed:
            self.ctx.announce(session, game, "nmr", "gm", f"{game.name}: no orders from {', '.join(missed)}",
                           f"No orders for {phase} from: {', '.join(missed)}.\n", key=f"{key}:nmr", powers=missed,
                           data={"phase": phase})
        if outcome:
            self.ctx.finish(session, game, outcome, now=now, key=f"{game.id}:{runs[-1].version}:ended")
        else:
            self.ctx.announce_decisions(session, game, players, (variant, runs[-1].after))
        return timers

    @staticmethod
    def _again(session, game: GameRow) -> set[str]:
        """The phases of ``game`` that were adjudicated once and rolled back since (their results,
        posted again, say so)."""
        again: set[str] = set()
        for details in database.action_details(session, game.id, "rollback"):
            again.update(details.get("undone") or [details.get("to")])
        return again

    def _count_nmr(self, session, game: GameRow, players, need, have) -> tuple[list[Power], list]:
        """The powers that had to order and did not (sorted), and the players this puts in civil disorder."""
        limit = self.ctx.policy(game).nmr_limit
        nmr: list[Power] = []
        disorder = []
        for p in players:
            if p.power is None or p.power not in need or p.status in CIVIL_DISORDER_STATES:
                continue
            if p.power not in have:
                nmr.append(Power(p.power))
                p.nmr_count += 1
                if limit and p.nmr_count >= limit:
                    p.status = PlayerStatus.CIVIL_DISORDER
                    disorder.append(p)
            elif p.nmr_count:
                p.nmr_count = 0
            else:
                continue    # (a row left as it is is not written)
            session.add(p)
        return sorted(nmr), disorder

    @staticmethod
    def _snapshot(players) -> list[dict]:
        """The players as a season keeps them, for a rollback to restore."""
        return [{"player": p.player, "power": p.power, "status": p.status, "nmr_count": p.nmr_count,
                 "draw_vote": p.draw_vote} for p in players]

    def _archive(self, session, game: GameRow, variant: Variant, position: Position, orders, snapshot: list[dict],
                 nmr: list[Power], now, trigger: str, ahead: _Drawn | None = None) -> Season:
        """Adjudicate the game's phase (``position``) with the standing ``orders``, keep the season,
        move the game on a version to the next position. ``ahead``: the phase adjudicated and
        drawn before the game was locked, from this very position and these very orders
        (:meth:`_Drawn.fits`), whose adjudication and picture are this one's: the engine is a pure
        function of them."""
        decoded = ahead.given if ahead else tuple(order_from_json(o.order) for o in orders)
        given = tuple(GivenOrder(o.power, o.text, order, o.key, o.seq, o.submitted_at)
                      for o, order in zip(orders, decoded, strict=True))
        if ahead:
            adjudication, picture = ahead.adjudication, ahead.picture
        else:
            began = time.perf_counter()
            adjudication = adjudicate(variant, position, list(decoded))
            adjudicated = time.perf_counter()
            _timings.adjudicate += adjudicated - began
            picture = self._picture(game, variant, position, adjudication) if self.ctx.pictures else None
            _timings.picture += time.perf_counter() - adjudicated
        season = Season(game=game.name, version=game.version, variant=variant, position=position, orders=given,
                        adjudication=adjudication, nmr=tuple(nmr), players=tuple(snapshot),
                        seed=_seed(position, game.seed),
                        deadline_at=game.deadline_at, adjudicated_at=now, adjudicated_by=f"{self.ctx.node}:{trigger}",
                        picture=picture)
        columns = season_columns(season)
        # kept for the front ends of this server, which will read its row: the row decodes to it
        self.ctx.seasons.keep(database.add_season(session, game.name, game.id, columns), season)
        # the next position's document, made once: the season's result has it
        game.position, game.phase = columns["result"]["position"], str(adjudication.position.phase)
        game.version += 1
        return season
