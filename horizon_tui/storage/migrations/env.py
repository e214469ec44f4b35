"""Alembic's environment for Horizon's schema (storage.schema). Horizon runs the migrations itself
when it opens a database (storage.database.upgrade), passing its connection in
`config.attributes["connection"]`; a developer makes the next migration with
`alembic -x url=sqlite:///FILE revision --autogenerate -m "…"` from this folder's parent."""

from alembic import context
from sqlalchemy import create_engine

from horizon_tui.storage.schema import metadata

config = context.config
connection = config.attributes.get("connection")


def run(conn) -> None:
    # render_as_batch: SQLite alters a table by copying it, which Alembic's batch mode does for us
    context.configure(connection=conn, target_metadata=metadata, render_as_batch=conn.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


if connection is not None:
    run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url")
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///FILE …")
    with create_engine(url).connect() as opened:
        run(opened)
        opened.commit()
