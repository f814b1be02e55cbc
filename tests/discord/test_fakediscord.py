"""The fake Discord drives a real discord.py bot end to end: login, sync, DMs, slash commands,
autocomplete, attachments, RESUME after a dropped connection, and 429 handling."""

from __future__ import annotations

import asyncio
import io
import logging
import time

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, install_error_collector, remove_error_collector

pytest_plugins = ["pytester"]

PROVINCES = ["Acre", "Aleppo", "Antioch", "Ascalon", "Damascus", "Jerusalem", "Tripoli", "Tyre"]


class EchoBot(commands.Bot):
    """A minimal bot: echoes DMs, has a /game group with /game orders and /ping."""

    def __init__(self, guild_id: int | None = None, **kwargs):
        intents = discord.Intents.default()
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents, **kwargs)
        self.sync_guild_id = guild_id
        self.dm_seen: list[str] = []
        self.answered: list[discord.Interaction] = []  # every /game orders, answered

        game = app_commands.Group(name="game", description="Game commands")

        @game.command(name="orders", description="Submit orders")
        @app_commands.describe(province="Where", orders="What")
        async def orders(interaction: discord.Interaction, province: str, orders: str, ephemeral: bool = False):
            await interaction.response.send_message(
                f"{interaction.user.name} in {province}: {orders}", ephemeral=ephemeral
            )
            self.answered.append(interaction)

        @orders.autocomplete("province")
        async def province_autocomplete(interaction: discord.Interaction, current: str):
            return [app_commands.Choice(name=p, value=p) for p in PROVINCES if p.lower().startswith(current.lower())]

        @app_commands.command(name="ping", description="Pong")
        async def ping(interaction: discord.Interaction):
            await interaction.response.defer(thinking=True)
            await interaction.followup.send("pong")

        self.tree.add_command(game)
        self.tree.add_command(ping)

    async def setup_hook(self) -> None:
        await self.tree.sync()
        if self.sync_guild_id:
            guild = discord.Object(self.sync_guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)

    async def on_message(self, message: discord.Message) -> None:
        if message.author == self.user:
            return
        if message.guild is not None:
            if message.content == "new game":
                thread = await message.create_thread(name="Game 1")
                await thread.send("Welcome to Game 1")
            return
        if message.guild is None:
            self.dm_seen.append(message.content)
            if message.content == "map":
                await message.channel.send("Your map", file=discord.File(io.BytesIO(b"\x89PNG fake"), "map.png"))
            else:
                await message.channel.send(f"echo: {message.content}")


TIMINGS: dict[str, float] = {}


@pytest.fixture
def world(fake_discord: FakeDiscord):
    guild = fake_discord.add_guild("Outremer")
    alice = fake_discord.add_user("alice", global_name="Alice")
    fake_discord.add_member(guild, alice)
    return guild, alice


async def test_login_ready_and_command_sync(fake_discord: FakeDiscord, world):
    guild, _alice = world
    t0 = time.perf_counter()
    async with fake_discord.run(EchoBot(guild.id, **fake_discord.client_kwargs())) as bot:
        TIMINGS["login to ready"] = time.perf_counter() - t0
        assert bot.user.id == fake_discord.bot.id
        assert bot.application_id == fake_discord.application_id
        g = bot.get_guild(guild.id)
        assert g is not None and g.get_channel(fake_discord.text_channel(guild, "general").id) is not None
        # the READY resume URL points at the fake, and the client sent the requested compression
        assert str(bot.ws.gateway) == fake_discord.resume_gateway_url
        assert fake_discord.connections[0].query == {"v": "10", "encoding": "json", "compress": "zlib-stream"}
        cmds = fake_discord.commands()
        assert set(cmds) == {"game", "ping"}
        orders = cmds["game"]["options"][0]
        assert orders["name"] == "orders" and orders["type"] == 1
        assert [o["name"] for o in orders["options"]] == ["province", "orders", "ephemeral"]
        assert orders["options"][0]["autocomplete"] is True
        assert set(fake_discord.commands(guild)) == {"game", "ping"}
        assert len(fake_discord.command_syncs) == 2
    assert [r.route for r in fake_discord.requests[:2]] == ["GET /users/@me", "GET /oauth2/applications/@me"]
    assert fake_discord.requests[0].headers["Authorization"] == f"Bot {fake_discord.token}"


