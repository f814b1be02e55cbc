"""Discord's rate limits: the fake Discord answers 429s as Discord does (the global limit of 50
requests a second per token, a route's limit per channel, with their headers), and the judge's
bot keeps under the global limit by itself, alone (its own pace) or with other servers on one
PostgreSQL (a pace shared through the database)."""

from __future__ import annotations

import asyncio
import secrets
import time

import aiohttp
import pytest
import yarl

from bot.frontends.discord import make_bot
from bot.frontends.discord.config import DiscordSettings
from bot.frontends.discord.ratelimit import BURST, INTERVAL, LocalPace, SharedPace, counted, pace_for
from bot.service import GameService
from bot.store.database import Database
from tests.fakediscord import FakeDiscord, most_in_a_second
from tests.fakediscord.server import Limit

MESSAGES = "POST /channels/{channel_id}/messages"




async def _post(session: aiohttp.ClientSession, fake: FakeDiscord, channel_id: int, text: str):
    url = f"{fake.api_base}/channels/{channel_id}/messages"
    async with session.post(url, json={"content": text}, headers={"Authorization": f"Bot {fake.token}"}) as resp:
        return resp.status, dict(resp.headers), await resp.json()


async def test_the_fake_answers_a_channel_over_its_route_limit_with_discord_s_429(fake_discord: FakeDiscord):
    fake = fake_discord
    fake.enforce_rate_limits = True
    fake.limit_clock = lambda: 1000.0      # every request in one window, however slowly they come
    guild = fake.add_guild("Outremer", text_channels=("one", "two"))
    one, two = fake.text_channel(guild, "one"), fake.text_channel(guild, "two")
    async with aiohttp.ClientSession(connector=fake.connector()) as session:
        answers = [await _post(session, fake, one.id, f"m{i}") for i in range(6)]
        other = await _post(session, fake, two.id, "elsewhere")
    assert [status for status, _, _ in answers] == [200] * 5 + [429]
    assert [h["X-RateLimit-Remaining"] for _, h, _ in answers[:5]] == ["4", "3", "2", "1", "0"]
    assert {h["X-RateLimit-Limit"] for _, h, _ in answers} == {"5"}
    assert len({h["X-RateLimit-Bucket"] for _, h, _ in answers + [other]}) == 1  # the route's, whatever the channel
    _, headers, body = answers[5]
    assert headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in headers
    assert headers["Via"] and int(headers["Retry-After"]) >= 1
    assert body["global"] is False and 4 < body["retry_after"] <= 5
    assert float(headers["X-RateLimit-Reset-After"]) == pytest.approx(body["retry_after"], abs=0.01)
    assert other[0] == 200  # another channel is another bucket
    assert fake.limited == {f"{MESSAGES} {one.id}": 1}
    assert [m["content"] for m in fake.bot_messages(one)] == [f"m{i}" for i in range(5)]


async def test_the_fake_counts_the_global_limit_over_every_route_but_interactions(fake_discord: FakeDiscord):
    fake = fake_discord
    fake.enforce_rate_limits = True
    fake.limit_clock = lambda: 1000.0      # every request in one window, however slowly they come
    async with aiohttp.ClientSession(connector=fake.connector()) as session:
        auth = {"Authorization": f"Bot {fake.token}"}
        statuses = []
        for _ in range(51):
            async with session.get(f"{fake.api_base}/users/@me", headers=auth) as resp:
                statuses.append(resp.status)
                last = dict(resp.headers), await resp.json()
        async with session.post(f"{fake.api_base}/interactions/1/none/callback", json={"type": 1}) as resp:
            interaction = resp.status
    assert statuses == [200] * 50 + [429]
    headers, body = last
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert headers["Via"] and body["global"] is True and 0 < body["retry_after"] <= 1
    assert interaction == 404  # not refused by the global limit: answered (an unknown interaction)
    assert fake.limited == {"global": 1}


def test_a_local_pace_never_lets_more_than_50_go_in_a_second():
    pace = LocalPace()
    now, sent = 0.0, []
    for i in range(300):  # bursts of asks, a quiet spell, more asks
        if i == 150:
            now += 5.0
        sent.append(now + pace.wait(now))
    assert sent[:3] == [0.0, 0.0, 0.0]  # a few at once after a quiet spell
    assert sent[3] == pytest.approx(INTERVAL)
    assert sent[150:153] == pytest.approx([5.0] * 3)  # and again after the next one
    assert most_in_a_second(sent) <= 48


