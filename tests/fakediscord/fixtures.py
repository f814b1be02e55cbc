"""pytest fixtures for end-to-end tests of the Discord bot against the fake Discord.

Use them from a test module or conftest with ``pytest_plugins = ["tests.fakediscord.fixtures"]``.

* ``discord_errors``: fails the test at teardown if the ``discord`` logger (or the fake) logged
  an ERROR record; discord.py only logs exceptions raised inside event and command handlers.
* ``fake_discord``: a started :class:`FakeDiscord` served over TLS; wire a client with
  ``fake_discord.client_kwargs()``. Fails the test at teardown on any request to an unknown route
  or to a host that is not Discord's.
* ``fake_discord_http``: the same over plain HTTP, with ``discord.http.Route.BASE`` and
  ``DiscordWebSocket.DEFAULT_GATEWAY`` patched to point at it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from .logcheck import ErrorLogCollector, install_error_collector, remove_error_collector
from .server import FakeDiscord

@pytest.fixture
def discord_errors() -> Iterator[ErrorLogCollector]:
    collector = install_error_collector()
    try:
        yield collector
    finally:
        remove_error_collector(collector)
    problems = collector.problems()
    if problems:
        pytest.fail("ERROR records were logged:\n  " + "\n  ".join(problems), pytrace=False)


async def _serve(tls: bool) -> FakeDiscord:
    return await FakeDiscord().start(tls=tls)


def _verify(fake: FakeDiscord) -> None:
    problems = fake.problems()
    if problems:
        pytest.fail("fake Discord saw problems:\n  " + "\n  ".join(problems), pytrace=False)


@pytest.fixture
async def fake_discord(discord_errors: ErrorLogCollector) -> AsyncIterator[FakeDiscord]:
    fake = await _serve(tls=True)
    try:
        yield fake
    finally:
        await fake.stop()
    _verify(fake)


@pytest.fixture
async def fake_discord_http(discord_errors: ErrorLogCollector, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeDiscord]:
    fake = await _serve(tls=False)
    fake.patch_urls(monkeypatch)
    try:
        yield fake
    finally:
        await fake.stop()
    _verify(fake)