async def test_wrong_token_is_a_login_failure(fake_discord: FakeDiscord):
    bot = EchoBot(**fake_discord.client_kwargs())
    with pytest.raises(discord.LoginFailure):
        async with fake_discord.run(bot, "not-the-token"):
            pass
    assert fake_discord.requests[0].status == 401


async def test_dm_round_trip(fake_discord: FakeDiscord, world):
    _guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())) as bot:
        t0 = time.perf_counter()
        sent = await fake_discord.user_sends_dm(alice, "hello")
        reply = await fake_discord.wait_for_message(alice)
        TIMINGS["DM round trip"] = time.perf_counter() - t0
        assert reply["content"] == "echo: hello"
        assert int(reply["channel_id"]) == int(sent["channel_id"]) == fake_discord.dm_channel(alice).id
        await fake_discord.user_sends_dm(alice, "again")
        assert (await fake_discord.wait_for_message(alice))["content"] == "echo: again"
        assert bot.dm_seen == ["hello", "again"]
        # the bot's own messages come back over the gateway; the bot ignores them
        assert [m["content"] for m in fake_discord.messages_in(alice)] == ["hello", "echo: hello", "again", "echo: again"]


async def test_file_attachment_is_multipart(fake_discord: FakeDiscord, world):
    _guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
        await fake_discord.user_sends_dm(alice, "map")
        reply = await fake_discord.wait_for_message(alice)
    assert reply["content"] == "Your map"
    [att] = reply["attachments"]
    assert att["filename"] == "map.png" and att["size"] == len(b"\x89PNG fake")
    assert fake_discord.file_bytes(att) == b"\x89PNG fake"
    [req] = [r for r in fake_discord.requests_to("POST /channels/{channel_id}/messages") if r.files]
    assert req.headers["Content-Type"].startswith("multipart/form-data")
    assert req.json["content"] == "Your map" and req.files[0].field == "files[0]"


async def test_slash_command_in_guild_and_dm(fake_discord: FakeDiscord, world):
    guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
        await fake_discord.wait_for_commands()
        t0 = time.perf_counter()
        inter = await fake_discord.slash(alice, "game orders", {"province": "Acre", "orders": "A Acre H"}, guild=guild)
        resp = await fake_discord.wait_for_interaction_response(inter)
        TIMINGS["slash command round trip"] = time.perf_counter() - t0
        assert resp.type == 4 and resp.content == "alice in Acre: A Acre H" and not resp.ephemeral
        assert "member" in inter.payload and inter.payload["guild_id"] == str(guild.id)
        general = fake_discord.text_channel(guild, "general")
        assert fake_discord.messages_in(general)[-1]["content"] == "alice in Acre: A Acre H"

        inter = await fake_discord.slash(alice, "game orders", {"province": "Tyre", "orders": "F Tyre S", "ephemeral": True})
        resp = await fake_discord.wait_for_interaction_response(inter)
        assert resp.ephemeral and resp.content == "alice in Tyre: F Tyre S"
        assert "user" in inter.payload and inter.payload["channel"]["type"] == 1

        inter = await fake_discord.slash(alice, "ping", guild=guild)
        resp = await fake_discord.wait_for_interaction_response(inter)
        assert resp.type == 5
        followup = await fake_discord.wait_for_followup(inter)
        assert followup["content"] == "pong"


async def test_an_interactions_token_lives_15_minutes_by_the_fakes_clock(fake_discord: FakeDiscord, world):
    """Its response is edited and followed up until 15 minutes after the interaction; then Discord
    answers 401 Invalid Webhook Token (50027). The fake's clock is moved on, not waited for."""
    guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())) as bot:
        await fake_discord.wait_for_commands()
        inter = await fake_discord.slash(alice, "game orders", {"province": "Acre", "orders": "A Acre H"}, guild=guild)
        [answered] = await fake_discord.wait_until(lambda: bot.answered, what="the command answered")
        fake_discord.advance_clock(15 * 60 - 1)
        await answered.edit_original_response(content="edited in time")
        await answered.followup.send("followed up in time")
        fake_discord.advance_clock(2)
        for too_late in (lambda: answered.edit_original_response(content="too late"),
                         lambda: answered.followup.send("too late"), answered.original_response):
            with pytest.raises(discord.HTTPException) as refused:
                await too_late()
            assert (refused.value.status, refused.value.code, refused.value.text) == (401, 50027, "Invalid Webhook Token")
        assert fake_discord.original_response(inter)["content"] == "edited in time"
        assert [m["content"] for m in fake_discord.messages_in(fake_discord.text_channel(guild, "general"))][-1] == \
            "followed up in time"
        with pytest.raises(ValueError, match="forward only"):
            fake_discord.advance_clock(-1)


