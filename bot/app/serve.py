"""``crusader serve``: the judge's main job.

Set-up lives here, outside the service: settings, logs, the database and its migrations, the
service, the outbox and its notifiers, the timer scheduler, and the front ends. A front end
(the e-mail listener, the archive site, Discord) is an object with ``async start()`` and
``async stop()``; a module offers one by defining ``create_front_end(app) -> FrontEnd | None``
(``None`` when it is not configured) and being listed in :data:`FRONT_END_MODULES`, or by
calling :func:`register_front_end`. Front ends register their notifiers on ``app.dispatcher``.
"""

from __future__ import annotations

import asyncio
import faulthandler
import gc
import importlib
import importlib.util
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Protocol
from collections.abc import Callable

import structlog

from bot.archive.games import ArchiveWriter
from bot.service import GameService
from bot.store.database import Database
from bot.store.outbox import JsonlNotifier, LogNotifier, OutboxDispatcher
from bot.store.timers import TimerScheduler
from .logging import configure
from .settings import Settings
from .setup import SetupError, make_directories, open_database
from .status import StatusFile

__all__ = ["App", "FrontEnd", "SetupError", "build_app", "register_front_end", "serve", "settle_heap"]

log = structlog.get_logger("crusader.serve")

FRONT_END_MODULES = ("bot.frontends.mail", "bot.frontends.site", "bot.frontends.discord")
TIMER_THREADS_SQLITE, TIMER_THREADS = 1, 2  # timer runs at once (adjudications), on SQLite and on PostgreSQL
_extra_factories: list[Callable[[App], FrontEnd | None]] = []


class FrontEnd(Protocol):
    """``start`` raises :class:`SetupError` (a sentence naming the setting) when the front end cannot
    run as configured; once started, ``problem`` (optional) is ``None`` or what is wrong."""

    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def register_front_end(factory: Callable[[App], FrontEnd | None]) -> None:
    _extra_factories.append(factory)


@dataclass
class App:
    """What a front end gets: the settings, the database, the service and the outbox."""

    settings: Settings
    db: Database
    service: GameService
    dispatcher: OutboxDispatcher
    front_ends: list = field(default_factory=list)


def pictures_check() -> tuple[bool, str | None]:
    """Whether map pictures can be drawn on this machine (Pillow with FreeType and aggdraw load),
    and what is missing for them (the picture libraries; the DejaVu font, without which the names
    are set in Pillow's own, wider font), if anything."""
    try:
        import aggdraw  # noqa: F401
        from PIL import features
        if not features.check("freetype2"):
            raise ImportError("Pillow was built without FreeType")
    except (ImportError, OSError) as exc:
        return False, (f"map pictures cannot be drawn: the picture libraries do not load ({str(exc).splitlines()[0]}); "
                       "reinstall the judge's dependencies (pip install --require-hashes -r requirements.lock) and "
                       "restart; until then results go out without their map")
    from bot.render.fonts import FILES
    from PIL import ImageFont
    try:
        ImageFont.truetype(FILES[False], 10)
    except OSError:
        return True, ("map pictures will have their names in Pillow's own font: DejaVu Sans is not installed "
                      "(apt install fonts-dejavu-core), and the names were placed for it")
    return True, None


def build_app(settings: Settings) -> App:
    """The database (migrated), the service and the outbox; a :class:`SetupError` names the setting
    to change when the data directory or the database cannot be used. A machine that cannot draw
    the map pictures is said once, as a warning (and the seasons are stored without pictures)."""
    make_directories(settings)
    db = open_database(settings)
    pictures, missing = pictures_check()
    if missing:
        log.warning(missing)
    service = GameService(db, node=settings.node_name, pictures=pictures)
    archive = ArchiveWriter(service, settings.data_dir / "archive")
    archive.tidy()  # what a kill left half-written
    dispatcher = OutboxDispatcher(db, [LogNotifier(), archive],
                                  node=settings.node_name, lease=timedelta(seconds=settings.outbox_lease))
    if settings.announce_jsonl:
        dispatcher.register(JsonlNotifier(settings.announce_jsonl))
    return App(settings, db, service, dispatcher)


def _front_end_factories(wanted: str = "auto") -> list[Callable[[App], FrontEnd | None]]:
    factories = list(_extra_factories)
    choice = {w.strip() for w in wanted.split(",") if w.strip()}
    for name in FRONT_END_MODULES:
        if "auto" not in choice and name.rsplit(".", 1)[1] not in choice:
            continue
        if importlib.util.find_spec(name) is not None:
            module = importlib.import_module(name)
            if hasattr(module, "create_front_end"):
                factories.append(module.create_front_end)
    return factories


YOUNG_COLLECTED_AFTER = 10_000
"""The cyclic garbage collector's first threshold once the server has started (Python's own:
700): the objects made, less those freed, before the youngest are collected. A phase closing
makes a few thousand that live on a while (its season, its mails, its pages); at 700, two
collections a phase closing, one in about two hundred of them walking the whole heap of what
the server keeps (its games' timers, channels and caches), took about 1 ms of a closing's CPU
(`bench_storm.py --spread`, 300 games), at 10,000 about 0.1 ms."""


