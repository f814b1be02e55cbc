"""The judge's database from a shell, for ``crusader serve``, ``game``, ``archive`` and the like.

The database is ``--database URL``, else ``$CRUSADER_DATABASE_URL``, else SQLite in
``--data-dir`` / ``$CRUSADER_DATA_DIR`` / the user's own data directory
(:func:`bot.app.settings.default_data_dir`), whatever directory the command runs in. Only the
commands that make something new (a game, an import, the schema) make a database; the others
say where they looked when there is none. The shell operator acts as the judge itself: every
game-master action is allowed.
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from collections.abc import Callable

from adjudicator.errors import CrusaderError
from bot.app.errors import SetupError

from .common import CommandError, Exit


def add_database_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data-dir", help="data directory (default $CRUSADER_DATA_DIR, else ~/.local/share/crusader-judge)")
    p.add_argument("--database", help="database URL (default $CRUSADER_DATABASE_URL or SQLite in the data directory)")


def settings(args: argparse.Namespace):
    """The judge's settings from the environment, with the command's database options on top."""
    from .reference import read
    from bot.app.settings import Settings

    overrides = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "database", None):
        overrides["database_url"] = args.database
    return read(Settings, **overrides)


def open_service(args: argparse.Namespace, *, create: bool = False, say_new: bool = True):
    """``(GameService, Database)`` on the command's database, its schema brought up to date; logs
    only warnings unless the settings ask for more.

    ``create``: the command makes something new, and may make the database for it (saying so on
    standard error, unless not ``say_new``: the command says where it is itself); otherwise a database that is not there is an error naming where it was looked
    for. Either way a ``./data`` left here by an older judge is pointed out."""
    from bot.app.logging import configure
    from bot.app.setup import make_directories, open_database, stray_data_dir
    from bot.service import GameService

    config = settings(args)
    configure("WARNING" if config.log_level.upper() == "INFO" else config.log_level, config.log_format)
    args.database_shown = config.database_shown
    stray = stray_data_dir(config)
    if stray is not None:
        print(f"crusader: note: {stray} holds a judge's database, but this command uses {config.data_dir} "
              f"(the default); set CRUSADER_DATA_DIR={stray} (or --data-dir) to use that one", file=sys.stderr)
    new = config.sqlite_file is not None and not config.sqlite_file.exists()
    if create:
        make_directories(config)
    db = open_database(config, create=create)
    if new and say_new:
        print(f"crusader: made a new judge database at {config.sqlite_file}; a crusader serve on another data "
              f"directory will not see it (set CRUSADER_DATA_DIR, or --data-dir, to the one it uses)",
              file=sys.stderr)
    return GameService(db, node="shell"), db


def refusals_are_command_errors(func: Callable[[argparse.Namespace], Exit]) -> Callable[[argparse.Namespace], Exit]:
    """Run a command on the service: what the service refuses becomes a :class:`CommandError`,
    exit 1 when the game's state or the asker's role does not allow it, else exit 2 (the request
    itself is wrong: no such game, a bad duration, a name taken...)."""

    @functools.wraps(func)
    def run(args: argparse.Namespace) -> Exit:
        try:
            return func(args)
        except SetupError:  # the judge's own set-up: ``main`` says so, exit 1
            raise
        except CrusaderError as exc:  # what the service refuses, a document it cannot use: all say what to do
            from bot.service.errors import NoSuchGameError, NotAllowedError, WrongStateError

            code = Exit.FAILED if isinstance(exc, (NotAllowedError, WrongStateError)) else Exit.BAD_INPUT
            message = str(exc)
            if isinstance(exc, NoSuchGameError) and getattr(args, "database_shown", None):
                message = exc.looked_in(args.database_shown)
            raise CommandError(message, code) from None

    return run
