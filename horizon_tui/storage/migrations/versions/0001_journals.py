"""Campaigns and battles as journals: a row per GM action or battle input, snapshots of a
campaign's state, the session log as rows.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("slug", sa.String(64), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("head", sa.BigInteger(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_campaigns"),
        sa.UniqueConstraint("slug", name="uq_campaigns_slug"),
    )
    op.create_table(
        "campaign_log",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_campaign_log_campaign_id_campaigns"),
        sa.PrimaryKeyConstraint("campaign_id", "position", name="pk_campaign_log"),
    )
    op.create_table(
        "campaign_journal",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("change", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_campaign_journal_campaign_id_campaigns"),
        sa.PrimaryKeyConstraint("campaign_id", "seq", name="pk_campaign_journal"),
    )
    op.create_table(
        "campaign_snapshots",
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_campaign_snapshots_campaign_id_campaigns"),
        sa.PrimaryKeyConstraint("campaign_id", "seq", name="pk_campaign_snapshots"),
    )
    op.create_table(
        "battles",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("slot", sa.String(128), nullable=False),
        sa.Column("setup", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("head", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_battles"),
        sa.UniqueConstraint("slot", name="uq_battles_slot"),
    )
    op.create_table(
        "battle_inputs",
        sa.Column("battle_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("input", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["battle_id"], ["battles.id"], ondelete="CASCADE",
                                name="fk_battle_inputs_battle_id_battles"),
        sa.PrimaryKeyConstraint("battle_id", "seq", name="pk_battle_inputs"),
    )


def downgrade() -> None:
    for table in ("battle_inputs", "battles", "campaign_snapshots", "campaign_journal", "campaign_log", "campaigns"):
        op.drop_table(table)
