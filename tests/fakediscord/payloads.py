"""Objects held by the fake Discord and the JSON payloads built from them.

The payload shapes follow what discord.py 2.7.1 reads in its models (``discord/types``
and the ``_from_data`` methods); keys it requires are always present.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

DISCORD_EPOCH_MS = 1420070400000

# Intents (bit positions as documented by Discord).
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = INTENT_GUILD_MEMBERS | INTENT_GUILD_PRESENCES | INTENT_MESSAGE_CONTENT

# Channel types.
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

# Interaction types.
INTERACTION_APPLICATION_COMMAND = 2
INTERACTION_MESSAGE_COMPONENT = 3
INTERACTION_AUTOCOMPLETE = 4
INTERACTION_MODAL_SUBMIT = 5

# Application command option types.
OPT_SUB_COMMAND = 1
OPT_SUB_COMMAND_GROUP = 2
OPT_STRING = 3
OPT_INTEGER = 4
OPT_BOOLEAN = 5
OPT_USER = 6
OPT_CHANNEL = 7
OPT_ROLE = 8
OPT_MENTIONABLE = 9
OPT_NUMBER = 10
OPT_ATTACHMENT = 11

# Message flags.
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7

ALL_PERMISSIONS = (1 << 53) - 1
# permission bits the fake checks when the bot acts in a server channel
VIEW_CHANNEL, SEND_MESSAGES, ATTACH_FILES, READ_MESSAGE_HISTORY = 10, 11, 15, 16
CREATE_PUBLIC_THREADS, SEND_MESSAGES_IN_THREADS = 35, 38
DEFAULT_EVERYONE_PERMISSIONS = 0x0000_0000_0006_4EC3_8E41  # roughly Discord's default for @everyone

_counter = itertools.count()
_lock = threading.Lock()
_last_ms = 0


def snowflake() -> int:
    """A new, unique, increasing Discord-style id whose timestamp is now."""
    global _last_ms
    with _lock:
        ms = max(int(time.time() * 1000), _last_ms)
        _last_ms = ms
        return ((ms - DISCORD_EPOCH_MS) << 22) | (next(_counter) & 0x3FFFFF)


def iso_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat()


def iso_in(seconds: float) -> str:
    return (_dt.datetime.now(_dt.UTC) + _dt.timedelta(seconds=seconds)).isoformat()


@dataclass
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    avatar: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


@dataclass
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    hoist: bool = False
    mentionable: bool = False
    managed: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"


@dataclass
class Member:
    user: User
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso_now)

    @property
    def id(self) -> int:
        return self.user.id


@dataclass
class Channel:
    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipients: list[User] = field(default_factory=list)
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    created_at: str = field(default_factory=iso_now)
    last_message_id: int | None = None
    message_count: int = 0
    permission_overwrites: list[dict[str, Any]] = field(default_factory=list)

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD, 10)

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"


@dataclass
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)

    @property
    def everyone(self) -> Role:
        return self.roles[self.id]


# --------------------------------------------------------------------------- payloads


def user_payload(user: User) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(user.id),
        "username": user.username,
        "discriminator": "0",
        "global_name": user.global_name,
        "avatar": user.avatar,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
        "avatar_decoration_data": None,
        "collectibles": None,
        "primary_guild": None,
    }
    if user.bot:
        data["bot"] = True
    return data


def me_payload(user: User) -> dict[str, Any]:
    """``GET /users/@me`` for the bot account."""
    data = user_payload(user)
    data.update({"verified": True, "mfa_enabled": True, "locale": "en-US", "email": None, "bio": ""})
    return data


def application_payload(app_id: int, name: str, owner: User, bot: User) -> dict[str, Any]:
    """``GET /oauth2/applications/@me``: every field discord.py's ``AppInfo`` reads."""
    return {
        "id": str(app_id),
        "name": name,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "hook": True,
        "bot_public": False,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "owner": user_payload(owner),
        "team": None,
        "flags": 0,
        "rpc_origins": [],
        "redirect_uris": [],
        "tags": [],
        "interactions_endpoint_url": None,
        "role_connections_verification_url": None,
        "terms_of_service_url": None,
        "privacy_policy_url": None,
        "approximate_guild_count": 0,
        "integration_types_config": {"0": {}},
        "bot": user_payload(bot),
    }


