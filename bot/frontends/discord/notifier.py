"""The Discord sink of the outbox: results to the game's channel, the archive to its thread,
reminders and notices to players' and the game master's DMs.

Recipients: ``results-channel`` and (for results) ``archive-thread`` of the game, and the
player ids (``discord:<id>``) of the DMs. Each is a delivery of its own in the outbox.

Exactly once: every message the sink posts carries a reference (``<key>#<part>``, invisible:
:mod:`.refs`). Before posting again (a delivery in doubt, or tried before), the sink reads the
channel's recent history and skips the parts already there, so a delivery repeated after a
crash, a lapsed claim or a failure half-way posts only what is missing. A first attempt has
nothing to find there and reads nothing: under Discord's global limit a season is then one
request, not two. A channel that is gone or closed to the bot is
reported to the game master by DM and the delivery is tried again later; a player who does not
accept DMs is a refusal, which the outbox reports to the game master.
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
from dataclasses import dataclass
from datetime import timedelta
from collections.abc import Sequence

import discord

from adjudicator.variant import get_variant

from bot.codec.season import Season
from bot.archive.games import season_report
from bot.codec.spelled import duty as spelled_duty
from bot.service import GameEntry, NotFoundError, ServiceError
from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome, Refused, RetryLater
from . import refs
from .formatting import (announcement_text, chunks, file_name, pack_embeds, phase_name, public_text, results_detail,
                         results_summary)
from .identity import mention, user_id
from .maps import season_png
from bot.store.rows import GameStatus
from .menu_button import open_button

log = logging.getLogger("crusader.discord")

HISTORY = 50  # how far back to look for parts already posted
MENU_KINDS = ("phase_opened", "reminder", "late", "seated")
"""DMs that tell a player what they have to decide: they carry the button that opens the menu of orders."""
TEXT_NEEDS = ("view_channel", "send_messages", "read_message_history")
RESULTS_NEEDS = TEXT_NEEDS + ("embed_links", "attach_files")
ARCHIVE_NEEDS = ("view_channel", "send_messages_in_threads", "read_message_history", "attach_files")
CHANNEL, ARCHIVE = "results-channel", "archive-thread"


def players_meant(a: Announcement) -> discord.AllowedMentions:
    """Whom a public announcement may notify: the players it is for (the powers' players when a
    game starts, a power's new player), never anyone else its text happens to mention (a player
    removed, a power in civil disorder)."""
    keys = list((a.data.get("assignments") or {}).values()) + ([a.data.get("player")] if a.kind == "replaced" else [])
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(uid) for uid in map(user_id, keys) if uid is not None])


FIRST_ATTEMPT: contextvars.ContextVar[bool] = contextvars.ContextVar("first_attempt", default=False)
"""True while the first attempt of a delivery not in doubt is made: nothing of it can be posted
yet, so the history is not read."""


class DeliveryDeferred(RuntimeError):
    """The announcement could not be posted now; the outbox will offer it again."""


@dataclass(frozen=True, slots=True)
class _Read:
    """What a delivery needs of the service, read in one call to its worker threads (each hand-off
    to a thread and back costs the event loop more than the reads themselves): the game as it
    stands (``None``: deleted, or no game; its entry says whether the next phase is still open),
    and for results the season (``None``: rolled back since)."""

    entry: GameEntry | None
    season: Season | None = None


class DiscordNotifier:
    name = "discord"

    def __init__(self, bot, *, ready_timeout: float = 30.0) -> None:
        self.bot = bot
        self.service = bot.service
        self.ready_timeout = ready_timeout
        self._reading: dict[str, asyncio.Future[_Read]] = {}  # results read for their posts in flight, by key

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        a = announcement
        if a.audience == "direct":
            return a.direct_to(self.name)
        if a.audience == "players":
            return tuple(key for key in a.recipients if user_id(key) is not None)  # others: another front end
        entry = await self._entry(a)
        if entry is None:
            return ()
        if a.audience == "gm":
            return (entry.gm,) if user_id(entry.gm) is not None else ()
        if not entry.extra.get("discord"):
            return ()
        return (CHANNEL, ARCHIVE) if a.kind == "results" else (CHANNEL,)

    async def _entry(self, a: Announcement) -> GameEntry | None:
        return (await self.bot.call(self._read, a, None)).entry

    async def _read_for(self, a: Announcement, recipient: str) -> _Read:
        """:meth:`_read` for a delivery: the channel's and the archive thread's posts of a season's
        results, made at the same time, share one read while it is in flight (a post made later, a
        retry, reads the game afresh)."""
        if a.kind != "results" or recipient not in (CHANNEL, ARCHIVE):
            return await self.bot.call(self._read, a, recipient)
        made = self._reading.get(a.key)
        if made is None:
            made = self._reading[a.key] = asyncio.ensure_future(self.bot.call(self._read, a, recipient))
            made.add_done_callback(lambda done: self._reading.pop(a.key, None) if self._reading.get(a.key) is done
                                   else None)
        return await asyncio.shield(made)

    def _read(self, a: Announcement, recipient: str | None) -> _Read:
        """What delivering ``a`` to ``recipient`` (``None``: only the game) reads (in a worker thread)."""
        if a.game_id is None:
            return _Read(None)
        try:
            entry = self.service.entry(a.game_id)
        except NotFoundError:
            return _Read(None)  # the game was deleted: nobody to tell
        if a.kind != "results" or recipient not in (CHANNEL, ARCHIVE):
            return _Read(entry)
        return _Read(entry, self.service.season(entry.id, a.data.get("version")))

    async def deliver(self, delivery: Delivery) -> Outcome:
        first = FIRST_ATTEMPT.set(delivery.attempt <= 1 and not delivery.in_doubt)
        try:
            return await self._deliver(delivery)
        finally:
            FIRST_ATTEMPT.reset(first)

    async def _deliver(self, delivery: Delivery) -> Outcome:
        if not self.bot.is_ready():
            try:
                await asyncio.wait_for(self.bot.wait_until_ready(), self.ready_timeout)
            except TimeoutError:
                return RetryLater("not connected to Discord", after=timedelta(seconds=self.ready_timeout))
        a, recipient = delivery.announcement, delivery.recipient
        read = await self._read_for(a, recipient)
        entry = read.entry
        if a.game_id is not None and entry is None:
            return DELIVERED  # the game was deleted: nothing left to say
        try:
            if recipient in (CHANNEL, ARCHIVE):
                assert entry is not None  # (a channel hears only a game's announcements)
                await self._to_channel(a, read, recipient)
            elif (uid := user_id(recipient)) is None:
                return Refused(f"{recipient!r} is not a Discord user")
            else:
                # press is the players' own words, shown as written (no pings: the client allows none)
                text = (a.body if a.kind == "press"
                        else announcement_text(a.body, a.data) + await self._to_decide(a, recipient))
                menu = open_button(entry.name) if entry is not None and a.kind in MENU_KINDS else None
                await self._post_text(await self._dm(uid), a.key, text, view=menu)
        except DeliveryDeferred as exc:
            return RetryLater(str(exc))
        except (discord.Forbidden, discord.NotFound) as exc:
            return Refused(f"{mention(recipient)} cannot be sent a direct message ({exc.text or exc})")
        return DELIVERED

    async def _to_decide(self, a: Announcement, player: str) -> str:
        """For a reminder or a late notice: what this player's power has still to decide, when the
        phase it is about is still the game's (each dislodged unit and its retreats, the builds and
        their sites, the units to remove, or the units to order)."""
        if a.kind not in ("reminder", "late") or a.game_id is None:
            return ""
        try:
            mine = await self.bot.call(self.service.my_orders, a.game_id, player)
        except ServiceError:
            return ""  # no longer a player of the game
        if mine.phase != a.data.get("phase") or mine.duty is None or not mine.duty.must_decide:
            return ""
        lines = spelled_duty(mine.duty, get_variant(mine.variant))
        return "\nTo decide:\n" + "\n".join(f"· {line}" for line in lines) + "\n"

    # -- public: the game's channel and archive ------------------------------------------------

    async def _to_channel(self, a: Announcement, read: _Read, recipient: str) -> None:
        entry = read.entry
        assert entry is not None
        place = entry.extra["discord"]
        try:
            if a.kind == "results":
                await self._post_results(a, read, place, archive=recipient == ARCHIVE)
            else:
                channel = await self._channel(place.get("channel"), entry, a, "results channel", TEXT_NEEDS)
                text = f"**{public_text(a.subject)}**\n{announcement_text(a.body, a.data)}"
                await self._post_text(channel, a.key, text, mentions=players_meant(a))
        except (discord.Forbidden, discord.NotFound) as exc:
            await self._tell_gm(entry, a, f"I could not post '{a.subject}' for game '{entry.name}': "
                                         f"{exc.text or exc} ({exc.status}). Please fix it; I will try again.",
                                ref=f"{a.key}:{recipient}:gm-notice")
            raise DeliveryDeferred(f"{a.key}: {exc}") from exc

    async def _post_results(self, a: Announcement, read: _Read, place: dict, *, archive: bool) -> None:
        entry, season = read.entry, read.season
        assert entry is not None
        if season is None:
            return  # rolled back since
        if archive:
            await self._post_archive(a, entry, place, season)
            return
        channel = await self._channel(place.get("channel"), entry, a, "results channel", RESULTS_NEEDS)
        variant = get_variant(entry.variant)
        current = entry.version == a.data.get("version", -1) + 1 and entry.status == GameStatus.ACTIVE
        summary = results_summary(season, variant, next_phase=entry.phase if current else None,
                                  deadline=entry.deadline_at if current else None, at_once=bool(a.data.get("at_once")),
                                  again=bool(a.data.get("again")))
        png = season_png(season)
        picture = (file_name(f"{entry.name}-{season.phase}", "png"), png) if png else None
        await self._post_embeds(channel, a.key, summary, picture)

    async def _post_archive(self, a: Announcement, entry: GameEntry, place: dict, season: Season) -> None:
        """Every order of the season with its outcome and reason, and its full report as a file."""
        thread = await self._channel(place.get("archive"), entry, a, "archive thread", ARCHIVE_NEEDS)
        report = season_report(entry.name, season).encode("utf-8")
        name = file_name(f"{season.version:04d}-{season.phase}", "txt")
        await self._post_embeds(thread, f"{a.key}#archive", results_detail(season, get_variant(entry.variant)),
                                (name, report),
                                text=f"**{phase_name(str(season.phase))}**"
                                     + (" (adjudicated again, after a rollback)" if a.data.get("again") else "")
                                     + ": every order with its outcome; the season's full report (orders as written, "
                                     "results, units, centres, prestige, seed) is attached.")

    async def _post_embeds(self, channel, key: str, embeds: list[discord.Embed], attachment: tuple[str, bytes] | None,
                           *, text: str = "") -> None:
        """``embeds`` in as few messages as Discord's limits allow, each part once; the attachment goes
        with the first (a picture is shown in the first embed)."""
        groups = pack_embeds(embeds, footer_room=0)
        posted = await self._posted(channel)
        for i, group in enumerate(groups):
            ref = f"{key}#{i + 1}/{len(groups)}"
            if refs.key(ref) in posted:
                continue
            kwargs = {}
            if i == 0 and attachment is not None:
                name, data = attachment
                kwargs["file"] = discord.File(io.BytesIO(data), name)
                if name.endswith(".png"):
                    group[0].set_image(url=f"attachment://{name}")
            await channel.send(refs.mark(text if i == 0 else "", ref), embeds=group, **kwargs)

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
                                         f"Please fix it; I will try again.", ref=f"{a.key}:{what}:gm-notice")
            raise DeliveryDeferred(f"{a.key}: {problem}")
        return channel

    # -- private: DMs --------------------------------------------------------------------------

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

    async def _post_text(self, channel, key: str, text: str, *, mentions: discord.AllowedMentions | None = None,
                         view: discord.ui.View | None = None) -> None:
        pieces = chunks(text, 2000 - refs.ROOM)
        posted = await self._posted(channel)
        for i, piece in enumerate(pieces):
            ref = f"{key}#{i + 1}/{len(pieces)}"
            if refs.key(ref) not in posted:
                extra = {"view": view} if view is not None and i == len(pieces) - 1 else {}
                await channel.send(refs.mark(piece.rstrip(), ref), allowed_mentions=mentions, **extra)

    async def _posted(self, channel) -> set[str]:
        """The references (:func:`refs.key`) of the bot's recent messages in ``channel`` (none looked
        for on a first attempt)."""
        found: set[str] = set()
        if FIRST_ATTEMPT.get():
            return found
        async for message in channel.history(limit=HISTORY):
            if message.author.id == self.bot.user.id:
                ref = refs.read(message.content, message.embeds)
                if ref is not None:
                    found.add(ref)
        return found
