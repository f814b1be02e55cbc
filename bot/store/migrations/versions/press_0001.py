"""Press: the messages players send each other (and the game master) through the judge.

Revision ID: press_0001
Revises: mail_0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'press_0001'
down_revision = 'mail_0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('press',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('phase', sa.String(length=10), nullable=False),
    sa.Column('power', sa.String(length=10), nullable=False),
    sa.Column('player', sa.String(length=200), nullable=False),
    sa.Column('to', sa.JSON(), nullable=False),
    sa.Column('broadcast', sa.Boolean(), nullable=False),
    sa.Column('to_gm', sa.Boolean(), nullable=False),
    sa.Column('anonymous', sa.Boolean(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_press_game_id', 'press', ['game_id'], unique=False)
    op.create_index('ix_press_game_power_at', 'press', ['game_id', 'power', 'at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_press_game_power_at', table_name='press')
    op.drop_index('ix_press_game_id', table_name='press')
    op.drop_table('press')
