"""``crusader serve`` with one more notifier, for the kill harness (``test_kills.py``).

``python -c "from tests.app.rawsink import main; main()" PATH`` runs ``crusader serve`` with a
:class:`RawNotifier` writing to ``PATH``: a slow recipient (each delivery takes 20 to 150 ms,
so kills fall in the middle of deliveries) that keeps a raw record of every delivery it makes,
one JSON line each, repeats included. Like the judge's real notifiers, it looks for a delivery
in its record before making it again only when the delivery is in doubt. Seasons are stored
without their picture (drawing is not what is tried here, and a process draws its first one
slowly: every restart would pay for it).
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import random
import sys
from pathlib import Path
from collections.abc import Sequence

from bot.store.outbox import DELIVERED, Announcement, Delivery, Outcome

AUDIENCE = ("ann", "bob")  # who reads a game's public announcements here


class RawNotifier:
    name = "raw"

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.touch(exist_ok=True)

    async def recipients(self, announcement: Announcement) -> Sequence[str]:
        a = announcement
        if a.audience == "public":
            return AUDIENCE
        if a.audience == "gm":
            return ("gm",)
        if a.audience == "players":
            return a.recipients
        return ()

    async def deliver(self, delivery: Delivery) -> Outcome:
        await asyncio.sleep(random.uniform(0.02, 0.15))  # on its way
        await asyncio.to_thread(self._arrive, delivery)
        return DELIVERED

    def _arrive(self, delivery: Delivery) -> None:
        key, recipient = delivery.announcement.key, delivery.recipient
        line = json.dumps({"key": key, "recipient": recipient, "pid": os.getpid(), "in_doubt": delivery.in_doubt})
        with self.path.open("r+", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            text = f.read()
            if delivery.in_doubt and (key, recipient) in set(read_record(text)):
                return
            if text and not text.endswith("\n"):
                f.write("\n")  # a line torn by a kill: not a delivery
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())


def read_record(text: str) -> list[tuple[str, str]]:
    """Every delivery in a raw record, repeats included (a torn line is none)."""
    made = []
    for line in text.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        made.append((entry["key"], entry["recipient"]))
    return made


def main() -> None:
    import functools

    from bot.app import serve
    from bot.cli.main import main as crusader

    serve.GameService = functools.partial(serve.GameService, pictures=False)

    path = Path(sys.argv[1])

    def with_raw_notifier(app):
        app.dispatcher.register(RawNotifier(path))

    serve.register_front_end(with_raw_notifier)
    sys.exit(crusader(["serve"]))
