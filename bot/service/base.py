"""What every part of the service shares: the database, the clock, rows to views, timers, the outbox."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlmodel import Session

from adjudicator.vocab import Phase

from .. import storage
from ..outbox import Announcement, outbox_row
from ..storage import Database, GameRow, PlayerRow, TimerRow, utcnow
from . import engine, texts
from .errors import NotAllowedError, NotFoundError, WrongStateError
from .policy import DeadlinePolicy
from .views import GameView, PlayerView

CIVIL_DISORDER_STATES = ("civil_disorder", "removed")


def game_not_found(session: Session, ref: str | int) -> NotFoundError:
    """The error for a game name or number that names no game, with the names that would do."""
    names = [g.name for g in storage.all_games(session)][:10]
    return NotFoundError(f"no game {ref!r}; games here: {', '.join(names) or 'none yet'}")


class ServiceBase:
    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow, node: str = "local") -> None:
        self.db = db
        self.clock = clock
        self.node = node
        self.timer_listeners: list[Callable[[list[TimerRow]], None]] = []

    def now(self) -> datetime:
        moment = self.clock()
        if moment.tzinfo is None:
            raise ValueError("the service clock must give timezone-aware UTC times")
        return moment

    # -- rows ------------------------------------------------------------------------------

    def _game(self, session: Session, ref: str | int, *, lock: bool = False) -> GameRow:
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit() and storage.game_by_name(session, ref) is None):
            game = (storage.lock_game(session, int(ref), skip_locked=False) if lock
                    else session.get(GameRow, int(ref)))
        else:
            game = storage.game_by_name(session, ref)
            if game is not None and lock:
                game = storage.lock_game(session, game.id, skip_locked=False)
        if game is None:
            raise game_not_found(session, ref)
        return game

    @staticmethod
    def _player(players: list[PlayerRow], player: str, game: GameRow) -> PlayerRow:
        for row in players:
            if row.player == player:
                return row
        raise NotAllowedError(f"{player!r} is not a player of game '{game.name}'")

    @staticmethod
    def _power_row(players: list[PlayerRow], power: str, game: GameRow) -> PlayerRow:
        for row in players:
            if row.power == power:
                return row
        raise NotFoundError(f"nobody plays {power!r} in game '{game.name}'")

    @staticmethod
    def _require_gm(game: GameRow, actor: str | None) -> None:
        """``actor=None`` is the judge's own operator (the shell), who may do anything."""
        if actor is not None and actor != game.gm:
            raise NotAllowedError(f"only the game master of '{game.name}' ({game.gm}) may do that")

    @staticmethod
    def _require_status(game: GameRow, *allowed: str) -> None:
        if game.status not in allowed:
            raise WrongStateError(f"game '{game.name}' is {game.status}; this needs it to be {' or '.join(allowed)}")

    @staticmethod
    def policy(game: GameRow) -> DeadlinePolicy:
        return DeadlinePolicy.from_dict(game.policy)

    # -- views -----------------------------------------------------------------------------

    def _view(self, session: Session, game: GameRow) -> GameView:
        players = storage.players_of(session, game.id)
        ordered: set[str] = set()
        centers: dict[str, int] = {}
        must: tuple[str, ...] = ()
        if game.position is not None and game.status != "forming":
            ordered = {o.power for o in storage.orders_of(session, game.id, game.version)}
            variant, position = engine.load(game.position)
            centers = dict(sorted(position.center_counts().items()))
            must = tuple(sorted(engine.powers_to_order(variant, position)))
        views = tuple(PlayerView(p.player, p.power, p.status, p.nmr_count, p.power in ordered, p.draw_vote)
                      for p in players)
        return GameView(id=game.id, name=game.name, variant=game.variant, rules=tuple(game.rules), gm=game.gm,
                        status=game.status, phase=game.phase, version=game.version, deadline_at=game.deadline_at,
                        players=views, centers=centers, must_order=must, outcome=game.outcome)

    def _finish(self, session, game: GameRow, outcome: dict, *, now: datetime | None = None,
                key: str | None = None) -> None:
        """End the game with ``outcome``: no more deadlines, the ending announced."""
        now = now or self.now()
        game.status, game.outcome, game.ended_at = "ended", outcome, now
        self._arm(session, game, None, now)
        self._announce(session, game, "ended", "public", f"{game.name}: the game is over", texts.ending(outcome),
                       key=key, data={"outcome": outcome})
        session.add(game)

    # -- timers and announcements -----------------------------------------------------------

    def _arm(self, session: Session, game: GameRow, deadline: datetime | None, now: datetime) -> list[TimerRow]:
        """Replace the game's pending timers by a deadline at ``deadline`` and its reminders."""
        storage.cancel_timers(session, game.id, now)
        game.deadline_at = deadline
        if deadline is None:
            return []
        timers = [TimerRow(game_id=game.id, version=game.version, kind="deadline", due_at=deadline, payload={})]
        for before in self.policy(game).reminders:
            due = deadline - before
            if due > now:
                timers.append(TimerRow(game_id=game.id, version=game.version, kind="reminder", due_at=due,
                                       payload={"before": before.total_seconds()}))
        session.add_all(timers)
        session.flush()
        return timers

    def _phase_deadline(self, game: GameRow, now: datetime) -> datetime:
        return now + self.policy(game).length(Phase.parse(game.phase).kind)

    def _announce(self, session: Session, game: GameRow, kind: str, audience: str, subject: str, body: str,
                  *, key: str | None = None, powers: list[str] = (), recipients: list[str] = (),
                  data: dict | None = None) -> None:
        announcement = Announcement(
            key=key or f"{game.id}:{game.version}:{kind}", kind=kind, audience=audience, subject=subject, body=body,
            game_id=game.id, game=game.name, powers=tuple(powers), recipients=tuple(recipients),
            data={"phase": game.phase, **(data or {})})
        session.add(outbox_row(announcement, self.now()))

    def _notify(self, timers: list[TimerRow]) -> None:
        """Tell the scheduler (if one listens) about timers just committed."""
        if timers:
            for listener in self.timer_listeners:
                listener(list(timers))
