"""Mail from the outbox: announcements to a game's players and game master, and the judge's
answers to mail.

Only addresses that speak for a power (``mail_identity``, see :mod:`.accounts`) and the game
master's, when the game master is named by an e-mail address, receive announcements: ``public``
ones go to every registered address of the game and to the game master, ``players`` ones
(reminders, late notices, a power put in civil disorder) to the addresses of the powers named,
``gm`` ones (no orders from a power, civil disorder, a mail that could not be delivered) to the
game master. ``direct`` announcements through ``mail`` (the answer to a player's message, an
alert to a registered address, a password) go to the one address they name. Each address is a
delivery of its own: a relay that refuses one address (5xx) holds up nobody else, and the game
master is told; a 4xx is retried for that address alone.

What each address reads is the announcement, then what concerns it alone: a new password the
mail carries (made as it leaves, never stored), how to sign on for the power it plays; results
add the board to plan from (:mod:`.board`), the game's end its standings.

An announcement's mail is composed once for all the addresses that read the same (a
:class:`.outbound.Letter`: the seven players of a season), each copy with its own ``To`` and
``Message-ID``. Every mail for one announcement and one address carries the same ``Message-ID``, so that a mail
sent again after a crash (a delivery in doubt: SMTP cannot say whether it arrived) is recognisable
as the same message. Results carry the map picture when :mod:`bot.render` can draw it.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from email.message import MIMEPart
from typing import TYPE_CHECKING, TypeVar

import structlog

from adjudicator.variant import get_variant

from bot.codec.spelled import duty as spelled_duty
from bot.service import NotFoundError, ServiceError
from bot.store import database
from bot.store.database import Database
from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome
from . import board
from .accounts import GM, PASSWORD_KINDS, MailAccounts, address_of
from .outbound import Letter, Mailer
from .replies import announcement_message, picture_part

if TYPE_CHECKING:
    from bot.codec.season import Season

log = structlog.get_logger("crusader.mail")

PICTURED = ("results", "started")
PICTURES_KEPT = 16
"""Announcements whose attachment, and whose mail, are kept for their next addresses (a picture
is about 190 kB written out: the outbox delivers the mails of a few announcements at a time)."""
LETTER_FRESH = 60.0
"""Seconds an announcement's mail is sent as composed (its ``Date``); a mail sent later, tried
again after a relay's refusal, is composed anew."""


T = TypeVar("T")


@dataclass(frozen=True)
class Concerned:
    """The addresses of an announcement that read a part of their own: a new password it carries
    (``owed``), the mail they missed while their mailbox refused the game's (``refusing``: the
    addresses refused one at least)."""

    owed: frozenset[str]
    refusing: frozenset[str]
    common: str | None = None
    """What every other address reads (``None``: each address is asked apart, as for a reminder,
    which says what each power has still to decide)."""

    def common_to(self, address: str) -> str | None:
        """:attr:`common`, when ``address`` reads it, nothing of its own (``None``: it is asked apart)."""
        return None if address in self.owed or address in self.refusing else self.common


OWN_PARTS = ("reminder", "late", *PASSWORD_KINDS)
"""Announcements in which any address may read a part of its own (what its powers have still to
decide; how to sign on as the powers it plays)."""


