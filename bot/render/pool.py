"""Where the judge draws a season's picture when it adjudicates the season.

A season's picture (:func:`bot.render.season.season_picture`) is most of a phase closing's work
before its results can go out, and all of it is the engine's and Pillow's: a pure function of
the season. :class:`Painter` draws it in the thread that asks; :class:`PicturePool` hands it to a
process of its own, so that a server's own process (its event loop delivering the results of
the seasons before, the judge's thread storing them) waits neither for the picture nor for the
interpreter's lock while it is drawn. ``crusader serve`` draws in a pool; the command line, the
tests and the benchmarks draw where they are.

What the process is given is the season as stored: the position's document and the standing
orders' documents, which it reads and adjudicates again (the engine is a pure function of them,
its random draws seeded in the position) before it draws: the picture is the one the judge's
own adjudication would give, byte for byte. The process is started with the first picture, and
ends when its server stops, or, if the server is killed, within a second of it.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import structlog

from adjudicator.adjudicate import adjudicate
from adjudicator.position import Position
from adjudicator.results import Adjudication
from adjudicator.variant import Variant

from bot.codec.documents import position_from_dict
from bot.codec.values import order_from_json

log = structlog.get_logger("crusader.render")

PICTURE_TIMEOUT = 60.0
"""Seconds a picture may take in the pool's process before that process is given up (ended and
started again with the next picture) and the picture drawn where it was asked for."""
WATCH_EVERY = 1.0
"""Seconds between two looks of the pool's process at whether the server that started it lives."""


def draw_season(position: Mapping[str, Any], orders: Sequence[Any], game: str) -> bytes:
    """The picture of a season from its documents: the position it started from, as stored, and
    its standing orders as stored, adjudicated here (:func:`bot.render.season.season_picture`)."""
    from .season import season_picture

    variant, before = position_from_dict(position)
    return season_picture(variant, before, adjudicate(variant, before, [order_from_json(o) for o in orders]),
                          game=game)


class Painter:
    """Draws a season's picture in the thread that asks."""

    def season(self, game: str, documents: tuple[Mapping[str, Any] | None, Sequence[Any]], variant: Variant,
               before: Position, adjudication: Adjudication) -> bytes:
        """The picture of the season ``adjudication`` of ``before`` (whose position and standing
        orders, as stored, are ``documents``; the position ``None``: not stored) in the game ``game``."""
        from .season import season_picture

        return season_picture(variant, before, adjudication, game=game)

    def close(self) -> None:
        """Let go of what drawing holds (nothing, here)."""


class PicturePool(Painter):
    """Draws a season's picture in a process of its own (started with the first picture; started
    again after it ended or hung), waiting for it in the thread that asks; the picture is drawn in
    that thread when the process cannot draw it."""

    def __init__(self, timeout: float = PICTURE_TIMEOUT) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False

    def season(self, game: str, documents: tuple[Mapping[str, Any] | None, Sequence[Any]], variant: Variant,
               before: Position, adjudication: Adjudication) -> bytes:
        position, orders = documents
        pool = self._executor() if position is not None else None
        if pool is not None and position is not None:
            try:
                return pool.submit(draw_season, position, list(orders), game).result(self.timeout)
            except (BrokenProcessPool, FutureTimeout) as exc:  # (the process ended: found now, or before)
                log.warning("the picture process could not draw a season's picture; it is drawn here, and the "
                            "process started again for the next", game=game,
                            reason="no answer in time" if isinstance(exc, FutureTimeout) else "the process ended")
                self._drop(pool)
            except RuntimeError as exc:
                if not self._closed:  # (else: closed meanwhile, the server stopping)
                    raise
                log.debug("the picture pool closed: the picture is drawn here", game=game, error=str(exc))
        return super().season(game, documents, variant, before, adjudication)

    @property
    def pids(self) -> list[int]:
        """The pool's processes running now (none before the first picture)."""
        with self._lock:
            processes = getattr(self._pool, "_processes", None) or {}
            return [p.pid for p in processes.values() if p.pid is not None]

    def close(self) -> None:
        """End the pool's process (a picture being drawn is given up: the thread that waits for it
        draws it itself) and start none again."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _executor(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._closed:
                return None
            if self._pool is None:
                # a process started afresh ("spawn"), not a fork of a server running threads
                self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_watch_server, initargs=(os.getpid(),))
            return self._pool

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            if process.is_alive():
                process.kill()  # hung: shutdown alone would wait for it
        pool.shutdown(wait=False, cancel_futures=True)


def _watch_server(server: int) -> None:
    """In the pool's process, as it starts: leave a stop with Ctrl-C to the server (which ends the
    pool), and end this process when the server that started it has ended without ending it
    (killed): its parent is then another."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(WATCH_EVERY)
        os._exit(0)

    threading.Thread(target=watch, name="server-watch", daemon=True).start()


__all__ = ["PICTURE_TIMEOUT", "Painter", "PicturePool", "draw_season"]
