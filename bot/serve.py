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
import gc
import importlib
import importlib.util
import signal
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Callable, Protocol

import structlog

from .archive import ArchiveWriter
from .logging import configure
from .outbox import JsonlNotifier, LogNotifier, OutboxDispatcher
from .scheduler import TimerScheduler
from .service import GameService
from .settings import Settings
from .storage import Database

log = structlog.get_logger("crusader.serve")

FRONT_END_MODULES = ("bot.mail", "bot.site", "bot.discord")
_extra_factories: list[Callable[["App"], "FrontEnd | None"]] = []


class FrontEnd(Protocol):
    name: str

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def register_front_end(factory: Callable[["App"], "FrontEnd | None"]) -> None:
    _extra_factories.append(factory)


@dataclass
class App:
    """What a front end gets: the settings, the database, the service and the outbox."""

    settings: Settings
    db: Database
    service: GameService
    dispatcher: OutboxDispatcher
    front_ends: list = field(default_factory=list)


def build_app(settings: Settings) -> App:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(settings.url)
    db.migrate()
    service = GameService(db, node=settings.node_name)
    dispatcher = OutboxDispatcher(db, [LogNotifier(), ArchiveWriter(db, settings.data_dir / "archive")],
                                  node=settings.node_name, lease=timedelta(seconds=settings.outbox_lease))
    if settings.announce_jsonl:
        dispatcher.register(JsonlNotifier(settings.announce_jsonl))
    return App(settings, db, service, dispatcher)


def _front_end_factories(wanted: str = "auto") -> list[Callable[[App], "FrontEnd | None"]]:
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


def settle_heap() -> int:
    """Start-up is over: put what it made out of the cyclic garbage collector's way.

    Modules, the order grammar, the maps, the database mappers and the front ends' clients
    stay for the life of the process. Frozen (``gc.freeze``), they are no longer walked by
    every full collection that a burst of messages sets off (in a profile of a burst of a
    hundred DMs, collections fell from a quarter of the bot's samples to a tenth).
    Returns how many objects are frozen.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


async def serve(settings: Settings, *, stop: asyncio.Event | None = None) -> None:
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass
    configure(settings.log_level, settings.log_format)
    app = build_app(settings)

    async def on_timer(timer_id: int) -> None:
        for attempt in range(5):  # "busy": a player's submission holds the game row for a moment
            if await asyncio.to_thread(app.service.fire_timer, timer_id) != "busy":
                break
            await asyncio.sleep(0.2 * (attempt + 1))
        await app.dispatcher.flush()

    async def sweep() -> None:
        await asyncio.to_thread(app.service.fire_due)
        await app.dispatcher.flush()

    scheduler = TimerScheduler(app.db, on_timer, sweep=sweep, poll_interval=settings.poll_interval)
    app.service.timer_listeners.append(scheduler.arm)
    for factory in _front_end_factories(settings.front_ends):
        front_end = factory(app)
        if front_end is not None:
            await front_end.start()
            app.front_ends.append(front_end)
    await scheduler.start()
    frozen = settle_heap()
    log.info("serving", node=settings.node_name, database=app.db.engine.url.render_as_string(hide_password=True),
             front_ends=[f.name for f in app.front_ends], frozen_objects=frozen)
    try:
        await stop.wait()
    finally:
        log.info("stopping", node=settings.node_name)
        await scheduler.stop()
        for front_end in reversed(app.front_ends):
            try:
                await front_end.stop()
            except Exception:
                log.exception("front end did not stop cleanly", front_end=front_end.name)
        await asyncio.sleep(0)
        app.db.dispose()
        log.info("stopped", node=settings.node_name)
