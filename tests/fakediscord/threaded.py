"""The test Discord on an event loop of its own, in a thread: for tests that drive processes
(``crusader serve``, ``crusader discord sync``) from plain, synchronous code."""

from __future__ import annotations

import asyncio
import threading

from .server import FakeDiscord


class FakeDiscordThread:
    """The test Discord on its own event loop in a thread, while the test drives processes."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.fake: FakeDiscord = self.run(FakeDiscord().start(tls=False))

    def run(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def read(self, fn):
        """``fn()`` on the fake's loop, where its state changes."""
        async def call():
            return fn()
        return self.run(call())

    def stop(self) -> None:
        self.run(self.fake.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
