"""The host's repositories (storage/host_records.py, host_sql.py): one contract, four implementations — the
in-memory twin, the data folder's files, SQLite and a real PostgreSQL (skipped, saying why,
without HORIZON_TEST_POSTGRES_URL)."""

from __future__ import annotations

import asyncssh
import pytest

from horizon_tui.storage.accounts import AccountError, Accounts, is_valid_name
from horizon_tui.storage.host_records import (
    FolderAccounts,
    FolderOffers,
    MemoryAccounts,
    MemoryCharacters,
    MemoryOffers,
    CharacterOffer,
    StoredCharacter,
    sync_characters,
)
from horizon_tui.storage.database import Database, DatabaseError, open_database
from horizon_tui.storage.host_sql import SqlAccounts, SqlCharacters, SqlOffers
from horizon_tui.storage.schema import host_accounts

KINDS = ["memory", "folder", "sqlite", "postgres"]


@pytest.fixture(params=KINDS)
def kind(request) -> str:
    return request.param


@pytest.fixture
def database_url(kind, request) -> str | None:
    if kind == "sqlite":
        return request.getfixturevalue("sqlite_url")
    if kind == "postgres":
        return request.getfixturevalue("postgres_url")
    return None


@pytest.fixture
def engines():
    made: list[Database] = []

    def make(url: str) -> Database:
        made.append(open_database(url))
        return made[-1]

    yield make
    for database in made:
        database.close()


def _repository(kind, database_url, engines, memory, folder, sql):
    """One repository of each kind: the in-memory twin, the files, or SQL on `database_url`."""
    return {"memory": memory, "folder": folder}.get(kind, lambda: sql(engines(database_url)))()


@pytest.fixture
def accounts_repo(kind, database_url, tmp_path, engines):
    return _repository(kind, database_url, engines, MemoryAccounts, lambda: FolderAccounts(tmp_path / "users"),
                       SqlAccounts)


@pytest.fixture
def offers_repo(kind, database_url, tmp_path, engines):
    return _repository(kind, database_url, engines, MemoryOffers, lambda: FolderOffers(tmp_path / "tables"),
                       SqlOffers)


def _key(comment: str) -> bytes:
    return asyncssh.generate_private_key("ssh-ed25519", comment=comment).export_public_key("openssh").strip()


def _put(repo, name: str, lines: list[bytes]) -> None:
    if isinstance(repo, FolderAccounts):  # the folder is made by Accounts.add before it writes
        (repo.users_dir / name).mkdir(parents=True, exist_ok=True)
    repo.put_keys(name, lines)


# --- accounts ----------------------------------------------------------------------------------

def test_an_account_is_its_keys_and_a_role(accounts_repo):
    repo = accounts_repo
    assert repo.names() == [] and repo.key_lines("alice") == [] and repo.role("alice") == "player"
    one, two = _key("a1"), _key("a2")
    _put(repo, "alice", [one])
    _put(repo, "bob", [two])
    assert repo.names() == ["alice", "bob"]
    assert repo.key_lines("alice") == [one] and repo.role("alice") == "player"
    _put(repo, "alice", [one, two])  # replaced whole, in order
    assert repo.key_lines("alice") == [one, two]
    repo.set_role("alice", "gm")
    assert repo.role("alice") == "gm" and repo.role("bob") == "player"
    repo.set_role("alice", "player")
    assert repo.role("alice") == "player"
    repo.set_role("nobody", "gm")  # no account: nothing made
    assert repo.names() == ["alice", "bob"] and repo.role("nobody") == "player"


def test_a_removed_account_is_gone_and_comes_back_a_player(accounts_repo):
    repo = accounts_repo
    _put(repo, "gwen", [_key("g")])
    repo.set_role("gwen", "gm")
    assert repo.remove("gwen") is True and repo.remove("gwen") is False
    assert repo.names() == [] and repo.key_lines("gwen") == [] and repo.role("gwen") == "player"
    _put(repo, "gwen", [_key("g2")])
    assert repo.role("gwen") == "player"  # a new account by that name starts as a player


def test_accounts_through_each_repository(accounts_repo, tmp_path):
    """The facade the host and `horizon users` use: same answers whatever keeps the records."""
    pub = tmp_path / "k.pub"
    pub.write_bytes(_key("k") + b"\n")
    accounts = Accounts(tmp_path / "srv", accounts_repo)
    assert accounts.add("alice", pub) == (1, True)
    assert accounts.add("alice", pub) == (0, False)
    assert accounts.exists("alice") and not accounts.exists("bob") and not accounts.exists("../x")
    assert accounts.names() == ["alice"] and len(accounts.allowed_keys("alice")) == 1
    accounts.set_role("alice", "gm")
    assert accounts.role("alice") == "gm"
    with pytest.raises(AccountError, match="no user 'bob'"):
        accounts.set_role("bob", "gm")
    assert accounts.remove("alice") == tmp_path / "srv" / "users" / "alice"
    assert accounts.names() == [] and accounts.allowed_keys("alice") == set()


