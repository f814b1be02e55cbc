"""Alembic environment: runs on the connection handed over by ``bot.migrations.upgrade``."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from bot import storage  # noqa: F401  (the tables register themselves on the metadata)
from bot.mail import store as _mail_store  # noqa: F401  (the e-mail front end's tables)
from sqlmodel import SQLModel

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
    with create_engine(url).connect() as conn:
        _run(conn)
        conn.commit()
