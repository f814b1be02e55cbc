"""The Discord front end's settings, from the environment (prefix ``DISCORD_``).

``DISCORD_TOKEN`` (or ``CRUSADER_DISCORD_TOKEN``) turns the front end on. ``DISCORD_API_BASE`` and
``DISCORD_GATEWAY_URL`` point the bot at any Discord-compatible server (default: Discord's own).
``DISCORD_GM_ROLE``: comma-separated role names or ids whose holders may run any game.
``DISCORD_SHARDS``: a shard count (``AutoShardedBot``), or ``auto`` to ask Discord for one.
``DISCORD_SYNC_COMMANDS`` and ``DISCORD_COMMAND_GUILDS``: when and where the slash commands are
registered (:mod:`bot.frontends.discord.registration`).
"""

from __future__ import annotations

import yarl
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DISCORD_API_BASE = "https://discord.com/api/v10"
DISCORD_GATEWAY_URL = "wss://gateway.discord.gg/"


class DiscordSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DISCORD_", extra="ignore")

    token: SecretStr | None = Field(None, description="the bot's token; the front end starts when set")
    api_base: str | None = Field(None, description="REST base URL, default https://discord.com/api/v10")
    gateway_url: str | None = Field(None, description="gateway URL, default wss://gateway.discord.gg/")
    gm_role: str = Field("", description="comma-separated role names or ids that may run any game")
    shards: str | None = Field(None, description="number of shards, or 'auto'; unset: no sharding")
    sync_commands: str = Field("auto", description="when slash commands are registered with Discord: auto (at "
                               "start-up when they changed since the last registration), or never (only with "
                               "crusader discord sync)")
    command_guilds: str = Field("", description="comma-separated server ids: register the slash commands in "
                                "these servers only, at once (a test server), instead of globally")

    @field_validator("sync_commands")
    @classmethod
    def _sync(cls, value: str) -> str:
        value = value.strip().lower()
        if value not in ("auto", "never"):
            raise ValueError(f"DISCORD_SYNC_COMMANDS must be auto or never, not {value!r}")
        return value

    @field_validator("command_guilds")
    @classmethod
    def _guilds(cls, value: str) -> str:
        ids = [g.strip() for g in value.split(",") if g.strip()]
        bad = [g for g in ids if not g.isdigit()]
        if bad:
            raise ValueError(f"DISCORD_COMMAND_GUILDS is a comma-separated list of server ids (numbers), not {bad[0]!r}")
        return ",".join(ids)

    @property
    def command_guild_ids(self) -> tuple[int, ...]:
        return tuple(int(g) for g in self.command_guilds.split(",") if g)

    @field_validator("shards")
    @classmethod
    def _shards(cls, value: str | None) -> str | None:
        if value is None or value.strip() == "":
            return None
        value = value.strip().lower()
        if value != "auto" and not (value.isdigit() and int(value) > 0):
            raise ValueError(f"DISCORD_SHARDS must be a positive number of shards or 'auto', not {value!r}")
        return value

    @property
    def gm_roles(self) -> tuple[str, ...]:
        return tuple(r.strip() for r in self.gm_role.split(",") if r.strip())

    @property
    def sharded(self) -> bool:
        return self.shards is not None

    @property
    def shard_count(self) -> int | None:
        return int(self.shards) if self.shards and self.shards != "auto" else None


def point_discord_at(api_base: str | None, gateway_url: str | None) -> None:
    """Point discord.py's REST and gateway clients at ``api_base``/``gateway_url`` (``None``: Discord's own).

    discord.py reads these class attributes for every request and connection; they are process-wide.
    """
    import discord.gateway
    import discord.http

    discord.http.Route.BASE = (api_base or DISCORD_API_BASE).rstrip("/")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url or DISCORD_GATEWAY_URL)