async def test_autocomplete(fake_discord: FakeDiscord, world):
    guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
        await fake_discord.wait_for_commands()
        inter = await fake_discord.autocomplete(alice, "game orders", {"province": "a"}, focused="province", guild=guild)
        resp = await fake_discord.wait_for_interaction_response(inter)
    assert resp.type == 8
    assert [c["value"] for c in resp.choices] == ["Acre", "Aleppo", "Antioch", "Ascalon"]


async def test_guild_message_creates_thread(fake_discord: FakeDiscord, world):
    guild, alice = world
    general = fake_discord.text_channel(guild, "general")
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
        await fake_discord.user_sends_message(general, alice, "new game")
        await fake_discord.wait_until(lambda: fake_discord.threads(general), what="a thread")
        [thread] = fake_discord.threads(general)
        msg = await fake_discord.wait_for_message(thread)
    assert thread.name == "Game 1" and msg["content"] == "Welcome to Game 1"


async def test_message_content_needs_the_intent(fake_discord: FakeDiscord, world):
    guild, alice = world
    general = fake_discord.text_channel(guild, "general")
    seen: list[str] = []

    class Plain(commands.Bot):
        async def on_message(self, message: discord.Message) -> None:
            if message.author != self.user:
                seen.append(message.content)

    bot = Plain(command_prefix="!", intents=discord.Intents.default(), **fake_discord.client_kwargs())
    async with fake_discord.run(bot):
        await fake_discord.user_sends_message(general, alice, "secret orders")
        await fake_discord.user_sends_message(general, alice, f"{fake_discord.bot.mention} hello")
        await fake_discord.user_sends_dm(alice, "dm text")
        await fake_discord.wait_until(lambda: len(seen) == 3, what="three messages")
    assert seen == ["", f"{fake_discord.bot.mention} hello", "dm text"]
    assert bot.get_guild(guild.id).get_member(alice.id) is None  # no members intent: not cached


async def test_disallowed_privileged_intent(fake_discord: FakeDiscord):
    fake_discord.allowed_privileged_intents = 0
    with pytest.raises(discord.PrivilegedIntentsRequired):
        async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
            pass


async def test_resume_after_dropped_connection(fake_discord: FakeDiscord, world):
    _guild, alice = world
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())) as bot:
        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed)
        await fake_discord.drop_connection(4000)
        # a DM sent while the bot is disconnected is buffered and replayed on RESUME
        await fake_discord.user_sends_dm(alice, "while away")
        await fake_discord.wait_for_resume()
        await asyncio.wait_for(resumed.wait(), 60)    # (a guard)
        assert (await fake_discord.wait_for_message(alice))["content"] == "echo: while away"
        assert fake_discord.identifies == 1 and fake_discord.resumes == 1
        assert fake_discord.connections[-1].path == "/resume"

        await fake_discord.send_reconnect()  # op 7
        await fake_discord.wait_for_resume(2)
        await fake_discord.user_sends_dm(alice, "back")
        assert (await fake_discord.wait_for_message(alice))["content"] == "echo: back"
        assert fake_discord.identifies == 1


async def test_rate_limit_429_is_honoured(fake_discord: FakeDiscord, world):
    _guild, alice = world
    route = "POST /channels/{channel_id}/messages"
    async with fake_discord.run(EchoBot(**fake_discord.client_kwargs())):
        fake_discord.rate_limit(route, count=1, retry_after=0.25)
        await fake_discord.user_sends_dm(alice, "hi")
        reply = await fake_discord.wait_for_message(alice)
    assert reply["content"] == "echo: hi"
    first, second = fake_discord.requests_to(route)
    assert (first.status, second.status) == (429, 200)
    assert second.time - first.time >= 0.25


