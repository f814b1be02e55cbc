"""The custom ids of the menu of orders (:mod:`.panel`), and the button that opens it, put under
the bot's answers and the DMs that say what a power has to decide.

A custom id says all a click needs: ``op:<game>:<phase version>:<action>:<arguments>``; the
opening button names the game (``op:0:0:open:<game name>``) and opens the panel of its current
phase.
"""

from __future__ import annotations

import discord

PREFIX = "op"


def custom_id(game: int | str, version: int, action: str, *args: str) -> str:
    return ":".join([PREFIX, str(game), str(version), action, *args])


def open_button(game: str, label: str = "Order by menu") -> discord.ui.View:
    """A view with one button that opens the menu of orders of ``game``."""
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label=label, emoji="📋", style=discord.ButtonStyle.primary,
                                    custom_id=custom_id(0, 0, "open", game)[:100]))
    view.stop()  # nothing is kept for it: the panel's cog reads every click from its custom id
    return view
