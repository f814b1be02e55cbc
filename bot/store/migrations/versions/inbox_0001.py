"""Inbox cursors (how far each front end has read each conversation) and wrong sign-on passwords
kept in a table (shared by every server, kept across restarts).

Revision ID: inbox_0001
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'inbox_0001'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('inbox_cursor',
    sa.Column('front_end', sa.String(length=20), nullable=False),
    sa.Column('conversation', sa.String(length=40), nullable=False),
    sa.Column('last_id', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('front_end', 'conversation')
    )
    op.create_table('mail_signon_failure',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('power', sa.String(length=10), nullable=False),
    sa.Column('source', sa.String(length=254), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_mail_signon_failure_power', 'mail_signon_failure', ['game_id', 'power', 'at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_mail_signon_failure_power', table_name='mail_signon_failure')
    op.drop_table('mail_signon_failure')
    op.drop_table('inbox_cursor')
