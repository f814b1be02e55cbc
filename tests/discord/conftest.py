"""Fixtures of the Discord tests: the world they play in, a judge on a SQLite file, a controlled
clock, the fake Discord with a guild, a results channel, a game master, seven players and a
stranger; and the fake Discord's own fixtures (``fake_discord``, ``discord_errors``...)."""

from __future__ import annotations

import contextlib
import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import pytest

from bot.frontends.discord import make_bot, refs
from bot.frontends.discord.config import DiscordSettings
from bot.service import GameService
from bot.store.database import Database
from bot.store.outbox import OutboxDispatcher
from tests.notifiers import RecordingNotifier
from tests.fakediscord import FakeDiscord, Interaction, payloads as P
from tests.fakediscord.fixtures import discord_errors, fake_discord, fake_discord_http  # noqa: F401

POWERS = {"AUS": "anna", "ENG": "ed", "FRA": "flo", "GER": "gus", "ITA": "ivo", "RUS": "rita", "TUR": "tom"}
SPELLED = {"AUS": "Austria", "ENG": "english", "FRA": "France", "GER": "ger", "ITA": "Italian", "RUS": "Russia",
           "TUR": "Turkey"}


class Clock:
    """The service's clock: stands still until a test moves it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now


@dataclass
class World:
    fake: FakeDiscord
    db: Database
    service: GameService
    dispatcher: OutboxDispatcher
    recorder: RecordingNotifier
    clock: Clock
    guild: Any
    results: Any
    gm: Any
    stranger: Any
    referee: Any
    players: dict[str, Any] = field(default_factory=dict)  # power -> fake user
    settings: DiscordSettings | None = None
    bot: Any = None

    def user(self, power: str):
        return self.players[power]

    @contextlib.asynccontextmanager
    async def running(self, **kwargs):
        bot = make_bot(self.service, settings=self.settings, dispatcher=self.dispatcher,
                       **self.fake.client_kwargs(), **kwargs)
        async with self.fake.run(bot) as running:
            self.bot = running
            await self.fake.wait_for_commands()
            try:
                yield running
            finally:
                await running.drain()

    async def slash(self, user, command: str, options: dict | None = None, *, channel=None):
        inter = await self.fake.slash(user, command, options or {}, guild=self.guild, channel=channel or self.results)
        return inter

    async def answer(self, user, command: str, options: dict | None = None, *, channel=None) -> tuple[Any, str]:
        """Run a slash command and return (first response, its text or the first follow-up's)."""
        inter = await self.slash(user, command, options, channel=channel)
        resp = await self.fake.wait_for_interaction_response(inter)
        if resp.type == 5:  # deferred: the work (an adjudication, a picture) may take a while on a busy machine
            return resp, (await self.fake.wait_for_followup(inter, timeout=30))["content"]
        return resp, resp.content

    async def flush(self) -> int:
        await self.bot.drain()
        return await self.dispatcher.flush()

    async def dm(self, power_or_user, text: str) -> str:
        """A player DMs the bot; the bot's whole answer (all its messages) as one text."""
        user = self.players.get(power_or_user, power_or_user) if isinstance(power_or_user, str) else power_or_user
        before = len(self.fake.bot_messages(user))
        sent = await self.fake.user_sends_dm(user, text)
        await self.fake.wait_until(lambda: len(self.fake.bot_messages(user)) > before, what="the bot's answer")
        await self.fake.wait_until(lambda: self.handled(sent), what="the DM handled (an answer of several pieces sent)")
        return "\n".join(m["content"] for m in self.fake.bot_messages(user)[before:])

    def handled(self, message: dict) -> bool:
        """Whether the bot is done with the DM ``message`` (it marks it so after its whole answer)."""
        return self.bot.inbox._known.get(str(message["channel_id"]), 0) >= int(message["id"])

    def texts_to(self, user) -> list[str]:
        return [m["content"] for m in self.fake.bot_messages(user)]

    async def start_game(self, name: str = "tannenberg", **options) -> None:
        """The game master creates the game, the seven players join, the game master starts it."""
        _resp, text = await self.answer(self.gm, "game new", {"name": name, "variant": "standard",
                                                             "channel": self.results, **options})
        assert "created" in text, text
        for power, user in self.players.items():
            _resp, text = await self.answer(user, "join", {"game": name, "power": SPELLED[power]})
            assert "joined" in text, text
        _resp, text = await self.answer(self.gm, "game start", {"game": name})
        assert "active" in text, text
        await self.flush()

    async def click_select(self, user, message: dict[str, Any], value: str):
        """``user`` picks ``value`` in the first select menu of the bot's DM ``message``."""
        fake = self.fake
        select = message["components"][0]["components"][0]
        iid = P.snowflake()
        token = "aW50ZXJhY3Rpb246" + hashlib.sha256(str(iid).encode()).hexdigest()
        channel = fake.dm_channel(user)
        payload = {
            "id": str(iid), "application_id": str(fake.application_id), "type": P.INTERACTION_MESSAGE_COMPONENT,
            "data": {"custom_id": select["custom_id"], "component_type": 3, "values": [value]},
            "channel_id": str(channel.id), "channel": P.channel_payload(channel), "message": message,
            "token": token, "version": 1, "locale": "en-US", "entitlements": [],
            "attachment_size_limit": 8 * 1024 * 1024, "user": P.user_payload(user),
            "app_permissions": str(P.ALL_PERMISSIONS & ~8), "authorizing_integration_owners": {"1": str(user.id)},
            "context": 1,
        }
        rec = Interaction(iid, token, P.INTERACTION_MESSAGE_COMPONENT, payload, user, channel.id, None, fake.now())
        fake.interactions[iid] = rec
        await fake.dispatch("INTERACTION_CREATE", payload)
        return rec


def _ref_of(message: dict[str, Any]) -> str | None:
    return refs.unmark(message["content"])[1]


def _visible(text: str) -> str:
    return refs.unmark(text)[0]


def _build_world(fake: FakeDiscord, tmp_path, start: datetime, *, gm_role: str = "Judge") -> World:
    db = Database.sqlite_file(tmp_path / "judge.db")
    db.migrate()
    clock = Clock(start)
    service = GameService(db, clock=clock)
    recorder = RecordingNotifier()
    dispatcher = OutboxDispatcher(db, [recorder], backoff=timedelta(0))  # a failed delivery: tried at the next flush
    guild = fake.add_guild("Outremer", text_channels=("general", "results"))
    gm = fake.add_user("gamemaster", global_name="Game Master")
    stranger = fake.add_user("stranger")
    referee = fake.add_user("referee")
    role = fake.add_role(guild, gm_role)
    fake.allow_command(guild, "game", role=role)  # the server's admin lets game masters use /game (Integrations)
    fake.add_member(guild, gm, roles=[role])
    fake.add_member(guild, stranger)
    fake.add_member(guild, referee, roles=[role])
    world = World(fake, db, service, dispatcher, recorder, clock, guild, fake.text_channel(guild, "results"), gm,
                  stranger, referee, settings=DiscordSettings(token=None, gm_role=gm_role, shards=None))
    for power, name in POWERS.items():
        user = fake.add_user(name)
        fake.add_member(guild, user)
        world.players[power] = user
    return world


@pytest.fixture(scope="session")
def powers() -> dict[str, str]:
    """Power -> the name of the fake Discord user who plays it."""
    return dict(POWERS)


@pytest.fixture(scope="session")
def spelled() -> dict[str, str]:
    """Power -> how its player names it when joining (names, adjectives, codes, in any case)."""
    return dict(SPELLED)


@pytest.fixture
def world(fake_discord, tmp_path, start):  # noqa: F811 (the fixture imported above)
    """The Discord world (see :class:`World`); the service's clock stands at ``start``."""
    w = _build_world(fake_discord, tmp_path, start)
    yield w
    w.db.dispose()


@pytest.fixture(scope="session")
def ref_of():
    """``ref_of(message)``: the invisible reference the judge put on a message it posted (``1:0:results#1/1``)."""
    return _ref_of


@pytest.fixture(scope="session")
def visible():
    """``visible(text)``: what a reader sees of a message, its text without the invisible reference."""
    return _visible
