"""Battles in progress as journals (storage.battles): what opening checks after the last input.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("battles") as batch:  # SQLite alters a table by copying it: batch mode does that
        batch.add_column(sa.Column("checks", sa.Text(), nullable=False, server_default="{}"))


def downgrade() -> None:
    with op.batch_alter_table("battles") as batch:
        batch.drop_column("checks")
