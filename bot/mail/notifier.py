"""Announcements by mail: results, reminders and the game master's news to a game's players.

Only registered addresses (``mail_identity``) ever receive them: ``public`` announcements go
to every registered address of the game, ``players`` ones (reminders, late notices) to the
addresses of the powers named; ``gm`` ones are not mailed. Each (announcement, address) is
mailed once, even when the outbox delivers the announcement again. Results carry the map
picture when :mod:`bot.render` can draw it.
"""

from __future__ import annotations

import asyncio

import structlog

from ..outbox import Announcement
from ..storage import Database, utcnow
from . import store
from .accounts import MailAccounts
from .outbound import Mailer
from .replies import announcement_message

log = structlog.get_logger("crusader.mail")

PICTURED = ("results", "started")


class MailNotifier:
    def __init__(self, db: Database, accounts: MailAccounts, mailer: Mailer, *, judge_address: str,
                 attach_maps: bool = True) -> None:
        self.db = db
        self.accounts = accounts
        self.mailer = mailer
        self.judge_address = judge_address
        self.attach_maps = attach_maps

    async def deliver(self, announcement: Announcement) -> None:
        if announcement.game_id is None or announcement.audience == "gm":
            return
        powers = None if announcement.audience == "public" else tuple(announcement.powers)
        targets = await asyncio.to_thread(self._pending, announcement, powers)
        if not targets:
            return
        picture = await self._picture(announcement) if announcement.kind in PICTURED else None
        name = f"{announcement.game}-{announcement.data.get('phase')}.png"  # the phase the picture shows
        for address in targets:
            message = announcement_message(self.judge_address, address, announcement.subject, announcement.body,
                                           picture=picture, picture_name=name)
            await self.mailer.send(message, address)  # a failure leaves the announcement to be delivered again
            await asyncio.to_thread(self._mark, announcement.key, address)

    def _pending(self, announcement: Announcement, powers: tuple[str, ...] | None) -> list[str]:
        addresses = sorted({address for _, address in self.accounts.recipients(announcement.game_id, powers)})
        with self.db.session() as session:
            return [a for a in addresses if not store.was_sent(session, announcement.key, a)]

    def _mark(self, key: str, address: str) -> None:
        with self.db.session() as session:
            store.mark_sent(session, key, address, utcnow())

    async def _picture(self, announcement: Announcement) -> bytes | None:
        if not self.attach_maps:
            return None
        try:
            return await asyncio.to_thread(self._draw, announcement)
        except Exception:
            log.exception("map picture not drawn; the mail goes without it", key=announcement.key)
            return None

    def _draw(self, announcement: Announcement) -> bytes | None:
        """Results: the season's picture (orders drawn with their outcomes, the bids); a start: the
        opening board."""
        from ..render import render_png
        from ..site.pictures import season_picture

        service = self.accounts.service
        version = announcement.data.get("version")
        if announcement.kind == "results" and version is not None:
            season = service.season(announcement.game_id, version)
            if season is None:
                return None  # rolled back since
            return season_picture(season["variant"], season["position"], season["result"])
        variant, position = service.board(announcement.game_id)
        return render_png(variant, position)
