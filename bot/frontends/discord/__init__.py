"""The Discord front end: orders by DM, slash commands for players and game masters, results,
archives and reminders posted through the outbox.

:func:`make_bot` builds the bot over a :class:`~bot.service.GameService`; ``crusader serve``
starts it through :func:`create_front_end` when ``DISCORD_TOKEN`` is set. discord.py is an
optional part of the judge (``pip install 'crusader-judge[discord]'``): this package imports it
only when the bot is wanted, so that a judge without Discord runs and says what to install when
a token is set.
"""

from __future__ import annotations

import importlib
from typing import Any

from .config import DiscordSettings

_LAZY = {"DiscordFrontEnd": ".frontend", "login_error": ".frontend", "connection_problem": ".frontend",
         "JudgeBot": ".client", "ShardedJudgeBot": ".client", "make_bot": ".client",
         "point_discord_at": ".config", "invite_url": ".registration"}


def __getattr__(name: str) -> Any:
    """The names of the bot's modules, imported (with discord.py) when first asked for."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require_discord() -> None:
    """A :class:`~bot.app.errors.SetupError` saying what to install when discord.py is not installed."""
    try:
        import discord  # noqa: F401
    except ImportError:
        from bot.app.errors import SetupError

        raise SetupError("DISCORD_TOKEN is set, but this judge is installed without Discord: install it with "
                         "pip install 'crusader-judge[discord]' (or unset DISCORD_TOKEN)") from None


def create_front_end(app):
    """The Discord front end when a token is configured (``DISCORD_TOKEN``), else ``None``."""
    settings = DiscordSettings()
    token = settings.token or getattr(app.settings, "discord_token", None)
    if token is None:
        return None
    require_discord()
    from .frontend import DiscordFrontEnd

    return DiscordFrontEnd(app, settings, token.get_secret_value())


__all__ = ["DiscordFrontEnd", "DiscordSettings", "JudgeBot", "ShardedJudgeBot", "create_front_end", "invite_url",
           "make_bot", "point_discord_at", "require_discord"]