class MailNotifier:
    name = "mail"

    def __init__(self, db: Database, accounts: MailAccounts, mailer: Mailer, *, judge_address: str,
                 attach_maps: bool = True, archive_url: str | None = None) -> None:
        self.db = db
        self.accounts = accounts
        self.mailer = mailer
        self.judge_address = judge_address
        self.attach_maps = attach_maps
        self.archive_url = archive_url.rstrip("/") if archive_url else None
        """The archive site's public address (``CRUSADER_ARCHIVE_URL``): results link the season's page."""
        self._boards: dict[str, str] = {}  # the last few boards written out, by announcement key
        self._letters: OrderedDict[str, tuple[float, str, Letter]] = OrderedDict()  # the last few, by key
        self._read: dict[str, asyncio.Future] = {}  # the last few announcements' (picture, Concerned), by key

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        a = announcement
        if a.audience == "direct":
            return a.direct_to(self.name)
        if a.game_id is None:
            return ()
        try:
            return await asyncio.to_thread(self._recipients, a, a.game_id)
        except NotFoundError:
            return ()  # the game was deleted: nobody to tell

    def _recipients(self, a: Announcement, game_id: int) -> list[str]:
        self.accounts.adopt(a)  # players named by an address get the power's mail from now on
        seats = self.accounts.service.seats(game_id)
        gm = address_of(seats.gm)
        if a.audience == "gm":
            return [gm] if gm else []
        powers = None if a.audience == "public" else tuple(a.powers)
        out = sorted({address for _, address in self.accounts.recipients(seats, powers)})
        if a.audience == "public" and gm and gm not in out:
            out.append(gm)
        return out

    async def deliver(self, delivery: Delivery) -> Outcome:
        a, address = delivery.announcement, delivery.recipient
        try:
            picture, concerned = await self._once(self._read, a.key, lambda: asyncio.to_thread(self._reading, a))
            common = concerned.common_to(address)
            body, own = (common, False) if common is not None else await asyncio.to_thread(self._body, a, address,
                                                                                             concerned)
        except NotFoundError:
            return DELIVERED  # the game was deleted: nothing left to say
        message_id = self.message_id(a.key, address)
        letter = self._letter(a, address, message_id, body, picture, kept=not own)
        return await self.mailer.deliver(letter.to(address, message_id), address)

    def _reading(self, a: Announcement) -> tuple[MIMEPart | None, Concerned]:
        """What every mail of ``a`` reads, in one hand-off to a thread for them all: its picture as
        an attachment (:meth:`_attached`), and who has a part of its own (:meth:`_concerning`)."""
        wanted = (a.data.get("orders_picture") or a.data.get("board_picture")) if a.kind == "reply" else None
        # LIST: the player's own orders drawn on the board, in the reply to that player alone; GET MAP
        pictured = self.attach_maps and (bool(wanted) or (a.kind in PICTURED and a.audience != "direct"))
        return self._attached(a) if pictured else None, self._concerning(a)

    def _concerning(self, a: Announcement) -> Concerned:
        """Who among ``a``'s addresses has a part of its own in its mail, and what the others read,
        found once for them all (a season's seven mails: one hand-off to a thread, not seven)."""
        if a.game_id is None:
            return Concerned(frozenset(), frozenset())
        with self.db.session(read_only=True) as session:  # both read at once, without the write lock
            refusing = database.refused_recipients(session, a.game_id, self.name) if a.audience != "direct" else set()
            owed = self.accounts.owed(a, session=session)
        concerned = Concerned(frozenset(owed), frozenset(refusing))
        if a.kind in OWN_PARTS:
            return concerned
        return replace(concerned, common=self._body(a, "", Concerned(frozenset(), frozenset()))[0])

    def _body(self, a: Announcement, address: str, concerned: Concerned) -> tuple[str, bool]:
        """What ``address`` reads: its own part (a password, how to sign on), the announcement, the
        board; and whether any of it is its own (what the other addresses do not read)."""
        personal = self._personal(a, address, concerned)
        todo = (self._to_decide(a, a.game_id, address) if a.kind in ("reminder", "late") and a.game_id is not None
                else [])
        return ((("\n".join(personal) + "\n\n" if personal else "") + a.body
                 + ("\n" + "\n".join(todo) + "\n" if todo else "") + self._board(a) + self._link(a)),
                bool(personal or todo))

    def _letter(self, a: Announcement, address: str, message_id: str, body: str, picture: MIMEPart | None, *,
                kept: bool) -> Letter:
        """The mail of ``a`` that reads ``body``, composed once for every address that reads the
        same (``kept``: the seven players of a season; a mail with a password or what a power has
        still to decide is its address's alone, and not kept)."""
        now = time.monotonic()
        made = self._letters.get(a.key) if kept else None
        if made is not None and made[1] == body and now - made[0] < LETTER_FRESH:
            return made[2]
        message = announcement_message(self.judge_address, address, a.subject, body, picture=picture,
                                       auto=a.data.get("auto", "auto-generated"), message_id=message_id)
        if a.data.get("in_reply_to"):
            message["In-Reply-To"] = a.data["in_reply_to"]
            message["References"] = a.data["in_reply_to"]
        letter = Letter(message)
        if kept:
            self._letters[a.key] = (now, body, letter)
            self._letters.move_to_end(a.key)
            while len(self._letters) > PICTURES_KEPT:
                self._letters.popitem(last=False)
        return letter

    def _link(self, a: Announcement) -> str:
        """Where the season (results) or the game (its start, its end) is on the archive site, if public."""
        if not self.archive_url or a.game_id is None or a.audience == "direct" or not a.game:
            return ""
        from bot.frontends.site.writer import game_slug

        game = f"{self.archive_url}/{game_slug(a.game)}/"
        if a.kind == "results" and a.data.get("phase"):
            return f"\nThe season on the archive site: {game}{a.data['phase']}.html\n"
        if a.kind in ("started", "ended"):
            return f"\nThe game on the archive site: {game}\n"
        return ""

    def _personal(self, a: Announcement, address: str, own: Concerned) -> list[str]:
        out = self._missed(a, address) if address in own.refusing else []
        given = self.accounts.password_for(a, address) if address in own.owed else []
        for power, password in given:
            if power == GM:
                out += [f"Your password as the game master of '{a.game}' is: {password}",
                        f"Sign on with the first line of your commands: SIGNON {GM}{a.game} {password}",
                        "(Then START, PAUSE, RESUME, EXTEND 24h, ADJUDICATE, SET <setting> <value>; HELP "
                        "lists them.)"]
                continue
            out += [f"Your password for {power} in '{a.game}' is: {password}",
                    f"Sign on with the first line of your orders: SIGNON {power}{a.game} {password}",
                    "(Keep it to yourself; SET PASSWORD <new> changes it.)"]
        if a.kind in PASSWORD_KINDS and a.game_id is not None:
            concerned = a.data.get("assignments") or {a.data.get("power"): a.data.get("player")}
            for power in self.accounts.powers_of(a.game_id, address):
                if power in concerned and power not in dict(given):
                    out.append(f"You play {power}: sign on with SIGNON {power}{a.game} <your password>")
        return out

    def _missed(self, a: Announcement, address: str) -> list[str]:
        """The game's announcements this address refused since it last received one (a full or
        disabled mailbox that works again): what the player missed meanwhile."""
        if a.game_id is None or a.audience == "direct":
            return []
        with self.db.session() as session:
            missed = database.refused_to(session, a.game_id, self.name, address, unread=True)
        if not missed:
            return []
        return ([f"Mail from the judge to this address could not be delivered for a while; you missed {len(missed)} "
                 f"mail(s) of '{a.game}':"] + [f"  {subject}" for _, subject in missed[-10:]]
                + ([f"  (and {len(missed) - 10} before them)"] if len(missed) > 10 else [])
                + [f"LIST {a.game} shows where the game stands; HISTORY {a.game} its seasons.", ""])

    def _to_decide(self, a: Announcement, game_id: int, address: str) -> list[str]:
        """For a reminder or a late notice: what the power this address plays has still to decide,
        while the phase it is about is the game's."""
        service, out = self.accounts.service, []
        view = service.status(game_id)
        for power in self.accounts.powers_of(game_id, address):
            holder = view.player_of(power)
            if power not in a.powers or holder is None:
                continue
            try:
                mine = service.my_orders(game_id, holder.player)
            except ServiceError:
                continue  # no longer a player of the game
            if mine.phase != a.data.get("phase") or mine.duty is None or not mine.duty.must_decide:
                continue
            out += [f"{power} has still to decide, in {mine.phase}:"]
            out += [f"  {line}" for line in spelled_duty(mine.duty, get_variant(mine.variant))]
        return out

    def _board(self, a: Announcement) -> str:
        """The board after the season a results mail gives, or the standings at the game's end."""
        if a.audience == "direct" or a.game_id is None or a.kind not in ("results", "ended", "started"):
            return ""
        if a.key not in self._boards:
            service = self.accounts.service
            if a.kind == "results" and a.data.get("version") is not None:
                season = self._season(a)
                lines = (board.planning(season.variant, season.adjudication.position, season.position)
                         if season is not None else [])
            else:  # a start: the board it was written at, however far the game has gone since
                shown = service.board(a.game_id, a.data.get("version"))
                lines = ([] if shown is None else board.standings(*shown) if a.kind == "ended"
                         else board.planning(*shown))
            while len(self._boards) >= 8:
                self._boards.pop(next(iter(self._boards)))
            self._boards[a.key] = "\n" + "\n".join(lines).rstrip("\n") + "\n" if lines else ""
        return self._boards[a.key]

    def message_id(self, key: str, address: str) -> str:
        digest = hashlib.sha256(f"{key}\n{address}".encode()).hexdigest()[:32]
        return f"<{digest}@{self.judge_address.rpartition('@')[2] or 'crusader.invalid'}>"

    def _season(self, a: Announcement) -> Season | None:
        """The season a results announcement gives (decoded once for every front end: the
        service's :class:`~bot.service.context.SeasonsRead`)."""
        return self.accounts.service.season(a.game_id, a.data["version"])

    @staticmethod
    async def _once(kept: dict[str, asyncio.Future], key: str, make: Callable[[], Awaitable[T]]) -> T:
        """What ``make`` makes for the announcement ``key``, made once for all its addresses: the
        mails of an announcement are delivered at the same time, the first makes it and the others
        wait for it (a failure is not kept: the next address tries again)."""
        made = kept.get(key)
        if made is None or made.get_loop() is not asyncio.get_running_loop():
            made = kept[key] = asyncio.ensure_future(make())
            while len(kept) > PICTURES_KEPT:
                kept.pop(next(iter(kept)))
        try:
            return await asyncio.shield(made)
        except Exception:
            if kept.get(key) is made:
                del kept[key]
            raise

    def _attached(self, announcement: Announcement) -> MIMEPart | None:
        """The picture of ``announcement`` drawn (or taken as stored) and made an attachment; ``None``
        when there is none, or it could not be drawn (the mail goes without it)."""
        wanted = announcement.data.get("orders_picture") if announcement.kind == "reply" else None
        board = announcement.data.get("board_picture") if announcement.kind == "reply" else None
        name = (f"{wanted['name']}-{wanted['phase']}-{wanted['power']}-orders.png" if wanted
                else f"{board['name']}-{board['phase']}.png" if board
                else f"{announcement.game}-{announcement.data.get('phase')}.png")  # the phase the picture shows
        try:
            png = self._draw(announcement)
            return picture_part(png, name) if png else None
        except NotFoundError:
            raise  # the game was deleted: nothing to mail
        except Exception:
            log.exception("map picture not drawn; the mail goes without it", key=announcement.key)
            return None

    def _orders_picture(self, wanted: dict) -> bytes | None:
        """A power's standing orders drawn on the board, while the game is still in the phase the
        LIST was read in (``None`` once it has moved on, or with no orders standing)."""
        from bot.render.season import orders_picture

        service = self.accounts.service
        variant, position = service.board(wanted["game"])
        if str(position.phase) != wanted["phase"]:
            return None
        orders = [line.order for line in service.orders_of_power(wanted["game"], None, wanted["power"])
                  if line.order is not None]
        return orders_picture(variant, position, orders) if orders else None

    def _draw(self, announcement: Announcement) -> bytes | None:
        """Results: the season's picture (orders drawn with their outcomes, the bids); a start: the
        opening board (the board at the start, even when the mail leaves after the first season)."""
        from bot.render import render_png

        service = self.accounts.service
        wanted = announcement.data.get("orders_picture") if announcement.kind == "reply" else None
        if wanted:
            return self._orders_picture(wanted)
        board = announcement.data.get("board_picture") if announcement.kind == "reply" else None
        if board:  # GET MAP: the board as it stood when asked
            shown = service.board(board["game"], board["version"])
            return render_png(*shown) if shown is not None else None
        version = announcement.data.get("version")
        if announcement.kind == "results" and version is not None:
            season = self._season(announcement)
            if season is None:
                return None  # rolled back since
            return season.picture  # drawn when the season was adjudicated
        shown = service.board(announcement.game_id, announcement.data.get("version"))  # as it was then
        return render_png(*shown) if shown is not None else None
