"""E-mail front end: power identities (address, password hash) and the log of announcements mailed.

Revision ID: mail_0001
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'mail_0001'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('mail_identity',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('power', sa.String(length=10), nullable=False),
    sa.Column('address', sa.String(length=254), nullable=True),
    sa.Column('password_hash', sa.String(length=200), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'power', name='uq_mail_identity_game_power')
    )
    with op.batch_alter_table('mail_identity', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mail_identity_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_mail_identity_address'), ['address'], unique=False)

    op.create_table('mail_sent',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('address', sa.String(length=254), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('key', 'address', name='uq_mail_sent_key_address')
    )


def downgrade() -> None:
    op.drop_table('mail_sent')
    with op.batch_alter_table('mail_identity', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mail_identity_address'))
        batch_op.drop_index(batch_op.f('ix_mail_identity_game_id'))
    op.drop_table('mail_identity')
