"""``crusader mail ...``: who plays which power by mail, from a shell (the judge's operator).

    crusader mail register crusade1 ANT ant@example.org     (the judge mails a new password there)
    crusader mail register crusade1 ANT ant@example.org --password-stdin    (or sets the one given)
    crusader mail password crusade1 ANT                      (a new password, mailed)
    crusader mail list crusade1
    crusader mail remove crusade1 ANT

A password is never taken from the command line (it would show in ``ps`` and the shell's
history): the judge makes one and mails it to the address when ``crusader serve`` next sends
its mail, or ``--password-stdin`` reads one line from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys

from .common import CommandError, Exit
from .shell import add_database_options, open_service, refusals_are_command_errors, settings


def _accounts(args: argparse.Namespace):
    from bot.frontends.mail.accounts import MailAccounts

    service, _ = open_service(args)
    return MailAccounts(service)


def _stdin_password() -> str:
    line = sys.stdin.readline()
    if not line.strip():
        raise CommandError("--password-stdin reads the password from the first line of standard input, "
                           "and it is empty")
    return line.rstrip("\r\n")


@refusals_are_command_errors
def cmd_register(args: argparse.Namespace) -> Exit:
    accounts = _accounts(args)
    password = _stdin_password() if args.password_stdin else None
    accounts.register(args.game, None, args.power, address=args.address, password=password)
    power, address = args.power.strip().upper(), args.address.strip().lower()
    how = ("with the password given" if password is not None else
           f"a new password is mailed to {address} (when crusader serve sends the judge's mail)")
    print(f"{power} in {args.game} may now be played by mail from {address}; {how}")
    return Exit.OK


@refusals_are_command_errors
def cmd_password(args: argparse.Namespace) -> Exit:
    accounts = _accounts(args)
    power = args.power.strip().upper()
    if args.password_stdin:
        accounts.set_power_password(args.game, None, power, _stdin_password())
        print(f"the password of {power} in {args.game} is set")
    else:
        address = accounts.mail_password(args.game, None, power)
        print(f"a new password for {power} in {args.game} is mailed to {address} "
              f"(the old one works until it leaves)")
    return Exit.OK


@refusals_are_command_errors
def cmd_list(args: argparse.Namespace) -> Exit:
    view, rows = _accounts(args).registrations(args.game)
    if args.format == "json":
        print(json.dumps({"game": view.name, "gm": view.gm, "powers": [
            {"power": r.power, "address": r.address, "player": r.player, "password": r.has_password,
             "password_owed": r.password_owed, "password_mailed": r.password_mailed, "current": r.current}
            for r in rows]}))
        return Exit.OK
    print(f"{view.name}: powers played by mail ({len(rows)}); game master {view.gm}")
    for r in rows:
        if r.password_owed:
            state = "a new password waits to be mailed (when crusader serve sends the judge's mail)"
        elif r.password_mailed:
            state = "a new password was mailed; not signed on with yet"
        else:
            state = "password set" if r.has_password else "no password"
        if not r.current:
            state += "; not its player any more (the power has another or none)"
        print(f"  {r.power}  {r.address or '-'}  player {r.player or '(whoever plays it)'}  ({state})")
    return Exit.OK


@refusals_are_command_errors
def cmd_remove(args: argparse.Namespace) -> Exit:
    address = _accounts(args).remove(args.game, None, args.power)
    print(f"{args.power.strip().upper()} in {args.game} is no longer played by mail from {address or 'any address'}")
    return Exit.OK


TEST_BODY = """This is a test of the Crusader Judge's mail, sent by its game master to this address.

You are reading it: the judge's mail leaves through its relay ({relay}) and reaches
you. Look at this message's headers: "Authentication-Results" should say spf=pass and dkim=pass
for {domain}, or players' mail providers may file the judge's results as spam.