def role_payload(role: Role) -> dict[str, Any]:
    return {
        "id": str(role.id),
        "name": role.name,
        "color": role.color,
        "colors": {"primary_color": role.color, "secondary_color": None, "tertiary_color": None},
        "hoist": role.hoist,
        "icon": None,
        "unicode_emoji": None,
        "position": role.position,
        "permissions": str(role.permissions),
        "managed": role.managed,
        "mentionable": role.mentionable,
        "flags": 0,
        "tags": {},
    }


def member_payload(member: Member, *, with_user: bool = True, permissions: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "roles": [str(r) for r in member.roles],
        "nick": member.nick,
        "avatar": None,
        "banner": None,
        "joined_at": member.joined_at,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
        "communication_disabled_until": None,
    }
    if with_user:
        data["user"] = user_payload(member.user)
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def channel_payload(channel: Channel) -> dict[str, Any]:
    if channel.type == DM:
        return {
            "id": str(channel.id),
            "type": DM,
            "last_message_id": str(channel.last_message_id) if channel.last_message_id else None,
            "recipients": [user_payload(u) for u in channel.recipients],
            "flags": 0,
        }
    data: dict[str, Any] = {
        "id": str(channel.id),
        "type": channel.type,
        "guild_id": str(channel.guild_id),
        "name": channel.name,
        "parent_id": str(channel.parent_id) if channel.parent_id else None,
        "last_message_id": str(channel.last_message_id) if channel.last_message_id else None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }
    if channel.is_thread:
        data.update(
            {
                "owner_id": str(channel.owner_id),
                "message_count": channel.message_count,
                "total_message_sent": channel.message_count,
                "member_count": 1,
                "thread_metadata": {
                    "archived": channel.archived,
                    "auto_archive_duration": channel.auto_archive_duration,
                    "archive_timestamp": channel.created_at,
                    "locked": channel.locked,
                    "invitable": channel.invitable,
                    "create_timestamp": channel.created_at,
                },
                "applied_tags": [],
            }
        )
    else:
        data.update(
            {
                "position": channel.position,
                "permission_overwrites": list(channel.permission_overwrites),
                "nsfw": False,
                "topic": channel.topic,
            }
        )
    return data


def guild_payload(guild: Guild, channels: list[Channel], members: list[Member]) -> dict[str, Any]:
    """A GUILD_CREATE payload (the guild is available)."""
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "icon_hash": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": "en-US",
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "features": [],
        "emojis": [],
        "stickers": [],
        "roles": [role_payload(r) for r in guild.roles.values()],
        "channels": [channel_payload(c) for c in channels if not c.is_thread],
        "threads": [channel_payload(c) for c in channels if c.is_thread],
        "members": [member_payload(m) for m in members],
        "member_count": len(guild.members),
        "presences": [],
        "voice_states": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "joined_at": guild.joined_at,
        "large": False,
        "unavailable": False,
        "lazy": True,
        "application_id": None,
        "max_members": 500000,
        "max_video_channel_users": 25,
        "incidents_data": None,
    }


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def mentioned_user_ids(content: str) -> list[int]:
    return [int(m) for m in _USER_MENTION.findall(content or "")]


def mentioned_role_ids(content: str) -> list[int]:
    return [int(m) for m in _ROLE_MENTION.findall(content or "")]


_EVERYONE = re.compile(r"@(everyone|here)\b")
_FILENAME_BAD = re.compile(r"[^A-Za-z0-9_.-]")


