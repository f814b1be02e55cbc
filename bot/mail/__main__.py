"""``python -m bot.mail``: register a power for play by mail, from the judge's shell.

    python -m bot.mail register crusade1 ANT ant@example.org     (asks for the password)
    python -m bot.mail password crusade1 ANT                      (a new password)
    echo secret | python -m bot.mail register crusade1 ANT ant@example.org --password-stdin

The password is never taken from the command line (it would show in ``ps`` and the shell's
history). The database is the one ``crusader serve`` uses (``CRUSADER_DATABASE_URL`` or
``CRUSADER_DATA_DIR``); this acts as the judge's operator, who may do what a game master does.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from ..service import GameService, ServiceError
from ..settings import Settings
from ..storage import Database
from .accounts import MailAccounts


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"password for {args.power.upper()} in {args.game}: ")
    if getpass.getpass("the same again: ") != first:
        raise ValueError("the two passwords differ; nothing was changed")
    return first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.mail", description="Register powers for play by mail.")
    commands = parser.add_subparsers(dest="command", required=True)
    register = commands.add_parser("register", help="set a power's address and password")
    password = commands.add_parser("password", help="set a power's password")
    for sub in (register, password):
        sub.add_argument("game", help="the game's name")
        sub.add_argument("power", help="the power's code, like ANT")
    register.add_argument("address", help="the address the power's player writes from")
    for sub in (register, password):
        sub.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    args = parser.parse_args(argv)
    db = Database(Settings().url)
    try:
        db.migrate()
        accounts = MailAccounts(GameService(db))
        secret = _password(args)
        if args.command == "register":
            accounts.register(args.game, None, args.power, address=args.address, password=secret)
            print(f"{args.power.upper()} in {args.game} may now play by mail from {args.address.lower()}")
        else:
            accounts.set_power_password(args.game, None, args.power, secret)
            print(f"the password of {args.power.upper()} in {args.game} is set")
        return 0
    except (ServiceError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        db.dispose()


if __name__ == "__main__":
    sys.exit(main())
