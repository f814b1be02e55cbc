"""``crusader discord sync`` and ``crusader discord invite``: the bot's registration with Discord.

``sync`` registers the slash commands now (globally, or in ``--guild`` servers only, or those of
``DISCORD_COMMAND_GUILDS``), whatever ``DISCORD_SYNC_COMMANDS`` says; ``invite`` prints the URL
that adds the bot to a server. Both log in with ``DISCORD_TOKEN`` and disconnect at once.
"""

from __future__ import annotations

import argparse

from .common import CommandError, Exit
from .shell import add_database_options, settings


def cmd_discord(args: argparse.Namespace) -> Exit:
    from bot.app.logging import configure
    from .reference import read
    from bot.frontends.discord.config import DiscordSettings

    config = settings(args)
    configure("WARNING" if config.log_level.upper() == "INFO" else config.log_level, config.log_format)
    discord_settings = read(DiscordSettings)
    token = discord_settings.token or config.discord_token
    if token is None:
        raise CommandError("set DISCORD_TOKEN to the bot's token first (docs/discord.md)", Exit.FAILED)
    from bot.frontends.discord import require_discord

    require_discord()
    guilds = tuple(args.guild) if getattr(args, "guild", None) else discord_settings.command_guild_ids
    import asyncio

    asyncio.run(_run(args.discord_command, config, discord_settings, token.get_secret_value(), guilds))
    return Exit.OK


async def _run(action: str, config, discord_settings, token: str, guilds: tuple[int, ...]) -> None:
    from bot.frontends.discord import login_error, make_bot, point_discord_at
    from bot.frontends.discord.config import DISCORD_API_BASE
    from bot.frontends.discord.registration import invite_url, sync_commands

    point_discord_at(discord_settings.api_base, discord_settings.gateway_url)
    bot = make_bot(None, settings=discord_settings.model_copy(update={"sync_commands": "never"}))
    try:
        try:
            await bot.login(token)
        except Exception as exc:  # noqa: BLE001 (any failure to log in is explained to the operator)
            raise login_error(exc, discord_settings.api_base or DISCORD_API_BASE) from None
        if action == "sync":
            config.data_dir.mkdir(parents=True, exist_ok=True)
            scopes = await sync_commands(bot, guilds=guilds, record=config.data_dir / "discord-commands.json",
                                         force=True)
            where = ", ".join(scopes)
            print(f"registered {len(bot.tree.get_commands())} slash commands ({where})"
                  + ("; global commands reach every server within about an hour" if "global" in scopes else ""))
        print(f"invite URL: {invite_url(bot.application_id)}")
    finally:
        await bot.close()


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("discord", help="the bot's registration with Discord: slash commands, invite URL")
    sub = p.add_subparsers(dest="discord_command", metavar="SUBCOMMAND")
    sub.required = True
    q = sub.add_parser("sync", help="register the slash commands with Discord now",
                       description="Register the slash commands now: globally, or in the --guild servers only "
                       "(at once; for a test server), or those of DISCORD_COMMAND_GUILDS.")
    add_database_options(q)
    q.add_argument("--guild", type=int, action="append", metavar="SERVER_ID",
                   help="register in this server only (repeat for several)")
    q.set_defaults(func=cmd_discord)
    q = sub.add_parser("invite", help="print the URL that adds the bot to a server")
    add_database_options(q)
    q.set_defaults(func=cmd_discord)