def test_a_role_stored_as_anything_else_reads_as_a_player(sql_url, engines):
    """An account is never given more than it was (the folder's version: test_accounts.py)."""
    database = engines(sql_url)
    SqlAccounts(database).put_keys("zed", [_key("z")])
    with database.writing() as conn:
        conn.execute(host_accounts.update().values(role="root"))
    assert SqlAccounts(database).role("zed") == "player"


def test_folder_accounts_are_imported_once_and_left_in_place(sql_url, engines, tmp_path):
    folders = FolderAccounts(tmp_path / "srv" / "users")
    keys = {name: _key(name) for name in ("alice", "mira", "zed")}
    for name, key in keys.items():
        _put(folders, name, [key])
    folders.set_role("mira", "gm")
    (tmp_path / "srv" / "users" / "nokeys").mkdir()  # a folder without keys is no account
    sql = SqlAccounts(engines(sql_url))
    _put(sql, "zed", [_key("zed-in-the-database")])  # already there: the database's copy stays
    assert sql.import_folders(folders, is_valid_name) == ["alice", "mira"]
    assert sql.names() == ["alice", "mira", "zed"]
    assert sql.key_lines("alice") == [keys["alice"]] and sql.role("mira") == "gm"
    assert sql.key_lines("zed") != [keys["zed"]]
    assert folders.names() == ["alice", "mira", "zed"]  # never deleted
    sql.remove("alice")
    assert sql.import_folders(folders, is_valid_name) == []  # a second start brings nobody back
    assert "alice" not in sql.names()


# --- offers ------------------------------------------------------------------------------------

def test_offers_replace_list_newest_first_and_count_per_player(offers_repo):
    repo = offers_repo
    assert repo.for_gm("mira") == [] and repo.by_player("alice") == []
    repo.put(CharacterOffer("mira", "alice", "iriel.toml", b"name = 'Iriel'\n", 1000.0))
    repo.put(CharacterOffer("mira", "bob", "bran.toml", b"name = 'Bran'\n", 2000.0))
    repo.put(CharacterOffer("otto", "alice", "iriel.toml", b"x", 1500.0))
    assert [(o.player, o.filename) for o in repo.for_gm("mira")] == [("bob", "bran.toml"), ("alice", "iriel.toml")]
    repo.put(CharacterOffer("mira", "alice", "iriel.toml", b"name = 'Iriel II'\n", 3000.0))  # again: replaced
    newest = repo.for_gm("mira")
    assert [o.player for o in newest] == ["alice", "bob"] and newest[0].content == b"name = 'Iriel II'\n"
    assert newest[0].offered_at == pytest.approx(3000.0)
    assert repo.by_player("alice") == [("mira", "iriel.toml"), ("otto", "iriel.toml")]
    assert repo.for_gm("nobody") == []


# --- opening a database ------------------------------------------------------------------------

def test_a_database_that_cannot_be_reached_is_named_without_its_password(tmp_path):
    pytest.importorskip("psycopg")
    with pytest.raises(DatabaseError) as refused:
        open_database(f"postgresql://horizon:s3cret@/nowhere?host={tmp_path}&connect_timeout=2")
    assert "can't be opened" in str(refused.value) and "s3cret" not in str(refused.value)


def test_an_offer_made_through_one_host_is_in_the_gm_import_on_another(sql_url, engines, tmp_path):
    """Two hosts, two tables folders, one database: alice offers on host A, mira imports on B."""
    from horizon_tui.table.lobby import offer_character, offered_by, offers_for

    save = tmp_path / "iriel.toml"
    save.write_text("name = 'Iriel'\n")
    offers = SqlOffers(engines(sql_url))
    offer_character(tmp_path / "a" / "tables", "alice", "mira", save, 10_000, offers)
    assert not (tmp_path / "a" / "tables" / ".offers").exists()  # kept in the database only
    [copy] = offers_for(tmp_path / "b" / "tables", "mira", offers)
    assert copy.read_text() == "name = 'Iriel'\n" and offered_by(copy) == "alice"
    assert copy.parent == tmp_path / "b" / "tables" / ".offers" / "mira"
    assert offers_for(tmp_path / "b" / "tables", "bob", offers) == []


# --- players' characters -----------------------------------------------------------------------

@pytest.fixture(params=["memory", "sqlite", "postgres"])
def characters_repo(request, engines):
    if request.param == "memory":
        return MemoryCharacters()
    return SqlCharacters(engines(request.getfixturevalue(f"{request.param}_url")))


