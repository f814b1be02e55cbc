"""The bot: a ``commands.Bot`` (``AutoShardedBot`` when sharding is configured) over the service.

Set-up (settings, database, outbox) happens outside, in :mod:`bot.app.serve` or a test; the bot
loads one extension per feature in ``setup_hook`` and syncs its slash commands.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable
from collections.abc import Callable
from pathlib import Path

import discord
from discord import app_commands
from discord.ext import commands

from adjudicator.errors import CrusaderError

from bot.service import GameService
from bot.store.outbox import OutboxDispatcher
from .config import DiscordSettings
from .inbox import Inbox
from .ratelimit import pace_for, paced

log = logging.getLogger("crusader.discord")

T = TypeVar("T")

EXTENSIONS = ("bot.frontends.discord.cogs.orders", "bot.frontends.discord.cogs.player", "bot.frontends.discord.cogs.gm",
              "bot.frontends.discord.cogs.announce", "bot.frontends.discord.panel",
              "bot.frontends.discord.cogs.press")


BUG_APOLOGY = ("Sorry: something went wrong on the judge's side (not in what you wrote); it has been logged "
               "for the judge's operators. Please try again later.")


class JudgeTree(app_commands.CommandTree):
    """Refusals (checks, bad arguments, what the service will not do) go back to the user, privately."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        original = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        if isinstance(error, app_commands.CommandInvokeError) and not isinstance(original, CrusaderError):
            await super().on_error(interaction, error)  # a bug: logged with its traceback, and the user told so
            await reply(interaction, BUG_APOLOGY)
            return
        from .formatting import refusal_text

        await reply(interaction, refusal_text(original) or type(original).__name__)


async def reply(interaction: discord.Interaction, text: str, *, ephemeral: bool = True, **kwargs: Any) -> None:
    """Answer an interaction whether or not it was already acknowledged."""
    from .formatting import chunks

    pieces = chunks(text)
    if not interaction.response.is_done():
        await interaction.response.send_message(pieces[0], ephemeral=ephemeral, **kwargs)
        kwargs = {}
        pieces = pieces[1:]
    for i, piece in enumerate(pieces):
        await interaction.followup.send(piece, ephemeral=ephemeral, **(kwargs if i == 0 else {}))
        kwargs = {}


@runtime_checkable
class _TakesMessages(Protocol):
    """The orders cog, as the bot asks it (an extension's classes are its own: known by what they do)."""

    async def take(self, message: discord.Message, *, late: bool = False) -> None: ...


if TYPE_CHECKING:
    _Bot = commands.Bot  # (the mixin is checked as the bot it is mixed into)
else:
    _Bot = object


