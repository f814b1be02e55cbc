"""Turns at an outside service shared by every server on the database (Discord's global rate limit).

Revision ID: pace_0001
Revises: mail_0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'pace_0001'
down_revision = 'mail_0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('pace',
    sa.Column('name', sa.String(length=60), nullable=False),
    sa.Column('next_turn', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )


def downgrade() -> None:
    op.drop_table('pace')