def test_characters_are_rows_per_account(characters_repo):
    repo = characters_repo
    assert repo.listing("alice") == []
    repo.put("alice", StoredCharacter("iriel.toml", b"name = 'Iriel'\n", 100.0))
    repo.put("alice", StoredCharacter("bran.toml", b"name = 'Bran'\n", 200.0))
    repo.put("bob", StoredCharacter("iriel.toml", b"name = 'Bob's'\n", 300.0))
    assert [c.filename for c in repo.listing("alice")] == ["bran.toml", "iriel.toml"]
    repo.put("alice", StoredCharacter("iriel.toml", b"name = 'Iriel'\nxp = 5\n", 400.0))
    [_, iriel] = repo.listing("alice")
    assert iriel.content == b"name = 'Iriel'\nxp = 5\n" and iriel.changed_at == pytest.approx(400.0)
    assert repo.remove("alice", "bran.toml") is True and repo.remove("alice", "bran.toml") is False
    assert [c.filename for c in repo.listing("alice")] == ["iriel.toml"] and len(repo.listing("bob")) == 1


def _synced(repo, folder) -> tuple[list[str], list[str], list[str], list[str]]:
    result = sync_characters(repo, "alice", folder, 10_000)
    return result.written, result.sent, result.unrowed, result.set_aside


def test_two_hosts_characters_folders_agree_through_the_rows(tmp_path):
    """Host A's folder, host B's folder, one repository: the newer copy of each file wins."""
    import os

    repo = MemoryCharacters()
    a, b = tmp_path / "a" / "characters", tmp_path / "b" / "characters"
    a.mkdir(parents=True)
    (a / "iriel.toml").write_bytes(b"name = 'Iriel'\n")
    os.utime(a / "iriel.toml", (1000, 1000))
    (a / ".iriel.toml.owner").write_text("{}")  # not a character: never a row
    (a / "iriel.toml.1").write_text("backup")  # nor a backup
    assert _synced(repo, a) == ([], ["iriel.toml"], [], [])  # there before the database
    assert _synced(repo, b) == (["iriel.toml"], [], [], [])
    assert (b / "iriel.toml").read_bytes() == b"name = 'Iriel'\n" and (b / "iriel.toml").stat().st_mtime == 1000
    assert _synced(repo, b) == ([], [], [], [])  # nothing new either way
    (b / "iriel.toml").write_bytes(b"name = 'Iriel'\nxp = 9\n")  # saved on host B, later
    os.utime(b / "iriel.toml", (2000, 2000))
    assert _synced(repo, b) == ([], ["iriel.toml"], [], [])
    assert _synced(repo, a) == (["iriel.toml"], [], [], [])
    assert (a / "iriel.toml").read_bytes() == b"name = 'Iriel'\nxp = 9\n"


def test_a_character_set_aside_on_one_host_is_set_aside_on_the_other(tmp_path):
    """By hand: 'Set damaged aside' on host A came back at A's next listing (its row was still
    there) and stayed listed on host B. Now its row goes, and B moves its copy aside too."""
    repo = MemoryCharacters()
    a, b = tmp_path / "a" / "characters", tmp_path / "b" / "characters"
    a.mkdir(parents=True)
    (a / "broken.toml").write_text("name = [")
    (a / "iriel.toml").write_text("name = 'Iriel'\n")
    _synced(repo, a)
    _synced(repo, b)
    (a / "damaged").mkdir()
    (a / "broken.toml").rename(a / "damaged" / "broken.toml")  # the Load screen's `m`
    assert _synced(repo, a) == ([], [], ["broken.toml"], [])
    assert not (a / "broken.toml").exists() and [c.filename for c in repo.listing("alice")] == ["iriel.toml"]
    assert _synced(repo, b) == ([], [], [], ["broken.toml"])
    assert (b / "removed" / "broken.toml").read_text() == "name = [" and not (b / "broken.toml").exists()
    assert _synced(repo, a) == _synced(repo, b) == ([], [], [], [])
    (b / "broken.toml").write_text("name = 'Fixed'\n")  # a new file by that name is new again
    assert _synced(repo, b) == ([], ["broken.toml"], [], [])
    assert _synced(repo, a) == (["broken.toml"], [], [], [])


def test_a_hostile_row_never_writes_outside_the_characters_folder(tmp_path):
    repo = MemoryCharacters()
    for name in ("../escape.toml", ".hidden.toml", "notes.txt", "a\0b.toml", ""):
        repo.put("alice", StoredCharacter(name, b"x", 5.0))
    repo.put("alice", StoredCharacter("huge.toml", b"x" * 100, 5.0))
    folder = tmp_path / "saves" / "characters"
    result = sync_characters(repo, "alice", folder, 50)
    assert (result.written, result.sent) == ([], [])
    assert not folder.exists() and not (tmp_path / "saves" / "escape.toml").exists()
