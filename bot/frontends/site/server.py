"""The archive site in ``crusader serve``: kept up to date from the announcements, served over HTTP.

:class:`SiteNotifier` rewrites a game's pages when the judge announces its results (and when a
game starts, ends or is rolled back). :class:`ArchiveSite` is the front end: it serves the
directory with aiohttp on ``CRUSADER_ARCHIVE_HOST``:``CRUSADER_ARCHIVE_PORT`` (127.0.0.1:8080
unless set), and from its start brings up to date, in the background, the pages of every game
that changed while the server was away (none, when it was stopped and started again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import structlog
from aiohttp import web

from bot.archive.games import GameArchive, published_lines, sweep_temporary
from bot.codec.season import Season, season_from_row
from bot.store import database
from bot.store.database import Database
from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome
from bot.store.rows import GameRow
from .writer import SiteWriter, site_state

if TYPE_CHECKING:
    from bot.service import GameService

log = structlog.get_logger("crusader.site")

UPDATING_KINDS = frozenset({"started", "results", "rolled_back", "ended"})
INDEX_EVERY = 2.0  # seconds between two writes of the site's index while games' pages are written


class SiteNotifier:
    """A notifier: after the announcements that change a game's record, bring its pages up to date.

    Idempotent: a repeated delivery writes no season page twice and the same index pages again.
    It never fails a delivery: the pages it could not write are written on its next call.
    """

    name = "site"
    background = True  # (the outbox: its pages follow the results posted and mailed)

    def __init__(self, service: GameService, writer: SiteWriter, *, index_every: float = INDEX_EVERY) -> None:
        self.service = service
        self.db: Database = service.db
        self.writer = writer
        self.index_every = index_every
        self._lock = asyncio.Lock()
        self._indexed = float("-inf")  # when the site's index was last written (the loop's clock)
        self._index_later: asyncio.Task | None = None

    async def recipients(self, announcement: Announcement) -> tuple[str, ...]:
        return (self.name,) if announcement.kind in UPDATING_KINDS and announcement.game_id is not None else ()

    async def deliver(self, delivery: Delivery) -> Outcome:
        announcement = delivery.announcement
        async with self._lock:
            # the site's index lists every game and reads every game's summary: written at most
            # every ``index_every`` seconds, the last time after the last game's pages, so that
            # the results of many games that come together (deadlines at the same hour) do not
            # each write it
            index = asyncio.get_running_loop().time() >= self._indexed + self.index_every
            try:
                assert announcement.game_id is not None  # (recipients: only a game's announcements)
                announced = announcement.data.get("version") if announcement.kind == "results" else None
                await asyncio.to_thread(self.update, announcement.game_id, index=index, announced=announced)
            except Exception:
                # never hold back the results for the other front ends: a page missing now is
                # written with the game's next announcement, or when the server starts
                log.exception("archive pages not written", game=announcement.game, key=announcement.key)
            if index:
                self._indexed = asyncio.get_running_loop().time()
            elif self._index_later is None or self._index_later.done():
                self._index_later = asyncio.get_running_loop().create_task(self._write_index_later())
        return DELIVERED

    async def _write_index_later(self) -> None:
        await asyncio.sleep(max(self._indexed + self.index_every - asyncio.get_running_loop().time(), 0))
        await self.settle()

    async def settle(self) -> None:
        """Write the site's index now if a game's pages were written since it was."""
        async with self._lock:
            task, self._index_later = self._index_later, None
            if task is None:
                return
            if task is not asyncio.current_task():
                task.cancel()
            try:
                await asyncio.to_thread(self.writer.write_index)
            except Exception:
                log.exception("archive index not written")
            self._indexed = asyncio.get_running_loop().time()

    def update(self, game_id: int, *, index: bool = True, state: tuple[str, str] | None = None,
               announced: int | None = None) -> bool:
        """Bring a game's pages up to date; whether any was written. ``state``: the game's name and
        :func:`~.writer.site_state`, when read already (at start-up, for every game at once: the
        pages of a game that is current are not read); without it the game's site columns are read,
        as an announcement of its results asks, and its pages written unless they show that
        already. Only the seasons whose pages are due are read and decoded; the game's page shows
        the others from its summary. ``announced``: the version of the season whose results are
        announced, read through the service's read that the other front ends share (decoded once
        between them); the others, which no other front end reads, in one query of their own."""
        if state is not None and self.writer.is_current(*state):
            return False  # its pages show what it is now: nothing to write
        try:
            return self._update(game_id, index=index, announced=announced)
        except _RolledBack:  # read again, as it is now
            return self._update(game_id, index=index, announced=announced)

    def _update(self, game_id: int, *, index: bool, announced: int | None) -> bool:
        with self.db.session(read_only=True) as session:
            games, players, versions = database.site_columns(session, game_id)
            if not games:
                if index:
                    self.writer.write_index()
                return True  # deleted since
            game = games[0]
            row = session.get(GameRow, game_id) if game["status"] == "ended" else None
            press = published_lines(session, row) if row is not None else ()
        seats, stored = tuple(players.get(game_id, ())), versions.get(game_id, [])
        archive = GameArchive(game=game, players=seats, seasons=(), orders=(), submissions=(), press=press)
        # not written when its pages are current (an announcement delivered again)
        return self.writer.update_game(archive, site_state(game, seats, stored), versions=stored, index=index,
                                       read=lambda due: self._seasons(game_id, game["name"], due, announced))

    def _seasons(self, game_id: int, name: str, versions: Sequence[int], announced: int | None) -> list[Season]:
        """The seasons of a game stored at ``versions`` (:class:`_RolledBack` if one is no longer):
        the ``announced`` one through the service's shared read, the others in one query."""
        seasons: list[Season | None] = []
        if announced in versions:
            seasons.append(self.service.season(game_id, announced))
        others = [v for v in versions if v != announced]
        if others:
            with self.db.session(read_only=True) as session:
                rows = database.seasons_of(session, game_id, pictures=True, versions=others)
            seasons += [season_from_row(row, name) for row in rows]
        if len(seasons) != len(versions) or any(s is None for s in seasons):
            raise _RolledBack(game_id)
        return [s for s in seasons if s is not None]

    async def catch_up(self) -> int:
        """:meth:`update_all` one game at a time, each in turn with the deliveries (a server starts
        serving at once; the pages of a thousand games written meanwhile hold up no results)."""
        await asyncio.to_thread(sweep_temporary, self.writer.root)
        states = await asyncio.to_thread(game_states, self.db)
        written = 0
        for game_id, state in states.items():
            async with self._lock:
                try:
                    written += await asyncio.to_thread(self.update, game_id, index=False, state=state)
                except Exception:
                    log.exception("archive pages not written", game=state[0])
        async with self._lock:
            if written or not (self.writer.root / "index.html").is_file():
                await asyncio.to_thread(self.writer.write_index)
                self._indexed = asyncio.get_running_loop().time()
        log.info("archive pages brought up to date", games=len(states), written=written)
        return len(states)

    def update_all(self) -> int:
        """Bring every game's pages up to date (at start-up), after removing what writes
        interrupted by a kill left behind; the number of games. A game whose pages are current is
        not written again, and the site's index only if some game was, or it is missing."""
        sweep_temporary(self.writer.root)
        states = game_states(self.db)
        written = sum(self.update(game_id, index=False, state=state) for game_id, state in states.items())
        if written or not (self.writer.root / "index.html").is_file():
            self.writer.write_index()
        log.info("archive pages brought up to date", games=len(states), written=written)
        return len(states)


