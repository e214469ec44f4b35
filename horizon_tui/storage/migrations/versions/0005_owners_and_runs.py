"""A host's shared database keeps every account's runs, battles and campaigns: an owner column on
battles and campaigns (a slot or a slug is unique per owner; "" in a saves folder's own database)
and the runs table.

Revision ID: 0005
Revises: 0004
"""

import contextlib
from collections.abc import Iterator

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


# The tables whose rows point at battles and campaigns (ON DELETE CASCADE).
CHILDREN = {"battles": ("battle_inputs",), "campaigns": ("campaign_log", "campaign_journal", "campaign_snapshots")}


def upgrade() -> None:
    for table, name in (("battles", "slot"), ("campaigns", "slug")):
        with _children_kept(table):
            with op.batch_alter_table(table) as batch:  # SQLite alters a table by copying it: batch mode does that
                batch.add_column(sa.Column("owner", sa.String(32), nullable=False, server_default=""))
                batch.drop_constraint(f"uq_{table}_{name}", type_="unique")
                batch.create_unique_constraint(f"uq_{table}_owner", ["owner", name])
    op.create_table(
        "runs",
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("run_id", sa.String(96), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("over", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.Column("morgue", sa.Text(), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("owner", "run_id", name="pk_runs"),
    )


def downgrade() -> None:
    op.drop_table("runs")
    for table, name in (("battles", "slot"), ("campaigns", "slug")):
        with _children_kept(table), op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"uq_{table}_owner", type_="unique")
            batch.create_unique_constraint(f"uq_{table}_{name}", [name])
            batch.drop_column("owner")


@contextlib.contextmanager
def _children_kept(table: str) -> Iterator[None]:
    """On SQLite, batch mode drops the old table once it is copied, and with foreign keys on (as
    Horizon opens it, storage.database) that drop deletes every row pointing at it: a battle's
    inputs, a campaign's log and journal. They are kept in temporary tables meanwhile and put
    back (same ids: the copy keeps them). PostgreSQL alters the table in place."""
    if op.get_bind().dialect.name != "sqlite":
        yield
        return
    for child in CHILDREN[table]:
        op.execute(f"CREATE TEMP TABLE kept_{child} AS SELECT * FROM {child}")
    yield
    for child in CHILDREN[table]:
        op.execute(f"INSERT INTO {child} SELECT * FROM kept_{child}")
        op.execute(f"DROP TABLE kept_{child}")
