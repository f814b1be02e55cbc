"""Reusable permission checks for app commands; each refusal tells the user why."""

from __future__ import annotations


from discord import app_commands

from .identity import mention, player_key
from .transformers import game_named
from .client import JudgeInteraction


class NotGameMaster(app_commands.CheckFailure):
    """The asker is not this game's master and holds no game-master role."""


def holds_gm_role(interaction: JudgeInteraction) -> bool:
    roles = interaction.client.gm_roles
    member_roles = getattr(interaction.user, "roles", None) or []
    return bool(roles) and any(r.name in roles or str(r.id) in roles for r in member_roles)


def is_gm(*, new_game: bool = False):
    """Only the master of the game named in the ``game`` option, or a holder of a configured GM role
    in the server the game was created in.

    With ``new_game`` (no game yet): a GM role holder, or anyone when no GM role is configured.
    """

    async def predicate(interaction: JudgeInteraction) -> bool:
        client = interaction.client
        roles = ", ".join(client.gm_roles)
        if new_game:
            if not client.gm_roles or holds_gm_role(interaction):
                return True
            raise NotGameMaster(f"Only holders of the game-master role ({roles}) may create games.")
        name = getattr(interaction.namespace, "game", None)
        game = await game_named(interaction, name) if name else None  # the command gets this same game
        if game is None:
            return True  # the game option's own transformer says what is wrong with the name
        if game.gm == player_key(interaction.user):
            return True
        # a role is a server's own: it counts for the games of that server (and those of none)
        home = (game.extra.get("discord") or {}).get("guild")
        if holds_gm_role(interaction) and (home is None or home == interaction.guild_id):
            return True
        also = f" or holders of the game-master role ({roles})" if roles else ""
        raise NotGameMaster(f"Only the game master of '{game.name}' ({mention(game.gm)}){also} may do that.")

    return app_commands.check(predicate)


def acting_gm(interaction: JudgeInteraction, game) -> str | None:
    """Whom to tell the service is acting: the game's master as themself, a GM-role holder as the judge."""
    key = player_key(interaction.user)
    return key if game.gm == key else None
