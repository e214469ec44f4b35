"""Shared fixtures: the shipped catalogue, the RULES.md worked-example character, file writers."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
import tomli_w

from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.characters import character_from_dict
from horizon_tui.content.models import Character
from horizon_tui.content.ruleset import Ruleset

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data"

# RULES.md R-2 worked example (also the INTERFACES.md character file and sheet).
EXAMPLE_ATTRIBUTES: dict[str, int] = {
    "physical": 10, "agility": 10, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1,
}


def example_dict(**overrides: Any) -> dict[str, Any]:
    """The INTERFACES.md example as a character file's keys: a human with a dagger, no armor."""
    data: dict[str, Any] = {
        "name": "Iriel",
        "species": "human",
        "xp": 0,
        "weapon": "dagger",
        "attributes": dict(EXAMPLE_ATTRIBUTES),
    }
    data.update(overrides)
    return data


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def example_attributes() -> Mapping[str, int]:
    """R-2's worked example, read-only (session-scoped, so Hypothesis tests may use it)."""
    return MappingProxyType(dict(EXAMPLE_ATTRIBUTES))


@pytest.fixture(scope="session")
def example_data() -> Callable[..., dict[str, Any]]:
    """`example_data(**overrides)`: a fresh dict of the example character file's keys."""
    return example_dict


@pytest.fixture(scope="session")
def catalogue() -> Catalogue:
    return default_catalogue()


@pytest.fixture(scope="session")
def rules(catalogue: Catalogue) -> Ruleset:
    return catalogue.rules


@pytest.fixture(scope="session")
def make_character(catalogue: Catalogue) -> Callable[..., Character]:
    """`make_character(armor="leather", bonus={...})`: the example character with keys replaced."""

    def make(**overrides: Any) -> Character:
        return character_from_dict(example_dict(**overrides), catalogue, "<test>")

    return make


@pytest.fixture
def write_character(tmp_path: Path) -> Callable[..., Path]:
    """`write_character(data_or_text, name="c.toml")`: a character file in tmp_path.

    A dict is written as TOML or JSON by the name's suffix; a str is written as it is (for
    broken files)."""

    def write(content: dict[str, Any] | str, name: str = "character.toml") -> Path:
        path = tmp_path / name
        if isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif path.suffix == ".json":
            path.write_text(json.dumps(content), encoding="utf-8")
        else:
            path.write_text(tomli_w.dumps(content), encoding="utf-8")
        return path

    return write


@pytest.fixture(autouse=True)
def _private_user_data_dir(tmp_path_factory, monkeypatch):
    """No test writes into the real user data folder (horizon_tui.paths): each gets its own."""
    monkeypatch.setenv("HORIZON_DATA_DIR", str(tmp_path_factory.mktemp("user-data")))


def pytest_terminal_summary(terminalreporter) -> None:
    """Say at the end of every run whether the PostgreSQL tests ran (`postgres_url` below)."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        terminalreporter.write_line(f"PostgreSQL: the tests that need one ran against {url}")
    else:
        terminalreporter.write_line("PostgreSQL: HORIZON_TEST_POSTGRES_URL is not set, so the tests that need "
                                    "one were skipped (.ci/run starts one: .ci/postgres.sh)")


# --- databases: SQLite in a temp folder, and a real PostgreSQL when .ci/run started one ----------

POSTGRES_ENV = "HORIZON_TEST_POSTGRES_URL"
NO_POSTGRES = f"no PostgreSQL: {POSTGRES_ENV} is not set (.ci/run starts one; see .ci/postgres.sh)"


@pytest.fixture
def postgres_url() -> str:
    """A URL of the PostgreSQL .ci/run started (the test is skipped, saying why, without one)
    whose connections see only a fresh schema of their own, dropped after the test, so tests
    running side by side never see each other's rows."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        pytest.skip(NO_POSTGRES)
    pytest.importorskip("psycopg", reason="no PostgreSQL driver: pip install 'horizon-tui[postgres]'")
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:16]}"
    admin = sa.create_engine(sa.make_url(url).set(drivername="postgresql+psycopg"))
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


@pytest.fixture(params=["sqlite", "postgres"])
def sql_url(request) -> str:
    """Each SQL database in turn."""
    return request.getfixturevalue(f"{request.param}_url")
