"""Creating, joining and starting games; what a player does: submit orders, read them back, vote."""

from __future__ import annotations

import random
from typing import Iterable, Sequence

from adjudicator.variant import UnknownVariantError, get_variant

from .. import storage
from ..documents import DocumentError, new_game_document
from ..storage import GameRow, PlayerRow
from . import engine, texts
from .base import CIVIL_DISORDER_STATES, ServiceBase
from .errors import NotAllowedError, ServiceError, WrongStateError
from .policy import DeadlinePolicy
from .submissions import Batch
from .views import GameEntry, GameView, OrderLine, PlayerOrders, SubmissionReport


class PlayerActions(ServiceBase):
    # -- games -----------------------------------------------------------------------------

    def create_game(self, name: str, variant: str, gm: str, *, policy: DeadlinePolicy | None = None,
                    rules: Iterable[str] = (), seed: int | None = None) -> GameView:
        name = name.strip()
        if not name or len(name) > 100 or name.isdigit():
            raise ServiceError(f"a game name must be 1 to 100 characters and not only digits: {name!r}")
        try:
            get_variant(variant)
            doc = new_game_document(variant, list(rules))
        except (UnknownVariantError, DocumentError) as exc:
            raise ServiceError(str(exc)) from None
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        if "seed" in doc:  # the prestige rules draw the neutrals' random retreats from it (3.4)
            doc["seed"] = seed
        now = self.now()
        with self.db.session() as session:
            if storage.game_by_name(session, name) is not None:
                raise ServiceError(f"there is already a game called {name!r}; choose another name")
            game = GameRow(name=name, variant=variant, rules=sorted(rules), gm=gm, status="forming",
                           policy=(policy or DeadlinePolicy()).to_dict(), position=doc, phase=doc["phase"],
                           seed=seed, created_at=now)
            session.add(game)
            session.flush()
            return self._view(session, game)

    def games(self, *, status: str | None = None) -> list[GameView]:
        with self.db.session() as session:
            return [self._view(session, g) for g in storage.all_games(session, status=status)]

    def directory(self, *, player: str | None = None, statuses: Iterable[str] = ()) -> list[GameEntry]:
        """Games by name (cheap: no board is loaded): all of them, or those ``player`` plays in."""
        statuses = tuple(statuses)
        with self.db.session() as session:
            if player is None:
                rows = [(g, None) for g in storage.all_games(session) if not statuses or g.status in statuses]
            else:
                rows = [(g, g.power) for g in storage.games_of_player(session, player, statuses)]
            return [self._entry(g, power) for g, power in rows]

    def directories(self, players: Iterable[str], *, statuses: Iterable[str] = ()) -> dict[str, list[GameEntry]]:
        """``directory(player=...)`` for several players in one query: each player's games (maybe none)."""
        players = list(players)
        out: dict[str, list[GameEntry]] = {p: [] for p in players}
        with self.db.session() as session:
            for row in storage.games_of_players(session, players, tuple(statuses)):
                out[row.player].append(self._entry(row, row.power))
        return out

    def entry(self, game: str | int) -> GameEntry:
        with self.db.session() as session:
            return self._entry(self._game(session, game), None)

    def _entry(self, game: GameRow, power: str | None) -> GameEntry:
        """``game``: its row, or a directory row (``storage.games_of_players``) with the same names."""
        return GameEntry(id=game.id, name=game.name, variant=game.variant, status=game.status, gm=game.gm,
                         phase=game.phase, power=power, extra=DeadlinePolicy.extra_of(game.policy))

    def board(self, game: str | int):
        """The game's variant and current position (public: units, centres, prestige)."""
        with self.db.session() as session:
            row = self._game(session, game)
            return engine.load(row.position)

    def season(self, game: str | int, version: int) -> dict | None:
        """The archive of the phase adjudicated at ``version`` (``None`` if rolled back since)."""
        with self.db.session() as session:
            row = self._game(session, game)
            season = storage.season_at(session, row.id, version)
            if season is None:
                return None
            return {"game": row.name, "variant": row.variant, "phase": season.phase, "version": season.version,
                    "position": season.position, "orders": season.orders, "result": season.result,
                    "seed": season.seed, "nmr": season.nmr, "players": season.players}

    def status(self, game: str | int) -> GameView:
        with self.db.session() as session:
            return self._view(session, self._game(session, game))

    def join(self, game: str | int, player: str, power: str | None = None) -> GameView:
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_status(row, "forming")
            players = storage.players_of(session, row.id)
            if any(p.player == player for p in players):
                raise ServiceError(f"{player!r} has already joined '{row.name}'")
            power = self._free_power(row, players, power)
            session.add(PlayerRow(game_id=row.id, player=player, power=power, joined_at=self.now()))
            session.flush()
            return self._view(session, row)

    def assign(self, game: str | int, actor: str | None, player: str, power: str) -> GameView:
        """The game master gives ``power`` to ``player`` (joining them if needed) before the start."""
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "forming")
            players = storage.players_of(session, row.id)
            target = next((p for p in players if p.player == player), None)
            others = [p for p in players if p is not target]
            power = self._free_power(row, others, power)
            if target is None:
                target = PlayerRow(game_id=row.id, player=player, joined_at=self.now())
            target.power = power
            session.add(target)
            session.flush()
            return self._view(session, row)

    @staticmethod
    def _free_power(game: GameRow, players: list[PlayerRow], power: str | None) -> str | None:
        if power is None:
            return None
        power = power.strip().upper()
        powers = list(get_variant(game.variant).powers)
        if power not in powers:
            raise ServiceError(f"{power!r} is not a power of {game.variant}; powers: {', '.join(powers)}")
        holder = next((p.player for p in players if p.power == power), None)
        if holder is not None:
            raise ServiceError(f"{power} is already played by {holder}")
        return power

    def start(self, game: str | int, actor: str | None) -> GameView:
        """Give the remaining powers at random (seeded), leave unplayed powers in civil disorder, start the clock."""
        now = self.now()
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_gm(row, actor)
            self._require_status(row, "forming")
            players = storage.players_of(session, row.id)
            if not players:
                raise WrongStateError(f"game '{row.name}' has no players yet; players join first")
            powers = list(get_variant(row.variant).powers)
            free = [p for p in powers if p not in {pl.power for pl in players}]
            random.Random(row.seed).shuffle(free)
            for pl in players:
                if pl.power is None:
                    if not free:
                        raise WrongStateError(f"more players than powers in '{row.name}' ({len(powers)} powers)")
                    pl.power = free.pop()
                    session.add(pl)
            row.status = "active"
            timers = self._arm(session, row, self._phase_deadline(row, now), now)
            assignments = {pl.power: pl.player for pl in players}
            self._announce(session, row, "started", "public", f"{row.name}: the game has started",
                           texts.started(row.name, row.variant, row.phase, row.deadline_at, assignments,
                                         self.policy(row).timezone),
                           data={"assignments": assignments})
            view = self._view(session, row)
        self._notify(timers)
        return view

    # -- orders ----------------------------------------------------------------------------

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
        with self.db.session() as session:
            batch = Batch(session, [game for game, _, _ in messages])
            for game, player, text in messages:
                try:
                    answers.append(self._take(batch, game, player, text))
                except ServiceError as exc:
                    answers.append(exc)
            batch.write()
            early = [(p.game.id, p.game.version) for p in batch.phases.values()
                     if p.ordered_here and p.game.status == "active" and self.policy(p.game).early
                     and p.everyone_ordered()]
        for game_id, version in early:
            self.adjudicate(game_id, version, trigger="early")
        return answers

    def _take(self, batch: Batch, game: str | int, player: str, text: str) -> SubmissionReport:
        phase = batch.phase(game)
        row = phase.game
        self._require_status(row, "active", "paused")
        me = self._player(phase.players, player, row)
        if me.status == "removed" or me.power is None:
            raise NotAllowedError(f"{player!r} no longer plays a power in '{row.name}'")
        variant, position = phase.board
        bids = [o.key.split(":", 1)[1] for o in phase.standing.get(me.power, [])
                if o.key.startswith(("vassal:", "bribe:"))]
        lines = engine.read_orders(text, variant, position, me.power, bids)
        standing = batch.take(phase, me, lines, text, self.now())
        return SubmissionReport(
            game=row.name, phase=row.phase, power=me.power,
            accepted=tuple(OrderLine(ln.written, ln.canonical) for ln in lines if ln.order is not None),
            rejected=tuple(OrderLine(ln.written, reason=ln.reason) for ln in lines if ln.order is None),
            standing=tuple(OrderLine(o.text, o.canonical) for o in standing), deadline_at=row.deadline_at)

    def clear_orders(self, game: str | int, player: str, province: str | None = None) -> PlayerOrders:
        """Withdraw the asker's standing orders for this phase (all, or the one for ``province``)."""
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_status(row, "active", "paused")
            me = self._player(storage.players_of(session, row.id), player, row)
            keys = None
            if province is not None:
                keys = [k for k in (o.key for o in storage.orders_of(session, row.id, row.version, me.power))
                        if k.split(":", 1)[-1] == province]
                if not keys:
                    raise ServiceError(f"{me.power} has no standing order for {province!r} in {row.phase}")
            storage.delete_orders(session, row.id, row.version, me.power, keys)
        return self.my_orders(game, player)

    def policy_of(self, game: str | int) -> DeadlinePolicy:
        with self.db.session() as session:
            return self.policy(self._game(session, game))

    def my_orders(self, game: str | int, player: str) -> PlayerOrders:
        """The asker's own standing orders and prestige (nobody else's)."""
        with self.db.session() as session:
            row = self._game(session, game)
            self._require_status(row, "active", "paused", "ended")
            me = self._player(storage.players_of(session, row.id), player, row)
            variant, position = engine.load(row.position)
            orders = storage.orders_of(session, row.id, row.version, me.power)
            prestige = position.prestige.prestige.get(me.power) if position.prestige is not None else None
            return PlayerOrders(game=row.name, phase=row.phase, power=me.power,
                                orders=tuple(OrderLine(o.text, o.canonical) for o in orders),
                                must_order=me.power in engine.powers_to_order(variant, position),
                                prestige=prestige, deadline_at=row.deadline_at)

    def orders_of_power(self, game: str | int, asker: str | None, power: str) -> list[OrderLine]:
        """Standing orders of ``power``: for its player and the judge (``asker=None``) only."""
        with self.db.session() as session:
            row = self._game(session, game)
            if asker is not None:
                me = self._player(storage.players_of(session, row.id), asker, row)
                if me.power != power:
                    raise NotAllowedError(f"orders of {power} are private until the phase is adjudicated")
            return [OrderLine(o.text, o.canonical) for o in storage.orders_of(session, row.id, row.version, power)]

    def vote_draw(self, game: str | int, player: str, vote: bool = True) -> GameView:
        """Record a draw vote; when every surviving power's player agrees, the game ends in a draw."""
        with self.db.session() as session:
            row = self._game(session, game, lock=True)
            self._require_status(row, "active", "paused")
            players = storage.players_of(session, row.id)
            me = self._player(players, player, row)
            me.draw_vote = vote
            session.add(me)
            variant, position = engine.load(row.position)
            alive = engine.survivors(variant, position)
            voters = [p for p in players if p.power in alive and p.status not in CIVIL_DISORDER_STATES]
            if vote and voters and all(p.draw_vote for p in voters):
                self._finish(session, row, {"draw": alive})
            return self._view(session, row)
