"""A small fake Discord: the REST API, the CDN and the gateway websocket, served on 127.0.0.1.

The project's real discord.py client talks to it over TLS through an aiohttp connector whose
resolver sends Discord's host names to the fake (see :meth:`FakeDiscord.client_kwargs`), or over
plain HTTP once ``discord.http.Route.BASE`` and ``DiscordWebSocket.DEFAULT_GATEWAY`` point at it
(see :meth:`FakeDiscord.patch_urls`).

Tests drive it from the outside: they create users, guilds, members and channels, make users send
messages or invoke slash commands, and read back what the bot sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import socket
import ssl
import time
import zlib
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Self
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

import aiohttp
from aiohttp import web
from aiohttp.abc import AbstractResolver

from . import payloads as P
from .payloads import Channel, Guild, Member, Role, User

log = logging.getLogger("tests.fakediscord")

API_PREFIX = "/api/v10"
DISCORD_HOSTS = ("discord.com", "gateway.discord.gg", "cdn.discordapp.com", "media.discordapp.net")
DEFAULT_TOKEN = "MTAw.fake.bot-token"
HEARTBEAT_INTERVAL_MS = 41250
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
INTERACTION_TOKEN_LIFETIME = 15 * 60.0
"""Seconds an interaction's token lives: after them its follow-ups and the edits of its responses
are refused with 401 ``Invalid Webhook Token`` (code 50027), by the fake's clock."""

Jsonable = Any
REC: web.RequestKey[RecordedRequest]
ChannelLike = int | Channel | User


class CommandNotShown(LookupError):
    """A member tried a command Discord would not show them (its default member permissions)."""


class DiscordError(Exception):
    """Raised inside a handler to answer with a Discord JSON error."""

    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors


def json_response(data: Jsonable, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON answer whose Content-Type is exactly ``application/json``, as discord.py requires."""
    resp = web.Response(body=json.dumps(data).encode(), status=status, headers=headers)
    resp.content_type = "application/json"
    return resp


def _id(obj: Any) -> int:
    return int(obj.id) if hasattr(obj, "id") else int(obj)


# --------------------------------------------------------------------------- records


@dataclass
class RecordedRequest:
    method: str
    path: str
    route: str  # e.g. "POST /channels/{channel_id}/messages", or "UNKNOWN"
    params: dict[str, str]
    query: dict[str, str]
    headers: dict[str, str]
    time: float  # the fake's clock (FakeDiscord.now) when the request arrived
    json: Any = None
    form: dict[str, str] = field(default_factory=dict)
    files: list[UploadedFile] = field(default_factory=list)
    status: int = 0


@dataclass
class UploadedFile:
    field: str
    filename: str
    content_type: str | None
    data: bytes


@dataclass
class InteractionResponse:
    type: int
    data: dict[str, Any]
    files: list[UploadedFile]
    message: dict[str, Any] | None
    time: float

    @property
    def ephemeral(self) -> bool:
        return bool(self.data.get("flags", 0) & P.FLAG_EPHEMERAL)

    @property
    def content(self) -> str | None:
        return self.data.get("content")

    @property
    def choices(self) -> list[dict[str, Any]]:
        return self.data.get("choices", [])


@dataclass
class Interaction:
    id: int
    token: str
    type: int
    payload: dict[str, Any]
    user: User
    channel_id: int
    guild_id: int | None
    created: float
    responses: list[InteractionResponse] = field(default_factory=list)
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    edits: int = 0  # edits of @original through the interaction's webhook


REC = web.RequestKey("rec", RecordedRequest)


def _too_long(text: Any, limit: int) -> bool:
    return text is not None and len(str(text)) > limit


def components_errors(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Discord's limits on a message's components (action rows of buttons and select menus), as
    an ``Invalid Form Body`` error tree: at most 5 rows; a row holds up to 5 buttons or one select
    menu; a select offers 1 to 25 options (labels, values and descriptions of 100 characters at
    most), a button's label 80; custom ids of 100 characters at most, unique in the message."""
    errors: dict[str, Any] = {}
    if len(rows) > 5:
        errors["_errors"] = [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 5 or fewer in length."}]
    seen: set[str] = set()
    for i, row in enumerate(rows):
        items = row.get("components") or []
        bad: dict[str, Any] = {}
        selects = [c for c in items if c.get("type") in (3, 5, 6, 7, 8)]
        if row.get("type") != 1 or not items or len(items) > 5 or (selects and len(items) > 1):
            bad["_errors"] = [{"code": "COMPONENT_LAYOUT_WIDTH_EXCEEDED"}]
        for j, c in enumerate(items):
            problems = []
            cid = c.get("custom_id")
            if c.get("type") != 2 or c.get("style") != 5:
                if not cid or _too_long(cid, 100) or cid in seen:
                    problems.append("custom_id")
                seen.add(cid)
            if c.get("type") == 2 and _too_long(c.get("label"), 80):
                problems.append("label")
            if c.get("type") == 3:
                options = c.get("options") or []
                if not 1 <= len(options) <= 25 or _too_long(c.get("placeholder"), 150):
                    problems.append("options")
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    problems.append("options")
                for o in options:
                    if not o.get("label") or _too_long(o.get("label"), 100) or _too_long(o.get("value"), 100) \
                            or _too_long(o.get("description"), 100):
                        problems.append("options")
                if c.get("max_values", 1) > len(options):
                    problems.append("max_values")
            for name in problems:
                bad.setdefault(str(j), {})[name] = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}
        if bad:
            errors[str(i)] = bad
    return errors


def modal_errors_of(data: dict[str, Any]) -> dict[str, Any]:
    """Discord's limits on a modal: a title of 45 characters, 1 to 5 rows of one text input each
    (label 45, custom id 100)."""
    errors: dict[str, Any] = {}
    if not data.get("custom_id") or _too_long(data.get("custom_id"), 100):
        errors["custom_id"] = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}
    if not data.get("title") or _too_long(data.get("title"), 45):
        errors["title"] = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}
    rows = data.get("components") or []
    if not 1 <= len(rows) <= 5 or any(len(r.get("components") or []) != 1 for r in rows):
        errors["components"] = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}
    for r in rows:
        for c in r.get("components") or []:
            if c.get("type") != 4 or _too_long(c.get("label"), 45):
                errors["components"] = {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}
    return errors


class GatewaySession:
    def __init__(self, session_id: str, intents: int, shard: list[int] | None):
        self.session_id = session_id
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.sent: list[dict[str, Any]] = []  # every dispatch, for replay on RESUME
        self.conn: GatewayConnection | None = None
        self.resumes = 0


class GatewayConnection:
    def __init__(self, ws: web.WebSocketResponse, path: str, query: dict[str, str], compress: bool):
        self.ws = ws
        self.path = path
        self.query = query
        self.session: GatewaySession | None = None
        self._compressor = zlib.compressobj() if compress else None
        self._lock = asyncio.Lock()
        self.heartbeats = 0

    async def send(self, payload: dict[str, Any]) -> None:
        text = json.dumps(payload)
        async with self._lock:
            if self.ws.closed:
                return
            if self._compressor is not None:
                data = self._compressor.compress(text.encode()) + self._compressor.flush(zlib.Z_SYNC_FLUSH)
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)