def check_allowed_mentions(allowed: Any) -> None:
    """Refuse what Discord refuses: ``parse`` and an explicit list for the same kind."""
    from .server import DiscordError

    if not isinstance(allowed, dict):
        raise DiscordError(400, 50035, "Invalid Form Body", {"allowed_mentions": {"_errors": [{"code": "MODEL_TYPE_CONVERT"}]}})
    parse = allowed.get("parse") or []
    for kind in ("users", "roles"):
        if kind in parse and allowed.get(kind):
            raise DiscordError(400, 50035, "Invalid Form Body", {"allowed_mentions": {"_errors": [{
                "code": "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                "message": f"parse:[\"{kind}\"] and {kind}: [ids...] are mutually exclusive."}]}})


def pinged(content: str, allowed: dict[str, Any] | None) -> tuple[list[int], list[int], bool]:
    """The users and roles a message notifies, and whether it notifies @everyone/@here, as Discord
    decides it: without ``allowed_mentions`` every mention in the content notifies."""
    users, roles = mentioned_user_ids(content), mentioned_role_ids(content)
    everyone = bool(_EVERYONE.search(content or ""))
    if allowed is None:
        return users, roles, everyone
    parse = allowed.get("parse") or []
    some_users = {int(u) for u in allowed.get("users") or []}
    some_roles = {int(r) for r in allowed.get("roles") or []}
    return ([u for u in users if "users" in parse or u in some_users],
            [r for r in roles if "roles" in parse or r in some_roles],
            everyone and "everyone" in parse)


def discord_filename(name: str) -> str:
    """An uploaded file's name as Discord keeps it: only letters, digits, ``_``, ``-`` and ``.``;
    anything else becomes ``_`` (so an ``attachment://`` link to the name as sent finds nothing)."""
    return _FILENAME_BAD.sub("_", name) or "unknown"


def attachment_payload(
    attachment_id: int,
    channel_id: int,
    filename: str,
    data: bytes,
    content_type: str | None,
    description: str | None = None,
    *,
    cdn_base: str = "https://cdn.discordapp.com",
) -> dict[str, Any]:
    url = f"{cdn_base}/attachments/{channel_id}/{attachment_id}/{filename}"
    payload: dict[str, Any] = {
        "id": str(attachment_id),
        "filename": filename,
        "size": len(data),
        "url": url,
        "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
        "flags": 0,
    }
    if content_type:
        payload["content_type"] = content_type
    if description:
        payload["description"] = description
    return payload


def message_payload(
    *,
    message_id: int,
    channel_id: int,
    author: User,
    content: str = "",
    guild_id: int | None = None,
    member: Member | None = None,
    mentions: list[User] | None = None,
    mention_roles: list[int] | None = None,
    mention_everyone: bool = False,
    attachments: list[dict[str, Any]] | None = None,
    embeds: list[dict[str, Any]] | None = None,
    components: list[dict[str, Any]] | None = None,
    flags: int = 0,
    message_type: int = 0,
    webhook_id: int | None = None,
    application_id: int | None = None,
    interaction_metadata: dict[str, Any] | None = None,
    nonce: Any = None,
    tts: bool = False,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": str(message_id),
        "channel_id": str(channel_id),
        "author": user_payload(author),
        "content": content,
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": tts,
        "mention_everyone": mention_everyone,
        "mentions": [user_payload(u) for u in (mentions or [])],
        "mention_roles": [str(r) for r in (mention_roles or [])],
        "attachments": list(attachments or []),
        "embeds": list(embeds or []),
        "components": list(components or []),
        "pinned": False,
        "type": message_type,
        "flags": flags,
    }
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    if member is not None:
        data["member"] = member_payload(member, with_user=False)
    if webhook_id is not None:
        data["webhook_id"] = str(webhook_id)
    if application_id is not None:
        data["application_id"] = str(application_id)
    if interaction_metadata is not None:
        data["interaction_metadata"] = interaction_metadata
    if nonce is not None:
        data["nonce"] = nonce
    return data


def command_payload(command: dict[str, Any], *, command_id: int, application_id: int, guild_id: int | None, version: int) -> dict[str, Any]:
    """An application command as Discord answers it after a bulk overwrite."""
    data = dict(command)
    data.setdefault("type", 1)
    data.setdefault("description", "")
    data.setdefault("options", [])
    data.setdefault("default_member_permissions", None)
    data.setdefault("nsfw", False)
    data.setdefault("name_localizations", None)
    data.setdefault("description_localizations", None)
    data["id"] = str(command_id)
    data["application_id"] = str(application_id)
    data["version"] = str(version)
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    else:
        data.setdefault("integration_types", [0])
        data.setdefault("contexts", None)
    return data
