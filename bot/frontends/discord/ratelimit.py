"""Discord's global rate limit kept by the judge: 50 requests a second per bot token, whichever
server makes them.

discord.py keeps each route's limit from the headers Discord answers with, but it learns of the
global limit only from a 429 (and then only in its own process), and a bot that keeps running
into 429s is banned at Cloudflare for a while. So every REST request the bot makes first takes a
turn from a *pace*: turns are handed out evenly, one every :data:`INTERVAL`, in the order they are
asked for, with a few at once after a quiet spell (a generic cell rate algorithm: the one number
kept is the next free turn).

- :class:`LocalPace` keeps that number in memory: one server alone on the token (SQLite).
- :class:`SharedPace` keeps it in the database (the ``pace`` row, moved on in one statement by the
  database's own clock: :func:`bot.store.database.take_turn`), so that every server on one
  PostgreSQL shares the token's 50 a second.

The turn is taken in an aiohttp trace (:func:`paced`) that discord.py's HTTP session runs before it
sends each request, so every request counts: results, answers to players, retries after a 429.
Interaction responses and their follow-ups are not bound to the global limit (Discord's
documentation) and take no turn; nor does the gateway or the CDN.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import aiohttp

log = logging.getLogger("crusader.discord")

GLOBAL_PER_SECOND = 50
INTERVAL = 1.1 / GLOBAL_PER_SECOND
"""Seconds between turns: 50 in 1.1 s. Discord counts 50 in any second as requests arrive; the
tenth of a second to spare absorbs requests that leave evenly and arrive bunched (a busy event
loop, a large upload ahead of a small one)."""
BURST = 2 * INTERVAL
"""How far ahead of the pace turns may be taken after a quiet spell: three requests at once (an
answer and its follow-ups go without waiting), and at most 48 in the second that starts then."""
NOT_PACED = ("interactions", "webhooks")  # the first segment of an API path bound by no global limit


class Pace(Protocol):
    async def turn(self) -> None:
        """Return when the next request may go."""


class LocalPace:
    """Turns kept in this process (one server alone on the bot's token)."""

    def __init__(self, interval: float = INTERVAL, burst: float = BURST) -> None:
        self.interval, self.burst = interval, burst
        self._next = 0.0  # the next free turn, on the event loop's clock

    def wait(self, now: float) -> float:
        """Take a turn at ``now``: the seconds to wait before using it."""
        wait = max(self._next - self.burst - now, 0.0)
        self._next = max(self._next, now) + self.interval
        return wait

    async def turn(self) -> None:
        wait = self.wait(asyncio.get_running_loop().time())
        if wait > 0:
            await asyncio.sleep(wait)


class SharedPace:
    """Turns kept in the database, shared by every server on it (PostgreSQL).

    Each turn is one short statement, made on a thread of its own so that it never waits behind
    the service's work. When the database cannot be reached the turns are kept here for a while
    (said once in the log), as if this server were alone.
    """

    def __init__(self, db, name: str = "discord", interval: float = INTERVAL, burst: float = BURST) -> None:
        self.db, self.name = db, name
        self.interval, self.burst = interval, burst
        self.local = LocalPace(interval, burst)
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="discord-pace")
        self._failing = False

    def _take(self) -> float:
        from bot.store import database

        with self.db.session() as session:
            return database.take_turn(session, self.name, self.interval, self.burst)

    async def turn(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            wait = await loop.run_in_executor(self._executor, self._take)
        except Exception as exc:  # noqa: BLE001 (logged; this server keeps its own pace)
            if not self._failing:
                log.warning("the shared pace of requests to Discord cannot be read (%s: %s); this server keeps "
                            "its own until it can", type(exc).__name__, exc)
            self._failing = True
            wait = self.local.wait(loop.time())
        else:
            if self._failing:
                log.info("the shared pace of requests to Discord is read again")
            self._failing = False
        if wait > 0:
            await asyncio.sleep(wait)

    def close(self) -> None:
        self._executor.shutdown(wait=False)


def pace_for(db) -> LocalPace | SharedPace:
    """The pace for a bot over ``db``: shared through PostgreSQL, kept in memory on SQLite (one server)."""
    if db is None or db.is_sqlite:
        return LocalPace()
    return SharedPace(db)


def counted(url) -> bool:
    """Whether a request to ``url`` counts towards the global limit: a REST request to the API that
    is not an interaction's response or follow-up."""
    parts = url.path.split("/")
    try:
        i = parts.index("api")
    except ValueError:
        return False  # the gateway, the CDN
    rest = parts[i + 1:]
    if rest and rest[0].startswith("v") and rest[0][1:].isdigit():
        rest = rest[1:]
    return bool(rest) and rest[0] not in NOT_PACED


def paced(pace: Pace, trace: aiohttp.TraceConfig | None = None) -> aiohttp.TraceConfig:
    """``trace`` (a new one when ``None``), which now makes every counted request wait for its turn
    of ``pace`` before it is sent. discord.py takes one trace (``http_trace=``)."""
    trace = trace or aiohttp.TraceConfig()

    async def take_turn(session, context, params: aiohttp.TraceRequestStartParams) -> None:
        if counted(params.url):
            await pace.turn()

    trace.on_request_start.append(take_turn)
    return trace
