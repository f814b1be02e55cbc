"""DMs the bot has handled, and the ones sent while it was away.

Discord keeps every DM channel's history, but a bot that was not connected when a player wrote
never receives that message as an event. The bot records, per DM channel, the last message it
has answered (``bot.store.inbox``, written a moment after, in one transaction for many); on
start and on resume it reads each running game's players' DM channels from there on and
handles what it finds, oldest first, as if it had just arrived. A message written for a phase
that has been adjudicated since is not carried out: the player is told to send the orders again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import discord

from bot.store import inbox as store
from bot.store.rows import GameStatus, utcnow
from . import refs
from .identity import user_id

log = logging.getLogger("crusader.discord")

FRONT_END = "discord"
HISTORY = 100  # the most messages read back from one channel
SAVE_EVERY = 1.0  # seconds between two writes of the cursors


class Inbox:
    def __init__(self, bot) -> None:
        self.bot = bot
        self._handled: dict[str, int] = {}  # channel -> last message handled, not yet written
        self._known: dict[str, int] = {}  # channel -> last message handled, as far as this process knows
        self._saver: asyncio.Task | None = None
        self._catching_up: asyncio.Lock = asyncio.Lock()

    def handled(self, message: discord.Message) -> None:
        """``message`` (a DM) has been answered: its channel's cursor moves on, soon written."""
        channel = str(message.channel.id)
        if message.id > self._known.get(channel, 0):
            self._known[channel] = self._handled[channel] = message.id
            if not self.bot.closing and (self._saver is None or self._saver.done()):
                self._saver = self.bot.spawn(self._save_soon())

    async def _save_soon(self) -> None:
        await asyncio.sleep(SAVE_EVERY)
        await self.save()

    def stop_saving(self) -> None:
        """No more writes later: :meth:`save` is called once more at shutdown."""
        if self._saver is not None and not self._saver.done():
            self._saver.cancel()

    async def save(self) -> None:
        """Write the cursors that moved (at shutdown too)."""
        handled, self._handled = self._handled, {}
        if not handled:
            return
        try:
            await self.bot.call(self._write, handled)
        except Exception:
            log.warning("could not record the DMs handled; they will be read again at the next start", exc_info=True)

    def _write(self, handled: dict[str, int]) -> None:
        with self.bot.service.db.session() as session:
            store.advance(session, FRONT_END, handled, utcnow())

    def _read(self) -> dict[str, int]:
        with self.bot.service.db.session() as session:
            return store.cursors(session, FRONT_END)

    async def catch_up(self, take: Callable[[discord.Message], Awaitable[None]]) -> int:
        """Read every running game's players' DMs sent since the last one handled, and ``take``
        each (oldest first); how many."""
        async with self._catching_up:
            cursors = await self.bot.call(self._read)
            for channel, last in cursors.items():
                self._known[channel] = max(self._known.get(channel, 0), last)
            players = await self.bot.call(self._players)
            count = 0
            for key in sorted(players):
                try:
                    count += await self._catch_up_with(user_id(key), take)
                except (discord.Forbidden, discord.NotFound) as exc:
                    log.info("cannot read the DMs of %s: %s", key, exc)
            if count:
                log.info("read %d DM(s) sent while the bot was away", count)
            return count

    def _players(self) -> set[str]:
        players = self.bot.service.players(statuses=(GameStatus.ACTIVE, GameStatus.PAUSED))
        return {player for player in players if user_id(player) is not None}

    async def _catch_up_with(self, uid: int | None, take) -> int:
        if uid is None:
            return 0
        user = self.bot.get_user(uid) or await self.bot.fetch_user(uid)
        channel = user.dm_channel or await user.create_dm()
        last = self._known.get(str(channel.id))
        if last:
            recent = [m async for m in channel.history(limit=HISTORY, after=discord.Object(last), oldest_first=True)]
        else:  # no message handled here yet that this judge knows of: those after its last answer (an
            # announcement the outbox posted meanwhile, which carries a reference, answers nothing)
            recent = [m async for m in channel.history(limit=HISTORY)][::-1]
            answers = [i for i, m in enumerate(recent)
                       if m.author.id == self.bot.user.id and refs.read(m.content, m.embeds) is None]
            recent = recent[answers[-1] + 1:] if answers else recent
        unread = [m for m in recent if m.author.id == uid and m.id > self._known.get(str(channel.id), 0)]
        for message in unread:
            await take(message)
        return len(unread)
