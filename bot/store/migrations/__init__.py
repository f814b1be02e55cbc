"""The schema's migrations (Alembic), shipped inside the package and applied at start-up.

``upgrade(engine)`` brings any database to the newest revision. On PostgreSQL it holds an
advisory lock while doing so, so that two servers starting together do not race. A database
already at the newest revision (every start but the first after an upgrade of the judge) is
told so by one query, without taking the lock or running Alembic's environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

if TYPE_CHECKING:
    from alembic.config import Config

HERE = Path(__file__).resolve().parent
_ADVISORY_KEY = 0x43525344  # "CRSD"


def alembic_config(connection=None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def heads() -> set[str]:
    """The newest revisions of the migrations shipped (those no other revision follows)."""
    from alembic.script import ScriptDirectory

    return set(ScriptDirectory.from_config(alembic_config()).get_heads())


def current(connection: Connection) -> set[str]:
    """The revisions the database stands at (none for a new database)."""
    from alembic.migration import MigrationContext

    return set(MigrationContext.configure(connection).get_current_heads())


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
