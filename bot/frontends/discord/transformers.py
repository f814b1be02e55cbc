"""Text becomes a domain value at the boundary: games, powers, provinces and durations.

Each transformer answers autocomplete from the service (games the user can see, the powers
and provinces of the game named in the ``game`` option) and refuses, with a sentence, what it
cannot resolve.
"""

from __future__ import annotations

from datetime import timedelta

from discord import app_commands

from adjudicator.errors import CrusaderError
from adjudicator.variant import get_variant
from adjudicator.vocab import Location, Power
from grammar import resolve_power_name, resolve_province, suggestions

from bot.service import GameEntry, NotFoundError, parse_duration, parse_durations
from bot.store.names import game_key
from .identity import player_key
from .client import JudgeBotMixin, JudgeInteraction
from bot.store.rows import GameStatus

MAX_CHOICES = 25


def _service(interaction: JudgeInteraction):
    return interaction.client.service


async def game_named(interaction: JudgeInteraction, name: str) -> GameEntry | None:
    """The game called ``name`` (in any case and punctuation: its key), looked up once per
    interaction: the permission check and the command get the same game."""
    key = game_key(str(name))
    resolved = interaction.extras.get("game")
    if resolved is not None and resolved[0] == key:
        return resolved[1]
    entry = None
    if key and not key.replace("-", "").isdigit():  # a game's number is not its name
        try:
            entry = await interaction.client.call(_service(interaction).entry, str(name))
        except NotFoundError:
            entry = None
    interaction.extras["game"] = (key, entry)
    return entry


async def _entry_for(interaction: JudgeInteraction, name: str | None) -> GameEntry | None:
    """The game named ``name``, or the asker's only running game when none is named."""
    service = _service(interaction)
    if name:
        return await game_named(interaction, name)
    mine = await interaction.client.call(service.directory, player=player_key(interaction.user),
                                   statuses=(GameStatus.ACTIVE, GameStatus.PAUSED))
    return mine[0] if len(mine) == 1 else None


class GameTransformer(app_commands.Transformer[JudgeBotMixin]):
    """A game by name; autocomplete offers the asker's games first, then the others."""

    def __init__(self, *, statuses: tuple[str, ...] = ()) -> None:
        self.statuses = statuses

    async def transform(self, interaction: JudgeInteraction, value: str) -> GameEntry:
        game = await game_named(interaction, value)
        if game is not None and (not self.statuses or game.status in self.statuses):
            return game
        if game is not None:
            command = interaction.command.qualified_name if interaction.command else ""
            raise app_commands.AppCommandError(wrong_state(game, command))
        games = await interaction.client.call(_service(interaction).directory, statuses=self.statuses)
        names = ", ".join(g.name for g in games[:15]) or "none yet"
        raise app_commands.AppCommandError(f"There is no game called {value!r}. Games: {names}.")

    async def autocomplete(self, interaction: JudgeInteraction, value: float | str
                           ) -> list[app_commands.Choice[int | float | str]]:
        service = _service(interaction)
        mine = {g.name for g in await interaction.client.call(service.directory, player=player_key(interaction.user))}
        games = await interaction.client.call(service.directory, statuses=self.statuses)
        typed = str(value).strip().lower()
        hits = [g for g in games if typed in g.name.lower()]
        hits.sort(key=lambda g: (g.name not in mine, not g.name.lower().startswith(typed), g.name.lower()))
        return [app_commands.Choice(name=f"{g.name} ({g.variant}, {g.status})"[:100], value=g.name)
                for g in hits[:MAX_CHOICES]]


async def _variant_of_game_option(interaction: JudgeInteraction):
    """The variant of the game named in the ``game`` option (or the asker's only running game), and
    that game; the classic map when there is none."""
    entry = await _entry_for(interaction, getattr(interaction.namespace, "game", None))
    return get_variant(entry.variant if entry else "standard"), entry


class PowerTransformer(app_commands.Transformer[JudgeBotMixin]):
    """A power of the game named in the ``game`` option: code, name or adjective (``France``, ``fra``)."""

    async def transform(self, interaction: JudgeInteraction, value: str) -> Power:
        variant, entry = await _variant_of_game_option(interaction)
        try:
            return resolve_power_name(value, variant)
        except CrusaderError as exc:
            first = str(exc).splitlines()[0]  # the grammar's sentence; its list of powers comes once, below
            powers = ", ".join(f"{info.name} ({code})" for code, info in variant.powers.items())
            raise app_commands.AppCommandError(
                f"{first}. The powers of {entry.name if entry else variant.name}: {powers}.") from None

    async def autocomplete(self, interaction: JudgeInteraction, value: float | str
                           ) -> list[app_commands.Choice[int | float | str]]:
        variant, _ = await _variant_of_game_option(interaction)
        typed = str(value).strip().lower()
        return [app_commands.Choice(name=f"{info.name} ({code})"[:100], value=code)
                for code, info in variant.powers.items()
                if not typed or typed in code.lower() or typed in info.name.lower() or typed in info.adjective.lower()
                ][:MAX_CHOICES]


