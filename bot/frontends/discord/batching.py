"""Group commit for the event loop: requests that arrive while a batch is being served go together in the next.

Under a burst (a hundred players sending their orders in the same second) the database sees a
few transactions of many messages instead of a hundred of one; alone, a request is served at
once, in a batch of one. Each caller still gets its own answer, and only after the batch's work
(its commit) is done.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Generic, TypeVar
from collections.abc import Awaitable, Callable

log = logging.getLogger("crusader.discord")

T = TypeVar("T")
R = TypeVar("R")


class Batcher(Generic[T, R]):
    """Calls ``run(items) -> answers`` (one answer per item, in order) on the requests waiting together.

    At most ``concurrency`` batches run at once (one per worker thread that can usefully write),
    each of at most ``limit`` items. When a batch fails as a whole, its items are served again one
    by one, so that one message that trips an error costs nobody else their answer.
    """

    def __init__(self, run: Callable[[list[T]], Awaitable[list[R]]], *, concurrency: int = 1, limit: int = 200) -> None:
        if concurrency < 1 or limit < 1:
            raise ValueError(f"a batcher needs concurrency >= 1 and limit >= 1, not {concurrency} and {limit}")
        self.run = run
        self.concurrency = concurrency
        self.limit = limit
        self._waiting: list[tuple[T, asyncio.Future[R]]] = []
        self._servers: set[asyncio.Task] = set()  # strong references to the running servers
        self._serving = 0  # servers whose loop has not ended (a done task's callback may still be pending)

    async def __call__(self, item: T) -> R:
        future: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._waiting.append((item, future))
        if self._serving < self.concurrency:
            self._serving += 1
            task = asyncio.get_running_loop().create_task(self._serve())
            self._servers.add(task)
            task.add_done_callback(self._servers.discard)
        return await future

    async def _serve(self) -> None:
        try:
            await self._serve_waiting()
        finally:
            self._serving -= 1

    async def _serve_waiting(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting[:self.limit], self._waiting[self.limit:]
            try:
                answers = await self.run([item for item, _ in batch])
            except Exception as exc:
                if len(batch) == 1:
                    fail(batch[0][1], exc)
                    continue
                log.warning("a batch of %d failed; serving its requests one by one", len(batch), exc_info=True)
                for item, future in batch:
                    try:
                        [answer] = await self.run([item])
                    except Exception as one:  # noqa: BLE001 (the one item's failure goes to its own caller)
                        fail(future, one)
                    else:
                        settle(future, answer)
                continue
            for (_, future), answer in zip(batch, answers, strict=True):
                settle(future, answer)


def settle(future: asyncio.Future, answer) -> None:
    if not future.done():  # the caller may have given up (cancelled)
        future.set_result(answer)


def fail(future: asyncio.Future, exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)
