"""Who is who: a Discord user is the player ``discord:<user id>`` in the service."""

from __future__ import annotations

import re

PREFIX = "discord:"
_KEY_RE = re.compile(r"'?discord:(\d{15,22})'?")


def player_key(user) -> str:
    """The service's name for a Discord user (stable across renames)."""
    return f"{PREFIX}{user.id}"


def user_id(key: str | None) -> int | None:
    """The Discord user id behind a player name, or ``None`` for players of other front ends."""
    if key and key.startswith(PREFIX) and key[len(PREFIX):].isdigit():
        return int(key[len(PREFIX):])
    return None


def mention(key: str) -> str:
    uid = user_id(key)
    return f"<@{uid}>" if uid is not None else key


def mentionify(text: str) -> str:
    """Turn every ``discord:<id>`` in a text of the service into a Discord mention."""
    return _KEY_RE.sub(lambda m: f"<@{m.group(1)}>", text)
