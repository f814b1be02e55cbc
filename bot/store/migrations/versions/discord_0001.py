"""A player's orders marked final ("ready") for a phase (``player.ready_version``).

Revision ID: discord_0001
Revises: operators_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'discord_0001'
down_revision = 'operators_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.add_column(sa.Column('ready_version', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('player', schema=None) as batch_op:
        batch_op.drop_column('ready_version')
