"""What a player does in a running game: send orders (routed to their game, read once, judged by
the engine), read them back or withdraw them, vote for a draw or concede the game."""

from __future__ import annotations

from typing import Sequence

from adjudicator.turn import duty, slot, still_to_decide, survivors

from bot.codec import limits
from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json
from bot.store import database
from .context import CIVIL_DISORDER_STATES, WAITING, Context
from .errors import NotAllowedError, ServiceError
from .judge import Judge
from .lobby import Lobby
from .reading import read_message
from .routing import RUNNING, Ambiguous, Routed, route
from .submissions import Batch
from .views import GameEntry, GameView, OrderLine, PlayerOrders, SubmissionReport


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
        return route(text, games, chosen)

    def submit_messages(self, messages: Sequence[tuple[str, str, GameEntry | None]]
                        ) -> list[SubmissionReport | Ambiguous | ServiceError]:
        """Messages of orders ``(player, text, the game the player picked or None)``, each routed to
        its game (:meth:`route`), then taken together as :meth:`submit_many` takes them: for each,
        its report, the games it may be for, or the refusal that concerns it only."""
        unrouted = {player for player, _, chosen in messages if chosen is None}
        directories = self.lobby.directories(unrouted, statuses=RUNNING) if unrouted else {}
        answers: list[SubmissionReport | Ambiguous | ServiceError | None] = [None] * len(messages)
        routed: list[tuple[int, int, str, str]] = []
        for i, (player, text, chosen) in enumerate(messages):
            try:
                found = route(text, directories.get(player, []), chosen)
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
        return answers

    def submit_orders(self, game: str | int, player: str, text: str) -> SubmissionReport:
        """Parse and check every line; accepted orders replace earlier ones for the same unit."""
        [answer] = self.submit_many([(game, player, text)])
        if isinstance(answer, ServiceError):
            raise answer
        return answer

    def submit_many(self, messages: Sequence[tuple[str | int, str, str]]) -> list[SubmissionReport | ServiceError]:
        """Several messages of orders ``(game, player, text)`` in one transaction (a group commit).

        Each is answered as ``submit_orders`` would answer it alone, in the order given: its report,
        or the refusal (``ServiceError``) that concerns it only. Phases every player has now
        ordered for are adjudicated after the commit when the game's policy says so.
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
            early = [(p.game.id, p.game.version) for p in batch.phases.values()
                     if p.ordered_here and p.game.status == "active" and self.ctx.policy(p.game).early
                     and p.everyone_ordered()]
        for game_id, version in early:
            self.judge.adjudicate(game_id, version, trigger="early")
        return answers

    def _take(self, batch: Batch, game: str | int, player: str, text: str) -> SubmissionReport:
        phase = batch.phase(game)
        row = phase.game
        self.ctx.require_status(row, "active", "paused")
        me = self.ctx.player(phase.players, player, row)
        if me.status == WAITING:
            raise NotAllowedError(f"{player!r} is on the waiting list of '{row.name}' and plays no power yet")
        if me.status == "removed" or me.power is None:
            raise NotAllowedError(f"{player!r} no longer plays a power in '{row.name}'")
        variant, position = phase.board
        lines, _ = read_message(text, variant, position, me.power, [o.order for o in phase.standing.get(me.power, [])])
        standing = batch.take(phase, me, lines, limits.bounded_message(text).shown, self.ctx.now())
        return SubmissionReport(
            game=row.name, phase=row.phase, power=me.power,
            accepted=tuple(ln for ln in lines if ln.order is not None),
            rejected=tuple(ln for ln in lines if ln.order is None),
            standing=tuple(OrderLine(o.text, o.order) for o in standing), deadline_at=row.deadline_at,
            duty=still_to_decide(variant, position, me.power, [o.order for o in standing]), variant=row.variant)

    def clear_orders(self, game: str | int, player: str, province: str | None = None) -> PlayerOrders:
        """Withdraw the asker's standing orders for this phase (all, or the one for ``province``)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_status(row, "active", "paused")
            me = self.ctx.player(database.players_of(session, row.id), player, row)
            keys = None
            if province is not None:
                keys = [o.key for o in database.orders_of(session, row.id, row.version, me.power)
                        if getattr(slot(order_from_json(o.order)), "subject", None) == province]
                if not keys:
                    raise ServiceError(f"{me.power} has no standing order for {province!r} in {row.phase}")
            database.delete_orders(session, row.id, row.version, me.power, keys)
        return self.my_orders(game, player)

    def my_orders(self, game: str | int, player: str) -> PlayerOrders:
        """The asker's own standing orders and prestige (nobody else's)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            self.ctx.require_status(row, "active", "paused", "ended")
            me = self.ctx.player(database.players_of(session, row.id), player, row)
            variant, position = position_from_dict(row.position)
            orders = database.orders_of(session, row.id, row.version, me.power)
            prestige = position.prestige.prestige.get(me.power) if position.prestige is not None else None
            lines = tuple(OrderLine(o.text, order_from_json(o.order)) for o in orders)
            return PlayerOrders(game=row.name, phase=row.phase, power=me.power, orders=lines,
                                must_order=duty(variant, position, me.power).must_decide, prestige=prestige,
                                deadline_at=row.deadline_at, variant=row.variant,
                                timezone=self.ctx.policy(row).timezone,
                                duty=still_to_decide(variant, position, me.power, [ln.order for ln in lines]))

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

    _UNSET = object()

    def _vote(self, game: str | int, player: str, *, draw: bool | None = None, concede_to=_UNSET) -> GameView:
        """A vote to end the game by agreement (a draw, a concession) recorded; the game ends when
        every surviving power's player in play (not in civil disorder) agrees."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_status(row, "active", "paused")
            players = database.players_of(session, row.id)
            me = self.ctx.player(players, player, row)
            if me.power is None or me.status in (WAITING, "removed"):
                raise NotAllowedError(f"{player!r} plays no power in '{row.name}' and has no vote")
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
