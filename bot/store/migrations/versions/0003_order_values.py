"""Standing orders keep the order as a value (its fields, ``bot.codec.values``), not as text.

The column ``canonical`` (the order in the judge's notation) gives way to ``order`` (JSON);
each existing row's text is read once, here, with the reader of position documents.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

_orders = sa.table('orders', sa.column('id', sa.Integer), sa.column('game_id', sa.Integer),
                   sa.column('phase', sa.String), sa.column('canonical', sa.Text), sa.column('order', sa.JSON))
_game = sa.table('game', sa.column('id', sa.Integer), sa.column('variant', sa.String))


def upgrade() -> None:
    from adjudicator.variant import get_variant
    from adjudicator.vocab import Phase
    from bot.codec.documents import read_orders
    from bot.codec.values import order_to_json

    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('order', sa.JSON(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.select(_orders.c.id, _orders.c.phase, _orders.c.canonical, _game.c.variant)
                              .join(_game, _game.c.id == _orders.c.game_id)).all()
    for row_id, phase, text, variant in rows:
        orders, errors = read_orders([text], get_variant(variant), Phase.parse(phase))
        if errors:
            raise RuntimeError(f"standing order {row_id} ({text!r}) cannot be read: {errors[0]}")
        connection.execute(_orders.update().where(_orders.c.id == row_id).values(order=order_to_json(orders[0])))
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.alter_column('order', existing_type=sa.JSON(), nullable=False)
        batch_op.drop_column('canonical')


def downgrade() -> None:
    from adjudicator.orders import canonical
    from bot.codec.values import order_from_json

    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.add_column(sa.Column('canonical', sa.Text(), nullable=True))
    connection = op.get_bind()
    for row_id, value in connection.execute(sa.select(_orders.c.id, _orders.c.order)).all():
        connection.execute(_orders.update().where(_orders.c.id == row_id)
                           .values(canonical=canonical(order_from_json(value))))
    with op.batch_alter_table('orders', schema=None) as batch_op:
        batch_op.alter_column('canonical', existing_type=sa.Text(), nullable=False)
        batch_op.drop_column('order')
