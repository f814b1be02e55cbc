"""The Discord sink of the outbox: results to the game's channel, the archive to its thread,
reminders and notices to players' and the game master's DMs.

Exactly once: every message the sink posts carries a reference (``ref <key>#<part>``, as an
embed footer or a small last line). Before posting, the sink reads the channel's recent history
and skips the parts already there, so a delivery repeated after a crash, a lapsed claim or a
failure half-way posts only what is missing. A channel that is gone or closed to the bot is
reported to the game master by DM and the delivery fails, so the outbox tries again later.
"""

from __future__ import annotations

import asyncio
import io
import logging

import discord

from adjudicator.variant import get_variant

from ..archive import season_report
from ..outbox import Announcement
from ..service import GameEntry, NotFoundError
from .formatting import chunks, pack_embeds, phase_name, public_text, results_embeds
from .identity import mention, user_id
from .maps import season_png

log = logging.getLogger("crusader.discord")

HISTORY = 50  # how far back to look for parts already posted
TEXT_NEEDS = ("view_channel", "send_messages", "read_message_history")
RESULTS_NEEDS = TEXT_NEEDS + ("embed_links", "attach_files")
ARCHIVE_NEEDS = ("view_channel", "send_messages_in_threads", "read_message_history", "attach_files")


class DeliveryDeferred(RuntimeError):
    """The announcement could not be posted now; the outbox will offer it again."""