class JudgeBotMixin(_Bot):
    """What the plain and the sharded bot share."""

    def __init__(self, service: GameService, *, settings: DiscordSettings | None = None,
                 dispatcher: OutboxDispatcher | None = None, extensions: tuple[str, ...] = EXTENSIONS,
                 **client_kwargs: Any) -> None:
        intents = discord.Intents.default()  # guilds and DMs; no privileged intent
        # Nothing said in a server's channels is read (orders come by DM, commands as interactions):
        # without this the gateway sends back every post of the judge's, its embeds with it.
        intents.guild_messages = False
        # The judge reads no edited or deleted message, so it keeps none: discord.py's message
        # cache (the last 1,000 by default) would only hold every DM for the garbage collector to walk.
        client_kwargs.setdefault("max_messages", None)
        # Nobody is notified unless a message says so: a game called "@everyone party" pings no one.
        # Where a player is meant, the message names them (``allowed_mentions=`` on that send).
        client_kwargs.setdefault("allowed_mentions", discord.AllowedMentions.none())
        super().__init__(command_prefix=commands.when_mentioned, intents=intents, tree_cls=JudgeTree,
                         help_command=None, **client_kwargs)
        self.service = service
        self.settings = settings or DiscordSettings()
        self.dispatcher = dispatcher
        self.extensions_to_load = extensions
        # where registered commands' digest is kept (bot.frontends.discord.registration)
        self.sync_record: Path | None = None
        self._background: set[asyncio.Task] = set()
        # The service blocks (database, parsing): it runs in worker threads. One worker on SQLite,
        # which admits one writer at a time anyway: requests queue in order instead of spinning
        # in SQLite's busy handler.
        db = getattr(service, "db", None)
        self.workers = 1 if db is None or db.is_sqlite else 8
        self.executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="crusader-service")
        self._flusher: asyncio.Task | None = None
        self._flush_again = False
        self.inbox = Inbox(self)
        self.closing = False  # set by close(): no new DM is taken (it is read at the next start)

    @property
    def gm_roles(self) -> tuple[str, ...]:
        return self.settings.gm_roles

    async def call(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run a (blocking) service call in the service's worker threads."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))

    async def setup_hook(self) -> None:
        from .registration import sync_commands

        for name in self.extensions_to_load:
            await self.load_extension(name)
        if self.settings.sync_commands == "auto":
            await sync_commands(self, guilds=self.settings.command_guild_ids, record=self.sync_record)

    async def on_ready(self) -> None:
        log.info("connected to Discord as %s (%s guilds)", self.user, len(self.guilds))
        self.kick_outbox()  # whatever could not be posted while away
        self.spawn(self.catch_up())  # whatever players sent while away

    async def on_resumed(self) -> None:
        log.info("gateway session resumed")
        self.kick_outbox()
        self.spawn(self.catch_up())

    async def catch_up(self) -> None:
        """Read the DMs players sent while the bot was away (:mod:`bot.frontends.discord.inbox`)."""
        orders = self.get_cog("Orders")
        if not isinstance(orders, _TakesMessages) or self.closing:
            return
        try:
            await self.inbox.catch_up(lambda message: orders.take(message, late=True))
        except Exception:
            log.exception("could not read the DMs sent while the bot was away; the next start tries again")

    def track_current_task(self) -> None:
        """The running task (a DM being handled) is waited for at shutdown, like :meth:`spawn`'s."""
        task = asyncio.current_task()
        if task is not None and task not in self._background:
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    def kick_outbox(self) -> None:
        """Deliver pending announcements now (after a command that made some), in the background.

        Kicks that come while a flush runs make one more flush after it, not one each: a
        hundred answered messages cost two looks at the outbox, not a hundred.
        """
        if self.dispatcher is None:
            return
        self._flush_again = True
        if self._flusher is None or self._flusher.done():
            self._flusher = self.spawn(self._flush(self.dispatcher))

    async def _flush(self, dispatcher: OutboxDispatcher) -> None:
        while self._flush_again:
            self._flush_again = False
            try:
                await dispatcher.flush()
            except Exception:
                log.warning("outbox flush failed; the next sweep retries", exc_info=True)

    async def drain(self, timeout: float = 10.0) -> None:
        """Wait (at most ``timeout`` seconds) for the background work started so far."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self._background and loop.time() < end:
            await asyncio.wait(list(self._background), timeout=max(end - loop.time(), 0.01))

    async def close(self) -> None:
        """Take no new DM, let those being handled finish (a DM arriving now is read at the next
        start), record what was handled, then disconnect."""
        self.closing = True
        self.inbox.stop_saving()
        await self.drain()
        await self.inbox.save()
        for name in reversed(self.extensions_to_load):  # the outbox sink leaves the dispatcher
            if name in self.extensions:
                await self.unload_extension(name)
        await super().close()
        self.executor.shutdown(wait=False)


JudgeInteraction = discord.Interaction[JudgeBotMixin]
"""An interaction with the judge's bot (``interaction.client`` is the bot, with its service)."""


class JudgeBot(JudgeBotMixin, commands.Bot):
    pass


class ShardedJudgeBot(JudgeBotMixin, commands.AutoShardedBot):
    pass


def make_bot(service: GameService, *, settings: DiscordSettings | None = None,
             dispatcher: OutboxDispatcher | None = None, **client_kwargs: Any) -> JudgeBot | ShardedJudgeBot:
    """The bot for ``service``; ``client_kwargs`` go to ``discord.Client`` (``connector``,
    ``guild_ready_timeout``, ...). Sharded when ``settings.shards`` is set. Every request it makes
    waits for its turn under Discord's global limit (an ``http_trace`` given is kept, and paced)."""
    settings = settings or DiscordSettings()
    # Discord's global limit, shared by every server on the database (bot.frontends.discord.ratelimit)
    client_kwargs["http_trace"] = paced(pace_for(getattr(service, "db", None)), client_kwargs.get("http_trace"))
    if settings.sharded:
        if settings.shard_count is not None:
            client_kwargs.setdefault("shard_count", settings.shard_count)
        return ShardedJudgeBot(service, settings=settings, dispatcher=dispatcher, **client_kwargs)
    return JudgeBot(service, settings=settings, dispatcher=dispatcher, **client_kwargs)
