"""Games before and around play: created, joined, started, listed; their boards and seasons."""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from adjudicator.errors import CrusaderError
from adjudicator.position import Position
from adjudicator.variant import UnknownVariantError, Variant, get_variant
from adjudicator.vocab import Power

from bot.codec.documents import DocumentError, new_game_document, position_from_dict
from bot.codec.season import Season, season_from_row
from bot.store import database
from bot.store.names import check_game_name, game_key, name_taken
from bot.store.rows import GameRow, GameStatus, PlayerRow
from . import texts
from .context import WAITING, Context, game_not_found, started_phase
from .errors import NotFoundError, ServiceError, UnplayedPowersError, WrongStateError
from .policy import DeadlinePolicy
from .views import GameEntry, GameView, Seat, Seats


@dataclass(frozen=True)
class SeasonEntry:
    """One adjudicated phase of a game, as its history lists it: when, and each power's supply
    centres and units after it (neutral ones under ``"neutral"`` are left out)."""

    version: int
    phase: str
    adjudicated_at: datetime
    centers: dict[str, int]
    units: dict[str, int]


class Lobby:
    """Games: made, joined and left, given out to players, started; listed for a player or a
    directory; a game's board, its seasons, its status."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.seasons = ctx.seasons

    def check_new_game(self, name: str, variant: str, rules: Iterable[str] = ()) -> tuple[str, dict]:
        """Would :meth:`create_game` accept this game? The name as it would be kept and the opening
        position document if so; else the refusal (a front end asks before it makes anything of its
        own for the game, like a thread)."""
        try:
            name = check_game_name(name)
        except ValueError as exc:
            raise ServiceError(str(exc)) from None
        try:
            variant = get_variant(variant).name  # an alias ("classic") is kept as the variant's own name
            doc = new_game_document(variant, list(rules))
        except (UnknownVariantError, DocumentError) as exc:
            raise ServiceError(str(exc)) from None
        with self.ctx.db.session() as session:
            taken = database.game_by_name(session, name)
            if taken is not None:
                raise ServiceError(name_taken(name, taken.name))
        return name, doc

    def create_game(self, name: str, variant: str, gm: str, *, policy: DeadlinePolicy | None = None,
                    rules: Iterable[str] = (), seed: int | None = None) -> GameView:
        gm = self.ctx.identity(gm, "the game master")
        name, doc = self.check_new_game(name, variant, rules)
        seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
        doc = new_game_document(doc["variant"], list(rules), seed=seed)     # a rule module's random draws
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            taken = database.game_by_name(session, name)
            if taken is not None:
                raise ServiceError(name_taken(name, taken.name))
            game = GameRow(name=name, key=game_key(name), variant=doc["variant"], rules=sorted(rules), gm=gm,
                           status=GameStatus.FORMING, policy=(policy or DeadlinePolicy()).to_dict(), position=doc, phase=doc["phase"],
                           seed=seed, created_at=now)
            session.add(game)
            session.flush()
            return self.ctx.view(session, game)

    def games(self, *, status: str | None = None) -> list[GameView]:
        with self.ctx.db.session() as session:
            return [self.ctx.view(session, g) for g in database.all_games(session, status=status)]

    def players(self, *, statuses: Iterable[str]) -> set[str]:
        """Who plays (or waits, or played) in the games of these ``statuses``: their identities."""
        with self.ctx.db.session() as session:
            return database.players_in_games(session, tuple(statuses))

    def directory(self, *, player: str | None = None, statuses: Iterable[str] = ()) -> list[GameEntry]:
        """Games by name (cheap: no board is loaded): all of them, or those ``player`` plays in."""
        statuses = tuple(statuses)
        with self.ctx.db.session() as session:
            rows: list[tuple[GameRow | database.Listing, str | None]]
            if player is None:
                rows = [(g, None) for g in database.all_games(session) if not statuses or g.status in statuses]
            else:
                rows = [(g, g.power) for g in database.games_of_player(session, player, statuses)]
            return [self._entry(g, power) for g, power in rows]

    def directories(self, players: Iterable[str], *, statuses: Iterable[str] = ()) -> dict[str, list[GameEntry]]:
        """``directory(player=...)`` for several players in one query: each player's games (maybe none)."""
        players = list(players)
        out: dict[str, list[GameEntry]] = {p: [] for p in players}
        with self.ctx.db.session() as session:
            for row in database.games_of_players(session, players, tuple(statuses)):
                out[row.player].append(self._entry(row, row.power))
        return out

    def entry(self, game: str | int) -> GameEntry:
        """The game as a directory lists it (cheap: its board is not read)."""
        with self.ctx.db.session(read_only=True) as session:
            return self._entry(self._listing(session, game), None)

    def _listing(self, session, game: str | int) -> database.Listing:
        """The game ``game`` names, as a listing has it (:func:`~bot.store.database.game_listing`)."""
        listing = database.game_listing(session, self.ctx.game_id(session, game))
        if listing is None:
            raise game_not_found(session, game)
        return listing

    def _entry(self, game: GameRow | database.Listing, power: str | None) -> GameEntry:
        """``game``: its row, or a listing (``database.games_of_players``) with the same names."""
        return GameEntry(id=game.id, name=game.name, variant=game.variant, status=game.status, gm=game.gm,
                         phase=game.phase, power=power, extra=DeadlinePolicy.extra_of(game.policy),
                         version=game.version, deadline_at=game.deadline_at)

    def board(self, game: str | int, version: int | None = None) -> tuple[Variant, Position] | None:
        """The game's variant and current position (public: units, centres, prestige); with
        ``version``, the position the game stood at then (``None`` when that phase was rolled back)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            if version is None or version == row.version:
                return position_from_dict(row.position)
            season = database.season_at(session, row.id, version)
            return position_from_dict(season.position) if season is not None else None

    def season(self, game: str | int, version: int) -> Season | None:
        """The phase adjudicated at ``version`` (``None`` if rolled back since): its row read, and
        decoded once for every front end that asks (:class:`~bot.service.context.SeasonsRead`)."""
        with self.ctx.db.session(read_only=True) as session:
            game_id = self.ctx.game_id(session, game)
            stored = database.stored_season(session, game_id, version)
            if stored is None:
                self.ctx.game(session, game_id)  # (NoSuchGameError when there is no such game)
                return None
        return self.seasons.season(stored)

    def seats(self, game: str | int) -> Seats:
        """Who plays the game (cheap: its board and its orders are not read)."""
        with self.ctx.db.session(read_only=True) as session:
            listing = self._listing(session, game)
            players = database.players_of(session, listing.id)
            return Seats(id=listing.id, gm=listing.gm, players=tuple(
                Seat(p.player, None if p.power is None else Power(p.power), p.status) for p in players))

    def status(self, game: str | int) -> GameView:
        with self.ctx.db.session() as session:
            return self.ctx.view(session, self.ctx.game(session, game))

    def join(self, game: str | int, player: str, power: str | None = None) -> GameView:
        """``player`` joins: with ``power``, or to be given one at random at the start.

        Joining stops at the number of powers: once every power has a player, and once the game
        has started, a player who joins is put on the waiting list (status ``waiting``), from which
        the game master may give them a power (:meth:`assign`, ``replace_player``).
        """
        player = self.ctx.identity(player)
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_status(row, GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED)
            power = self.power_code(row.variant, power) if power is not None else None
            players = database.players_of(session, row.id)
            mine = next((p for p in players if p.player == player), None)
            if mine is not None:
                where = "is on the waiting list of" if mine.status == WAITING else "has already joined"
                raise ServiceError(f"{player!r} {where} '{row.name}'")
            seated = [p for p in players if p.status != WAITING]
            powers = list(get_variant(row.variant).powers)
            if row.status != GameStatus.FORMING or len(seated) >= len(powers):
                if power is not None:
                    why = "has started" if row.status != GameStatus.FORMING else f"has a player for each of its {len(powers)} powers"
                    raise WrongStateError(f"'{row.name}' {why}; join without a power to go on its waiting list")
                session.add(PlayerRow(game_id=row.id, player=player, status=WAITING, joined_at=self.ctx.now()))
                session.flush()
            else:
                holder = next((p for p in seated if p.power == power), None) if power else None
                if holder is not None:  # said to a stranger: the power, never who plays it
                    free = [c for c in powers if c not in {p.power for p in seated}]
                    raise ServiceError(f"{power} is taken in '{row.name}'; the powers still free are "
                                       f"{', '.join(free)} (or join without a power to have one drawn at the start)")
                self.ctx.seat(session, row, players, player, power)
                self._full(session, row, len(seated) + 1, len(powers))
            return self.ctx.view(session, row)

    def _full(self, session, row: GameRow, seated: int, powers: int) -> None:
        """The last seat of a forming game was just filled: its game master is told (and may start it)."""
        if seated != powers:
            return
        self.ctx.announce(session, row, "full", "gm", f"{row.name}: every power has a player",
                          texts.full(row.name, powers), key=f"{row.id}:full:{self.ctx.now().isoformat()}")

    @staticmethod
    def power_code(variant: str, name: str) -> str:
        """The power a player means by ``name`` (its code, name or adjective), or :class:`NotFoundError`."""
        from grammar import resolve_power_name

        try:
            return resolve_power_name(name, variant)
        except CrusaderError:
            powers = get_variant(variant).powers
            raise NotFoundError(f"{name[:20]!r} is not a power of {variant}; its powers are "
                                + ", ".join(f"{code} ({info.name})" for code, info in powers.items())) from None

    def history(self, game: str | int) -> tuple[GameView, list[SeasonEntry]]:
        """The game and its adjudicated phases, oldest first (those rolled back are gone)."""
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game)
            view = self.ctx.view(session, row)
            out = []
            for season in database.seasons_of(session, row.id):
                position = season_from_row(season, row.name).after
                units: dict[str, int] = {}
                for unit in position.units:
                    units[unit.power] = units.get(unit.power, 0) + 1
                out.append(SeasonEntry(season.version, season.phase, season.adjudicated_at,
                                       dict(sorted(position.center_counts().items())), dict(sorted(units.items()))))
            return view, out

    def leave(self, game: str | int, player: str) -> GameView:
        """``player`` leaves a game that has not started, or its waiting list at any time."""
        player = self.ctx.identity(player)
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            players = database.players_of(session, row.id)
            me = self.ctx.player(players, player, row)
            if me.status != WAITING:
                self.ctx.require_status(row, GameStatus.FORMING)
            self.ctx.unseat(session, row, players, me)
            return self.ctx.view(session, row)

    def assign(self, game: str | int, actor: str | None, player: str, power: str | None) -> GameView:
        """Before the start, the game master gives ``power`` to ``player``: joining them if needed,
        taking them off the waiting list, or moving them from the power they had. ``power=None``:
        the player's power is drawn at random at the start. A power another player holds is refused
        (move or remove that player first)."""
        player = self.ctx.identity(player)
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            if row.status != GameStatus.FORMING:
                raise WrongStateError(f"'{row.name}' has started: give a power a new player with replace instead")
            self.ctx.seat(session, row, database.players_of(session, row.id), player, power)
            return self.ctx.view(session, row)

    def start(self, game: str | int, actor: str | None, *, fill_civil_disorder: bool = False) -> GameView:
        """Give the players without a power one at random (seeded), and start the clock.

        Refused while a power has no player, unless ``fill_civil_disorder``: those powers then
        start in civil disorder (their units hold, their builds are waived) until the game master
        gives them a player (``replace_player``).
        """
        now = self.ctx.now()
        with self.ctx.db.session() as session:
            row = self.ctx.game(session, game, lock=True)
            self.ctx.require_gm(row, actor)
            self.ctx.require_status(row, GameStatus.FORMING)
            players = [p for p in database.players_of(session, row.id) if p.status != WAITING]
            if not players:
                raise WrongStateError(f"game '{row.name}' has no players yet; players join first")
            powers = list(get_variant(row.variant).powers)
            free = [p for p in powers if p not in {pl.power for pl in players}]
            unplayed = len(free) - sum(1 for pl in players if pl.power is None)
            if unplayed > 0 and not fill_civil_disorder:
                raise UnplayedPowersError(
                    f"'{row.name}' has {len(players)} player(s) for {len(powers)} powers: {unplayed} power(s) would "
                    "have no player. Wait for more players, or start it with the unplayed powers in civil disorder "
                    "(their units hold; a player may be given each later)", unplayed)
            random.Random(row.seed).shuffle(free)
            for pl in players:
                if pl.power is None:
                    pl.power = free.pop()
                    session.add(pl)
            row.status = GameStatus.ACTIVE
            self.ctx.record(session, row, actor, "start", civil_disorder=sorted(free))
            timers = self.ctx.arm(session, row, self.ctx.phase_deadline(row, now), now)
            assignments = {pl.power: pl.player for pl in players if pl.power is not None}  # (every one, now)
            self.ctx.announce(session, row, "started", "public", f"{row.name}: the game has started",
                           texts.started(row.name, row.variant, started_phase(row), row.deadline_at, assignments,
                                         self.ctx.policy(row).timezone, unplayed=sorted(free),
                                         early=self.ctx.policy(row).early, anonymous=self.ctx.hidden(row)),
                           data={"assignments": assignments, "civil_disorder": sorted(free), "version": row.version})
            view = self.ctx.view(session, row)
        self.ctx.notify(timers)
        return view

    def policy_of(self, game: str | int) -> DeadlinePolicy:
        with self.ctx.db.session() as session:
            return self.ctx.policy(self.ctx.game(session, game))