def test_only_the_rest_api_is_paced():
    assert counted(yarl.URL("https://discord.com/api/v10/channels/1/messages"))
    assert counted(yarl.URL("http://127.0.0.1:5000/api/v10/users/@me"))
    assert not counted(yarl.URL("https://discord.com/api/v10/interactions/1/tok/callback"))
    assert not counted(yarl.URL("https://discord.com/api/v10/webhooks/1/tok/messages/@original"))
    assert not counted(yarl.URL("wss://gateway.discord.gg/?v=10"))
    assert not counted(yarl.URL("https://cdn.discordapp.com/attachments/1/2/map.png"))


async def test_servers_on_one_postgresql_share_the_pace(pg_url, monkeypatch):
    """Two servers (two database handles) asking for turns together get them evenly, one every
    interval between them, never more than 50 in a second: the turns the database hands out, by
    its clock (when each request then goes also depends on how busy the machine is)."""
    import sqlalchemy as sa

    from bot.store import database

    name = f"test-{secrets.token_hex(4)}"
    dbs = [Database(pg_url), Database(pg_url)]
    paces = [SharedPace(db, name=name) for db in dbs]
    assert all(isinstance(pace_for(db), SharedPace) for db in dbs)
    loop = asyncio.get_running_loop()
    times: list[float] = []
    turns: list[float] = []
    take = database.take_turn

    def take_turn(session, name, interval, burst):
        waited = take(session, name, interval, burst)
        turns.append(session.connection().execute(sa.text("SELECT next_turn FROM pace WHERE name = :n"),
                                                  {"n": name}).scalar() - interval)   # this turn, kept locked
        return waited

    monkeypatch.setattr(database, "take_turn", take_turn)

    async def one(pace: SharedPace) -> None:
        await pace.turn()
        times.append(loop.time())

    try:
        start = loop.time()
        await asyncio.gather(*(one(paces[i % 2]) for i in range(80)))
    finally:
        for pace, db in zip(paces, dbs):
            pace.close()
            db.dispose()
    assert len(turns) == 80 and most_in_a_second(turns) <= 50
    assert all(b - a >= INTERVAL - 1e-6 for a, b in zip(sorted(turns), sorted(turns)[1:]))  # one every interval at most
    assert max(times) - start >= (80 - 1) * INTERVAL - BURST - 0.05


async def test_the_bot_keeps_under_the_global_limit_and_routes_by_their_headers(fake_discord: FakeDiscord, sqlite_db,
                                                                                 monkeypatch):
    """97 requests at once: every one takes a turn of the pace, never more than 50 turns in a
    second, and the channel's own limit is kept by its headers. (The turns are what the bot
    decides; when they arrive also depends on the machine: a loaded one may deliver a few
    together, and a 429 the fake then answers is waited out like any other.)"""
    fake = fake_discord
    fake.enforce_rate_limits = True
    fake.route_limits[MESSAGES] = Limit(2, 0.5)
    guild = fake.add_guild("Outremer")
    channel = fake.text_channel(guild, "general")
    users = [fake.add_user(f"u{i}") for i in range(20)]
    assert isinstance(pace_for(sqlite_db), LocalPace)
    turns: list[float] = []
    take = LocalPace.wait

    def wait(self, now: float) -> float:
        waited = take(self, now)
        turns.append(now + waited)
        return waited

    monkeypatch.setattr(LocalPace, "wait", wait)
    bot = make_bot(GameService(sqlite_db), settings=DiscordSettings(token=None), extensions=(),
                   **fake.client_kwargs())
    async with fake.run(bot):
        before, taken = len(fake.requests), len(turns)
        started = time.perf_counter()
        fetched = await asyncio.gather(*(bot.fetch_user(users[i % 20].id) for i in range(90)),
                                       *(bot.get_channel(channel.id).send(f"n{i}") for i in range(7)))
        elapsed = time.perf_counter() - started
    paced = [r for r in fake.requests[before:] if r.route != "UNKNOWN"]
    assert len(paced) == 97 + sum(fake.limited.values())      # each 429 answered was made again, once
    assert len(turns) - taken == len(paced)                  # every request took a turn
    assert most_in_a_second(turns[taken:]) <= 48
    assert elapsed >= 96 * INTERVAL - BURST - 0.05
    assert [u.id for u in fetched[:90]] == [users[i % 20].id for i in range(90)]
    assert sorted(m["content"] for m in fake.bot_messages(channel)) == sorted(f"n{i}" for i in range(7))
