"""Orders by direct message: any number of lines, answered at once with what the judge understood.

A player in several running games starts the message with a line ``game: NAME``, or picks the
game from a menu. Only the sender's own orders ever appear in the answer.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import discord
import structlog
from discord.ext import commands

from adjudicator.variant import get_variant

from bot.service import Ambiguous, GameEntry, NoGameError, Routed, ServiceError
from ..batching import Batcher
from ..client import BUG_APOLOGY, JudgeBotMixin, reply
from ..formatting import chunks, deadline_text, refusal_text, submission_reply
from ..identity import player_key
from ..menu_button import open_button

log = structlog.get_logger("crusader.discord")


@runtime_checkable
class TakesPress(Protocol):
    """The press cog, as this one asks it (an extension's classes are its own: known by what they do)."""

    def take_dm(self, player: str, text: str) -> str | None: ...


@dataclass(frozen=True)
class Answer:
    text: str
    attachment: tuple[str, bytes] | None = None
    game: str | None = None
    """The game the orders went to: the answer offers its menu of orders (:mod:`..panel`)."""


class Orders(commands.Cog):
    def __init__(self, bot: JudgeBotMixin) -> None:
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
        """Messages ``(player, text, game or None)``: the service routes each to its game and takes
        them all in one transaction; the answers, as Discord shows them."""
        outcomes: list[Answer | Ambiguous] = []
        for answer in self.service.submit_messages(messages):
            if isinstance(answer, Ambiguous):
                outcomes.append(answer)
            elif isinstance(answer, ServiceError):
                outcomes.append(Answer(refusal_text(answer) + _hint(answer)))
            else:
                reply = submission_reply(answer, get_variant(answer.variant))
                outcomes.append(Answer(reply.text, reply.attachment, answer.game))
        return outcomes

    # -- Discord ------------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        if self.bot.closing:
            return  # not handled: read at the next start (bot.frontends.discord.inbox)
        await self.take(message)

    async def take(self, message: discord.Message, *, late: bool = False) -> None:
        """Carry out a DM and answer it. ``late``: sent while the bot was away, read back at start."""
        self.bot.track_current_task()  # a shutdown lets it finish
        player = player_key(message.author)
        stale = await self.bot.call(self.stale, player, message.content, message.created_at) if late else None
        if stale is not None:
            await message.channel.send(stale)
            self.bot.inbox.handled(message)
            return
        press = self.bot.get_cog("Press")
        try:
            said = (await self.bot.call(press.take_dm, player, message.content) if isinstance(press, TakesPress)
                    else None)
            if said is not None:  # press ("press to ANT: ..."), not orders
                await message.channel.send(said)
                self.bot.kick_outbox()
                self.bot.inbox.handled(message)
                return
            outcome = await self.desk((player, message.content, None))
        except Exception:   # a bug, never the player's fault: logged with its traceback, the player told so
            log.exception("a message of orders not taken", player=player)
            await message.channel.send(BUG_APOLOGY)
            self.bot.inbox.handled(message)     # (answered: the player was told to send it again)
            return
        if isinstance(outcome, Ambiguous):
            view = GamePicker(self, player, outcome)
            await message.channel.send("You play in several games. Which one are these orders for? "
                                       "(Or start the message with `game: NAME`.)", view=view)
        else:
            await send_answer(message.channel, outcome)  # (orders announce nothing: no phase ends on orders alone)
        self.bot.inbox.handled(message)

    def stale(self, player: str, text: str, written_at) -> str | None:
        """Why a message read back at start is not carried out (written for a phase adjudicated
        since), or ``None``. Press is not bound to a phase: it is sent whenever it is read."""
        from bot.service.routing import split_game_line
        from .press import read_press_dm

        if read_press_dm(split_game_line(text)[1]) is not None:
            return None
        try:
            found = self.service.route(player, text)
        except ServiceError:
            return None
        if not isinstance(found, Routed):
            return None
        game = found.game
        view = self.service.status(game.id)
        season = self.service.season(game.id, view.version - 1) if view.version > 0 else None
        if season is None or season.adjudicated_at is None or written_at >= season.adjudicated_at:
            return None
        return (f"Your message of {written_at:%Y-%m-%d %H:%M} UTC reached the judge while it was away, and "
                f"{season.phase} in '{game.name}', which it was written for, has been adjudicated since: it was "
                f"not carried out. Orders for {view.phase} are due by {deadline_text(view.deadline_at)}; "
                f"send them again.")


def _hint(refusal: ServiceError) -> str:
    """What a player on Discord does about a message that went to no game."""
    if not isinstance(refusal, NoGameError):
        return ""
    if refusal.games:
        return " Start the message with `game: NAME`."
    return " Join one with `/join` in a server where the judge is." if refusal.named is None else ""


def _file(outcome: Answer | None) -> dict:
    if outcome is None or outcome.attachment is None:
        return {}
    name, data = outcome.attachment
    return {"file": discord.File(io.BytesIO(data), name)}


async def send_answer(channel, outcome: Answer) -> None:
    """The answer in as few messages as Discord allows; its file (if any) with the last, and the
    button that opens the game's menu of orders."""
    pieces = chunks(outcome.text)
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        menu = {"view": open_button(outcome.game)} if last and outcome.game else {}
        await channel.send(piece, **_file(outcome if last else None), **menu)


class GamePicker(discord.ui.View):
    """A menu of the player's running games, for a message of orders that did not say which."""

    def __init__(self, cog: Orders, player: str, pending: Ambiguous) -> None:
        super().__init__(timeout=600)
        self.cog, self.player, self.text = cog, player, pending.text
        self.games = {g.name: g for g in pending.games[:25]}
        self.select = _GameChoice(
            self, placeholder="Which game?", min_values=1, max_values=1,
            options=[discord.SelectOption(label=g.name[:100], value=g.name[:100],
                                          description=f"{g.power or '?'} · {g.variant} · {g.phase or ''}"[:100])
                     for g in self.games.values()])
        self.add_item(self.select)

    async def chosen(self, interaction: discord.Interaction) -> None:
        if player_key(interaction.user) != self.player:
            await interaction.response.send_message("This menu is for someone else's orders.", ephemeral=True)
            return
        game = self.games[self.select.values[0]]
        outcome = await self.cog.desk((self.player, self.text, game))
        assert isinstance(outcome, Answer)  # (a message for the game chosen is that game's)
        pieces = chunks(outcome.text)
        await interaction.response.edit_message(content=pieces[0], view=None)
        rest = pieces[1:] or (["Every line of your message and why:"] if outcome.attachment else [])
        for i, piece in enumerate(rest):
            await interaction.followup.send(piece, **_file(outcome if i == len(rest) - 1 else None))
        self.stop()

    async def on_error(self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item[Any]) -> None:
        log.error("a message of orders not taken from the game menu", player=self.player, exc_info=error)
        await reply(interaction, BUG_APOLOGY)


class _GameChoice(discord.ui.Select[GamePicker]):
    """The picker's menu of games: the game chosen goes to the picker."""

    def __init__(self, picker: GamePicker, **options: Any) -> None:
        super().__init__(**options)
        self.picker = picker

    async def callback(self, interaction: discord.Interaction) -> None:
        await self.picker.chosen(interaction)


async def setup(bot: JudgeBotMixin) -> None:
    await bot.add_cog(Orders(bot))
