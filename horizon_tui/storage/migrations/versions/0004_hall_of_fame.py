"""The hall of fame in the host's database: every account's finished runs, shared by every host.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hall_of_fame",
        sa.Column("run_id", sa.String(96), nullable=False),
        sa.Column("daily", sa.Integer(), nullable=False),
        sa.Column("entry", sa.Text(), nullable=False),
        sa.Column("added_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_hall_of_fame"),
    )


def downgrade() -> None:
    op.drop_table("hall_of_fame")
