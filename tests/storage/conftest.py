"""Databases for the repository contract tests: SQLite in a temp folder, and a real PostgreSQL when
`HORIZON_TEST_POSTGRES_URL` names one (.ci/run starts a throwaway cluster and sets it; without it
those tests are skipped, saying so). Each PostgreSQL test gets a schema of its own, dropped after,
so tests running side by side never see each other's rows."""

from __future__ import annotations

import os
import uuid

import pytest

POSTGRES_ENV = "HORIZON_TEST_POSTGRES_URL"
NO_POSTGRES = f"no PostgreSQL: {POSTGRES_ENV} is not set (.ci/run starts one; see .ci/postgres.sh)"


def postgres_url_or_skip() -> str:
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(NO_POSTGRES)
    pytest.importorskip("psycopg", reason="no PostgreSQL driver: pip install 'horizon-tui[postgres]'")
    return url


@pytest.fixture
def postgres_url() -> str:
    """A URL whose connections see only a fresh schema of their own (dropped after the test)."""
    import sqlalchemy as sa

    from horizon_tui.storage.host_records import sqlalchemy_url

    url = postgres_url_or_skip()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(sqlalchemy_url(url))
    with admin.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in url else "?"
    yield f"{url}{separator}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'host.db'}"