def settle_heap() -> int:
    """Start-up is over: put what it made out of the cyclic garbage collector's way.

    Modules, the order grammar, the maps, the database mappers and the front ends' clients
    stay for the life of the process. Frozen (``gc.freeze``), they are no longer walked by
    every full collection that a burst of messages sets off (in a profile of a burst of a
    hundred DMs, collections fell from a quarter of the bot's samples to a tenth). From now
    on the youngest are collected after :data:`YOUNG_COLLECTED_AFTER` objects.
    Returns how many objects are frozen.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTED_AFTER, *gc.get_threshold()[1:])
    return gc.get_freeze_count()


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    """Run the judge until ``stop`` is set (SIGTERM, SIGINT). A front end that cannot start (a port in
    use, a Discord token refused) stops it at once with a :class:`SetupError`; one that fails later
    is logged, and ``crusader health`` reports it (:mod:`bot.app.status`)."""
    # A crash in a C extension (SIGSEGV, SIGABRT) prints every thread's Python stack to stderr,
    # the log's stream, instead of ending the process without a word.
    if sys.__stderr__ is not None and not faulthandler.is_enabled():
        faulthandler.enable(sys.__stderr__)
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass
    configure(settings.log_level, settings.log_format)
    app = build_app(settings)

    # Timers run on threads of their own (one on SQLite, whose writes take turns anyway): when a
    # thousand deadlines fall in the same minute, their runs queue here, not in the pool the
    # outbox reads and records its deliveries with.
    # Each run starts only once the results of those before it are mostly out (the dispatcher's
    # caught_up), so that they go out at Discord's pace from the first deadline, and the runs take
    # the CPU the deliveries leave, rather than the deliveries the CPU the runs leave. Timers due
    # fire only here: the sweep arms them (the scheduler's poll), and fires none itself.
    threads = TIMER_THREADS_SQLITE if app.db.is_sqlite else TIMER_THREADS
    runs = ThreadPoolExecutor(threads, thread_name_prefix="timers")
    turns = asyncio.Semaphore(threads)

    async def on_timer(timer_id: int) -> None:
        for attempt in range(5):  # "busy": a player's submission holds the game row for a moment
            async with turns:
                await app.dispatcher.caught_up()
                fired = await loop.run_in_executor(runs, app.service.fire_timer, timer_id)
            if fired != "busy":
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        app.dispatcher.kick()  # one delivery run for every timer that ends while it goes

    async def sweep() -> None:
        await app.dispatcher.flush()

    scheduler = TimerScheduler(app.db, on_timer, sweep=sweep, poll_interval=settings.poll_interval)
    app.service.timer_listeners.append(scheduler.arm)
    status = StatusFile(settings.data_dir, settings.node_name)
    try:
        for factory in _front_end_factories(settings.front_ends):
            front_end = factory(app)
            if front_end is not None:
                await front_end.start()
                app.front_ends.append(front_end)
    except BaseException:
        await _stop_front_ends(app)
        await app.dispatcher.close()
        app.db.dispose()
        raise
    await scheduler.start()
    frozen = settle_heap()
    status.write(_problems(app))
    log.info("serving", node=settings.node_name, database=app.db.engine.url.render_as_string(hide_password=True),
             front_ends=[f.name for f in app.front_ends], frozen_objects=frozen)
    watcher = asyncio.create_task(_watch(app, status, stop), name="front-end-watch")
    try:
        await stop.wait()
    finally:
        log.info("stopping", node=settings.node_name)
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
        app.dispatcher.wind_down()  # a sweep delivering a backlog ends with the batch in hand
        await scheduler.stop()
        runs.shutdown(wait=False)
        await _stop_front_ends(app)
        await app.dispatcher.close()
        await asyncio.sleep(0)
        app.db.dispose()
        status.remove()
        log.info("stopped", node=settings.node_name)


def _problems(app: App) -> dict[str, str | None]:
    """Each front end's trouble (its ``problem``, when it has one), ``None`` when it works."""
    return {f.name: getattr(f, "problem", None) for f in app.front_ends}


async def _watch(app: App, status: StatusFile, stop: asyncio.Event, every: float = 1.0) -> None:
    """Keep the status file true, and say once, at ERROR, when a front end stops working."""
    told: dict[str, str | None] = {}
    while not stop.is_set():
        problems = _problems(app)
        for name, problem in problems.items():
            if problem and told.get(name) != problem:
                log.error("front end down", front_end=name, problem=problem)
            elif not problem and told.get(name):
                log.info("front end back", front_end=name)
        told = problems
        status.write(problems)
        await asyncio.sleep(every)


async def _stop_front_ends(app: App) -> None:
    for front_end in reversed(app.front_ends):
        try:
            await front_end.stop()
        except Exception:
            log.exception("front end did not stop cleanly", front_end=front_end.name)
