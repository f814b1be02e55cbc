"""Group commit on the event loop (``bot.frontends.discord.batching.Batcher``): who waits together,
who gets which answer."""

from __future__ import annotations

import asyncio

import pytest

from bot.frontends.discord.batching import Batcher


class Desk:
    """A ``run`` that takes a little time, records its batches, and refuses the item ``"bad"``."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.running = 0
        self.most = 0

    async def run(self, items: list[str]) -> list[str]:
        self.batches.append(list(items))
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(0.02)
            if "bad" in items:
                raise RuntimeError("bad item")
            return [item.upper() for item in items]
        finally:
            self.running -= 1


async def test_requests_arriving_during_a_batch_go_together_in_the_next_and_each_gets_its_own_answer():
    desk = Desk()
    batcher = Batcher(desk.run)
    first = asyncio.ensure_future(batcher("a"))
    await asyncio.sleep(0.005)  # the first batch is running
    rest = [asyncio.ensure_future(batcher(x)) for x in "bcdef"]
    assert await first == "A"
    assert await asyncio.gather(*rest) == list("BCDEF")
    assert desk.batches == [["a"], list("bcdef")]
    assert await batcher("g") == "G"  # alone again: served at once
    assert desk.batches[-1] == ["g"]


async def test_a_failed_batch_is_served_again_one_by_one_so_only_the_bad_request_fails():
    desk = Desk()
    batcher = Batcher(desk.run)
    first = asyncio.ensure_future(batcher("a"))
    await asyncio.sleep(0.005)
    rest = [asyncio.ensure_future(batcher(x)) for x in ("b", "bad", "c")]
    assert await first == "A"
    results = await asyncio.gather(*rest, return_exceptions=True)
    assert results[0] == "B" and results[2] == "C"
    assert isinstance(results[1], RuntimeError)
    assert desk.batches[1:] == [["b", "bad", "c"], ["b"], ["bad"], ["c"]]


async def test_at_most_concurrency_batches_run_at_once_and_a_batch_holds_at_most_limit():
    desk = Desk()
    batcher = Batcher(desk.run, concurrency=2, limit=3)
    answers = await asyncio.gather(*(batcher(f"x{i}") for i in range(10)))
    assert answers == [f"X{i}" for i in range(10)]
    assert desk.most == 2
    assert max(len(b) for b in desk.batches) <= 3
    assert sorted(x for b in desk.batches for x in b) == sorted(f"x{i}" for i in range(10))


def test_a_batcher_needs_room_for_one_request():
    with pytest.raises(ValueError, match="concurrency >= 1"):
        Batcher(Desk().run, concurrency=0)
