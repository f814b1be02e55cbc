"""``crusader serve``, ``crusader migrate`` and ``crusader health``: the judge's process and its database."""

from __future__ import annotations

import argparse
import sys
import textwrap

from .common import Exit
from .shell import add_database_options, open_service, refusals_are_command_errors, settings


def cmd_serve(args: argparse.Namespace) -> Exit:
    from bot.app.serve import serve

    from .reference import check

    config = settings(args)
    check()  # every front end's settings, before anything starts
    import asyncio

    asyncio.run(serve(config))
    return Exit.OK


@refusals_are_command_errors
def cmd_migrate(args: argparse.Namespace) -> Exit:
    """Bring the database schema up to date (``serve`` does this too, at start)."""
    _, db = open_service(args, create=True, say_new=False)
    print(f"database schema up to date: {db.engine.url.render_as_string(hide_password=True)}")
    return Exit.OK


def cmd_health(args: argparse.Namespace) -> Exit:
    """Exit 0 when the database answers with the newest schema and no front end of a ``crusader
    serve`` running on this data directory has failed; for container healthchecks."""
    from bot.app.setup import SetupError, database_errors, open_database
    from bot.app.status import running_servers
    from bot.store.migrations import current as schema_at, heads as newest

    config = settings(args)
    try:
        db = open_database(config, migrate=False, create=False)
        with database_errors(config, db), db.engine.connect() as connection:
            current = schema_at(connection)
        heads = newest()
        db.dispose()
    except SetupError as exc:
        print(f"crusader: unhealthy: {exc}", file=sys.stderr)
        return Exit.FAILED
    except Exception as exc:  # noqa: BLE001 (whatever the database says, it is the answer to "is it healthy?")
        print(f"crusader: unhealthy: the database does not answer: {type(exc).__name__}: {exc}", file=sys.stderr)
        return Exit.FAILED
    if current != heads:
        print(f"crusader: unhealthy: schema at {sorted(current)}, expected {sorted(heads)}; run 'crusader migrate'",
              file=sys.stderr)
        return Exit.FAILED
    servers = running_servers(config.data_dir)
    problems = [f"{name} front end of {server.node}: {problem}"
                for server in servers for name, problem in sorted(server.problems.items())]
    if problems:
        print("crusader: unhealthy: " + "; ".join(problems), file=sys.stderr)
        return Exit.FAILED
    running = "; ".join(f"{s.node} serving ({', '.join(s.front_ends) or 'no front ends'})" for s in servers)
    print(f"healthy: {running}" if running else "healthy (the database; no crusader serve runs on this data directory)")
    return Exit.OK


class _ServeParser(argparse.ArgumentParser):
    """``crusader serve --help`` lists the settings of its ports and addresses, read from the settings
    models when the help is shown (not on every command: they import the front ends)."""

    def format_help(self) -> str:
        from .reference import listening

        self.epilog = ("Ports and addresses, set in the environment ('crusader settings' shows them\n"
                       "all, docs/settings.md explains each):\n"
                       + "\n".join(textwrap.fill(line, 79, initial_indent="  ", subsequent_indent="      ")
                                   for line in listening()))
        return super().format_help()


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("serve", help="run the judge: deadlines, adjudication, announcements, front ends",
                              description=textwrap.fill(
                                  "Run the judge: deadlines, adjudication exactly once, announcements, and the "
                                  "front ends that are configured (e-mail, the archive site, Discord). Stops "
                                  "cleanly on SIGTERM or Ctrl-C. Exit 1, with the setting to change, when the "
                                  "database, a directory, a port or the Discord token cannot be used.", 79),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.__class__ = _ServeParser
    add_database_options(p)
    p.set_defaults(func=cmd_serve)
    p = subparsers.add_parser("migrate", help="bring the database schema up to date")
    add_database_options(p)
    p.set_defaults(func=cmd_migrate)
    p = subparsers.add_parser("health", help="exit 0 when the database answers with the newest schema")
    add_database_options(p)
    p.set_defaults(func=cmd_health)
