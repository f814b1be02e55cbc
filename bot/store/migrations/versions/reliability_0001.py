"""The outbox's claim reads only the heads of the delivery queues, through partial indexes.

A delivery is claimable when it is the first pending delivery of its queue (one notifier, one
recipient, one game): ``delivery.queue_head`` marks it, so that a claim reads an index of the
heads that are due, whatever the number of deliveries waiting behind them. The next delivery of
a queue is found through a partial index of the pending deliveries; the announcements still to
fan out through one of the unexpanded announcements. On PostgreSQL the two tables are analysed
at once and more often than the defaults (after a storm, a plan made for an empty table).

Revision ID: reliability_0001
Revises: discord_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'reliability_0001'
down_revision = 'discord_0001'
branch_labels = None
depends_on = None

PENDING = "state = 'pending'"
HEADS = "state = 'pending' AND queue_head"
UNEXPANDED = "expanded_at IS NULL"
# analyse a table once a hundredth of it has changed (at least 500 rows), not a tenth
STATISTICS = "autovacuum_analyze_scale_factor = 0.01, autovacuum_analyze_threshold = 500"


def upgrade() -> None:
    with op.batch_alter_table('delivery', schema=None) as batch_op:
        batch_op.add_column(sa.Column('queue_head', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.drop_index('ix_delivery_due')
        batch_op.drop_index('ix_delivery_queue')
    # the first pending delivery of each queue is its head
    op.execute("UPDATE delivery SET queue_head = true WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER "
               "(PARTITION BY notifier, recipient, game_id ORDER BY outbox_id, id) AS n FROM delivery "
               f"WHERE {PENDING}) AS queues WHERE n = 1)")
    op.create_index('ix_delivery_heads', 'delivery', ['notifier', 'due_at', 'id'], unique=False,
                    postgresql_where=sa.text(HEADS), sqlite_where=sa.text(HEADS))
    op.create_index('ix_delivery_queue_pending', 'delivery', ['game_id', 'notifier', 'recipient', 'outbox_id'],
                    unique=False, postgresql_where=sa.text(PENDING), sqlite_where=sa.text(PENDING))
    op.create_index('ix_outbox_unexpanded', 'outbox', ['id'], unique=False,
                    postgresql_where=sa.text(UNEXPANDED), sqlite_where=sa.text(UNEXPANDED))
    if op.get_bind().dialect.name == "postgresql":
        for table in ("delivery", "outbox"):
            op.execute(f"ALTER TABLE {table} SET ({STATISTICS})")
            op.execute(f"ANALYZE {table}")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in ("delivery", "outbox"):
            op.execute(f"ALTER TABLE {table} RESET (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)")
    op.drop_index('ix_outbox_unexpanded', table_name='outbox')
    op.drop_index('ix_delivery_queue_pending', table_name='delivery')
    op.drop_index('ix_delivery_heads', table_name='delivery')
    with op.batch_alter_table('delivery', schema=None) as batch_op:
        batch_op.create_index('ix_delivery_queue', ['notifier', 'recipient', 'game_id', 'state'], unique=False)
        batch_op.create_index('ix_delivery_due', ['state', 'due_at'], unique=False)
        batch_op.drop_column('queue_head')
