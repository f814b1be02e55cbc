"""The schema's migrations (Alembic), shipped inside the package and applied at start-up.

``upgrade(engine)`` brings any database to the newest revision. On PostgreSQL it holds an
advisory lock while doing so, so that two servers starting together do not race. A database
already at the newest revision (every start but the first after an upgrade of the judge) is
told so by one query, without loading Alembic and the migrations.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import exc, text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

HERE = Path(__file__).resolve().parent
_ADVISORY_KEY = 0x43525344  # "CRSD"
_ASSIGNED = re.compile(r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(.+?)\s*$", re.MULTILINE)


def alembic_config(connection=None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def heads() -> set[str]:
    """The newest revisions of the migrations shipped (those no other revision follows), read from
    their files' ``revision`` and ``down_revision`` lines."""
    revisions: set[str] = set()
    followed: set[str] = set()
    for path in (HERE / "versions").glob("*.py"):
        assigned = {name: ast.literal_eval(value) for name, value in _ASSIGNED.findall(path.read_text())}
        revisions.add(assigned["revision"])
        before = assigned.get("down_revision")
        followed.update((before,) if isinstance(before, str) else before or ())
    return revisions - followed


def current(connection: Connection) -> set[str] | None:
    """The revisions the database stands at (``None`` when it has none: a new database)."""
    try:
        return {row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))}
    except exc.DBAPIError:
        connection.rollback()
        return None


def upgrade(engine: Engine, revision: str = "head") -> None:
    from alembic import command

    with engine.connect() as connection:
        if revision == "head" and current(connection) == heads():
            connection.rollback()
            return
        postgres = connection.dialect.name == "postgresql"
        if postgres:
            connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _ADVISORY_KEY})
            connection.commit()
        try:
            command.upgrade(alembic_config(connection), revision)
            connection.commit()
        finally:
            if postgres:
                connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _ADVISORY_KEY})
                connection.commit()
