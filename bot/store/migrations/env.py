"""Alembic environment: runs on the connection handed over by ``bot.store.migrations.upgrade``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

from bot.store import inbox as _inbox_rows  # noqa: F401  (how far each front end has read)
from bot.store import mail as _mail_rows  # noqa: F401  (the e-mail front end's tables)
from bot.store import rows as _rows  # noqa: F401  (the tables register themselves on the metadata)

config = context.config
target_metadata = SQLModel.metadata


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:  # ``alembic -x url=...`` from a shell
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if url is None:
        raise SystemExit("name the database: alembic -x url=<database URL> ...")
    with create_engine(url).connect() as conn:
        _run(conn)
        conn.commit()
