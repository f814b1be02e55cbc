"""What every part of the service shares (:class:`Context`): the database, the clock, the rows a
request works on and their views, the games' timers and the outbox."""

from __future__ import annotations

import copy
import json
import threading
from collections import OrderedDict
from datetime import datetime
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from sqlmodel import Session

from adjudicator.position import Position
from adjudicator.turn import to_decide
from adjudicator.variant import Variant
from adjudicator.vocab import Phase, PhaseKind, Power

from bot.codec.documents import position_from_dict
from bot.codec.season import Season, season_from_row
from bot.store import database
from bot.store.database import Database, Timer
from bot.store import outbox
from bot.store.outbox import Announcement
from bot.store.rows import ActionRow, GameRow, GameStatus, PlayerRow, PlayerStatus, utcnow
from . import texts
from .errors import NoSuchGameError, NotAllowedError, NotFoundError, NotPlayingError, ServiceError, WrongStateError
from .identities import identity
from .policy import DeadlinePolicy
from .views import GameView, PlayerView

CIVIL_DISORDER_STATES = (PlayerStatus.CIVIL_DISORDER, PlayerStatus.REMOVED)
WAITING = PlayerStatus.WAITING  # a player on a game's waiting list: no power yet

TIMING = ("extended", "paused", "resumed", "reminder", "late")
"""The announcements that tell only when orders are due: worth delivering while no later news of
the game's clock has been written."""
SUPERSEDES: dict[str, tuple[str, ...]] = {
    # a game has one deadline: news of the clock makes the earlier news of it stale...
    "extended": TIMING, "paused": TIMING, "resumed": TIMING,
    # ...and so does the phase being adjudicated, rolled back, or the game ending, which also make
    # stale what a phase that began asked of its powers
    "rolled_back": (*TIMING, "phase_opened"), "results": (*TIMING, "phase_opened"), "ended": (*TIMING, "phase_opened"),
    # a reminder or a late notice, those to the same players before it
    "reminder": ("reminder", "late"), "late": ("reminder", "late"),
    # the game's settings as they now are (the announcement gives all of them)
    "policy": ("policy",),
}
"""What each kind of announcement makes stale among the game's announcements written before it and
not yet delivered: the outbox drops what is left of those when it is written
(:attr:`bot.store.outbox.Announcement.supersedes`). Results, the start, new players, civil
disorder and the game master's notices are never dropped: they stay true of their moment."""


_POLICIES_KEPT = 256
_policies: dict[int, tuple[dict, dict, DeadlinePolicy]] = {}
"""The policies :meth:`Context.policy` parsed, by the identity of the document parsed: the document
itself (kept, so that its identity is not another's), a copy of it as it was, and the policy."""


def started_phase(game: GameRow) -> str:
    """The phase ``game`` is in: only a game that has started has one."""
    if game.phase is None:
        raise WrongStateError(f"game '{game.name}' has not started")
    return game.phase


def seated_power(player: PlayerRow) -> Power:
    """The power ``player`` plays: only a player :meth:`Context.playing` gave has one for sure."""
    if player.power is None:
        raise WrongStateError(f"{player.player!r} plays no power")
    return Power(player.power)


def game_not_found(session: Session, ref: str | int) -> NoSuchGameError:
    """The error for a game name or number that names no game, with the names that would do."""
    return NoSuchGameError(ref, [g.name for g in database.all_games(session)][:10])


