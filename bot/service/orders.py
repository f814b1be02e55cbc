"""What a player does in a running game: send orders (routed to their game, read once, judged by
the engine), read them back or withdraw them, mark them final (ready), vote for a draw or concede
the game."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from collections.abc import Sequence

from adjudicator.modules import standing_column
from adjudicator.turn import duty, slot, still_to_decide, survivors
from adjudicator.vocab import Power

from bot.codec import limits
from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json
from bot.store import database
from bot.store.rows import GameRow, GameStatus, PlayerStatus
from .context import CIVIL_DISORDER_STATES, Context, seated_power, started_phase
from .errors import NotAllowedError, NotPlayingError, ServiceError
from .judge import Judge
from .lobby import Lobby
from .reading import read_message
from .routing import RUNNING, Ambiguous, NoGameError, Routed, route
from .submissions import Batch
from .views import GameEntry, GameView, OrderLine, PlayerOrders, Readiness, SubmissionReport


class OrderDesk:
    """A player's orders: messages routed and taken (several at once in one transaction), read
    back, withdrawn; draw votes and concessions. Phases every power has ordered for go to the judge at once when
    the game's policy says so."""

    def __init__(self, ctx: Context, lobby: Lobby, judge: Judge) -> None:
        self.ctx, self.lobby, self.judge = ctx, lobby, judge

    def route(self, player: str, text: str, chosen: GameEntry | None = None) -> Routed | Ambiguous:
        """The game ``player``'s message of orders ``text`` is for (:func:`.routing.route`): the one
        its ``game:`` line names, or ``chosen``, or the player's only running game; else which
        games it may be for, or :class:`NoGameError` saying why it is for none."""
        games = [] if chosen is not None else self.lobby.directory(player=player, statuses=RUNNING)
        try:
            return route(text, games, chosen)
        except NoGameError as exc:
            raise self._why_no_game(player, exc) from None

    def departure(self, player: str) -> NotPlayingError | None:
        """Why ``player``, who plays in no running game, is out of one: the game master took them off
        a power there, or out of it before its start (the latest such game); ``None`` when nothing
        says so (they never played in one)."""
        with self.ctx.db.session() as session:
            for action in reversed(database.actions_in_games(session, ("remove", "replace", "take_over"), RUNNING)):
                details = action.details or {}
                if player in (details.get("player"), details.get("previous")):
                    row = session.get(GameRow, action.game_id)
                    if row is None:  # (never: the action was read with its game)
                        continue
                    why = self.ctx.not_playing(session, row, player, None)
                    return why if why.why != "stranger" else None
        return None

    def _why_no_game(self, player: str, refusal: NoGameError) -> NoGameError:
        """``refusal`` (a message for no game), saying what happened to ``player`` when they play in no
        running game because the game master took them off their power in one (:meth:`departure`)."""
        if refusal.games or refusal.named is not None:
            return refusal
        gone = self.departure(player)
        if gone is None:
            return refusal
        return NoGameError(f"{gone.to_player()} You play in no other running game, so there is nothing to order.")

    def submit_messages(self, messages: Sequence[tuple[str, str, GameEntry | None]]
                        ) -> list[SubmissionReport | Ambiguous | ServiceError]:
        """Messages of orders ``(player, text, the game the player picked or None)``, each routed to
        its game (:meth:`route`), then taken together as :meth:`submit_many` takes them: for each,
        its report, the games it may be for, or the refusal that concerns it only."""
        unrouted = {player for player, _, chosen in messages if chosen is None}
        directories = self.lobby.directories(unrouted, statuses=RUNNING) if unrouted else {}
        answers: dict[int, SubmissionReport | Ambiguous | ServiceError] = {}
        routed: list[tuple[int, int, str, str]] = []
        for i, (player, text, chosen) in enumerate(messages):
            try:
                found = route(text, directories.get(player, []), chosen)
            except NoGameError as exc:
                answers[i] = self._why_no_game(player, exc)
                continue
            except ServiceError as exc:
                answers[i] = exc
                continue
            if isinstance(found, Ambiguous):
                answers[i] = found
            else:
                routed.append((i, found.game.id, player, found.text))
        reports = self.submit_many([(game, player, text) for _, game, player, text in routed])
        for (i, *_), report in zip(routed, reports, strict=True):
            answers[i] = report
        return [answers[i] for i in range(len(messages))]

    def submit_orders(self, game: str | int, player: str, text: str) -> SubmissionReport:
        """Parse and check every line; accepted orders replace earlier ones for the same unit."""
        [answer] = self.submit_many([(game, player, text)])
        if isinstance(answer, ServiceError):
            raise answer
        return answer

    def submit_many(self, messages: Sequence[tuple[str | int, str, str]]) -> list[SubmissionReport | ServiceError]:
        """Several messages of orders ``(game, player, text)`` in one transaction (a group commit).

        Each is answered as ``submit_orders`` would answer it alone, in the order given: its report,
        or the refusal (``ServiceError``) that concerns it only. (Orders never end a phase early: a
        new order makes its player no longer ready, :meth:`ready`.)
        """
        answers: list[SubmissionReport | ServiceError] = []
        with self.ctx.db.session() as session:
            batch = Batch(session, [game for game, _, _ in messages])
            for game, player, text in messages:
                try:
                    answers.append(self._take(batch, game, player, text))
                except ServiceError as exc:
                    answers.append(exc)
            batch.write()
        return answers

    def _take(self, batch: Batch, game: str | int, player: str, text: str) -> SubmissionReport:
        phase = batch.phase(game)
        row = phase.game
        self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
        me = self.ctx.playing(batch.session, row, phase.players, player)
        variant, position = phase.board
        power = seated_power(me)
        lines, _ = read_message(text, variant, position, power, [o.order for o in phase.standing.get(power, [])])
        return self.record(batch, phase, me, lines, text)

    def record(self, batch: Batch, phase, me, lines: list[OrderLine], text: str) -> SubmissionReport:
        """Record ``me``'s orders ``lines`` (as the engine judged them, from ``text``) and answer them."""
        row = phase.game
        variant, position = phase.board
        was_ready = self.ctx.is_ready(row, me) and me.id not in phase.unready
        standing = batch.take(phase, me, lines, limits.bounded_message(text).shown, self.ctx.now())
        return SubmissionReport(
            game=row.name, phase=row.phase, power=me.power,
            accepted=tuple(ln for ln in lines if ln.order is not None),
            rejected=tuple(ln for ln in lines if ln.order is None),
            standing=tuple(OrderLine(o.text, o.order) for o in standing), deadline_at=row.deadline_at,
            duty=still_to_decide(variant, position, me.power, [o.order for o in standing]), variant=row.variant,
            ready_cleared=was_ready and me.id in phase.unready)

    def clear_orders(self, game: str | int, player: str, province: str | None = None) -> PlayerOrders:
        """Withdraw the asker's standing orders for this phase (all, or the one for ``province``)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            me = self.ctx.playing(session, row, database.players_of(session, row.id), player)
            me.ready_version = None  # the orders change: not final any more
            session.add(me)
            keys = None
            if province is not None:
                keys = [o.key for o in database.orders_of(session, row.id, row.version, me.power)
                        if getattr(slot(order_from_json(o.order)), "subject", None) == province]
                if not keys:
                    raise ServiceError(f"{me.power} has no standing order for {province!r} in {row.phase}")
            database.delete_orders(session, row.id, row.version, seated_power(me), keys)
        return self.my_orders(game, player)

    def my_orders(self, game: str | int, player: str) -> PlayerOrders:
        """The asker's own standing orders and prestige (nobody else's)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED, GameStatus.ENDED)
            me = self.ctx.playing(session, row, database.players_of(session, row.id), player)
            variant, position = position_from_dict(row.position)
            orders = database.orders_of(session, row.id, row.version, me.power)
            standing = standing_column(position)
            column = (standing[0], standing[1].get(Power(me.power or ""), 0)) if standing is not None else None
            given = [order_from_json(o.order) for o in orders]
            lines = tuple(OrderLine(o.text, order) for o, order in zip(orders, given, strict=True))
            power = seated_power(me)
            return PlayerOrders(game=row.name, phase=started_phase(row), power=power, orders=lines,
                                must_order=duty(variant, position, power).must_decide, column=column,
                                deadline_at=row.deadline_at, variant=row.variant,
                                timezone=self.ctx.policy(row).timezone,
                                duty=still_to_decide(variant, position, power, given),
                                ready=self.ctx.is_ready(row, me))

    def ready(self, game: str | int, player: str, ready: bool = True) -> Readiness:
        """``player`` marks their power's orders for the phase final (``ready=False``: no longer).

        A new order, or orders withdrawn, makes the player no longer ready. With the game's early
        adjudication, the phase is adjudicated as soon as every power that must decide in it (and
        is played) is ready. Readiness counts as an answer: a power ready without orders (its units
        hold) is not late, nor reminded, nor NMR. A power with nothing to decide is refused."""
        with self._playing(game, player) as (session, row, _players, me):
            variant, position = position_from_dict(row.position)
            if ready and not duty(variant, position, me.power).must_decide:
                raise ServiceError(f"{me.power} has nothing to decide in {row.phase}: the phase does not wait for it")
            me.ready_version = row.version if ready else None
            if ready and me.status == PlayerStatus.CIVIL_DISORDER:  # back in play, as with orders
                me.status, me.nmr_count = PlayerStatus.ACTIVE, 0
            session.add(me)
            session.flush()
            standing = [order_from_json(o.order) for o in database.orders_of(session, row.id, row.version, me.power)]
            waiting = self.judge.unready(session, row)
            early = self.ctx.policy(row).early
            view = self.ctx.view(session, row)
            answer = Readiness(game=view, phase=row.phase, power=me.power, ready=ready,
                               left=still_to_decide(variant, position, me.power, standing),
                               waiting_for=tuple(waiting), early=early)
            game_id, version, active = row.id, row.version, row.status == GameStatus.ACTIVE
        if ready and early and active and not waiting:
            if self.judge.adjudicate(game_id, version, trigger="early") == "adjudicated":
                with self.ctx.db.session() as session:
                    view = self.ctx.view(session, self.ctx.game(session, game_id))
                answer = replace(answer, game=view, adjudicated=True)
        return answer

    def orders_of_power(self, game: str | int, asker: str | None, power: str) -> list[OrderLine]:
        """Standing orders of ``power``: for its player and the judge (``asker=None``) only."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            if asker is not None:
                me = self.ctx.player(database.players_of(session, row.id), asker, row)
                if me.power != power:
                    raise NotAllowedError(f"orders of {power} are private until the phase is adjudicated")
            return [OrderLine(o.text, order_from_json(o.order))
                    for o in database.orders_of(session, row.id, row.version, power)]

    def vote_draw(self, game: str | int, player: str, vote: bool = True) -> GameView:
        """Record (or, ``vote=False``, withdraw) ``player``'s vote for a draw; when every surviving
        power's player agrees, the game ends in a draw shared by every surviving power."""
        return self._vote(game, player, draw=vote)

    def concede(self, game: str | int, player: str, to: str | None) -> GameView:
        """Record ``player``'s vote to concede the game to the power ``to`` (``None``: withdraw it);
        when the players of every other surviving power concede it to ``to``, the game ends with
        ``to`` the winner."""
        return self._vote(game, player, concede_to=to)

    @contextmanager
    def _playing(self, game: str | int, player: str):
        """In one transaction: the running ``game``'s row (locked), its players, and the row of
        ``player``, who must play a power of it (else :class:`NotPlayingError`, saying why not)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_status(row, GameStatus.ACTIVE, GameStatus.PAUSED)
            players = database.players_of(session, row.id)
            yield session, row, players, self.ctx.playing(session, row, players, player)

    _UNSET = object()

    def _vote(self, game: str | int, player: str, *, draw: bool | None = None, concede_to=_UNSET) -> GameView:
        """A vote to end the game by agreement (a draw, a concession) recorded; the game ends when
        every surviving power's player in play (not in civil disorder) agrees."""
        with self._playing(game, player) as (session, row, players, me):
            variant, position = position_from_dict(row.position)
            alive = list(survivors(variant, position))
            if draw is not None:
                me.draw_vote = draw
            if concede_to is not self._UNSET:
                if concede_to is not None:
                    concede_to = str(concede_to).strip().upper()
                    if concede_to not in alive:
                        raise ServiceError(f"the game can be conceded to a power still in it: {', '.join(alive)}, "
                                           f"not {concede_to[:20]!r}")
                    if concede_to == me.power:
                        raise ServiceError(f"{me.power} cannot concede the game to itself; the other players "
                                           "concede it to you")
                me.concede_to = concede_to
            session.add(me)
            voters = [p for p in players if p.power in alive and p.status not in CIVIL_DISORDER_STATES]
            if voters and all(p.draw_vote for p in voters):
                self.ctx.finish(session, row, {"draw": alive})
            else:
                for winner in alive:
                    others = [p for p in voters if p.power != winner]
                    if others and all(p.concede_to == winner for p in others):
                        self.ctx.finish(session, row, {"winner": winner, "conceded": sorted(p.power for p in others)})
                        break
            return self.ctx.view(session, row)
