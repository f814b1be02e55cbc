"""Standing orders keep the order as a value (its fields, ``bot.codec.values``), not as text.

The column ``canonical`` (the order in the judge's notation) gives way to ``order`` (JSON);
each existing row's text is read once, here, with the reader of the judge's notation as it was
then (``bot.store.migrations.orders_0003``, frozen: this migration imports nothing that changes).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.store.migrations.orders_0003 import FrozenNotationError, order_json, order_text

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_orders = sa.table('orders', sa.column('id', sa.Integer), sa.column('game_id', sa.Integer),
                   sa.column('phase', sa.String), sa.column('canonical', sa.Text), sa.column('order', sa.JSON))
_game = sa.table('game', sa.column('id', sa.Integer), sa.column('variant', sa.String))


def upgrade() -> None:
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('order', sa.JSON(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.select(_orders.c.id, _orders.c.phase, _orders.c.canonical)
                              .join(_game, _game.c.id == _orders.c.game_id)).all()
    for row_id, phase, text in rows:
        try:
            order = order_json(text, phase)
        except FrozenNotationError as exc:
            raise RuntimeError(f"standing order {row_id} ({text!r}) cannot be read: {exc}") from None
        connection.execute(_orders.update().where(_orders.c.id == row_id).values(order=order))
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.alter_column('order', existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column('canonical')


def downgrade() -> None:
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('canonical', sa.Text(), nullable=True))
    connection = op.get_bind()
    for row_id, value in connection.execute(sa.select(_orders.c.id, _orders.c.order)).all():
        connection.execute(_orders.update().where(_orders.c.id == row_id)
                           .values(canonical=order_text(value)))
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.alter_column('canonical', existing_type=sa.Text(), nullable=False)
        batch_op.drop_column('order')
