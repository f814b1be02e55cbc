"""Refusals found by an index of their own: every announcement's mail asks who refused the game's
mail for good, which read every delivery of the game (thousands in a long game); the index holds
the refusals only.

Revision ID: refused_0001
Revises: press_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'refused_0001'
down_revision = 'press_0001'
branch_labels = None
depends_on = None

REFUSED = "state = 'refused'"


def upgrade() -> None:
    op.create_index('ix_delivery_refused', 'delivery', ['game_id', 'notifier', 'recipient'], unique=False,
                    postgresql_where=sa.text(REFUSED), sqlite_where=sa.text(REFUSED))


def downgrade() -> None:
    op.drop_index('ix_delivery_refused', table_name='delivery')