class SeasonsRead:
    """The seasons read lately, each known by its row as it is stored (its JSON as text, as
    :func:`bot.store.database.stored_season` reads it): the front ends that show one
    announcement's season (the Discord channel and archive thread, the mail, the archive files,
    the archive site's page) read its row each, and decode it (:func:`season_from_row`) once
    between them, or not at all on the server that adjudicated it, whose judge kept the season it
    stored (:meth:`keep`). A season rolled back and adjudicated again is another row, never the
    one kept; the same row read on another server, or by another process, is the same text."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._kept: OrderedDict[tuple, Season] = OrderedDict()
        self._lock = threading.Lock()  # (the front ends read from their threads)

    def season(self, stored: Any) -> Season:
        """The season of a row ``stored`` (:func:`~bot.store.database.stored_season`'s)."""
        key = tuple(stored[:-1])  # the picture compared apart: a long value, hashed for nothing
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept.picture == stored.picture:
                self._kept.move_to_end(key)
                return kept
        columns = stored._asdict()
        columns.update({name: json.loads(columns[name]) for name in database.SEASON_JSON})
        season = season_from_row(SimpleNamespace(**columns), stored.game)
        self.keep(key, season)
        return season

    def keep(self, key: tuple, season: Season) -> None:
        """Keep ``season``, known by ``key``: what its row reads as but the picture (the judge
        keeps the season it stored, by :func:`~bot.store.database.add_season`'s key, for the
        front ends that will read its row: that row decodes to it)."""
        with self._lock:
            self._kept[key] = season
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


class Context:
    """The service's shared state and the steps every part takes: find a game's rows, check who may
    act and when, make the views, arm a game's timers, write an announcement to the outbox."""

    def __init__(self, db: Database, *, clock: Callable[[], datetime] = utcnow, node: str = "local",
                 pictures: bool = True) -> None:
        self.db = db
        self.clock = clock
        self.node = node
        self.pictures = pictures
        """Whether a season's picture is drawn when it is adjudicated and stored with it."""
        self.timer_listeners: list[Callable[[list[Timer]], None]] = []
        self.seasons = SeasonsRead()
        """The seasons read (and stored) lately, decoded once for every front end."""

    def now(self) -> datetime:
        moment = self.clock()
        if moment.tzinfo is None:
            raise ValueError("the service clock must give timezone-aware UTC times")
        return moment

    # -- rows ------------------------------------------------------------------------------

    def game(self, session: Session, ref: str | int, *, lock: bool = False) -> GameRow:
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()
                                    and database.game_by_name(session, ref) is None):
            game = (database.lock_game(session, int(ref), skip_locked=False) if lock
                    else session.get(GameRow, int(ref)))
        else:
            game = database.game_by_name(session, ref)
            if game is not None and lock:
                game = database.lock_game(session, game.id, skip_locked=False)
        if game is None:
            raise game_not_found(session, ref)
        return game

    def game_id(self, session: Session, ref: str | int) -> int:
        """The number of the game ``ref`` names: a number as it is (whoever reads the game by it
        finds whether there is one), a name or a number written as text as :meth:`game` finds it."""
        return ref if isinstance(ref, int) else self.game(session, ref).id

    @staticmethod
    def identity(text: str, what: str = "a player") -> str:
        return identity(text, what)     # (an InputError says what is accepted)

    def unseat(self, session: Session, game: GameRow, players: list[PlayerRow], row: PlayerRow) -> None:
        """Before the start (or from a waiting list): ``row``'s player leaves the game; the first
        player waiting takes the seat."""
        session.delete(row)
        session.flush()
        waiting = [p for p in players if p.status == WAITING and p is not row]
        if row.status != WAITING and game.status == GameStatus.FORMING and waiting:
            waiting[0].status = PlayerStatus.ACTIVE
            session.add(waiting[0])
            session.flush()

    def seat(self, session: Session, game: GameRow, players: list[PlayerRow], player: str,
              power: str | None) -> PlayerRow:
        """Before the start: ``player`` gets ``power`` (``None``: drawn at the start), joining the
        game or leaving its waiting list if needed; a power another player holds is refused."""
        from adjudicator.variant import get_variant

        target = next((p for p in players if p.player == player), None)
        seated = [p for p in players if p.status != WAITING and p is not target]
        powers = list(get_variant(game.variant).powers)
        if (target is None or target.status == WAITING) and len(seated) >= len(powers):
            raise WrongStateError(f"every power of '{game.name}' has a player; remove one first")
        if power is not None:
            power = power.strip().upper()
            if power not in powers:
                raise NotFoundError(f"{power[:20]!r} is not a power of {game.variant}; powers: {', '.join(powers)}")
            holder = next((p.player for p in seated if p.power == power), None)
            if holder is not None:
                raise ServiceError(f"{power} is already played by {holder} in '{game.name}'; move or remove them first")
        if target is None:
            target = PlayerRow(game_id=game.id, player=player, joined_at=self.now())
        target.power, target.status = power, PlayerStatus.ACTIVE
        session.add(target)
        session.flush()
        return target

    @staticmethod
    def is_ready(game: GameRow, player) -> bool:
        """Has ``player`` (a row) marked the orders of the game's current phase final? (A player in
        civil disorder, or of a game not under way, is not.)"""
        return (player.ready_version is not None and player.ready_version == game.version and bool(player.power)
                and game.status in (GameStatus.ACTIVE, GameStatus.PAUSED) and player.status not in CIVIL_DISORDER_STATES)

    def playing(self, session: Session, game: GameRow, players: list[PlayerRow], player: str) -> PlayerRow:
        """``player``'s row, when they play a power of ``game``; else :class:`NotPlayingError` saying
        what happened to them (never in it, waiting, removed, replaced)."""
        row = next((p for p in players if p.player == player), None)
        if row is not None and row.power and row.status not in (WAITING, PlayerStatus.REMOVED):
            return row
        raise self.not_playing(session, game, player, row)

    def not_playing(self, session: Session, game: GameRow, player: str, row: PlayerRow | None) -> NotPlayingError:
        """Why ``player`` (their row in ``game``, if any) plays no power there: what their row says, or
        the last of the game master's actions about them (a power given to another player, a
        removal before the start)."""
        from adjudicator.variant import get_variant

        def refusal(why: str, power: str | None = None) -> NotPlayingError:
            name = get_variant(game.variant).power_name(Power(power)) if power else None
            return NotPlayingError(game.name, player, why, power, name)

        if row is not None:
            if row.status == WAITING:
                return refusal("waiting")
            return refusal("removed", row.power) if row.power else refusal("stranger")
        for action in reversed(database.actions_of(session, game.id)):
            details = action.details or {}
            if action.action in ("replace", "take_over") and details.get("previous") == player:
                return refusal("taken_out" if details.get("before_start") else "replaced", details.get("power"))
            if action.action == "remove" and details.get("player") == player:
                if details.get("waiting") or details.get("before_start"):
                    return refusal("taken_out")
                return refusal("removed", details.get("power"))
            if player in (details.get("player"), details.get("previous")):
                break  # given a power since, and left it of their own accord
        return refusal("stranger")

    @staticmethod
    def player(players: list[PlayerRow], player: str, game: GameRow) -> PlayerRow:
        for row in players:
            if row.player == player:
                return row
        raise NotAllowedError(f"{player!r} is not a player of game '{game.name}'")

    @staticmethod
    def power_row(players: list[PlayerRow], power: str, game: GameRow) -> PlayerRow:
        for row in players:
            if row.power == power:
                return row
        raise NotFoundError(f"nobody plays {power!r} in game '{game.name}'")

    @staticmethod
    def require_gm(game: GameRow, actor: str | None) -> None:
        """``actor=None`` is the judge's own operator (the shell), who may do anything."""
        if actor is not None and actor != game.gm:
            raise NotAllowedError(f"only the game master of '{game.name}' ({game.gm}) may do that")

    @staticmethod
    def require_status(game: GameRow, *allowed: GameStatus) -> None:
        if game.status not in allowed:
            raise WrongStateError(f"game '{game.name}' is {game.status}; this needs it to be {' or '.join(allowed)}")

    @staticmethod
    def policy(game: GameRow) -> DeadlinePolicy:
        """The game's deadline policy, parsed once for as long as the game's row holds the same
        document, unchanged (a deadline run asks for it for its grace, its NMR limit, its next
        deadline and reminders, and each announcement's time zone)."""
        document = game.policy
        parsed = _policies.get(id(document))
        if parsed is not None and parsed[0] is document and parsed[1] == document:
            return parsed[2]
        policy = DeadlinePolicy.from_dict(document)
        if len(_policies) >= _POLICIES_KEPT:
            _policies.clear()
        _policies[id(document)] = (document, {key: copy.deepcopy(value) if isinstance(value, (dict, list)) else value
                                              for key, value in document.items()}, policy)
        return policy

    def hidden(self, game: GameRow) -> bool:
        """Whether who plays which power in ``game`` is hidden from its players (an anonymous game
        until it ends)."""
        return game.status != "ended" and self.policy(game).anonymous

    # -- views -----------------------------------------------------------------------------

    def view(self, session: Session, game: GameRow) -> GameView:
        players = database.players_of(session, game.id)
        ordered: set[str] = set()
        centers: dict[str, int] = {}
        must: tuple[str, ...] = ()
        if game.position is not None and game.status != GameStatus.FORMING:
            ordered = database.powers_with_orders(session, game.id, game.version)
            variant, position = position_from_dict(game.position)
            centers = dict(sorted(position.center_counts().items()))
            must = tuple(sorted(to_decide(variant, position)))
        policy = self.policy(game)
        views = tuple(PlayerView(p.player, None if p.power is None else Power(p.power), p.status, p.nmr_count, p.power in ordered, p.draw_vote,
                                 p.concede_to, ready=self.is_ready(game, p)) for p in players)
        return GameView(id=game.id, name=game.name, variant=game.variant, rules=tuple(game.rules), gm=game.gm,
                        status=game.status, phase=game.phase, version=game.version, deadline_at=game.deadline_at,
                        players=views, centers=centers, must_order=must, outcome=game.outcome,
                        timezone=policy.timezone, early=policy.early, anonymous=self.hidden(game))

    def finish(self, session, game: GameRow, outcome: dict, *, now: datetime | None = None,
                key: str | None = None) -> None:
        """End the game with ``outcome``: no more deadlines, the ending announced."""
        now = now or self.now()
        game.status, game.outcome, game.ended_at = GameStatus.ENDED, outcome, now
        self.arm(session, game, None, now)
        text = texts.ending(outcome)
        if self.policy(game).anonymous:  # the end reveals who played which power
            players = {p.power: p.player for p in database.players_of(session, game.id)
                       if p.power and p.status != WAITING}
            text += texts.unmasked(players)
        self.announce(session, game, "ended", "public", f"{game.name}: the game is over", text,
                       key=key, data={"outcome": outcome})
        session.add(game)

    # -- timers and announcements -----------------------------------------------------------

    def arm(self, session: Session, game: GameRow, deadline: datetime | None, now: datetime) -> list[Timer]:
        """Replace the game's pending timers by a deadline at ``deadline`` and its reminders."""
        database.cancel_timers(session, game.id, now)
        game.deadline_at = deadline
        if deadline is None:
            return []
        timers = [Timer(game_id=game.id, version=game.version, kind="deadline", due_at=deadline),
                  *self.reminder_timers(game, deadline, now)]
        database.add_timers(session, timers)
        return timers

    def reminder_timers(self, game: GameRow, deadline: datetime, now: datetime) -> list[Timer]:
        """The reminders of a deadline set at ``now`` (:meth:`DeadlinePolicy.reminders_for` the time
        until it: in a phase shorter than a reminder, one halfway through it)."""
        return [Timer(game_id=game.id, version=game.version, kind="reminder", due_at=deadline - before,
                      payload={"before": before.total_seconds()})
                for before in self.policy(game).reminders_for(deadline - now)]

    def phase_deadline(self, game: GameRow, now: datetime) -> datetime:
        return now + self.policy(game).length(Phase.parse(started_phase(game)).kind)

    def announce(self, session: Session, game: GameRow, kind: str, audience: str, subject: str, body: str,
                  *, key: str | None = None, powers: Sequence[str] = (), recipients: Sequence[str] = (),
                  data: dict | None = None) -> None:
        announcement = Announcement(
            key=key or f"{game.id}:{game.version}:{kind}", kind=kind, audience=audience, subject=subject, body=body,
            game_id=game.id, game=game.name, powers=tuple(powers), recipients=tuple(recipients),
            data={"phase": game.phase, **self.deadline_data(game), **(data or {})},
            supersedes=SUPERSEDES.get(kind, ()))
        outbox.write(session, announcement, self.now())

    def to_decide_lines(self, session: Session, game: GameRow, power: str,
                        board: tuple[Variant, Position] | None = None) -> list[str]:
        """What ``power`` has still to decide in the game's phase, its standing orders taken into
        account, in words (:func:`bot.codec.spelled.duty`); none when nothing. ``board``: the
        game's variant and position as values, when the caller has them (else read from the game's)."""
        from adjudicator.turn import still_to_decide
        from bot.codec.spelled import duty as spelled_duty
        from bot.codec.values import order_from_json

        variant, position = board or position_from_dict(game.position)
        standing = [order_from_json(o.order) for o in database.orders_of(session, game.id, game.version, power)]
        left = still_to_decide(variant, position, Power(power), standing)
        return spelled_duty(left, variant) if left.must_decide else []

    def announce_decisions(self, session: Session, game: GameRow, players,
                           board: tuple[Variant, Position] | None = None) -> None:
        """When a retreat or an adjustment phase begins (or a rollback brings one back): the player of
        each power that has something to decide in it is told what, and by when (kind
        ``phase_opened``, to that player alone). Powers in civil disorder are not. ``board``: the
        game's variant and position as values, when the caller has them (else read from the game's)."""
        if game.status != GameStatus.ACTIVE or Phase.parse(started_phase(game)).kind is PhaseKind.MOVEMENT:
            return
        phase = started_phase(game)
        from adjudicator.variant import get_variant

        board = board or position_from_dict(game.position)
        must = to_decide(*board)
        tz = self.policy(game).timezone
        for p in players:
            power = p.power
            if power is None or power not in must or p.status in (*CIVIL_DISORDER_STATES, WAITING):
                continue
            lines = self.to_decide_lines(session, game, power, board)
            if not lines:
                continue
            name = get_variant(game.variant).power_name(Power(power))
            self.announce(session, game, "phase_opened", "players",
                          f"{game.name}: {power} has to decide in {phase}",
                          texts.phase_opened(game.name, phase, name, lines, game.deadline_at, tz),
                          key=f"{game.id}:{game.version}:phase_opened:{power}", powers=[power],
                          recipients=[p.player])

    def record(self, session: Session, game: GameRow, actor: str | None, action: str, **details) -> None:
        """Keep what the game master ``actor`` (``None``: the operator at a shell) did to ``game``
        (``details``: its values, JSON-ready), for the game's export."""
        session.add(ActionRow(game_id=game.id, version=game.version, phase=game.phase, at=self.now(), actor=actor,
                              action=action, details=details))

    def deadline_data(self, game: GameRow) -> dict:
        """The deadline an announcement's text gives (the game's, as it is now) and the zone it is shown
        in, as values: a front end may show it its own way (Discord in each reader's time zone)."""
        if game.deadline_at is None:
            return {}
        return {"deadline": game.deadline_at.isoformat(), "timezone": self.policy(game).timezone}

    def notify(self, timers: list[Timer]) -> None:
        """Tell the scheduler (if one listens) about timers just committed."""
        if timers:
            for listener in self.timer_listeners:
                listener(list(timers))
