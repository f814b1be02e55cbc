"""Seasons keep their orders and results as values (``bot.codec.season``), not as text.

Each season's orders lose ``canonical`` (the order in the judge's notation) for ``order`` (its
fields), and its result document becomes the adjudication as values: each result's order as
fields beside its outcome and reason, the judge's own orders likewise, the events and the next
position as they were. Each existing season's text is read once, here.

Revision ID: 0004
Revises: game_key_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = 'game_key_0001'
branch_labels = None
depends_on = None

_season = sa.table('season', sa.column('id', sa.Integer), sa.column('game_id', sa.Integer),
                   sa.column('version', sa.Integer), sa.column('phase', sa.String),
                   sa.column('position', sa.JSON), sa.column('orders', sa.JSON), sa.column('result', sa.JSON),
                   sa.column('seed', sa.BigInteger), sa.column('nmr', sa.JSON), sa.column('players', sa.JSON),
                   sa.column('deadline_at', sa.DateTime), sa.column('adjudicated_at', sa.DateTime),
                   sa.column('adjudicated_by', sa.String))
_game = sa.table('game', sa.column('id', sa.Integer), sa.column('name', sa.String))


def _rows(connection):
    return connection.execute(sa.select(_season, _game.c.name).join(_game, _game.c.id == _season.c.game_id)).all()


def upgrade() -> None:
    from bot.codec.season import season_columns, season_from_document

    connection = op.get_bind()
    for row in _rows(connection):
        document = {"version": row.version, "phase": row.phase, "position": row.position, "orders": row.orders,
                    "result": row.result, "seed": row.seed, "nmr": row.nmr, "players": row.players}
        columns = season_columns(season_from_document(document, row.name))
        connection.execute(_season.update().where(_season.c.id == row.id)
                           .values(orders=columns["orders"], result=columns["result"]))


def downgrade() -> None:
    from bot.codec.season import season_document, season_from_row

    connection = op.get_bind()
    for row in _rows(connection):
        document = season_document(season_from_row(row, row.name))
        connection.execute(_season.update().where(_season.c.id == row.id)
                           .values(orders=document["orders"], result=document["result"]))
