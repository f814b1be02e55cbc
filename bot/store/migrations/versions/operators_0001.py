"""What a game master did (``gm_action``), concessions (``player.concede_to``), and announcements
superseded before they were delivered (``outbox.superseded_by``).

Revision ID: operators_0001
Revises: pace_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'operators_0001'
down_revision = 'pace_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('gm_action',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('phase', sa.String(length=10), nullable=True),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor', sa.String(length=200), nullable=True),
    sa.Column('action', sa.String(length=40), nullable=False),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('gm_action', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_gm_action_game_id'), ['game_id'], unique=False)
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('concede_to', sa.String(length=10), nullable=True))
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('superseded_by', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('superseded_by')
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('concede_to')
    with op.batch_alter_table('gm_action', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_gm_action_game_id'))
    op.drop_table('gm_action')
