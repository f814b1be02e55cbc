"""The ``crusader`` command: its subcommands, one module each, and the one place that turns what
they raise into a message and an exit code (:class:`~bot.cli.common.Exit`). Its stable part is
described in ``docs/cli.md``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import adjudicate, archive, discordbot, game, mail, parse, picture, position, serve, settings, variant
from bot.app.errors import SetupError

from .common import CommandError, Exit


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="crusader", description="Crusader Judge: a Diplomacy judge.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    adjudicate.add_parser(sub)
    variant.add_parser(sub)
    position.add_parser(sub)
    parse.add_parser(sub)
    picture.add_parser(sub)
    serve.add_parser(sub)
    archive.add_verify_parser(sub)
    game.add_parser(sub)
    mail.add_parser(sub)
    archive.add_parser(sub)
    settings.add_parser(sub)
    discordbot.add_parser(sub)
    return parser


class _Version(argparse.Action):
    """``--version``: the installed package's version, looked up only when asked (reading the
    package's metadata takes longer than the rest of ``crusader --help``)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show which judge this is and exit") -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def version() -> str:
    """The installed package's version."""
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("crusader-judge")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except CommandError as exc:
        print(f"crusader: {exc}", file=sys.stderr)
        return exc.code
    except SetupError as exc:  # the judge cannot run as configured: the sentence names the setting
        print(f"crusader: {exc}", file=sys.stderr)
        return Exit.FAILED
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return Exit.OK
    except Exception as exc:  # noqa: BLE001 (a bug: its traceback kept in a file, one line for the user saying where)
        print(f"crusader: internal error: {type(exc).__name__}: {exc} (a fault of the judge, not of what was "
              f"asked; {_keep_traceback()})", file=sys.stderr)
        return Exit.INTERNAL


def _keep_traceback() -> str:
    """Write the traceback of the exception being handled to a file of its own; where it is."""
    import tempfile
    import traceback

    try:
        fd, path = tempfile.mkstemp(prefix="crusader-internal-error-", suffix=".txt")
        with open(fd, "w", encoding="utf-8") as f:
            f.write(traceback.format_exc())
    except OSError:
        return "its traceback could not be written to a file"
    return f"its traceback is in {path}"