class DiscordNotifier:
    def __init__(self, bot, *, ready_timeout: float = 30.0) -> None:
        self.bot = bot
        self.service = bot.service
        self.ready_timeout = ready_timeout
        self._done: set[str] = set()

    async def deliver(self, announcement: Announcement) -> None:
        if announcement.key in self._done:
            return
        if not self.bot.is_ready():
            try:
                await asyncio.wait_for(self.bot.wait_until_ready(), self.ready_timeout)
            except asyncio.TimeoutError:
                raise DeliveryDeferred("not connected to Discord; the announcement waits in the outbox") from None
        entry = None
        if announcement.game_id is not None:
            try:
                entry = await self.bot.call(self.service.entry, announcement.game_id)
            except NotFoundError:
                return  # the game was deleted: nobody to tell
        if announcement.audience == "players":
            await self._to_players(announcement, entry)
        elif announcement.audience == "gm":
            await self._to_gm(announcement, entry)
        elif entry is not None and entry.extra.get("discord"):
            await self._to_channel(announcement, entry)
        self._done.add(announcement.key)

    # -- public: the game's channel and archive ------------------------------------------------

    async def _to_channel(self, a: Announcement, entry: GameEntry) -> None:
        place = entry.extra["discord"]
        try:
            if a.kind == "results":
                await self._post_results(a, entry, place)
            else:
                channel = await self._channel(place.get("channel"), entry, a, "results channel", TEXT_NEEDS)
                await self._post_text(channel, a.key, f"**{a.subject}**\n{public_text(a.body)}")
        except (discord.Forbidden, discord.NotFound) as exc:
            await self._tell_gm(entry, a, f"I could not post '{a.subject}' for game '{entry.name}': "
                                         f"{exc.text or exc} ({exc.status}). Please fix it; I will try again.")
            raise DeliveryDeferred(f"{a.key}: {exc}") from exc

    async def _post_results(self, a: Announcement, entry: GameEntry, place: dict) -> None:
        season = await self.bot.call(self.service.season, entry.id, a.data.get("version"))
        if season is None:
            return  # rolled back since
        channel = await self._channel(place.get("channel"), entry, a, "results channel", RESULTS_NEEDS)
        variant = get_variant(entry.variant)
        view = await self.bot.call(self.service.status, entry.id)
        current = view.version == a.data.get("version", -1) + 1 and view.status == "active"
        embeds = results_embeds(season, variant, next_phase=view.phase if current else None,
                                deadline=view.deadline_at if current else None)
        groups = pack_embeds(embeds)
        posted = await self._posted(channel)
        refs = [f"{a.key}#{i + 1}/{len(groups)}" for i in range(len(groups))]
        png = None
        if refs[0] not in posted:
            png = await asyncio.to_thread(season_png, season)
        for i, (ref, group) in enumerate(zip(refs, groups)):
            if ref in posted:
                continue
            group[-1].set_footer(text=f"ref {ref}")
            kwargs = {}
            if i == 0 and png:
                filename = f"{entry.name}-{season['phase']}.png"
                kwargs["file"] = discord.File(io.BytesIO(png), filename)
                group[0].set_image(url=f"attachment://{filename}")
            await channel.send(embeds=group, **kwargs)
        thread = await self._channel(place.get("archive"), entry, a, "archive thread", ARCHIVE_NEEDS)
        ref = f"{a.key}#archive"
        if ref not in await self._posted(thread):
            report = season_report(entry.name, season)
            await thread.send(content=f"**{phase_name(season['phase'])}**: the season's full report (orders, "
                                      f"results, units, centres, prestige, seed).\n-# ref {ref}",
                              file=discord.File(io.BytesIO(report.encode("utf-8")),
                                                f"{season['version']:04d}-{season['phase']}.txt"))

    async def _channel(self, channel_id, entry: GameEntry, a: Announcement, what: str, needs: tuple[str, ...]):
        """The channel to post in, or the game master is told why not and the delivery is deferred."""
        problem = None
        channel = self.bot.get_channel(int(channel_id)) if channel_id else None
        if channel is None and channel_id:
            try:
                channel = await self.bot.fetch_channel(int(channel_id))
            except discord.NotFound:
                problem = f"the {what} (<#{channel_id}>) no longer exists"
            except discord.Forbidden:
                problem = f"I may not see the {what} (<#{channel_id}>)"
        elif not channel_id:
            problem = f"the game has no {what}"
        if channel is not None and getattr(channel, "guild", None) is not None:
            perms = channel.permissions_for(channel.guild.me)
            missing = [p for p in needs if not getattr(perms, p)]
            if missing:
                problem = f"I lack the permission(s) {', '.join(missing)} in the {what} (<#{channel_id}>)"
        if problem:
            await self._tell_gm(entry, a, f"I could not post '{a.subject}' for game '{entry.name}': {problem}. "
                                         f"Please fix it; I will try again.")
            raise DeliveryDeferred(f"{a.key}: {problem}")
        return channel

    # -- private: DMs --------------------------------------------------------------------------

    async def _to_players(self, a: Announcement, entry: GameEntry | None) -> None:
        unreachable = []
        for key in a.recipients:
            uid = user_id(key)
            if uid is None:
                continue  # a player of another front end
            try:
                dm = await self._dm(uid)
                await self._post_text(dm, a.key, public_text(a.body))
            except (discord.Forbidden, discord.NotFound) as exc:
                unreachable.append(f"{mention(key)} ({exc.text or exc})")
        if unreachable and entry is not None:
            await self._tell_gm(entry, a, f"I could not DM '{a.subject}' to: {', '.join(unreachable)}.")

    async def _to_gm(self, a: Announcement, entry: GameEntry | None) -> None:
        if entry is not None:
            await self._tell_gm(entry, a, public_text(a.body), ref=a.key)

    async def _tell_gm(self, entry: GameEntry, a: Announcement, text: str, *, ref: str | None = None) -> None:
        uid = user_id(entry.gm)
        if uid is None:
            log.warning("game master %s of %s is not on Discord; not told: %s", entry.gm, entry.name, text)
            return
        try:
            dm = await self._dm(uid)
            await self._post_text(dm, ref or f"{a.key}:gm-notice", text)
        except (discord.Forbidden, discord.NotFound) as exc:
            log.warning("could not DM the game master of %s (%s): %s", entry.name, exc, text)

    async def _dm(self, uid: int):
        user = self.bot.get_user(uid) or await self.bot.fetch_user(uid)
        return user.dm_channel or await user.create_dm()

    # -- exactly once ----------------------------------------------------------------------------

    async def _post_text(self, channel, key: str, text: str) -> None:
        pieces = chunks(text, 2000 - len(key) - 20)
        posted = await self._posted(channel)
        for i, piece in enumerate(pieces):
            ref = f"{key}#{i + 1}/{len(pieces)}"
            if ref not in posted:
                await channel.send(f"{piece.rstrip()}\n-# ref {ref}")

    async def _posted(self, channel) -> set[str]:
        """The references of the bot's recent messages in ``channel``."""
        refs: set[str] = set()
        async for message in channel.history(limit=HISTORY):
            if message.author.id != self.bot.user.id:
                continue
            for line in message.content.splitlines()[-1:]:
                if line.startswith("-# ref "):
                    refs.add(line[len("-# ref "):].strip())
            for embed in message.embeds:
                text = embed.footer.text if embed.footer else None
                if text and text.startswith("ref "):
                    refs.add(text[4:].strip())
        return refs
