"""The SSH host's records: accounts, what was imported from a data folder, offers to a GM,
players' characters, and who holds which save across hosts.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "host_accounts",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("key_lines", sa.Text(), nullable=False),
        sa.Column("changed_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_host_accounts"),
    )
    op.create_table(
        "host_imports",
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("imported_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("source", name="pk_host_imports"),
    )
    op.create_table(
        "host_offers",
        sa.Column("gm", sa.String(32), nullable=False),
        sa.Column("player", sa.String(32), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("offered_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("gm", "player", "filename", name="pk_host_offers"),
    )
    op.create_table(
        "host_characters",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("changed_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("account", "filename", name="pk_host_characters"),
    )
    op.create_table(
        "host_save_holders",
        sa.Column("save", sa.String(255), nullable=False),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("who", sa.Text(), nullable=False),
        sa.Column("host", sa.String(255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("since", sa.Float(), nullable=False),
        sa.Column("session", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("save", name="pk_host_save_holders"),
    )


def downgrade() -> None:
    for table in ("host_save_holders", "host_characters", "host_offers", "host_imports", "host_accounts"):
        op.drop_table(table)
