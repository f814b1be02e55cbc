"""Game keys: one normalisation of game names (case, punctuation), unique.

Two games whose names differ only in case or punctuation shared an archive folder and could be
taken one for the other. Each game gets its key (``bot.store.names.game_key``); of games already
sharing one, the later keeps its name with ``#<id>`` added, so that every key is unique.

Revision ID: game_key_0001
Revises: delivery_0001
"""

from __future__ import annotations

import re
import unicodedata

import sqlalchemy as sa
from alembic import op

revision = 'game_key_0001'
down_revision = 'delivery_0001'
branch_labels = None
depends_on = None


_SEPARATORS = re.compile(r"[\W_]+")


def game_key(name: str) -> str:
    """The key of a game name as ``bot.store.names.game_key`` made it when this migration was
    written (a copy, frozen: the migration does what it did then, whatever that function becomes)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _SEPARATORS.sub("-", folded).strip("-")


def upgrade() -> None:
    # (added in place, without rebuilding the table, which SQLite could not do under the foreign
    # keys pointing at it; the empty default is never left in a row)
    op.add_column('game', sa.Column('key', sa.String(length=100), nullable=False, server_default=''))
    connection = op.get_bind()
    game = sa.table('game', sa.column('id', sa.Integer), sa.column('name', sa.String), sa.column('key', sa.String))
    taken: set[str] = set()
    for game_id, name in connection.execute(sa.select(game.c.id, game.c.name).order_by(game.c.id)).all():
        key = game_key(name) or f"game-{game_id}"
        if key in taken:
            suffix = f" #{game_id}"
            name = name[:100 - len(suffix)] + suffix
            key = game_key(name)
        taken.add(key)
        connection.execute(sa.update(game).where(game.c.id == game_id).values(name=name, key=key))
    op.create_index('ix_game_key', 'game', ['key'], unique=True)


def downgrade() -> None:
    op.drop_index('ix_game_key', table_name='game')
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_column('key')