async def test_plain_http_mode(fake_discord_http: FakeDiscord):
    fake = fake_discord_http
    bob = fake.add_user("bob")
    # the fixture already pointed Route.BASE and DEFAULT_GATEWAY at the fake: no connector needed
    async with fake.run(EchoBot(guild_ready_timeout=0.05)):
        await fake.user_sends_dm(bob, "plain")
        assert (await fake.wait_for_message(bob))["content"] == "echo: plain"
    assert fake.connections[0].path == "/"


async def test_unknown_route_and_error_log_are_caught():
    fake = await FakeDiscord().start()
    collector = install_error_collector()
    try:
        import aiohttp

        async with aiohttp.ClientSession(connector=fake.connector()) as session:
            async with session.get("https://discord.com/api/v10/no/such/route") as resp:
                assert resp.status == 404 and resp.headers["Content-Type"] == "application/json"
            with pytest.raises(aiohttp.ClientConnectorError):
                await session.get("https://example.com/")
        logging.getLogger("discord.client").error("Ignoring exception in on_message")
    finally:
        remove_error_collector(collector)
        await fake.stop()
    problems = fake.problems()
    assert "unknown route requested: GET /api/v10/no/such/route" in problems
    assert "request to a non-Discord host: example.com" in problems
    with pytest.raises(AssertionError, match="Ignoring exception in on_message"):
        collector.check()


INNER_TESTS = """
import asyncio
import contextlib

import discord
from discord.ext import commands

pytest_plugins = ["tests.fakediscord.fixtures"]


class Broken(commands.Bot):
    async def on_message(self, message):
        raise RuntimeError("handler bug")


async def test_unknown_route(fake_discord):
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default(), **fake_discord.client_kwargs())
    async with fake_discord.run(bot):
        with contextlib.suppress(discord.NotFound):
            await bot.http.request(discord.http.Route("GET", "/users/@me/guilds/nothing"))


async def test_error_in_handler(fake_discord, caplog):
    user = fake_discord.add_user("carol")
    bot = Broken(command_prefix="!", intents=discord.Intents.default(), **fake_discord.client_kwargs())
    async with fake_discord.run(bot):
        await fake_discord.user_sends_dm(user, "boom")
        await fake_discord.wait_until(lambda: any("handler bug" in str(r.exc_info) for r in caplog.records),
                                      what="the handler's error logged")
"""


def test_fixtures_fail_the_test(pytester: pytest.Pytester):
    pytester.makeini("[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_inner=INNER_TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=2, errors=2)
    result.stdout.fnmatch_lines(["*unknown route requested: GET /api/v10/users/@me/guilds/nothing*"])
    result.stdout.fnmatch_lines(["*ERROR records were logged:*", "*Ignoring exception in on_message (RuntimeError: handler bug)*"])


def test_print_timings():
    for name, value in TIMINGS.items():
        print(f"{name}: {value * 1000:.1f} ms")


def test_the_fake_holds_messages_to_discords_component_limits():
    from tests.fakediscord.server import components_errors, modal_errors_of

    def select(n, cid="s"):
        return {"type": 3, "custom_id": cid, "options": [{"label": f"o{i}", "value": str(i)} for i in range(n)]}

    def row(*items):
        return {"type": 1, "components": list(items)}

    button = {"type": 2, "style": 1, "label": "Ready", "custom_id": "b"}
    assert components_errors([row(select(25)), row(button)]) == {}
    assert components_errors([row(select(26))])                              # 25 options at most
    assert components_errors([row(select(3, f"s{i}")) for i in range(6)])    # 5 rows at most
    assert components_errors([row(select(3), button)])                       # a select fills its row
    assert components_errors([row(select(3, "x")), row(select(3, "x"))])    # custom ids unique
    assert components_errors([row({**button, "custom_id": "x" * 101})])
    modal = {"custom_id": "m", "title": "Bid", "components": [row({"type": 4, "custom_id": "a", "label": "Bid"})]}
    assert modal_errors_of(modal) == {} and modal_errors_of({**modal, "title": "x" * 46})
