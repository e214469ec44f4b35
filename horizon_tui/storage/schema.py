"""The database's tables, as SQLAlchemy Core metadata: one schema for SQLite and PostgreSQL.

Only portable types (Integer, BigInteger, Float, String, Text): JSON documents are stored as Text
and read back through storage's own guarded reader, so a damaged row is a clear error, never a
crash. Alembic's migrations (storage/migrations/versions) create these tables; a test checks that
the migrated database and this metadata agree.

Campaigns and battles are journals: a row per GM action or battle input, written in one transaction
(O(change)); a snapshot of a campaign's state (everything but its log) every few rows keeps opening fast.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger, Column, Float, ForeignKey, Integer, LargeBinary, MetaData, String, Table, Text, UniqueConstraint,
)

# Constraint names fixed by convention, so a migration can name what it alters on either database.
metadata = MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})

campaigns = Table(
    "campaigns", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("slug", String(64), nullable=False),  # the name in files and on the command line
    Column("name", Text, nullable=False),
    Column("created_at", Float, nullable=False),  # time.time()
    Column("updated_at", Float, nullable=False),
    Column("head", BigInteger, nullable=False, default=0),  # the last journal row's seq
    Column("summary", Text, nullable=False, default="{}"),  # day, party, npcs: the list's line without opening it
    # whose: "" in a saves folder's own database; the GM's account in a host's shared one (migration 0005)
    Column("owner", String(32), nullable=False, server_default=""),
    UniqueConstraint("owner", "slug"),
)

campaign_log = Table(
    "campaign_log", metadata,
    Column("campaign_id", Integer, ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True),
    Column("position", BigInteger, primary_key=True),  # 0-based, the line's place in the session log
    Column("day", Integer, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("data", Text, nullable=False, default="{}"),
)

campaign_journal = Table(
    "campaign_journal", metadata,
    Column("campaign_id", Integer, ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", BigInteger, primary_key=True),  # 1, 2, … per campaign
    Column("label", Text, nullable=False),  # the action in words
    Column("change", Text, nullable=False),  # JSON: the fields set (after and before) and the log's edit
    Column("at", Float, nullable=False),
)

campaign_snapshots = Table(
    "campaign_snapshots", metadata,
    Column("campaign_id", Integer, ForeignKey("campaigns.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", BigInteger, primary_key=True),  # the state after journal row `seq`
    Column("state", Text, nullable=False),  # JSON: every field but the log
)

battles = Table(
    "battles", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("slot", String(128), nullable=False),  # which save: its file's name in the saves folder (storage.battles)
    Column("setup", Text, nullable=False),  # JSON: the encounter by id and content hash, and a copy of it
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("head", BigInteger, nullable=False, default=0),  # the inputs kept: the last battle_inputs row's seq
    # JSON: the replayed log's length, last event and digest after the last input (what opening checks)
    Column("checks", Text, nullable=False, default="{}"),
    # whose: "" in a saves folder's own database; the player's account in a host's shared one (migration 0005)
    Column("owner", String(32), nullable=False, server_default=""),
    UniqueConstraint("owner", "slot"),
)

battle_inputs = Table(
    "battle_inputs", metadata,
    Column("battle_id", Integer, ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("input", Text, nullable=False),  # JSON: one action as the engine's codec writes it
)

runs = Table(  # the runs of a host's shared database (storage/host_saves.py): each account's, on every host
    "runs", metadata,
    Column("owner", String(32), primary_key=True),  # the account
    Column("run_id", String(96), primary_key=True),
    Column("data", Text, nullable=False),  # JSON: the run (play.runs.run.run_to_dict)
    Column("over", Integer, nullable=False),  # 1 once the run has ended
    Column("updated_at", Float, nullable=False),
    Column("morgue", Text, nullable=False, server_default=""),  # the morgue's text once it is over
)


# --- the SSH host's records (storage/host_sql.py): shared by every host of one database ---------

host_accounts = Table(
    "host_accounts", metadata,
    Column("name", String(32), primary_key=True),
    Column("role", String(8), nullable=False),  # player | gm (anything else reads as player)
    Column("key_lines", Text, nullable=False),  # OpenSSH public key lines, one per line
    Column("changed_at", Float, nullable=False),
)

host_imports = Table(  # what a data folder's files gave the database once, so never twice
    "host_imports", metadata,
    Column("source", String(64), primary_key=True),  # a hash of the machine, the folder and the record
    Column("imported_at", Float, nullable=False),
)

host_offers = Table(  # character files a player offered to a GM's account
    "host_offers", metadata,
    Column("gm", String(32), primary_key=True),
    Column("player", String(32), primary_key=True),
    Column("filename", String(255), primary_key=True),
    Column("content", LargeBinary, nullable=False),
    Column("offered_at", Float, nullable=False),
)

host_characters = Table(  # a player's characters: the TOML file's bytes, as the player app wrote them
    "host_characters", metadata,
    Column("account", String(32), primary_key=True),
    Column("filename", String(255), primary_key=True),
    Column("content", LargeBinary, nullable=False),
    Column("changed_at", Float, nullable=False),
)

host_save_holders = Table(  # one writer per save across hosts (storage/host_locks.py)
    "host_save_holders", metadata,
    Column("save", String(255), primary_key=True),  # ACCOUNT/KIND/FILE
    Column("token", String(64), nullable=False),
    Column("who", Text, nullable=False),
    Column("host", String(255), nullable=False),
    Column("pid", Integer, nullable=False),
    Column("since", Float, nullable=False),
    Column("session", String(64), nullable=False),  # the holder's database session (alive while it is)
)

hall_of_fame = Table(  # every account's finished runs, on every host of one database (storage/host_sql.py)
    "hall_of_fame", metadata,
    Column("run_id", String(96), primary_key=True),
    Column("daily", Integer, nullable=False),  # 1: a daily seed's run (ranked apart)
    Column("entry", Text, nullable=False),  # JSON: the run's line (play.runs.morgue.score_entry)
    Column("added_at", Float, nullable=False),
)
