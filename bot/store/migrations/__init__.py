"""The schema's migrations (Alembic), shipped inside the package and applied at start-up.

``upgrade(engine)`` brings any database to the newest revision. On PostgreSQL it holds an
advisory lock while doing so, so that two servers starting together do not race.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Engine

HERE = Path(__file__).resolve().parent
_ADVISORY_KEY = 0x43525344  # "CRSD"


def alembic_config(connection=None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(HERE))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    with engine.connect() as connection:
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
