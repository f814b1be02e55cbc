"""Orders by direct message: any number of lines, answered at once with what the judge understood.

A player in several running games starts the message with a line ``game: NAME``, or picks the
game from a menu. Only the sender's own orders ever appear in the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import discord
from discord.ext import commands

from adjudicator.variant import get_variant

from ...service import GameEntry, ServiceError
from ..batching import Batcher
from ..formatting import chunks, submission_text
from ..identity import mentionify, player_key

_GAME_LINE = re.compile(r"^\s*game\s*[:=]\s*(?P<name>.+?)\s*$", re.IGNORECASE)
RUNNING = ("active", "paused")


@dataclass(frozen=True)
class Answer:
    text: str


@dataclass(frozen=True)
class Ambiguous:
    games: list[GameEntry]
    text: str


def split_game_line(text: str) -> tuple[str | None, str]:
    """``("NAME", rest)`` when the first non-blank line is ``game: NAME``; else ``(None, text)``."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.strip():
            m = _GAME_LINE.match(line)
            if m:
                return m.group("name"), "\n".join(lines[i + 1:])
            break
    return None, text


class Orders(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.service = bot.service
        # Messages arriving while the worker threads are busy are taken together, in one transaction.
        self.desk: Batcher[tuple[str, str, GameEntry | None], Answer | Ambiguous] = Batcher(
            lambda messages: bot.call(self.submit_batch, messages), concurrency=bot.workers)

    # -- the work, in a worker thread -------------------------------------------------------

    def submit(self, player: str, text: str, game: GameEntry | None = None) -> Answer | Ambiguous:
        [outcome] = self.submit_batch([(player, text, game)])
        return outcome

    def submit_batch(self, messages: list[tuple[str, str, GameEntry | None]]) -> list[Answer | Ambiguous]:
        """Messages ``(player, text, game or None)``: each routed to its game, then all taken in one transaction."""
        unrouted = {player for player, _, game in messages if game is None}
        directories = self.service.directories(unrouted, statuses=RUNNING) if unrouted else {}
        outcomes: list[Answer | Ambiguous | None] = []
        routed: list[tuple[int, GameEntry, str, str]] = []
        for player, text, game in messages:
            route = self.route(player, text, game, directories.get(player, []))
            if isinstance(route, tuple):
                routed.append((len(outcomes), *route))
            outcomes.append(route if not isinstance(route, tuple) else None)
        reports = self.service.submit_many([(game.name, player, body) for _, game, player, body in routed])
        for (i, game, _, _), report in zip(routed, reports, strict=True):
            outcomes[i] = Answer(mentionify(str(report)) if isinstance(report, ServiceError)
                                 else submission_text(report, get_variant(game.variant)))
        return outcomes

    @staticmethod
    def route(player: str, text: str, game: GameEntry | None,
              games: list[GameEntry]) -> Answer | Ambiguous | tuple[GameEntry, str, str]:
        """``(game, player, orders)``, or the answer when the message cannot go to a game (``games``: the player's)."""
        name, body = split_game_line(text)
        if game is None:
            if not games:
                return Answer("You are not playing in any running game, so there is nothing to order. "
                              "Join one with `/join` in a server where the judge is.")
            if name is not None:
                game = next((g for g in games if g.name.lower() == name.lower()), None)
                if game is None:
                    return Answer(f"You play in no running game called {name!r}. Your games: "
                                  + ", ".join(g.name for g in games) + ". Start the message with `game: NAME`.")
            elif len(games) == 1:
                game = games[0]
            else:
                return Ambiguous(games, body)
        if not body.strip():
            return Answer(f"No orders after the `game: {game.name}` line. Write one order per line.")
        return game, player, body

    # -- Discord ------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        player = player_key(message.author)
        outcome = await self.desk((player, message.content, None))
        if isinstance(outcome, Ambiguous):
            view = GamePicker(self, player, outcome)
            await message.channel.send("You play in several games. Which one are these orders for? "
                                       "(Or start the message with `game: NAME`.)", view=view)
            return
        for piece in chunks(outcome.text):
            await message.channel.send(piece)
        self.bot.kick_outbox()  # the last orders in may have adjudicated the phase early


class GamePicker(discord.ui.View):
    """A menu of the player's running games, for a message of orders that did not say which."""

    def __init__(self, cog: Orders, player: str, pending: Ambiguous) -> None:
        super().__init__(timeout=600)
        self.cog, self.player, self.text = cog, player, pending.text
        self.games = {g.name: g for g in pending.games[:25]}
        self.select = discord.ui.Select(
            placeholder="Which game?", min_values=1, max_values=1,
            options=[discord.SelectOption(label=g.name[:100], value=g.name[:100],
                                          description=f"{g.power or '?'} · {g.variant} · {g.phase or ''}"[:100])
                     for g in self.games.values()])
        self.select.callback = self.chosen
        self.add_item(self.select)

    async def chosen(self, interaction: discord.Interaction) -> None:
        if player_key(interaction.user) != self.player:
            await interaction.response.send_message("This menu is for someone else's orders.", ephemeral=True)
            return
        game = self.games[self.select.values[0]]
        outcome = await self.cog.desk((self.player, self.text, game))
        pieces = chunks(outcome.text)
        await interaction.response.edit_message(content=pieces[0], view=None)
        for piece in pieces[1:]:
            await interaction.followup.send(piece)
        self.stop()
        self.cog.bot.kick_outbox()


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Orders(bot))
