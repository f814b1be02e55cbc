"""The bot's place on Discord: the invite URL a server's owner opens, and its slash commands' registration.

Slash commands are registered ("synced") with Discord, not on every start: Discord limits how
often, and a global registration takes a while to reach every server. ``DISCORD_SYNC_COMMANDS``:

- ``auto`` (default): at start-up, only when the bot's commands differ from those this data
  directory last registered (a digest in ``<data dir>/discord-commands.json``);
- ``never``: only with ``crusader discord sync``.

``DISCORD_COMMAND_GUILDS`` (server ids) registers them in those servers only, at once, instead of
globally: for a test server.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import discord

from .notifier import ARCHIVE_NEEDS, RESULTS_NEEDS

log = logging.getLogger("crusader.discord")

# What the bot does in a server: read and post in the results channel (embeds, the map), open the
# game's archive thread (/game new) and post in it. Nothing else: no administrator, no moderation.
PERMISSIONS = discord.Permissions(**{name: True for name in (*RESULTS_NEEDS, *ARCHIVE_NEEDS, "create_public_threads")})
SCOPES = ("bot", "applications.commands")


def invite_url(application_id: int) -> str:
    """The URL that adds the bot to a server, with its slash commands and the permissions it needs."""
    return discord.utils.oauth_url(application_id, permissions=PERMISSIONS, scopes=SCOPES)


def digest(tree: discord.app_commands.CommandTree) -> str:
    """A fingerprint of the commands as they would be registered (names, options, permissions...)."""
    payload = sorted((command.to_dict(tree) for command in tree.get_commands()), key=lambda c: c["name"])
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


async def sync_commands(bot, *, guilds: tuple[int, ...] = (), record: Path | None = None,
                        force: bool = False) -> list[str]:
    """Register the bot's commands globally, or in ``guilds`` only; unless ``force``, only where the
    digest in ``record`` differs. Returns the scopes registered (``global``, ``guild:<id>``)."""
    tree = bot.tree
    fingerprint = digest(tree)
    seen = _read(record)
    done = []
    for guild in guilds or (None,):
        scope = "global" if guild is None else f"guild:{guild}"
        if not force and seen.get(scope) == fingerprint:
            log.info("slash commands unchanged since their registration (%s): not registered again", scope)
            continue
        target = None if guild is None else discord.Object(guild)
        if target is not None:
            tree.copy_global_to(guild=target)
        commands = await tree.sync(guild=target)
        log.info("registered %d slash commands (%s)", len(commands), scope)
        seen[scope] = fingerprint
        done.append(scope)
    if done and record is not None:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps(seen, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return done


def _read(record: Path | None) -> dict[str, str]:
    if record is None:
        return {}
    try:
        doc = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in doc.items()} if isinstance(doc, dict) else {}