class _RolledBack(Exception):
    """A season whose page was due was rolled back before it was read."""


def game_states(db: Database, game_id: int | None = None) -> dict[int, tuple[str, str]]:
    """Each game's name and :func:`~.writer.site_state` (or only game ``game_id``'s), read from the
    few columns the pages show, in three queries whatever the number of games."""
    with db.session(read_only=True) as session:
        games, players, versions = database.site_columns(session, game_id)
    return {g["id"]: (g["name"], site_state(g, players.get(g["id"], ()), versions.get(g["id"], ()))) for g in games}


_NOT_FOUND = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found</title></head>"
              "<body><h1>Not found</h1><p>There is no page at {path}: a season that has not been adjudicated "
              "yet, or a game that is not archived here.</p><p><a href=\"/\">All games</a></p></body></html>")


def site_app(root: Path) -> web.Application:
    """An aiohttp application serving the static site under ``root`` (``/`` is ``index.html``)."""
    root = Path(root).resolve()

    async def page(request: web.Request) -> web.StreamResponse:
        path = request.match_info.get("path", "")
        if "\x00" in path or len(path) > 1000:  # no file has such a name
            raise _not_found(request)
        rel = PurePosixPath(path)
        if any(part.startswith(".") for part in rel.parts):
            raise _not_found(request)
        target = (root / rel).resolve()
        if not target.is_relative_to(root):
            raise _not_found(request)
        if target.is_dir():
            if not request.path.endswith("/"):
                raise web.HTTPMovedPermanently(request.path + "/")
            target = target / "index.html"
        if not target.is_file():
            raise _not_found(request)
        return web.FileResponse(target, headers={"Cache-Control": "no-cache"})

    app = web.Application()
    app.router.add_get("/{path:.*}", page)
    return app


def _not_found(request: web.Request) -> web.HTTPNotFound:
    from html import escape

    return web.HTTPNotFound(text=_NOT_FOUND.format(path=escape(request.path[:200].replace("\x00", "\ufffd"))),
                            content_type="text/html")


class ArchiveSite:
    """The front end of ``crusader serve`` that writes and serves the archive site."""

    name = "archive site"

    def __init__(self, service: GameService, root: Path, host: str, port: int) -> None:
        self.root = Path(root)
        self.host, self.port = host, port
        self.notifier = SiteNotifier(service, SiteWriter(self.root))
        self._runner: web.AppRunner | None = None
        self._catch_up: asyncio.Task | None = None

    async def start(self) -> None:
        self._runner = web.AppRunner(site_app(self.root), access_log=None)
        await self._runner.setup()
        try:
            await web.TCPSite(self._runner, self.host, self.port).start()
        except OSError as exc:
            from bot.app.setup import listen_error

            await self._runner.cleanup()
            self._runner = None
            raise listen_error(exc, "the archive site", self.host, self.port, "CRUSADER_ARCHIVE_HOST",
                               "CRUSADER_ARCHIVE_PORT", off=" (or 0 to turn the site off)") from None
        log.info("archive site", url=f"http://{self.host}:{self.port}/", directory=str(self.root))
        # the pages of games changed while the server was away (or written by another version of
        # it), brought up to date while it serves
        self._catch_up = asyncio.get_running_loop().create_task(self.notifier.catch_up(), name="archive-catch-up")

    async def stop(self) -> None:
        if self._catch_up is not None:
            self._catch_up.cancel()
            await asyncio.gather(self._catch_up, return_exceptions=True)
            self._catch_up = None
        await self.notifier.settle()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