class ProvinceTransformer(app_commands.Transformer[JudgeBotMixin]):
    """A province of the game named in the ``game`` option (id, name, alias or a unique start)."""

    async def transform(self, interaction: JudgeInteraction, value: str) -> Location:
        variant, _ = await _variant_of_game_option(interaction)
        try:
            return resolve_province(value, variant)
        except CrusaderError as exc:
            raise app_commands.AppCommandError(str(exc)) from None

    async def autocomplete(self, interaction: JudgeInteraction, value: float | str
                           ) -> list[app_commands.Choice[int | float | str]]:
        variant, _ = await _variant_of_game_option(interaction)
        typed = str(value).strip()
        if typed:
            ids = suggestions(typed, variant, limit=MAX_CHOICES)
        else:
            ids = sorted(variant.provinces, key=lambda p: variant.provinces[p].name)[:MAX_CHOICES]
        return [app_commands.Choice(name=f"{variant.provinces[p].name} ({p})"[:100], value=p) for p in ids]


_STATES = {GameStatus.FORMING: "has not started yet", GameStatus.ACTIVE: "is under way",
           GameStatus.PAUSED: "is paused", GameStatus.ENDED: "is over"}
_WHAT_INSTEAD = {
    ("game assign", GameStatus.ACTIVE): "to give one of its powers to a player now, use `/game replace`",
    ("game assign", GameStatus.PAUSED): "to give one of its powers to a player now, use `/game replace`",
    (GameStatus.FORMING,): "its game master starts it with `/game start`",
}
"""What to do instead, by command and state (or by state alone)."""


def wrong_state(game: GameEntry, command: str) -> str:
    """Why ``command`` cannot be used on ``game`` now: the state it is in, and what would do instead."""
    said = f"'{game.name}' {_STATES.get(game.status, game.status)}"
    if game.status in (GameStatus.ACTIVE, GameStatus.PAUSED) and game.phase:
        said += f" ({game.phase})"
    instead = _WHAT_INSTEAD.get((command, game.status), _WHAT_INSTEAD.get((game.status,), ""))
    return f"{said}; /{command} is not for a game in that state" + (f": {instead}." if instead else ".")


class DurationTransformer(app_commands.Transformer[JudgeBotMixin]):
    """``48h``, ``2d``, ``1d12h``, ``90m`` (:func:`bot.service.parse_duration`: a unit, positive, at most a year)."""

    async def transform(self, interaction: JudgeInteraction, value: str) -> timedelta:
        try:
            return parse_duration(value)
        except CrusaderError as exc:
            raise app_commands.AppCommandError(str(exc)) from None


class GraceTransformer(app_commands.Transformer[JudgeBotMixin]):
    """A grace period: a duration, or ``none`` (``0``)."""

    async def transform(self, interaction: JudgeInteraction, value: str) -> timedelta:
        try:
            return parse_duration(value, what="the grace period", zero=True)
        except CrusaderError as exc:
            raise app_commands.AppCommandError(str(exc)) from None


class DurationsTransformer(app_commands.Transformer[JudgeBotMixin]):
    """Reminders before a deadline: ``24h, 1h``, or ``none`` (:func:`bot.service.parse_durations`)."""

    async def transform(self, interaction: JudgeInteraction, value: str) -> tuple[timedelta, ...]:
        try:
            return parse_durations(value, what="a reminder")
        except CrusaderError as exc:
            raise app_commands.AppCommandError(str(exc)) from None


Game = app_commands.Transform[GameEntry, GameTransformer]
RunningGame = app_commands.Transform[GameEntry, GameTransformer(statuses=(GameStatus.ACTIVE, GameStatus.PAUSED))]
FormingGame = app_commands.Transform[GameEntry, GameTransformer(statuses=(GameStatus.FORMING,))]
OpenGame = app_commands.Transform[GameEntry, GameTransformer(statuses=(GameStatus.FORMING, GameStatus.ACTIVE, GameStatus.PAUSED))]
PowerArg = app_commands.Transform[Power, PowerTransformer]
ProvinceArg = app_commands.Transform[Location, ProvinceTransformer]
Duration = app_commands.Transform[timedelta, DurationTransformer]
Grace = app_commands.Transform[timedelta, GraceTransformer]
Durations = app_commands.Transform[tuple, DurationsTransformer]


async def my_game(interaction: JudgeInteraction, game: GameEntry | None) -> GameEntry:
    """The game a player command is about: the one named, or the asker's only running game."""
    if game is not None:
        return game
    mine = await interaction.client.call(_service(interaction).directory, player=player_key(interaction.user),
                                   statuses=(GameStatus.ACTIVE, GameStatus.PAUSED, GameStatus.FORMING))
    if len(mine) == 1:
        return mine[0]
    if not mine:
        gone = await interaction.client.call(_service(interaction).departure, player_key(interaction.user))
        if gone is not None:
            raise app_commands.AppCommandError(f"{gone.to_player()} You are in no other game.")
        raise app_commands.AppCommandError("You are not in any game yet; name one with the `game` option "
                                           "or join one with `/join`.")
    raise app_commands.AppCommandError("You are in several games (" + ", ".join(g.name for g in mine)
                                       + "); say which with the `game` option.")
