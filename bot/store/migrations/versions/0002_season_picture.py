"""Seasons keep their picture: the PNG drawn when the season was adjudicated.

Revision ID: 0002
Revises: mail_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = 'mail_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.add_column(sa.Column('picture', sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('season', schema=None) as batch_op:
        batch_op.drop_column('picture')
