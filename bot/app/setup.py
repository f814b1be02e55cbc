"""What the judge needs before it can run, each failure said as the setting to change.

An operator's mistake (a database that does not answer, a directory that cannot be made, a port
already taken, a Discord token refused) is a :class:`SetupError`: ``crusader`` prints its one
sentence and exits 1. It is not a bug (exit 3).
"""

from __future__ import annotations

import errno
import socket
from contextlib import contextmanager
from collections.abc import Iterator

from .errors import SetupError
from .settings import Settings

__all__ = ["SetupError", "database_errors", "listen_error", "make_directories", "open_database", "stray_data_dir"]


def make_directories(settings: Settings) -> None:
    """The data directory, and the directories the settings name, made if missing."""
    wanted = [("CRUSADER_DATA_DIR (or --data-dir)", settings.data_dir)]
    if settings.archive_dir is not None:
        wanted.append(("CRUSADER_ARCHIVE_DIR", settings.archive_dir))
    if settings.announce_jsonl is not None:
        wanted.append(("CRUSADER_ANNOUNCE_JSONL", settings.announce_jsonl.parent))
    for name, path in wanted:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise SetupError(f"{path} is a file, not a directory; set {name} to a directory") from None
        except OSError as exc:
            raise SetupError(f"cannot make the directory {path} ({exc.strerror}); set {name} to a directory "
                             "the judge may write") from None


def open_database(settings: Settings, *, migrate: bool = True, create: bool = True):
    """The judge's :class:`~bot.store.database.Database`, its schema brought up to date.

    ``create=False`` (what reads, and what acts on games that must already exist): a SQLite file
    that is not there is a :class:`SetupError` naming where it was looked for, and nothing is made.
    """
    import sqlalchemy.exc

    from bot.store.database import Database

    if not create and settings.sqlite_file is not None and not settings.sqlite_file.exists():
        raise SetupError(f"there is no judge database at {settings.sqlite_file} (nothing was made there); "
                         f"set {_where(settings)} to where crusader serve keeps its data, or make the first game "
                         "with crusader game create")
    try:
        db = Database(settings.url)
    except (sqlalchemy.exc.ArgumentError, sqlalchemy.exc.NoSuchModuleError, ValueError) as exc:
        raise SetupError(f"the database URL {_shown_url(settings.url)} is not one the judge can use "
                         f"({_first_line(exc)}); set {_where(settings)} to sqlite:///PATH or "
                         "postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE") from None
    except ImportError as exc:
        extra = " install it with pip install 'crusader-judge[postgres]', or" if "psycopg" in str(exc) else ""
        raise SetupError(f"the database URL {_shown_url(settings.url)} needs a driver that is not installed ({exc});"
                         f"{extra} set {_where(settings)} to a sqlite:// or postgresql+psycopg:// URL") from None
    if migrate:
        with database_errors(settings, db):
            db.migrate()
    return db


@contextmanager
def database_errors(settings: Settings, db=None) -> Iterator[None]:
    """What the database answers inside the block, as a :class:`SetupError` naming the setting."""
    import sqlalchemy.exc

    try:
        yield
    except sqlalchemy.exc.OperationalError as exc:
        if db is not None:
            db.dispose()
        raise SetupError(f"the database at {_shown_url(settings.url)} does not answer: "
                         f"{_first_line(exc.orig or exc)}; check that it runs and that its user exists, "
                         f"or set {_where(settings)}") from None
    except sqlalchemy.exc.DBAPIError as exc:
        if db is not None:
            db.dispose()
        raise SetupError(f"the database at {_shown_url(settings.url)} refused the judge: "
                         f"{_first_line(exc.orig or exc)}; give its user the rights to create tables, "
                         f"or set {_where(settings)}") from None


def stray_data_dir(settings: Settings):
    """A ``./data`` with a judge's database in the current directory, when the data directory in use
    is another one by default (the judge kept its data there before it had a per-user default)."""
    from pathlib import Path

    if settings.data_dir_chosen or settings.database_url:
        return None
    here = Path("data").resolve()
    if (here / "crusader.db").exists() and here != settings.data_dir:
        return here
    return None


def _where(settings: Settings) -> str:
    return ("CRUSADER_DATABASE_URL (or --database)" if settings.database_url
            else "CRUSADER_DATA_DIR (or --data-dir; the SQLite file is in it)")


def listen_error(exc: OSError, what: str, host: str, port: int, host_setting: str, port_setting: str,
                 off: str = "") -> SetupError:
    """The sentence for a listener that could not bind ``host:port``."""
    if exc.errno == errno.EADDRINUSE:
        why = "the port is in use (another program, or another crusader serve)"
    elif exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(exc, socket.gaierror):
        why = f"this machine has no address {host}"
    elif exc.errno == errno.EACCES:
        why = "ports below 1024 need privileges"
    else:
        why = exc.strerror or str(exc)
    return SetupError(f"{what} cannot listen on {host}:{port}: {why}; set {port_setting} to a free port"
                      f"{off}, or {host_setting} to another address")


def _shown_url(url: str) -> str:
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 (an unreadable URL is shown without what may be a password)
        return url.split("@")[-1] if "@" in url else url


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