Now reply to it, as it is, from this address: the judge answers your reply with its list of
commands. That answer shows mail to {address} reaches the judge too, and the loop is whole.
"""


def cmd_test(args: argparse.Namespace) -> Exit:
    """The relay tried, then a test message to ``args.address`` through it, saying how to close the loop."""
    import asyncio

    from bot.frontends.mail.addresses import AddressError, normalise
    from bot.frontends.mail.config import MailSettings
    from bot.frontends.mail.outbound import Mailer
    from bot.frontends.mail.replies import announcement_message
    from bot.store.outbox import Delivered, Outcome

    from .reference import read

    from bot.app.logging import configure

    config = settings(args)
    configure("WARNING" if config.log_level.upper() == "INFO" else config.log_level, config.log_format)
    mail = read(MailSettings)
    if not mail.address:
        raise CommandError("e-mail is off: set CRUSADER_MAIL_ADDRESS to the judge's address (docs/mail-deployment.md)",
                           Exit.FAILED)
    try:
        to = normalise(args.address)
    except AddressError as exc:
        raise CommandError(f"{args.address!r} is not an address the judge can mail: {exc}") from None
    mailer = Mailer(mail)
    problem = asyncio.run(mailer.probe())
    if problem:
        raise CommandError(problem, Exit.FAILED)
    print(f"the relay {mailer.relay} takes the judge's mail from {mail.address}")
    body = TEST_BODY.format(relay=mailer.relay, address=mail.address, domain=mail.address.rpartition("@")[2])
    message = announcement_message(mail.address, to, "Crusader Judge: a test of the mail loop", body,
                                   auto="no")

    async def send_once() -> Outcome:
        try:
            return await mailer.deliver(message, to)
        finally:
            await mailer.close()

    outcome = asyncio.run(send_once())
    if not isinstance(outcome, Delivered):
        raise CommandError(f"the test message to {to} was not sent: {outcome.reason}", Exit.FAILED)
    print(f"a test message went to {to}; reply to it from there: the judge's answer (its list of commands) "
          f"shows mail to {mail.address} reaches it")
    return Exit.OK


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("mail", help="who plays which power by mail (addresses and passwords)",
                              description="Who plays which power by mail. A player named by an e-mail address "
                              "(game join, assign, replace, or JOIN by mail) is registered and sent a password "
                              "when the game starts or the power becomes theirs; these commands register any "
                              "other address (a Discord player's too) and manage them (docs/mail.md).")
    sub = p.add_subparsers(dest="mail_command", metavar="SUBCOMMAND")
    sub.required = True

    def cmd(name, func, help):
        q = sub.add_parser(name, help=help, description=help)
        add_database_options(q)
        q.set_defaults(func=func)
        q.add_argument("game", help="the game's name")
        return q

    q = cmd("register", cmd_register, "register the address a power's player writes from; the judge mails it "
            "a new password, unless --password-stdin gives one")
    q.add_argument("power", help="the power's code, like ANT")
    q.add_argument("address", help="the player's e-mail address")
    q.add_argument("--password-stdin", action="store_true",
                   help="set the password read from the first line of standard input instead")
    q = cmd("password", cmd_password, "a new password for a power: made and mailed by the judge, or read "
            "with --password-stdin")
    q.add_argument("power", help="the power's code")
    q.add_argument("--password-stdin", action="store_true",
                   help="set the password read from the first line of standard input instead")
    q = cmd("list", cmd_list, "the powers of a game played by mail: address, player, password set or owed")
    q.add_argument("--format", choices=("text", "json"), default="text")
    q = cmd("remove", cmd_remove, "forget a power's address and password: it is no longer played by mail")
    q.add_argument("power", help="the power's code")
    q = sub.add_parser("test", help="try the relay and mail a test message to ADDRESS, whose reply tests the way "
                       "in (docs/mail-deployment.md)", description="Try the relay as the judge would, then "
                       "mail a test message to ADDRESS (your own) through it; reply to it, and the judge's "
                       "answer shows mail reaches the judge too. Exit 1, with the reason, when the relay "
                       "cannot be used.")
    q.add_argument("address", help="an address of yours to mail the test to")
    q.set_defaults(func=cmd_test)