class FakeResolver(AbstractResolver):
    """Resolves Discord's host names to the fake and refuses every other host."""

    def __init__(self, port: int, hosts: Iterable[str] = DISCORD_HOSTS, refused: list[str] | None = None):
        self.port = port
        self.hosts = set(hosts)
        self.refused = refused if refused is not None else []

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list[dict[str, Any]]:
        if host not in self.hosts:
            self.refused.append(host)
            raise OSError(f"fake Discord refuses to resolve {host!r}: tests must not leave 127.0.0.1")
        return [
            {
                "hostname": host,
                "host": "127.0.0.1",
                "port": self.port,
                "family": socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    async def close(self) -> None:
        pass


_CA_CACHE: dict[str, Any] = {}


def _certificates() -> tuple[Any, Any]:
    """A throw-away CA and a server certificate for Discord's hosts, made once per process."""
    if not _CA_CACHE:
        import trustme

        ca = trustme.CA()
        _CA_CACHE["ca"] = ca
        _CA_CACHE["cert"] = ca.issue_cert(*DISCORD_HOSTS)
    return _CA_CACHE["ca"], _CA_CACHE["cert"]


@dataclass
class _RateLimitArm:
    route: str
    remaining: int
    retry_after: float
    is_global: bool
    scope: str


@dataclass(frozen=True)
class Limit:
    """At most ``count`` requests in ``per`` seconds."""

    count: int
    per: float


WAIT = 60.0
"""How long a wait for what a test expects (a message, a response, the bot ready) may last
before the test fails. Only a guard: a wait ends as soon as what it waits for comes, so a
busy machine makes a test slower, never wrong."""

GLOBAL_LIMIT = Limit(50, 1.0)
"""Discord's global limit: 50 requests a second per bot token, over every REST route but the
interaction endpoints (interaction callbacks and their webhooks), whatever the process."""

ROUTE_LIMITS: dict[str, Limit] = {"POST /channels/{channel_id}/messages": Limit(5, 5.0)}
"""Per-route limits, each counted per top-level resource of the path (a channel, a guild, a
webhook), as Discord counts them: 5 messages per 5 s in one channel."""

DEFAULT_ROUTE_LIMIT = Limit(50, 1.0)
"""The limit of every other route when limits are enforced (its headers then count truly down)."""

MAJOR_PARAMETERS = ("channel_id", "guild_id", "webhook_id")


def most_in_a_second(times: list[float], window: float = 1.0) -> int:
    """The most of ``times`` that fall in any ``window`` seconds (as Discord counts its global limit)."""
    times = sorted(times)
    best, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


@dataclass
class _Window:
    """One bucket's current window: it opens at its first request and resets ``per`` later."""

    opened: float
    used: int = 0


@dataclass(frozen=True)
class _Verdict:
    """A request over a limit: which bucket, and when it may be tried again."""

    bucket: str
    retry_after: float
    is_global: bool
    headers: dict[str, str]


# --------------------------------------------------------------------------- the fake


class FakeDiscord:
    """The fake Discord server and the test-facing helpers around it."""

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_name: str = "Crusader Judge",
        application_name: str = "Crusader Judge",
        allowed_privileged_intents: int = P.PRIVILEGED_INTENTS,
        interaction_deadline: float = 3.0,
        compress_gateway: bool = True,
        enforce_rate_limits: bool = False,
    ) -> None:
        self.token = token
        self.application_id = P.snowflake()
        self.bot = User(self.application_id, bot_name.lower().replace(" ", "-"), global_name=bot_name, bot=True)
        self.owner = User(P.snowflake(), "owner", global_name="Application Owner")
        self.application_name = application_name
        self.allowed_privileged_intents = allowed_privileged_intents
        self.interaction_deadline = interaction_deadline
        self.compress_gateway = compress_gateway
        self.ratelimit_headers = True
        # Discord's own limits (the global one and ROUTE_LIMITS), answered with 429s as Discord does;
        # off by default, so that a test may post faster than a real bot could
        self.enforce_rate_limits = enforce_rate_limits
        self.global_limit = GLOBAL_LIMIT
        self.route_limits = dict(ROUTE_LIMITS)
        # the clock the limits count by (None: the fake's, now()); a test counting requests against a
        # limit stops it, so that however slowly they come, all fall in one window
        self.limit_clock: Callable[[], float] | None = None
        # how far the fake's clock (now()) stands ahead of the event loop's: advance_clock() moves it,
        # so that a test lets Discord's time pass (an interaction token's 15 minutes) without waiting
        self.clock_offset = 0.0
        self.limited: Counter[str] = Counter()  # 429s answered, by bucket ("global" or "<route> <resource id>")
        self.limited_requests: list[RecordedRequest] = []
        self.global_arrivals: list[float] = []  # the limit clock's time of every request the global limit counted
        self._global_log: deque[float] = deque()  # the same, within the last window
        self._windows: dict[str, _Window] = {}

        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, list[dict[str, Any]]] = {}
        self.files: dict[int, bytes] = {}  # attachment id -> bytes
        self.dm_channels: dict[int, int] = {}  # user id -> DM channel id
        self.closed_dms: set[int] = set()
        self.global_commands: dict[str, dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[str, dict[str, Any]]] = {}
        self.command_syncs: list[RecordedRequest] = []
        self.interactions: dict[int, Interaction] = {}
        # a server's Integrations settings: (guild id, command name) -> role and user ids allowed to use
        # the command whatever its default member permissions
        self.command_overrides: dict[tuple[int, str], set[int]] = {}

        self.requests: list[RecordedRequest] = []
        self.unknown_requests: list[RecordedRequest] = []
        self.refused_hosts: list[str] = []
        self.server_errors: list[str] = []
        self.broken_images: list[str] = []  # embeds pointing at an attachment the message does not carry

        self.sessions: dict[str, GatewaySession] = {}
        self.connections: list[GatewayConnection] = []
        self.gateway_log: list[tuple[str, Any, str | None]] = []  # (direction, op, event name)
        self.identifies = 0
        self.resumes = 0

        self._rate_limits: list[_RateLimitArm] = []
        self._tasks: set[asyncio.Future[None]] = set()
        self._consumed: set[int] = set()
        self._waiters: list[asyncio.Future[None]] = []
        self._runner: web.AppRunner | None = None
        self._tls = True
        self.port = 0
        self._version = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self, *, tls: bool = True) -> FakeDiscord:
        self._tls = tls
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app.router)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        ssl_ctx = None
        if tls:
            _, cert = _certificates()
            ssl_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            cert.configure_cert(ssl_ctx)
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=ssl_ctx)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def stop(self) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=1.0)
        for conn in list(self.connections):
            if not conn.ws.closed:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(conn.ws.close(code=1001), 1.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # ------------------------------------------------------------------ wiring

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}{API_PREFIX}" if not self._tls else f"https://discord.com{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/" if not self._tls else "wss://gateway.discord.gg/"

    @property
    def resume_gateway_url(self) -> str:
        return self.gateway_url + "resume"

    @property
    def cdn_base(self) -> str:
        return f"http://127.0.0.1:{self.port}" if not self._tls else "https://cdn.discordapp.com"

    def ssl_context(self) -> ssl.SSLContext:
        """A client context trusting only the fake's throw-away certificate authority."""
        ca, _ = _certificates()
        ctx = ssl.create_default_context()
        ca.configure_trust(ctx)
        return ctx

    def connector(self) -> aiohttp.TCPConnector:
        """A new connector for one client (its session closes it). Call inside the running loop."""
        if not self._tls:
            return aiohttp.TCPConnector(limit=0)
        resolver = FakeResolver(self.port, refused=self.refused_hosts)
        return aiohttp.TCPConnector(resolver=resolver, ssl=self.ssl_context(), limit=0)

    def client_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``discord.Client``/``commands.Bot`` to talk to this fake."""
        return {"connector": self.connector(), "guild_ready_timeout": 0.05}

    def patch_urls(self, monkeypatch: Any) -> dict[str, Any]:
        """Plain-HTTP mode: point discord.py's class attributes at the fake; returns Client kwargs."""
        import discord.gateway
        import discord.http
        import yarl

        monkeypatch.setattr(discord.http.Route, "BASE", self.api_base)
        monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", yarl.URL(self.gateway_url))
        return {"guild_ready_timeout": 0.05}

    @contextlib.asynccontextmanager
    async def run(self, client: Any, token: str | None = None, *, timeout: float = WAIT) -> AsyncIterator[Any]:
        """Start ``client`` against the fake, wait until it is ready, and close it on exit."""
        task = asyncio.create_task(client.start(token or self.token), name="fake-discord-client")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while not client.is_ready():
                if task.done():
                    task.result()
                    raise AssertionError("the client stopped before it was ready")
                if loop.time() > deadline:
                    raise AssertionError(f"the client was not ready after {timeout}s")
                await asyncio.sleep(0.002)
            yield client
        finally:
            if not client.is_closed():
                await client.close()
            try:
                await asyncio.wait_for(task, 5.0)
            except asyncio.CancelledError:
                pass

    # ------------------------------------------------------------------ world building

    def add_user(self, username: str, *, global_name: str | None = None, bot: bool = False, id: int | None = None) -> User:
        user = User(id or P.snowflake(), username, global_name=global_name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str, *, owner: User | None = None, text_channels: Iterable[str] = ("general",), id: int | None = None
    ) -> Guild:
        """A guild with an @everyone role, the bot as a member (with an Administrator role) and text channels."""
        gid = id or P.snowflake()
        owner = owner or self.owner
        self.users.setdefault(owner.id, owner)
        guild = Guild(gid, name, owner.id)
        guild.roles[gid] = Role(gid, gid, "@everyone", permissions=P.DEFAULT_EVERYONE_PERMISSIONS)
        bot_role = Role(P.snowflake(), gid, self.bot.global_name or self.bot.username, permissions=8, position=1, managed=True)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot.id] = Member(self.bot, gid, roles=[bot_role.id])
        guild.members.setdefault(owner.id, Member(owner, gid))
        self.guilds[gid] = guild
        for channel_name in text_channels:
            self.add_text_channel(guild, channel_name, _announce=False)
        self._announce_soon("GUILD_CREATE", lambda s: self._guild_create_payload(guild, s), P.INTENT_GUILDS)
        return guild

    def add_role(self, guild: Guild, name: str, *, permissions: int = 0, color: int = 0) -> Role:
        position = max(r.position for r in guild.roles.values()) + 1
        role = Role(P.snowflake(), guild.id, name, permissions=permissions, position=position, color=color)
        guild.roles[role.id] = role
        self._announce_soon(
            "GUILD_ROLE_CREATE", lambda s: {"guild_id": str(guild.id), "role": P.role_payload(role)}, P.INTENT_GUILDS
        )
        return role

    def add_member(self, guild: Guild, user: User, *, roles: Iterable[Role] = (), nick: str | None = None) -> Member:
        self.users.setdefault(user.id, user)
        member = Member(user, guild.id, roles=[_id(r) for r in roles], nick=nick)
        guild.members[user.id] = member
        self._announce_soon(
            "GUILD_MEMBER_ADD", lambda s: {**P.member_payload(member), "guild_id": str(guild.id)}, P.INTENT_GUILD_MEMBERS
        )
        return member

    def add_text_channel(
        self, guild: Guild, name: str, *, category: Channel | None = None, topic: str | None = None, _announce: bool = True
    ) -> Channel:
        return self._add_guild_channel(guild, name, P.GUILD_TEXT, parent_id=category.id if category else None, topic=topic, announce=_announce)

    def add_thread(self, parent: Channel, name: str, *, auto_archive_duration: int = 10080) -> Channel:
        """A public thread of text channel ``parent`` that the bot opened (as ``/game new`` opens a
        game's archive thread); active, so it comes with its guild's GUILD_CREATE."""
        guild = self.guilds[parent.guild_id]
        thread = Channel(P.snowflake(), P.PUBLIC_THREAD, name=name, guild_id=guild.id, parent_id=parent.id,
                         owner_id=self.bot.id, auto_archive_duration=auto_archive_duration)
        self.channels[thread.id] = thread
        self.messages[thread.id] = []
        guild.channel_ids.append(thread.id)
        self._announce_soon("THREAD_CREATE", lambda s: P.channel_payload(thread), P.INTENT_GUILDS)
        return thread

    def add_category(self, guild: Guild, name: str) -> Channel:
        return self._add_guild_channel(guild, name, P.GUILD_CATEGORY)

    def _add_guild_channel(
        self, guild: Guild, name: str, ctype: int, *, parent_id: int | None = None, topic: str | None = None,
        overwrites: list[dict[str, Any]] | None = None, announce: bool = True,
    ) -> Channel:
        position = sum(1 for cid in guild.channel_ids if self.channels[cid].type == ctype)
        channel = Channel(P.snowflake(), ctype, name=name, guild_id=guild.id, parent_id=parent_id, position=position, topic=topic)
        if overwrites:
            channel.permission_overwrites = list(overwrites)
        self.channels[channel.id] = channel
        self.messages[channel.id] = []
        guild.channel_ids.append(channel.id)
        if announce:
            self._announce_soon("CHANNEL_CREATE", lambda s: P.channel_payload(channel), P.INTENT_GUILDS)
        return channel

    def text_channel(self, guild: Guild, name: str) -> Channel:
        for cid in guild.channel_ids:
            ch = self.channels[cid]
            if ch.name == name and not ch.is_thread:
                return ch
        raise LookupError(f"no channel {name!r} in guild {guild.name!r}")

    def threads(self, parent: ChannelLike | None = None) -> list[Channel]:
        return [c for c in self.channels.values() if c.is_thread and (parent is None or c.parent_id == _id(parent))]

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and ``user`` (created if needed, as Discord does)."""
        cid = self.dm_channels.get(user.id)
        if cid is None:
            channel = Channel(P.snowflake(), P.DM, recipients=[user])
            self.channels[channel.id] = channel
            self.messages[channel.id] = []
            self.dm_channels[user.id] = cid = channel.id
        return self.channels[cid]

    def close_dms(self, user: User) -> None:
        """The user does not accept DMs: the bot's messages to them answer 403 (code 50007)."""
        self.closed_dms.add(user.id)

    def allow_command(self, guild: Guild, name: str, *, role: Role | None = None, user: User | None = None) -> None:
        """What a server's admin does in Integrations: let ``role`` (or ``user``) use command ``name``
        whatever its default member permissions (``guild.everyone`` for every member)."""
        self.command_overrides.setdefault((guild.id, name), set()).add((role or user).id)

    def can_use(self, guild: Guild, user: User, schema: dict[str, Any]) -> bool:
        """Whether Discord shows command ``schema`` to ``user`` in ``guild`` and lets them run it."""
        needed = schema.get("default_member_permissions")
        if needed is None:
            return True
        perms = self.member_permissions(guild, user.id)
        if int(needed) & perms == int(needed) and (int(needed) or perms == P.ALL_PERMISSIONS):
            return True
        allowed = self.command_overrides.get((guild.id, schema["name"]), set())
        member = guild.members.get(user.id)
        return bool(allowed & ({user.id, guild.everyone.id} | set(member.roles if member else ())))

    def member_permissions(self, guild: Guild, user_id: int) -> int:
        if user_id == guild.owner_id:
            return P.ALL_PERMISSIONS
        member = guild.members.get(user_id)
        perms = guild.everyone.permissions
        if member is not None:
            for rid in member.roles:
                if rid in guild.roles:
                    perms |= guild.roles[rid].permissions
        if perms & 8:
            return P.ALL_PERMISSIONS
        return perms

    def channel_permissions(self, channel: Channel, user_id: int) -> int:
        """``user_id``'s permissions in ``channel`` as Discord computes them: the server's, then the
        channel's overwrites for @everyone, the member's roles and the member (a thread: its parent's)."""
        if channel.is_thread and channel.parent_id in self.channels:
            channel = self.channels[channel.parent_id]
        guild = self.guilds[channel.guild_id]
        perms = self.member_permissions(guild, user_id)
        if perms == P.ALL_PERMISSIONS:
            return perms
        member = guild.members.get(user_id)
        roles = set(member.roles) if member else set()
        over = {int(o["id"]): (int(o.get("allow") or 0), int(o.get("deny") or 0)) for o in channel.permission_overwrites}
        allow, deny = over.get(guild.id, (0, 0))
        perms = (perms & ~deny) | allow
        allow = deny = 0
        for rid in roles:
            a, d = over.get(rid, (0, 0))
            allow, deny = allow | a, deny | d
        perms = (perms & ~deny) | allow
        a, d = over.get(user_id, (0, 0))
        return (perms & ~d) | a

    def _check_bot_may(self, channel: Channel, *needed: int) -> None:
        """Refuse, as Discord does (403, Missing Permissions), what the bot may not do in a server channel."""
        if channel.guild_id is None:
            return
        perms = self.channel_permissions(channel, self.bot.id)
        missing = [bit for bit in needed if not perms & (1 << bit)]
        if missing:
            raise DiscordError(403, 50013, "Missing Permissions")

    # ------------------------------------------------------------------ reading what happened

    def _resolve_channel_id(self, channel: ChannelLike) -> int:
        if isinstance(channel, User):
            return self.dm_channel(channel).id
        return _id(channel)

    def messages_in(self, channel: ChannelLike) -> list[dict[str, Any]]:
        """Every message in a channel (or the DM with a user), oldest first."""
        return list(self.messages.get(self._resolve_channel_id(channel), []))

    def bot_messages(self, channel: ChannelLike) -> list[dict[str, Any]]:
        return [m for m in self.messages_in(channel) if int(m["author"]["id"]) == self.bot.id]

    def file_bytes(self, attachment: dict[str, Any]) -> bytes:
        return self.files[int(attachment["id"])]

    def requests_to(self, route: str) -> list[RecordedRequest]:
        """Requests whose route is ``route``, e.g. ``"POST /channels/{channel_id}/messages"``."""
        return [r for r in self.requests if r.route == route]

    def commands(self, guild: Guild | None = None) -> dict[str, dict[str, Any]]:
        """The registered commands by name (global, or those of one guild)."""
        if guild is None:
            return dict(self.global_commands)
        return dict(self.guild_commands.get(_id(guild), {}))

    # ------------------------------------------------------------------ time

    def now(self) -> float:
        """The fake's clock, in seconds: the event loop's, moved on by :meth:`advance_clock`. It
        times an interaction's 3 seconds to be answered and its token's 15 minutes, stamps requests
        and responses, and counts the rate limits (unless ``limit_clock`` is set)."""
        return asyncio.get_running_loop().time() + self.clock_offset

    def advance_clock(self, seconds: float) -> float:
        """Let ``seconds`` of Discord's time pass at once (no waiting); the clock's new time."""
        if seconds < 0:
            raise ValueError(f"the fake's clock goes forward only: {seconds!r}")
        self.clock_offset += seconds
        return self.now()

    # ------------------------------------------------------------------ waiting

    def _notify(self) -> None:
        self._version += 1
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_until(self, check: Callable[[], Any], *, timeout: float = WAIT, what: str = "condition") -> Any:
        """Wait until ``check()`` returns something truthy. It is re-checked after every change in the fake
        and every 10 ms, so it may also look at the bot's own state."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = check()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"timed out after {timeout}s waiting for {what}")
            fut = loop.create_future()
            self._waiters.append(fut)
            try:
                await asyncio.wait_for(fut, min(remaining, 0.01))
            except TimeoutError:
                pass

    async def wait_for_message(
        self,
        channel: ChannelLike,
        predicate: Callable[[dict[str, Any]], bool] | None = None,
        *,
        timeout: float = WAIT,
        from_bot: bool = True,
    ) -> dict[str, Any]:
        """The first message in ``channel`` (or the DM with a user) not returned before by this method,
        sent by the bot (unless ``from_bot=False``) and matching ``predicate``."""
        cid = self._resolve_channel_id(channel)

        def check() -> dict[str, Any] | None:
            for msg in self.messages.get(cid, []):
                mid = int(msg["id"])
                if mid in self._consumed:
                    continue
                if from_bot and int(msg["author"]["id"]) != self.bot.id:
                    continue
                if predicate is None or predicate(msg):
                    self._consumed.add(mid)
                    return msg
            return None

        def describe() -> str:
            seen = [(m["author"]["username"], m["content"][:80]) for m in self.messages.get(cid, [])]
            return f"a message in channel {cid}; messages there: {seen}"

        try:
            return await self.wait_until(check, timeout=timeout, what="message")
        except AssertionError:
            raise AssertionError(f"timed out after {timeout}s waiting for {describe()}") from None

    async def wait_for_interaction_response(self, interaction: Interaction | int, *, timeout: float = WAIT) -> InteractionResponse:
        """The first callback the bot sent for ``interaction``."""
        rec = self.interactions[_id(interaction)]
        return await self.wait_until(
            lambda: rec.responses[0] if rec.responses else None, timeout=timeout, what=f"a response to interaction {rec.id}"
        )

    async def wait_for_followup(self, interaction: Interaction | int, index: int = 0, *, timeout: float = WAIT) -> dict[str, Any]:
        """The ``index``-th followup message sent through the interaction's webhook."""
        rec = self.interactions[_id(interaction)]

        def check() -> dict[str, Any] | None:
            if len(rec.followup_ids) > index:
                return self._find_message(rec.followup_ids[index])[1]
            return None

        return await self.wait_until(check, timeout=timeout, what=f"followup {index} of interaction {rec.id}")

    def original_response(self, interaction: Interaction | int) -> dict[str, Any] | None:
        """The interaction's original response message as it stands now (after any edits)."""
        rec = self.interactions[_id(interaction)]
        if rec.original_message_id is None:
            return None
        return self._find_message(rec.original_message_id)[1]

    async def wait_for_commands(self, guild: Guild | None = None, *, timeout: float = WAIT) -> dict[str, dict[str, Any]]:
        """Wait until the bot has registered commands (globally, or for ``guild``)."""
        return await self.wait_until(lambda: self.commands(guild), timeout=timeout, what="command registration")

    async def wait_for_resume(self, count: int = 1, *, timeout: float = WAIT) -> None:
        await self.wait_until(lambda: self.resumes >= count, timeout=timeout, what=f"{count} RESUME(s)")

    async def wait_for_identify(self, count: int = 1, *, timeout: float = WAIT) -> None:
        await self.wait_until(lambda: self.identifies >= count, timeout=timeout, what=f"{count} IDENTIFY(s)")

    # ------------------------------------------------------------------ rate limits

    def rate_limit(self, route: str, *, count: int = 1, retry_after: float = 0.2, is_global: bool = False, scope: str = "user") -> None:
        """Answer the next ``count`` requests to ``route`` (e.g. ``"POST /channels/{channel_id}/messages"``)
        with 429, a ``Via`` header, the X-RateLimit headers and a JSON ``retry_after``."""
        self._rate_limits.append(_RateLimitArm(route, count, retry_after, is_global, scope))

    # ------------------------------------------------------------------ strictness

    def problems(self) -> list[str]:
        """Everything a test should fail on: unknown routes, refused hosts, errors inside the fake."""
        out = [f"unknown route requested: {r.method} {r.path}" for r in self.unknown_requests]
        out += [f"request to a non-Discord host: {h}" for h in self.refused_hosts]
        out += [f"fake Discord handler error: {e}" for e in self.server_errors]
        out += [f"an embed shows an attachment the message does not have: {b}" for b in self.broken_images]
        return out

    def check(self) -> None:
        problems = self.problems()
        if problems:
            raise AssertionError("fake Discord saw problems:\n  " + "\n  ".join(problems))

    # ------------------------------------------------------------------ gateway: test-facing

    @property
    def session(self) -> GatewaySession | None:
        """The most recent gateway session."""
        return list(self.sessions.values())[-1] if self.sessions else None

    async def dispatch(self, event: str, data: dict[str, Any] | Callable[[GatewaySession], dict[str, Any]], intent: int = 0) -> None:
        """Send a DISPATCH to every gateway session subscribed to ``intent`` (0: always).
        A session that is disconnected buffers it; it is replayed on RESUME."""
        for session in list(self.sessions.values()):
            if intent and not (session.intents & intent):
                continue
            payload = data(session) if callable(data) else data
            await self._session_dispatch(session, event, payload)

    def _spawn(self, coro: Awaitable[None]) -> None:
        """Run a dispatch in the background (so an HTTP answer is not held up), keeping a reference."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)

        def done(t: asyncio.Future[None]) -> None:
            self._tasks.discard(t)
            if not t.cancelled() and t.exception() is not None:
                self.server_errors.append(f"background dispatch: {t.exception()!r}")

        task.add_done_callback(done)

    def _announce_soon(self, event: str, build: Callable[[GatewaySession], dict[str, Any]], intent: int) -> None:
        if not self.sessions:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._spawn(self.dispatch(event, build, intent))

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the current gateway connection with ``code`` (4000: resumable) as Discord might."""
        session = self.session
        if session is None or session.conn is None:
            raise AssertionError("no gateway connection to drop")
        conn = session.conn
        session.conn = None
        self.gateway_log.append(("close", code, None))
        await conn.ws.close(code=code, message=b"fake Discord closed the connection")

    async def send_reconnect(self) -> None:
        """Ask the client to reconnect and resume (op 7 RECONNECT)."""
        session = self.session
        if session is None or session.conn is None:
            raise AssertionError("no gateway connection")
        await self._send(session.conn, {"op": 7, "d": None, "s": None, "t": None})

    async def invalidate_session(self, resumable: bool = False) -> None:
        """Send op 9 INVALID_SESSION; when not resumable the session is forgotten."""
        session = self.session
        if session is None or session.conn is None:
            raise AssertionError("no gateway connection")
        conn = session.conn
        if not resumable:
            self.sessions.pop(session.session_id, None)
        await self._send(conn, {"op": 9, "d": resumable, "s": None, "t": None})

    # ------------------------------------------------------------------ users acting

    async def user_sends_dm(
        self, user: User, content: str, *, attachments: Iterable[tuple[str, bytes]] = ()
    ) -> dict[str, Any]:
        """``user`` sends the bot a DM; MESSAGE_CREATE goes to sessions with the DIRECT_MESSAGES intent."""
        channel = self.dm_channel(user)
        msg = self._store_user_message(channel, user, content, attachments, guild=None)
        await self.dispatch("MESSAGE_CREATE", msg, P.INTENT_DIRECT_MESSAGES)
        return msg

    async def user_sends_message(
        self, channel: Channel, user: User, content: str, *, attachments: Iterable[tuple[str, bytes]] = ()
    ) -> dict[str, Any]:
        """``user`` posts in a guild channel or thread; the content is hidden from sessions without the
        MESSAGE_CONTENT intent unless the bot is mentioned, as on Discord."""
        guild = self.guilds[channel.guild_id]
        if user.id not in guild.members:
            raise LookupError(f"{user.username} is not a member of {guild.name}")
        msg = self._store_user_message(channel, user, content, attachments, guild=guild)

        def visible(session: GatewaySession) -> dict[str, Any]:
            if session.intents & P.INTENT_MESSAGE_CONTENT or self.bot.id in P.mentioned_user_ids(content):
                return msg
            return {**msg, "content": "", "attachments": [], "embeds": [], "components": []}

        await self.dispatch("MESSAGE_CREATE", visible, P.INTENT_GUILD_MESSAGES)
        return msg

    def _store_user_message(
        self, channel: Channel, user: User, content: str, attachments: Iterable[tuple[str, bytes]], guild: Guild | None
    ) -> dict[str, Any]:
        mid = P.snowflake()
        atts = []
        for filename, data in attachments:
            aid = P.snowflake()
            self.files[aid] = data
            atts.append(P.attachment_payload(aid, channel.id, filename, data, None, cdn_base=self.cdn_base))
        msg = P.message_payload(
            message_id=mid,
            channel_id=channel.id,
            author=user,
            content=content,
            guild_id=guild.id if guild else None,
            member=guild.members[user.id] if guild else None,
            mentions=[self.users[u] for u in P.mentioned_user_ids(content) if u in self.users],
            mention_roles=P.mentioned_role_ids(content),
            attachments=atts,
        )
        self._append_message(channel, msg)
        return msg

    def _append_message(self, channel: Channel, msg: dict[str, Any]) -> None:
        self.messages.setdefault(channel.id, []).append(msg)
        channel.last_message_id = int(msg["id"])
        channel.message_count += 1
        self._notify()

    async def slash(
        self,
        user: User,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        guild: Guild | None = None,
        channel: Channel | None = None,
        locale: str = "en-US",
    ) -> Interaction:
        """``user`` runs a registered slash command, e.g. ``slash(u, "game orders submit", {"orders": "..."})``.
        In a guild (``guild``/``channel``) the interaction carries ``member``; otherwise it is a DM with ``user``."""
        return await self._invoke(P.INTERACTION_APPLICATION_COMMAND, user, command, options or {}, None, guild, channel, locale)

    async def autocomplete(
        self,
        user: User,
        command: str,
        options: dict[str, Any],
        focused: str,
        *,
        guild: Guild | None = None,
        channel: Channel | None = None,
        locale: str = "en-US",
    ) -> Interaction:
        """``user`` types into option ``focused`` of a command: an autocomplete interaction (type 4)."""
        return await self._invoke(P.INTERACTION_AUTOCOMPLETE, user, command, options, focused, guild, channel, locale)

    async def component(self, user: User, message: dict[str, Any], custom_id: str,
                        values: list[str] | None = None) -> Interaction:
        """``user`` uses the component ``custom_id`` of ``message`` (a message the bot sent, as the
        fake holds it now): clicks a button, or picks ``values`` in a string select menu. Refused
        (AssertionError) as Discord's client would not let a user do it: a component the message
        does not have, a disabled one, a value the menu does not offer, too few or too many."""
        _, message = self._find_message(int(message["id"]))
        found = next((c for row in message.get("components", []) for c in row.get("components", [])
                      if c.get("custom_id") == custom_id), None)
        if found is None:
            raise AssertionError(f"message {message['id']} has no component {custom_id!r}")
        if found.get("disabled"):
            raise AssertionError(f"component {custom_id!r} is disabled")
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": found["type"]}
        if found["type"] == 3:
            offered = {o["value"] for o in found.get("options", [])}
            chosen = list(values or [])
            if not set(chosen) <= offered:
                raise AssertionError(f"{sorted(set(chosen) - offered)} not offered by {custom_id!r}: {sorted(offered)}")
            if not found.get("min_values", 1) <= len(chosen) <= found.get("max_values", 1):
                raise AssertionError(f"{len(chosen)} values chosen in {custom_id!r}")
            data["values"] = chosen
        elif values:
            raise AssertionError("a button takes no values")
        channel = self.channels[int(message["channel_id"])]
        return await self._interact(P.INTERACTION_MESSAGE_COMPONENT, user, data, channel, message=message)

    async def submit_modal(self, user: User, opened: Interaction, values: dict[str, str]) -> Interaction:
        """``user`` fills in and submits the modal the bot answered ``opened`` with (text inputs by custom id)."""
        modal = next((r.data for r in opened.responses if r.type == 9), None)
        if modal is None:
            raise AssertionError(f"interaction {opened.id} was not answered with a modal")
        rows = []
        for row in modal.get("components", []):
            out = []
            for c in row.get("components", []):
                value = values.get(c["custom_id"], c.get("value") or "")
                if c.get("required", True) and not value:
                    raise AssertionError(f"field {c['custom_id']!r} of the modal is required")
                if not c.get("min_length", 0) <= len(value) <= c.get("max_length", 4000):
                    raise AssertionError(f"field {c['custom_id']!r}: {len(value)} characters")
                out.append({"type": 4, "custom_id": c["custom_id"], "value": value})
            rows.append({"type": 1, "components": out})
        data = {"custom_id": modal["custom_id"], "components": rows}
        channel = self.channels[opened.channel_id]
        message = opened.payload.get("message")
        return await self._interact(P.INTERACTION_MODAL_SUBMIT, user, data, channel, message=message)

    async def _interact(self, itype: int, user: User, data: dict[str, Any], channel: Channel,
                        message: dict[str, Any] | None = None) -> Interaction:
        guild = self.guilds[channel.guild_id] if channel.guild_id is not None else None
        iid = P.snowflake()
        token = "aW50ZXJhY3Rpb246" + hashlib.sha256(str(iid).encode()).hexdigest()
        payload: dict[str, Any] = {
            "id": str(iid), "application_id": str(self.application_id), "type": itype, "data": data,
            "channel_id": str(channel.id), "channel": P.channel_payload(channel), "token": token, "version": 1,
            "locale": "en-US", "entitlements": [], "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if message is not None:
            payload["message"] = message
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise LookupError(f"{user.username} is not a member of {guild.name}")
            payload.update(guild_id=str(guild.id), guild={"id": str(guild.id), "locale": "en-US", "features": []},
                           guild_locale="en-US",
                           member=P.member_payload(member, permissions=self.member_permissions(guild, user.id)),
                           app_permissions=str(self.member_permissions(guild, self.bot.id)),
                           authorizing_integration_owners={"0": str(guild.id)}, context=0)
        else:
            payload.update(user=P.user_payload(user), app_permissions=str(P.ALL_PERMISSIONS & ~8),
                           authorizing_integration_owners={"0": "0"}, context=1)
        rec = Interaction(iid, token, itype, payload, user, channel.id, guild.id if guild else None, self.now())
        self.interactions[iid] = rec
        await self.dispatch("INTERACTION_CREATE", payload)
        return rec

    def _find_command(self, name: str, guild: Guild | None) -> dict[str, Any]:
        if guild is not None and name in self.guild_commands.get(guild.id, {}):
            return self.guild_commands[guild.id][name]
        if name in self.global_commands:
            return self.global_commands[name]
        raise LookupError(f"command {name!r} is not registered (global: {sorted(self.global_commands)})")

    async def _invoke(
        self, itype: int, user: User, command: str, options: dict[str, Any], focused: str | None,
        guild: Guild | None, channel: Channel | None, locale: str,
    ) -> Interaction:
        if channel is not None and channel.guild_id is not None:
            guild = self.guilds[channel.guild_id]
        words = command.split()
        schema = self._find_command(words[0], guild)
        if guild is None:
            contexts = schema.get("contexts")
            if (contexts is not None and 1 not in contexts) or schema.get("dm_permission") is False or "guild_id" in schema:
                raise AssertionError(f"command {words[0]!r} cannot be used in DMs")
            channel = self.dm_channel(user)
        elif channel is None:
            channel = next(self.channels[c] for c in guild.channel_ids if self.channels[c].type == P.GUILD_TEXT)

        resolved: dict[str, dict[str, Any]] = {}
        top: list[dict[str, Any]] = []
        level = top
        node = schema
        for word in words[1:]:
            sub = next((o for o in node.get("options", []) if o["name"] == word and o["type"] in (1, 2)), None)
            if sub is None:
                raise LookupError(f"{word!r} is not a subcommand of {node['name']!r}")
            entry: dict[str, Any] = {"name": word, "type": sub["type"], "options": []}
            level.append(entry)
            level = entry["options"]
            node = sub
        for name, value in options.items():
            spec = next((o for o in node.get("options", []) if o["name"] == name), None)
            if spec is None:
                raise LookupError(f"{name!r} is not an option of {command!r}")
            entry = {"name": name, "type": spec["type"], "value": self._option_value(spec["type"], value, guild, resolved)}
            if focused == name:
                entry["focused"] = True
                entry["value"] = str(value)
            level.append(entry)
        if focused is not None and focused not in options:
            raise LookupError(f"focused option {focused!r} has no value")

        data: dict[str, Any] = {"id": schema["id"], "name": schema["name"], "type": schema.get("type", 1)}
        if top:
            data["options"] = top
        if resolved:
            data["resolved"] = resolved
        if "guild_id" in schema:
            data["guild_id"] = schema["guild_id"]

        iid = P.snowflake()
        token = "aW50ZXJhY3Rpb246" + hashlib.sha256(str(iid).encode()).hexdigest()
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "channel_id": str(channel.id),
            "channel": P.channel_payload(channel),
            "token": token,
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise LookupError(f"{user.username} is not a member of {guild.name}")
            if not self.can_use(guild, user, schema):
                raise CommandNotShown(f"Discord does not show /{schema['name']} to {user.username} in {guild.name} "
                                      f"(default member permissions {schema.get('default_member_permissions')})")
            payload["guild_id"] = str(guild.id)
            payload["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            payload["guild_locale"] = "en-US"
            payload["member"] = P.member_payload(member, permissions=self.member_permissions(guild, user.id))
            payload["app_permissions"] = str(self.member_permissions(guild, self.bot.id))
            payload["authorizing_integration_owners"] = {"0": str(guild.id)}
            payload["context"] = 0
        else:
            payload["user"] = P.user_payload(user)
            payload["app_permissions"] = str(P.ALL_PERMISSIONS & ~8)
            payload["authorizing_integration_owners"] = {"0": "0"}
            payload["context"] = 1
        rec = Interaction(iid, token, itype, payload, user, channel.id, guild.id if guild else None, self.now())
        self.interactions[iid] = rec
        await self.dispatch("INTERACTION_CREATE", payload)
        return rec

    def _option_value(self, otype: int, value: Any, guild: Guild | None, resolved: dict[str, dict[str, Any]]) -> Any:
        if otype in (P.OPT_USER, P.OPT_MENTIONABLE) and isinstance(value, (User, Member)):
            user = value.user if isinstance(value, Member) else value
            resolved.setdefault("users", {})[str(user.id)] = P.user_payload(user)
            if guild is not None and user.id in guild.members:
                m = guild.members[user.id]
                resolved.setdefault("members", {})[str(user.id)] = P.member_payload(
                    m, with_user=False, permissions=self.member_permissions(guild, user.id)
                )
            return str(user.id)
        if otype in (P.OPT_ROLE, P.OPT_MENTIONABLE) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = P.role_payload(value)
            return str(value.id)
        if otype == P.OPT_CHANNEL and isinstance(value, Channel):
            ch = P.channel_payload(value)
            ch["permissions"] = str(P.ALL_PERMISSIONS)
            resolved.setdefault("channels", {})[str(value.id)] = ch
            return str(value.id)
        if otype == P.OPT_ATTACHMENT and isinstance(value, tuple):
            filename, data = value
            aid = P.snowflake()
            self.files[aid] = data
            resolved.setdefault("attachments", {})[str(aid)] = P.attachment_payload(aid, 0, filename, data, None, cdn_base=self.cdn_base)
            return str(aid)
        return value

    # ------------------------------------------------------------------ HTTP plumbing

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        resource = request.match_info.route.resource
        canonical = resource.canonical if resource is not None else ""
        name = self._route_kind(request.match_info.route.name, canonical)
        if name == "unknown":
            route = "UNKNOWN"
        elif canonical.startswith(API_PREFIX):
            route = f"{request.method} {canonical[len(API_PREFIX):]}"
        else:
            route = f"{request.method} {canonical}"
        rec = RecordedRequest(
            method=request.method,
            path=request.path,
            route=route,
            params=dict(request.match_info),
            query=dict(request.query),
            headers=dict(request.headers),
            time=self.now(),
        )
        self.requests.append(rec)
        request[REC] = rec
        if name == "gateway":
            return await handler(request)
        try:
            await self._read_body(request, rec)
            if route == "UNKNOWN":
                self.unknown_requests.append(rec)
                raise DiscordError(404, 0, "404: Not Found")
            if name.startswith("api") and request.headers.get("Authorization") != f"Bot {self.token}":
                raise DiscordError(401, 0, "401: Unauthorized")
            limited = self._take_rate_limit(route)
            verdict = self._over_limit(route, name, rec) if limited is None and self.enforce_rate_limits else None
            if limited is not None:
                resp = self._rate_limited_response(limited, route)
            elif isinstance(verdict, _Verdict):
                resp = self._over_limit_response(verdict, rec)
            else:
                resp = await handler(request)
                if verdict is not None:  # the route's own bucket, counted at arrival
                    resp.headers.update(verdict)
                elif self.ratelimit_headers and name.startswith("api"):
                    resp.headers.update(self._ratelimit_headers(route, remaining=49, reset_after=60.0))
        except DiscordError as exc:
            body: dict[str, Any] = {"message": exc.message, "code": exc.code}
            if exc.errors:
                body["errors"] = exc.errors
            resp = json_response(body, status=exc.status)
        except web.HTTPException:
            raise
        except Exception as exc:  # a bug in the fake: answer 500 and fail the test later
            log.exception("fake Discord handler failed for %s %s", request.method, request.path)
            self.server_errors.append(f"{request.method} {request.path}: {exc!r}")
            resp = json_response({"message": "500: Internal Server Error", "code": 0}, status=500)
        rec.status = resp.status
        self._notify()
        return resp

    @staticmethod
    def _route_kind(name: str | None, canonical: str) -> str:
        if name == "unknown":
            return name
        if canonical in ("/", "/resume"):
            return "gateway"
        if canonical.startswith("/attachments/"):
            return "cdn"
        if canonical.startswith((API_PREFIX + "/interactions/", API_PREFIX + "/webhooks/")):
            return "webhook"
        return "api"

    async def _read_body(self, request: web.Request, rec: RecordedRequest) -> None:
        if not request.body_exists:
            return
        ctype = request.content_type
        if ctype == "application/json":
            rec.json = await request.json()
        elif ctype == "multipart/form-data":
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                data = await part.read()  # type: ignore[union-attr]
                if part.filename:  # type: ignore[union-attr]
                    rec.files.append(
                        UploadedFile(part.name or "", part.filename, part.headers.get("Content-Type"), bytes(data))  # type: ignore[union-attr]
                    )
                else:
                    rec.form[part.name or ""] = bytes(data).decode()  # type: ignore[union-attr]
            if "payload_json" in rec.form:
                rec.json = json.loads(rec.form["payload_json"])
        else:
            await request.read()

    def _take_rate_limit(self, route: str) -> _RateLimitArm | None:
        for arm in self._rate_limits:
            if arm.route == route and arm.remaining > 0:
                arm.remaining -= 1
                return arm
        return None

    def _over_limit(self, route: str, kind: str, rec: RecordedRequest) -> _Verdict | dict[str, str] | None:
        """Count a request against Discord's limits as it arrives: a :class:`_Verdict` when it is over
        one (nothing is counted then), else the headers of its route's bucket (``None``: not an API request)."""
        if kind != "api":  # interaction endpoints, the CDN and the gateway are not counted
            return None
        now = self.limit_clock() if self.limit_clock is not None else self.now()
        log, limit = self._global_log, self.global_limit
        while log and log[0] <= now - limit.per:
            log.popleft()
        if len(log) >= limit.count:
            return _Verdict("global", log[0] + limit.per - now, True, {})
        window = headers = None
        route_limit = self.route_limits.get(route, DEFAULT_ROUTE_LIMIT)
        if route_limit is not None:
            major = next((rec.params[p] for p in MAJOR_PARAMETERS if p in rec.params), "")
            bucket = f"{route} {major}".rstrip()
            window = self._windows.get(bucket)
            if window is None or now >= window.opened + route_limit.per:
                window = self._windows[bucket] = _Window(now)
            reset_after = window.opened + route_limit.per - now
            if window.used >= route_limit.count:
                headers = self._ratelimit_headers(route, remaining=0, reset_after=reset_after, limit=route_limit.count)
                return _Verdict(bucket, reset_after, False, headers)
            window.used += 1
            headers = self._ratelimit_headers(route, remaining=route_limit.count - window.used, reset_after=reset_after,
                                              limit=route_limit.count)
        log.append(now)
        self.global_arrivals.append(now)
        return headers

    def _over_limit_response(self, verdict: _Verdict, rec: RecordedRequest) -> web.Response:
        """Discord's 429: ``Retry-After`` in whole seconds, ``retry_after`` in the body to the millisecond,
        ``Via`` (discord.py takes a 429 without it for a Cloudflare ban), the scope, and on a route's
        limit that bucket's headers."""
        self.limited[verdict.bucket] += 1
        self.limited_requests.append(rec)
        retry_after = round(max(verdict.retry_after, 0.001), 3)
        headers = {**verdict.headers, "Via": "1.1 google", "Retry-After": str(max(1, int(retry_after + 0.999))),
                   "X-RateLimit-Scope": "global" if verdict.is_global else "user"}
        if verdict.is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": retry_after, "global": verdict.is_global}
        return json_response(body, status=429, headers=headers)

    def _ratelimit_headers(self, route: str, *, remaining: int, reset_after: float, limit: int = 50) -> dict[str, str]:
        bucket = hashlib.sha1(route.encode()).hexdigest()[:32]
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": bucket,
        }

    def _rate_limited_response(self, arm: _RateLimitArm, route: str) -> web.Response:
        headers = self._ratelimit_headers(route, remaining=0, reset_after=arm.retry_after)
        headers.update({"Via": "1.1 google", "Retry-After": str(max(1, int(arm.retry_after + 0.999))), "X-RateLimit-Scope": arm.scope})
        if arm.is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": arm.retry_after, "global": arm.is_global, "code": 0}
        return json_response(body, status=429, headers=headers)

    def _add_routes(self, r: web.UrlDispatcher) -> None:
        a = API_PREFIX

        def api(method: str, path: str, handler: Callable[..., Awaitable[web.StreamResponse]]) -> None:
            r.add_route(method, a + path, handler)

        public = api  # interaction callbacks and webhooks: no Authorization header

        r.add_get("/", self._gateway)
        r.add_get("/resume", self._gateway)
        r.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn_attachment)

        api("GET", "/gateway", self._get_gateway)
        api("GET", "/gateway/bot", self._get_gateway_bot)
        api("GET", "/users/@me", self._get_me)
        api("GET", "/oauth2/applications/@me", self._get_application)
        api("GET", "/applications/@me", self._get_application)
        api("POST", "/users/@me/channels", self._open_dm)
        api("GET", "/users/{user_id}", self._get_user)
        api("PUT", "/applications/{application_id}/commands", self._put_commands)
        api("GET", "/applications/{application_id}/commands", self._get_commands)
        api("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._put_commands)
        api("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._get_commands)
        api("GET", "/channels/{channel_id}", self._get_channel)
        api("GET", "/channels/{channel_id}/messages", self._get_messages)
        api("POST", "/channels/{channel_id}/messages", self._post_message)
        api("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        api("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_message)
        api("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message)
        api("POST", "/channels/{channel_id}/typing", self._typing)
        api("POST", "/channels/{channel_id}/threads", self._create_thread)
        api("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._create_thread)
        api("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._thread_member)
        api("GET", "/guilds/{guild_id}", self._get_guild)
        api("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        api("POST", "/guilds/{guild_id}/channels", self._create_guild_channel)
        api("GET", "/guilds/{guild_id}/roles", self._get_roles)
        api("POST", "/guilds/{guild_id}/roles", self._create_role)
        api("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        api("PUT", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._member_role)
        api("DELETE", "/guilds/{guild_id}/members/{user_id}/roles/{role_id}", self._member_role)
        public("POST", "/interactions/{webhook_id}/{webhook_token}/callback", self._interaction_callback)
        public("POST", "/webhooks/{webhook_id}/{webhook_token}", self._followup)
        public("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._webhook_message)
        public("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._webhook_message)
        public("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._webhook_message)
        public("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", self._webhook_message)
        public("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", self._webhook_message)
        public("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", self._webhook_message)
        r.add_route("*", "/{tail:.*}", self._unknown, name="unknown")

    async def _unknown(self, request: web.Request) -> web.Response:  # pragma: no cover - middleware answers
        raise DiscordError(404, 0, "404: Not Found")

    # ------------------------------------------------------------------ lookups used by handlers

    def _channel(self, request: web.Request) -> Channel:
        try:
            return self.channels[int(request.match_info["channel_id"])]
        except (KeyError, ValueError):
            raise DiscordError(404, 10003, "Unknown Channel") from None

    def _guild(self, request: web.Request) -> Guild:
        try:
            return self.guilds[int(request.match_info["guild_id"])]
        except (KeyError, ValueError):
            raise DiscordError(404, 10004, "Unknown Guild") from None

    def _find_message(self, message_id: int) -> tuple[int, dict[str, Any]]:
        for cid, msgs in self.messages.items():
            for msg in msgs:
                if int(msg["id"]) == message_id:
                    return cid, msg
        raise DiscordError(404, 10008, "Unknown Message")

    def _channel_message(self, channel: Channel, request: web.Request) -> dict[str, Any]:
        mid = int(request.match_info["message_id"])
        for msg in self.messages.get(channel.id, []):
            if int(msg["id"]) == mid:
                return msg
        raise DiscordError(404, 10008, "Unknown Message")

    # ------------------------------------------------------------------ REST handlers

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 86400000, "max_concurrency": 1},
            }
        )

    async def _get_me(self, request: web.Request) -> web.Response:
        return json_response(P.me_payload(self.bot))

    async def _get_application(self, request: web.Request) -> web.Response:
        return json_response(P.application_payload(self.application_id, self.application_name, self.owner, self.bot))

    async def _get_user(self, request: web.Request) -> web.Response:
        user = self.users.get(int(request.match_info["user_id"]))
        if user is None:
            raise DiscordError(404, 10013, "Unknown User")
        return json_response(P.user_payload(user))

    async def _open_dm(self, request: web.Request) -> web.Response:
        body = request[REC].json or {}
        user = self.users.get(int(body.get("recipient_id", 0)))
        if user is None or user.id == self.bot.id:
            raise DiscordError(400, 50033, "Invalid Recipient(s)")
        return json_response(P.channel_payload(self.dm_channel(user)))

    def _check_app(self, request: web.Request) -> None:
        if int(request.match_info["application_id"]) != self.application_id:
            raise DiscordError(403, 50001, "Missing Access")

    async def _put_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        rec: RecordedRequest = request[REC]
        gid = int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None
        if gid is not None and gid not in self.guilds:
            raise DiscordError(403, 50001, "Missing Access")
        body = rec.json
        if not isinstance(body, list):
            raise DiscordError(400, 50035, "Invalid Form Body")
        old = self.global_commands if gid is None else self.guild_commands.get(gid, {})
        new: dict[str, dict[str, Any]] = {}
        for cmd in body:
            name = cmd.get("name")
            if not name or name in new:
                raise DiscordError(400, 50035, "Invalid Form Body", {"name": {"_errors": [{"code": "APPLICATION_COMMANDS_DUPLICATE_NAME"}]}})
            previous = old.get(name)
            cid = int(previous["id"]) if previous else P.snowflake()
            version = P.snowflake()
            new[name] = P.command_payload(cmd, command_id=cid, application_id=self.application_id, guild_id=gid, version=version)
        if gid is None:
            self.global_commands = new
        else:
            self.guild_commands[gid] = new
        self.command_syncs.append(rec)
        return json_response(list(new.values()))

    async def _get_commands(self, request: web.Request) -> web.Response:
        self._check_app(request)
        gid = int(request.match_info["guild_id"]) if "guild_id" in request.match_info else None
        cmds = self.global_commands if gid is None else self.guild_commands.get(gid, {})
        return json_response(list(cmds.values()))

    async def _get_channel(self, request: web.Request) -> web.Response:
        return json_response(P.channel_payload(self._channel(request)))

    async def _get_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._check_bot_may(channel, P.VIEW_CHANNEL, P.READ_MESSAGE_HISTORY)
        limit = int(request.query.get("limit", 50))
        msgs = list(reversed(self.messages.get(channel.id, [])))  # newest first, as Discord answers
        if "before" in request.query:
            msgs = [m for m in msgs if int(m["id"]) < int(request.query["before"])]
        if "after" in request.query:
            msgs = [m for m in msgs if int(m["id"]) > int(request.query["after"])]
        return json_response(msgs[:limit])

    async def _get_message(self, request: web.Request) -> web.Response:
        return json_response(self._channel_message(self._channel(request), request))

    def _check_can_send(self, channel: Channel) -> None:
        if channel.type == P.DM:
            if any(u.id in self.closed_dms for u in channel.recipients):
                raise DiscordError(403, 50007, "Cannot send messages to this user")
        elif channel.type == P.GUILD_CATEGORY:
            raise DiscordError(400, 50008, "Cannot send messages in a non-text channel")
        elif channel.is_thread and (channel.archived or channel.locked):
            raise DiscordError(400, 50083, "Thread is archived")

    def _build_message_body(self, rec: RecordedRequest, channel_id: int, existing: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Validate a create/edit body like Discord does and turn uploaded files into attachments."""
        body = dict(rec.json or {})
        content = body.get("content")
        errors: dict[str, Any] = {}
        if content is not None and len(content) > 2000:
            errors["content"] = {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 2000 or fewer in length."}]}
        embeds = body.get("embeds") or []
        if len(embeds) > 10:
            errors["embeds"] = {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 10 or fewer in length."}]}
        total = 0
        for i, e in enumerate(embeds):
            limits = {"title": 256, "description": 4096}
            for key, lim in limits.items():
                text = e.get(key) or ""
                total += len(text)
                if len(text) > lim:
                    errors.setdefault("embeds", {}).setdefault(str(i), {})[key] = {
                        "_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": f"Must be {lim} or fewer in length."}]
                    }
            fields = e.get("fields") or []
            if len(fields) > 25:
                errors.setdefault("embeds", {}).setdefault(str(i), {})["fields"] = {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"}]}
            for j, f in enumerate(fields):
                total += len(f.get("name", "")) + len(f.get("value", ""))
                if len(f.get("name", "")) > 256 or len(f.get("value", "")) > 1024:
                    errors.setdefault("embeds", {}).setdefault(str(i), {}).setdefault("fields", {})[str(j)] = {
                        "_errors": [{"code": "BASE_TYPE_MAX_LENGTH"}]
                    }
            total += len((e.get("footer") or {}).get("text", "")) + len((e.get("author") or {}).get("name", ""))
        if total > 6000:
            errors.setdefault("embeds", {})["_errors"] = [{"code": "MAX_EMBED_SIZE_EXCEEDED", "message": "Embed size exceeds maximum size of 6000"}]
        component_errors = components_errors(body.get("components") or [])
        if component_errors:
            errors["components"] = component_errors
        if errors:
            raise DiscordError(400, 50035, "Invalid Form Body", errors)

        attachments: list[dict[str, Any]] = []
        keep = body.get("attachments")
        if existing is not None and keep is not None:
            keep_ids = {str(a.get("id")) for a in keep}
            attachments = [a for a in existing if a["id"] in keep_ids]
        elif existing is not None:
            attachments = list(existing)
        meta = {str(a.get("id")): a for a in (keep or [])}
        for i, up in enumerate(rec.files):
            index = up.field[len("files[") : -1] if up.field.startswith("files[") else str(i)
            info = meta.get(index, {})
            aid = P.snowflake()
            self.files[aid] = up.data
            attachments.append(
                P.attachment_payload(
                    aid, channel_id, P.discord_filename(info.get("filename", up.filename)), up.data, up.content_type,
                    description=info.get("description"), cdn_base=self.cdn_base,
                )
            )
        body["_attachments"] = attachments
        names = {a["filename"] for a in attachments}
        for e in embeds:
            for part in ("image", "thumbnail"):
                url = (e.get(part) or {}).get("url") or ""
                if url.startswith("attachment://") and url[len("attachment://"):] not in names:
                    self.broken_images.append(f"{url} (attachments: {sorted(names)})")
        if "allowed_mentions" in body:
            P.check_allowed_mentions(body["allowed_mentions"])
        return body

    def _bot_message(self, channel: Channel, body: dict[str, Any], **extra: Any) -> dict[str, Any]:
        content = body.get("content") or ""
        if not (content or body.get("embeds") or body["_attachments"] or body.get("components") or body.get("sticker_ids") or body.get("poll")):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        msg = P.message_payload(
            message_id=P.snowflake(),
            channel_id=channel.id,
            author=self.bot,
            content=content,
            guild_id=guild.id if guild else None,
            member=guild.members.get(self.bot.id) if guild else None,
            **self._pings(content, body.get("allowed_mentions"), guild),
            attachments=body["_attachments"],
            embeds=body.get("embeds"),
            components=body.get("components"),
            flags=int(body.get("flags") or 0),
            nonce=body.get("nonce"),
            tts=bool(body.get("tts")),
            **extra,
        )
        ref = body.get("message_reference")
        if ref:
            msg["message_reference"] = {"message_id": str(ref.get("message_id")), "channel_id": str(channel.id), "type": 0}
            msg["type"] = 19
        return msg

    def _pings(self, content: str, allowed: dict[str, Any] | None, guild: Guild | None) -> dict[str, Any]:
        """Who a message notifies, as Discord decides it from the content and ``allowed_mentions``
        (absent: everything mentioned, @everyone and @here included)."""
        users, roles, everyone = P.pinged(content, allowed)
        return {"mentions": [self.users[u] for u in users if u in self.users],
                "mention_roles": [r for r in roles if guild is None or r in guild.roles],
                "mention_everyone": everyone and guild is not None}

    async def _post_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._check_can_send(channel)
        self._check_bot_may(channel, P.VIEW_CHANNEL, P.SEND_MESSAGES_IN_THREADS if channel.is_thread else P.SEND_MESSAGES,
                            *((P.ATTACH_FILES,) if request[REC].files else ()))
        body = self._build_message_body(request[REC], channel.id)
        msg = self._bot_message(channel, body)
        self._append_message(channel, msg)
        await self._echo_message("MESSAGE_CREATE", channel, msg)
        return json_response(msg)

    async def _echo_message(self, event: str, channel: Channel, msg: dict[str, Any]) -> None:
        """Discord sends the bot's own messages back over the gateway too."""
        intent = P.INTENT_DIRECT_MESSAGES if channel.type == P.DM else P.INTENT_GUILD_MESSAGES
        if msg.get("flags", 0) & P.FLAG_EPHEMERAL:
            return
        self._spawn(self.dispatch(event, msg, intent))

    async def _patch_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._channel_message(channel, request)
        if int(msg["author"]["id"]) != self.bot.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        self._apply_edit(msg, self._build_message_body(request[REC], channel.id, existing=msg["attachments"]))
        await self._echo_message("MESSAGE_UPDATE", channel, msg)
        return json_response(msg)

    def _apply_edit(self, msg: dict[str, Any], body: dict[str, Any]) -> None:
        for key in ("content", "embeds", "components"):
            if key in body:
                msg[key] = body[key] if body[key] is not None else ([] if key != "content" else "")
        if "content" in body:
            guild = self.guilds.get(int(msg["guild_id"])) if msg.get("guild_id") else None
            pings = self._pings(msg["content"], body.get("allowed_mentions"), guild)
            msg["mentions"] = [P.user_payload(u) for u in pings["mentions"]]
            msg["mention_roles"] = [str(r) for r in pings["mention_roles"]]
            msg["mention_everyone"] = pings["mention_everyone"]
        if "flags" in body and body["flags"] is not None:
            msg["flags"] = (msg["flags"] & ~P.FLAG_LOADING & ~0x4) | int(body["flags"])
        msg["flags"] &= ~P.FLAG_LOADING
        msg["attachments"] = body["_attachments"]
        msg["edited_timestamp"] = P.iso_now()
        self._notify()

    async def _delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._channel_message(channel, request)
        self.messages[channel.id].remove(msg)
        self._notify()
        return web.Response(status=204)

    async def _typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return web.Response(status=204)

    async def _create_thread(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        self._check_bot_may(parent, P.VIEW_CHANNEL, P.CREATE_PUBLIC_THREADS)
        if parent.type != P.GUILD_TEXT:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        body = request[REC].json or {}
        name = body.get("name")
        if not name or len(name) > 100:
            raise DiscordError(400, 50035, "Invalid Form Body", {"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}})
        if "message_id" in request.match_info:
            msg = self._channel_message(parent, request)
            tid, ttype = int(msg["id"]), P.PUBLIC_THREAD
            if any(c.id == tid for c in self.channels.values()):
                raise DiscordError(400, 160004, "A thread has already been created for this message")
            msg["thread"] = {"id": str(tid)}
        else:
            tid, ttype = P.snowflake(), int(body.get("type") or P.PRIVATE_THREAD)
        thread = Channel(
            tid, ttype, name=name, guild_id=parent.guild_id, parent_id=parent.id, owner_id=self.bot.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440), invitable=bool(body.get("invitable", True)),
        )
        self.channels[tid] = thread
        self.messages.setdefault(tid, [])
        self.guilds[parent.guild_id].channel_ids.append(tid)
        self._notify()
        payload = P.channel_payload(thread)
        self._spawn(self.dispatch("THREAD_CREATE", {**payload, "newly_created": True}, P.INTENT_GUILDS))
        return json_response(payload)

    async def _thread_member(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if not channel.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        return web.Response(status=204)

    async def _get_guild(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        data = P.guild_payload(guild, [], [])
        for key in ("channels", "threads", "members", "presences", "voice_states", "joined_at", "large", "member_count"):
            data.pop(key, None)
        data["approximate_member_count"] = len(guild.members)
        return json_response(data)

    async def _get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return json_response([P.channel_payload(self.channels[c]) for c in guild.channel_ids if not self.channels[c].is_thread])

    async def _create_guild_channel(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        body = request[REC].json or {}
        parent = body.get("parent_id")
        channel = self._add_guild_channel(
            guild, body["name"], int(body.get("type") or 0), parent_id=int(parent) if parent else None,
            topic=body.get("topic"), overwrites=body.get("permission_overwrites"), announce=False,
        )
        self._spawn(self.dispatch("CHANNEL_CREATE", P.channel_payload(channel), P.INTENT_GUILDS))
        return json_response(P.channel_payload(channel))

    async def _get_roles(self, request: web.Request) -> web.Response:
        return json_response([P.role_payload(r) for r in self._guild(request).roles.values()])

    async def _create_role(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        body = request[REC].json or {}
        role = self.add_role(guild, body.get("name", "new role"), permissions=int(body.get("permissions") or 0), color=int(body.get("color") or 0))
        return json_response(P.role_payload(role))

    async def _get_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.members.get(int(request.match_info["user_id"]))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member")
        return json_response(P.member_payload(member))

    async def _member_role(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.members.get(int(request.match_info["user_id"]))
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member")
        rid = int(request.match_info["role_id"])
        if rid not in guild.roles:
            raise DiscordError(404, 10011, "Unknown Role")
        if request.method == "PUT" and rid not in member.roles:
            member.roles.append(rid)
        elif request.method == "DELETE" and rid in member.roles:
            member.roles.remove(rid)
        self._spawn(
            self.dispatch("GUILD_MEMBER_UPDATE", {**P.member_payload(member), "guild_id": str(guild.id)}, P.INTENT_GUILD_MEMBERS)
        )
        return web.Response(status=204)

    async def _cdn_attachment(self, request: web.Request) -> web.Response:
        data = self.files.get(int(request.match_info["attachment_id"]))
        if data is None:
            raise DiscordError(404, 0, "404: Not Found")
        return web.Response(body=data, content_type="application/octet-stream")

    # ------------------------------------------------------------------ interactions

    def _interaction(self, request: web.Request, *, by_app: bool) -> Interaction:
        token = request.match_info["webhook_token"]
        key = int(request.match_info["webhook_id"])
        if by_app:
            if key != self.application_id:
                raise DiscordError(404, 10015, "Unknown Webhook")
            rec = next((i for i in self.interactions.values() if i.token == token), None)
            if rec is None:
                raise DiscordError(404, 10015, "Unknown Webhook")
            if self.now() - rec.created > INTERACTION_TOKEN_LIFETIME:
                raise DiscordError(401, 50027, "Invalid Webhook Token")
            return rec
        rec = self.interactions.get(key)
        if rec is None or rec.token != token:
            raise DiscordError(404, 10062, "Unknown interaction")
        return rec

    async def _interaction_callback(self, request: web.Request) -> web.Response:
        rec = self._interaction(request, by_app=False)
        req: RecordedRequest = request[REC]
        if rec.responses:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        if self.now() - rec.created > self.interaction_deadline:
            raise DiscordError(404, 10062, "Unknown interaction")
        body = req.json or {}
        rtype = int(body.get("type", 0))
        data = dict(body.get("data") or {})
        channel = self.channels[rec.channel_id]
        message: dict[str, Any] | None = None
        if rtype == 8 and rec.type != P.INTERACTION_AUTOCOMPLETE:
            raise DiscordError(400, 50035, "Invalid Form Body", {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID"}]}})
        if rec.type == P.INTERACTION_AUTOCOMPLETE and rtype != 8:
            raise DiscordError(400, 50035, "Invalid Form Body", {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID"}]}})
        if rtype == 8 and len(data.get("choices", [])) > 25:
            raise DiscordError(400, 50035, "Invalid Form Body", {"data": {"choices": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH"}]}}})
        if rtype in (6, 7) and rec.type not in (P.INTERACTION_MESSAGE_COMPONENT, P.INTERACTION_MODAL_SUBMIT):
            raise DiscordError(400, 50035, "Invalid Form Body", {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID"}]}})
        if rtype == 9:
            if rec.type not in (P.INTERACTION_APPLICATION_COMMAND, P.INTERACTION_MESSAGE_COMPONENT):
                raise DiscordError(400, 50035, "Invalid Form Body", {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID"}]}})
            modal_errors = modal_errors_of(data)
            if modal_errors:
                raise DiscordError(400, 50035, "Invalid Form Body", {"data": modal_errors})
        if rtype in (6, 7) and rec.payload.get("message") is not None:
            rec.original_message_id = int(rec.payload["message"]["id"])  # @original: the message the component is on
        if rtype == 7:  # UPDATE_MESSAGE: the message the component is on, edited
            source = rec.payload.get("message")
            if source is None:
                raise DiscordError(400, 50035, "Invalid Form Body", {"type": {"_errors": [{"code": "INTERACTION_RESPONSE_TYPE_INVALID"}]}})
            cid, message = self._find_message(int(source["id"]))
            body = self._build_message_body(RecordedRequest("", "", "", {}, {}, {}, 0, json=data, files=req.files), cid,
                                            existing=message["attachments"])
            self._apply_edit(message, body)
            await self._echo_message("MESSAGE_UPDATE", self.channels[cid], message)
        if rtype in (4, 5):
            flags = int(data.get("flags") or 0)
            if rtype == 5:
                mbody = {"content": "", "_attachments": [], "flags": (flags & P.FLAG_EPHEMERAL) | P.FLAG_LOADING}
                message = self._interaction_message(rec, channel, mbody, allow_empty=True)
            else:
                mbody = self._build_message_body(RecordedRequest("", "", "", {}, {}, {}, 0, json=data, files=req.files), channel.id)
                message = self._interaction_message(rec, channel, mbody)
            rec.original_message_id = int(message["id"])
            self._append_message(channel, message)
            if rtype == 4:
                await self._echo_message("MESSAGE_CREATE", channel, message)
        rec.responses.append(InteractionResponse(rtype, data, list(req.files), message, self.now()))
        self._notify()
        answer: dict[str, Any] = {
            "interaction": {
                "id": str(rec.id),
                "type": rec.type,
                "response_message_id": message["id"] if message else None,
                "response_message_loading": rtype == 5,
                "response_message_ephemeral": bool(message and message["flags"] & P.FLAG_EPHEMERAL),
            },
            "resource": {"type": rtype},
        }
        if message is not None:
            answer["resource"]["message"] = message
        return json_response(answer)

    def _interaction_message(self, rec: Interaction, channel: Channel, body: dict[str, Any], *, allow_empty: bool = False) -> dict[str, Any]:
        data = rec.payload.get("data", {})
        meta = {
            "id": str(rec.id),
            "type": rec.type,
            "user": P.user_payload(rec.user),
            "authorizing_integration_owners": rec.payload.get("authorizing_integration_owners", {}),
            "name": data.get("name"),
            "command_type": data.get("type", 1),
        }
        extra = {"webhook_id": self.application_id, "application_id": self.application_id, "interaction_metadata": meta}
        if allow_empty:
            msg = P.message_payload(message_id=P.snowflake(), channel_id=channel.id, author=self.bot, flags=body["flags"],
                                    guild_id=channel.guild_id, **extra)
        else:
            msg = self._bot_message(channel, body, **extra)
        msg["type"] = 20 if rec.type == P.INTERACTION_APPLICATION_COMMAND else 0
        msg.pop("member", None)
        return msg

    async def _followup(self, request: web.Request) -> web.Response:
        rec = self._interaction(request, by_app=True)
        if not rec.responses:
            raise DiscordError(404, 10015, "Unknown Webhook")
        channel = self.channels[rec.channel_id]
        body = self._build_message_body(request[REC], channel.id)
        msg = self._interaction_message(rec, channel, body)
        msg["type"] = 0
        self._append_message(channel, msg)
        rec.followup_ids.append(int(msg["id"]))
        await self._echo_message("MESSAGE_CREATE", channel, msg)
        return json_response(msg)

    async def _webhook_message(self, request: web.Request) -> web.Response:
        rec = self._interaction(request, by_app=True)
        raw = request.match_info.get("message_id")
        if raw is None:  # @original
            if rec.original_message_id is None:
                raise DiscordError(404, 10008, "Unknown Message")
            mid = rec.original_message_id
        else:
            mid = int(raw)
        cid, msg = self._find_message(mid)
        channel = self.channels[cid]
        if request.method == "GET":
            return json_response(msg)
        if request.method == "DELETE":
            self.messages[cid].remove(msg)
            self._notify()
            return web.Response(status=204)
        body = self._build_message_body(request[REC], cid, existing=msg["attachments"])
        was_loading = bool(msg["flags"] & P.FLAG_LOADING)
        self._apply_edit(msg, body)
        rec.edits += 1
        if not (msg["content"] or msg["embeds"] or msg["attachments"] or msg["components"]):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        await self._echo_message("MESSAGE_CREATE" if was_loading else "MESSAGE_UPDATE", channel, msg)
        return json_response(msg)

    # ------------------------------------------------------------------ gateway

    async def _send(self, conn: GatewayConnection, payload: dict[str, Any]) -> None:
        self.gateway_log.append(("send", payload["op"], payload.get("t")))
        await conn.send(payload)

    async def _session_dispatch(self, session: GatewaySession, event: str, data: dict[str, Any]) -> None:
        session.seq += 1
        payload = {"op": 0, "t": event, "s": session.seq, "d": data}
        session.sent.append(payload)
        if session.conn is not None:
            await self._send(session.conn, payload)

    def _guild_create_payload(self, guild: Guild, session: GatewaySession) -> dict[str, Any]:
        channels = [self.channels[c] for c in guild.channel_ids]
        if session.intents & P.INTENT_GUILD_MEMBERS:
            members = list(guild.members.values())
        else:  # without the members intent Discord sends only the bot itself
            members = [guild.members[self.bot.id]]
        return P.guild_payload(guild, channels, members)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        compress = self.compress_gateway and request.query.get("compress") == "zlib-stream"
        conn = GatewayConnection(ws, request.path, dict(request.query), compress)
        self.connections.append(conn)
        self.gateway_log.append(("connect", request.path, None))
        try:
            await self._send(conn, {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS, "_trace": ["fake-gateway"]}, "s": None, "t": None})
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    await self._on_gateway_message(conn, json.loads(msg.data))
                elif msg.type == aiohttp.WSMsgType.BINARY:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
        except Exception as exc:
            log.exception("fake gateway failed")
            self.server_errors.append(f"gateway: {exc!r}")
        finally:
            self.gateway_log.append(("disconnect", ws.close_code, None))
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            self._notify()
        return ws

    async def _on_gateway_message(self, conn: GatewayConnection, msg: dict[str, Any]) -> None:
        op, d = msg.get("op"), msg.get("d")
        self.gateway_log.append(("recv", op, None))
        if op == 1:  # HEARTBEAT
            conn.heartbeats += 1
            await self._send(conn, {"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:  # IDENTIFY
            await self._identify(conn, d or {})
        elif op == 6:  # RESUME
            await self._resume(conn, d or {})
        elif op == 8:  # REQUEST_GUILD_MEMBERS
            await self._request_members(conn, d or {})
        elif op in (3, 4):  # presence / voice state updates: accepted, ignored
            pass
        else:
            await conn.ws.close(code=4001, message=b"Unknown opcode.")
        self._notify()

    async def _identify(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if conn.session is not None:
            await conn.ws.close(code=4005, message=b"Already authenticated.")
            return
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = d.get("intents")
        if not isinstance(intents, int) or intents < 0:
            await conn.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        if intents & P.PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        self.identifies += 1
        session = GatewaySession(hashlib.md5(str(P.snowflake()).encode()).hexdigest(), intents, d.get("shard"))
        self.sessions[session.session_id] = session
        session.conn = conn
        conn.session = session
        ready = {
            "v": 10,
            "user": P.me_payload(self.bot),
            "user_settings": {},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.resume_gateway_url.rstrip("/"),
            "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "_trace": ["fake-gateway"],
        }
        if session.shard is not None:
            ready["shard"] = session.shard
        await self._session_dispatch(session, "READY", ready)
        if intents & P.INTENT_GUILDS:
            for guild in list(self.guilds.values()):
                await self._session_dispatch(session, "GUILD_CREATE", self._guild_create_payload(guild, session))

    async def _resume(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        if d.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            return
        session = self.sessions.get(d.get("session_id") or "")
        if session is None:
            await self._send(conn, {"op": 9, "d": False, "s": None, "t": None})
            return
        if session.conn is not None and session.conn is not conn:
            with contextlib.suppress(Exception):
                await session.conn.ws.close(code=4000)
        self.resumes += 1
        session.resumes += 1
        session.conn = conn
        conn.session = session
        seq = int(d.get("seq") or 0)
        for payload in session.sent:
            if payload["s"] > seq:
                await self._send(conn, payload)
        await self._session_dispatch(session, "RESUMED", {"_trace": ["fake-gateway"]})

    async def _request_members(self, conn: GatewayConnection, d: dict[str, Any]) -> None:
        session = conn.session
        if session is None or not session.intents & P.INTENT_GUILD_MEMBERS:
            await conn.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        guild = self.guilds.get(int(d.get("guild_id") or 0))
        if guild is None:
            return
        members = list(guild.members.values())
        if d.get("user_ids"):
            wanted = {int(u) for u in d["user_ids"]}
            members = [m for m in members if m.user.id in wanted]
        elif d.get("query"):
            q = d["query"].lower()
            members = [m for m in members if m.user.username.lower().startswith(q)]
        limit = int(d.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk = {
            "guild_id": str(guild.id),
            "members": [P.member_payload(m) for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if d.get("nonce"):
            chunk["nonce"] = d["nonce"]
        await self._session_dispatch(session, "GUILD_MEMBERS_CHUNK", chunk)
