"""E-mail front end: the player a power's address was registered for, the mail that owes it a new
password, and the envelope sender of its last right sign-on.

Revision ID: mail_0002
Revises: inbox_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'mail_0002'
down_revision = 'inbox_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('mail_identity', schema=None) as batch_op:
        batch_op.add_column(sa.Column('player', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('password_mail', sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column('signon_sender', sa.String(length=254), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('mail_identity', schema=None) as batch_op:
        batch_op.drop_column('signon_sender')
        batch_op.drop_column('password_mail')
        batch_op.drop_column('player')
