"""Delivery per recipient: one row per announcement, notifier and recipient, with its own state.

Replaces the e-mail front end's ``mail_sent`` log, which the delivery rows now cover for every
front end.

Revision ID: delivery_0001
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'delivery_0001'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('expanded_at', sa.DateTime(timezone=True), nullable=True))
    op.create_table('delivery',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('outbox_id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('notifier', sa.String(length=40), nullable=False),
    sa.Column('recipient', sa.String(length=320), nullable=False),
    sa.Column('state', sa.String(length=10), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('due_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('claimed_by', sa.String(length=100), nullable=True),
    sa.Column('claimed_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('first_tried_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('done_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['outbox_id'], ['outbox.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('outbox_id', 'notifier', 'recipient', name='uq_delivery_recipient')
    )
    with op.batch_alter_table('delivery', schema=None) as batch_op:
        batch_op.create_index('ix_delivery_due', ['state', 'due_at'], unique=False)
        batch_op.create_index('ix_delivery_queue', ['notifier', 'recipient', 'game_id', 'state'], unique=False)
        batch_op.create_index(batch_op.f('ix_delivery_outbox_id'), ['outbox_id'], unique=False)
    # announcements already delivered stay so; those still pending are fanned out anew
    op.execute("UPDATE outbox SET expanded_at = delivered_at WHERE delivered_at IS NOT NULL")
    op.drop_table('mail_sent')


def downgrade() -> None:
    op.create_table('mail_sent',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('address', sa.String(length=254), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key', 'address', name='uq_mail_sent_key_address')
    )
    with op.batch_alter_table('delivery', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_delivery_outbox_id'))
        batch_op.drop_index('ix_delivery_queue')
        batch_op.drop_index('ix_delivery_due')
    op.drop_table('delivery')
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('expanded_at')
