"""E-mail front end: the refusals and alarms mailed to (or held back from) each address, so that a
flood of forged messages in someone's name costs that address one mail and a digest, not one each;
and the commands sent in an address's name from another mail system, waiting for the address to
confirm them.

Revision ID: mail_0003
Revises: reliability_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = 'mail_0003'
down_revision = 'reliability_0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('mail_notice',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('address', sa.String(length=254), nullable=False),
                    sa.Column('kind', sa.String(length=20), nullable=False),
                    sa.Column('sent', sa.Boolean(), nullable=False),
                    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
                    sa.PrimaryKeyConstraint('id'))
    op.create_index('ix_mail_notice_address', 'mail_notice', ['address', 'kind', 'at'], unique=False)
    op.create_table('mail_pending',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('address', sa.String(length=254), nullable=False),
                    sa.Column('token_hash', sa.String(length=64), nullable=False),
                    sa.Column('line', sa.String(length=400), nullable=False),
                    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
                    sa.PrimaryKeyConstraint('id'))
    op.create_index('ix_mail_pending_address', 'mail_pending', ['address'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_mail_pending_address', table_name='mail_pending')
    op.drop_table('mail_pending')
    op.drop_index('ix_mail_notice_address', table_name='mail_notice')
    op.drop_table('mail_notice')
