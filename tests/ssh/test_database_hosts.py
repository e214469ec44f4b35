"""`serve-ssh --database URL` and `horizon users … --database URL`: the accounts in a database that
several hosts share (SQLite here, and a real PostgreSQL when .ci/run started one)."""

from __future__ import annotations

import re

import asyncssh
import pytest
import tomli_w
from ssh_kit import FAKE_APP_COMMAND, Terminal, connect, plain

from horizon_tui.cli import main
from horizon_tui.host.ssh.server import HostSettings, SSHHost
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.campaigns import SqlCampaigns
from horizon_tui.storage.host_saves import SqlRuns
from horizon_tui.storage.host_sql import SqlCharacters, shared_database
from horizon_tui.storage.runs import battle_slot


def users(capsys, *args) -> tuple[int, str, str]:
    code = main(["users", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pub_file(tmp_path, user_keys):
    path = tmp_path / "alice.pub"
    path.write_bytes(user_keys["alice"].export_public_key("openssh"))
    return path


def test_users_commands_on_two_data_folders_share_one_database(capsys, tmp_path, pub_file, sql_url):
    one, two = tmp_path / "host-a", tmp_path / "host-b"
    code, out, _ = users(capsys, "add", "alice", "--key", pub_file, "--data-dir", one, "--database", sql_url)
    assert code == 0 and "added user alice" in out
    assert not (one / "users" / "alice" / "authorized_keys").exists()  # the database's, not the folder's
    assert users(capsys, "list", "--data-dir", two, "--database", sql_url)[:2] == (0, "alice\tplayer\t1 key\n")
    assert users(capsys, "role", "alice", "gm", "--data-dir", two, "--database", sql_url)[0] == 0
    assert users(capsys, "list", "--data-dir", one, "--database", sql_url)[1] == "alice\tgm\t1 key\n"
    code, out, _ = users(capsys, "remove", "alice", "--data-dir", one, "--database", sql_url)
    assert code == 0 and "their saves stay" in out
    code, out, err = users(capsys, "list", "--data-dir", two, "--database", sql_url)
    assert (code, out) == (0, "") and "no users in the database" in err
    code, _, err = users(capsys, "remove", "alice", "--data-dir", two, "--database", sql_url)
    assert code == 1 and "no user 'alice' in the database" in err


def test_a_data_folders_accounts_are_imported_into_the_database_and_kept(capsys, tmp_path, pub_file, sqlite_url):
    data = tmp_path / "srv"
    assert users(capsys, "add", "alice", "--key", pub_file, "--gm", "--data-dir", data)[0] == 0
    assert users(capsys, "list", "--data-dir", data, "--database", sqlite_url)[1] == "alice\tgm\t1 key\n"
    assert (data / "users" / "alice" / "authorized_keys").is_file()  # never deleted


@pytest.mark.parametrize("url, message", [
    ("mysql://root@localhost/horizon", "not a database Horizon can use"),
    ("postgresql://horizon:s3cret@/nowhere?host=/nonexistent&connect_timeout=2", "can't be opened"),
])
def test_a_database_that_cannot_be_used_is_one_clear_line(capsys, tmp_path, pub_file, url, message):
    code, out, err = users(capsys, "list", "--data-dir", tmp_path, "--database", url)
    assert code == 1 and message in err and "Traceback" not in err and "s3cret" not in err


def test_serve_ssh_says_it_takes_a_database(capsys):
    with pytest.raises(SystemExit):
        main(["serve-ssh", "--help"])
    assert "--database URL" in capsys.readouterr().out


async def _start(data_dir, database: str) -> SSHHost:
    host = SSHHost(HostSettings(data_dir=data_dir, port=0, app_command=FAKE_APP_COMMAND, stop_grace=2.0,
                                keepalive_interval=0, database=database))
    await host.start()
    return host


async def test_an_account_added_on_one_host_logs_in_on_the_other(tmp_path, user_keys, sql_url):
    """Two hosts on two ports, two data folders, one database (as behind a TCP balancer)."""
    first = await _start(tmp_path / "host-a", sql_url)
    second = await _start(tmp_path / "host-b", sql_url)
    try:
        pub = tmp_path / "alice.pub"
        pub.write_bytes(user_keys["alice"].export_public_key("openssh"))
        first.accounts.add("alice", pub)
        async with await connect(second, "alice", user_keys["alice"]) as conn:
            terminal = await Terminal.open(conn)
            await terminal.expect("MAIN MENU")
            terminal.send("q")
            await terminal.finish()
        second.accounts.remove("alice")
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(first, "alice", user_keys["alice"])
    finally:
        await first.stop()
        await second.stop()


def _two_hosts(tmp_path, postgres_url) -> tuple[SSHHost, SSHHost]:
    """Hosts A and B of one PostgreSQL (the real apps), each with its own data folder."""
    first, second = (SSHHost(HostSettings(data_dir=tmp_path / name, port=0, stop_grace=2.0, keepalive_interval=0,
                                          database=postgres_url)) for name in ("host-a", "host-b"))
    return first, second


async def _started(*hosts: SSHHost) -> None:
    for host in hosts:
        await host.start()
    for host in hosts:
        await host.session_server.wait_ready()


def _alice_with_iriel_on(host: SSHHost, tmp_path, user_keys, example_data) -> None:
    """alice's account, and her character Iriel in `host`'s folder only (from before the database)."""
    pub = tmp_path / "alice.pub"
    pub.write_bytes(user_keys["alice"].export_public_key("openssh"))
    host.accounts.add("alice", pub)
    characters = host.settings.data_dir / "users" / "alice" / "saves" / "characters"
    characters.mkdir(parents=True)
    (characters / "iriel.toml").write_text(tomli_w.dumps(example_data()))


async def _read_only_then_quit(terminal: Terminal) -> None:
    """At the "already open" question: open it read-only, see it say so, and quit."""
    terminal.send("\r")  # Open it read-only
    await terminal.expect("READ-ONLY", timeout=20)
    terminal.send("\x11")
    await terminal.finish(timeout=10)


async def test_two_hosts_one_postgresql_a_character_and_its_second_window(tmp_path, user_keys, postgres_url,
                                                                          example_data):
    """The real player app on two hosts sharing a PostgreSQL: alice's character, saved on host A
    (in A's folder before the database, then its row), opens through host B, and while A's
    window holds it, B's window on it can only be read-only."""
    first, second = _two_hosts(tmp_path, postgres_url)
    _alice_with_iriel_on(first, tmp_path, user_keys, example_data)
    await _started(first, second)
    try:
        async with await connect(first, "alice", user_keys["alice"]) as conn_a:
            on_a = await Terminal.open(conn_a, size=(110, 32))
            await on_a.expect("Iriel", timeout=30)  # listed on A: now a row too
            on_a.send("l")
            await on_a.expect("enter opens", timeout=10)
            on_a.send("\r")
            await on_a.expect("Iriel", timeout=10)
            [row] = SqlCharacters(shared_database(postgres_url)).listing("alice")
            assert row.filename == "iriel.toml" and b"Iriel" in row.content
            async with await connect(second, "alice", user_keys["alice"]) as conn_b:
                on_b = await Terminal.open(conn_b, size=(110, 32))
                await on_b.expect("Iriel", timeout=30)  # through host B, which never had the file
                on_b.send("l")
                await on_b.expect("enter opens", timeout=10)
                on_b.send("\r")
                await on_b.expect("open in another session", timeout=10)
                on_b.send("o")  # Open read-only
                await on_b.expect("Read-only", timeout=10)
                on_b.send("\x11")
                await on_b.finish(timeout=10)
            on_a.send("\x11")
            await on_a.finish(timeout=10)
        assert (tmp_path / "host-b" / "users" / "alice" / "saves" / "characters" / "iriel.toml").is_file()
    finally:
        await first.stop()
        await second.stop()
        shared_database(postgres_url).close()


def test_a_relative_sqlite_path_is_the_same_file_for_every_app(capsys, tmp_path, pub_file, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert users(capsys, "add", "alice", "--key", pub_file, "--data-dir", "srv", "--database", "sqlite:///h.db")[0] == 0
    assert (tmp_path / "h.db").is_file()
    monkeypatch.chdir(tmp_path / "srv")
    assert users(capsys, "list", "--data-dir", ".", "--database", f"sqlite:///{tmp_path / 'h.db'}")[1] == "alice\tplayer\t1 key\n"
    with pytest.raises(SystemExit):
        main(["users", "list", "--database", ""])
    assert "an empty URL" in capsys.readouterr().err


def test_serve_ssh_with_a_database_it_cannot_use_stops_with_one_clear_line(capsys, tmp_path):
    code = main(["serve-ssh", "--port", "0", "--data-dir", str(tmp_path / "srv"),
                 "--database", "postgresql://horizon:s3cret@/gone?host=/nonexistent&connect_timeout=2"])
    err = capsys.readouterr().err
    assert code == 1 and "can't be opened" in err and "s3cret" not in err and "Traceback" not in err


async def test_while_the_database_is_unreachable_nobody_logs_in_and_the_host_says_why(
        tmp_path, user_keys, sqlite_url, caplog):
    import sqlalchemy as sa

    from horizon_tui.storage.accounts import Accounts
    from horizon_tui.storage.database import Database
    from horizon_tui.storage.host_sql import SqlAccounts

    caplog.set_level("WARNING", logger="horizon.ssh")
    host = await _start(tmp_path / "srv", sqlite_url)
    try:
        gone = Database(sa.create_engine(f"postgresql+psycopg://x@/gone?host={tmp_path}&connect_timeout=2"),
                        "postgresql://x@/gone", None)
        host.accounts = Accounts(tmp_path / "srv", SqlAccounts(gone))
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(host, "alice", user_keys["alice"])
        assert "accounts of alice can't be read: postgresql://x@/gone" in caplog.text
    finally:
        await host.stop()


async def test_two_hosts_one_postgresql_a_run_and_its_fight_go_on_on_the_other_host(tmp_path, user_keys, postgres_url,
                                                                                       example_data):
    """A run started on host A, quit in its first fight, goes on on host B: the same run at the same
    depth, its fight resumed with the same health; while B plays it, A's window on it is read-only."""
    first, second = _two_hosts(tmp_path, postgres_url)
    _alice_with_iriel_on(first, tmp_path, user_keys, example_data)
    await _started(first, second)
    database = shared_database(postgres_url)
    try:
        async with await connect(first, "alice", user_keys["alice"]) as conn:
            on_a = await Terminal.open(conn, size=(110, 32))
            await on_a.expect("Iriel", timeout=30)
            on_a.send("u")  # New run, Iriel picked
            await on_a.expect("Start the run", timeout=30)  # its key bar: the screen takes keys
            on_a.send("\x13")  # ctrl+s starts it (the encounters are rated first: slow on a busy machine)
            await on_a.expect("choose the next fight", timeout=120)
            fight_from = len(plain(on_a.output))
            on_a.send("\r")  # the first offer's fight
            await on_a.expect("Round 1", timeout=60)
            shown = await on_a.expect("movement", timeout=10)  # the side panel, under the health bar
            # the battle screen's first frame, in whatever order its parts reached the stream
            health = re.search(r"Iriel · level \d+.{0,300}?(\d+/\d+)", shown[fight_from:], re.S)
            assert health, shown[-1500:]
            on_a.send("\x11")  # ctrl+q: the fight is saved as it goes
            await on_a.finish(timeout=10)
        [run] = SqlRuns(database, "alice", tmp_path).runs_in_progress()
        assert run["depth"] == 1 and run["fight"]
        assert SqlBattles(database, "alice").exists(battle_slot(run["id"]))
        assert not list((tmp_path / "host-a" / "users" / "alice" / "saves").glob("records/runs/*.json"))
        async with await connect(second, "alice", user_keys["alice"]) as conn_b:
            on_b = await Terminal.open(conn_b, size=(110, 32))
            await on_b.expect("Continue: Iriel's run", timeout=30)  # Continue heads host B's menu
            on_b.send("c")
            await on_b.expect("Round 1", timeout=60)
            await on_b.expect(health.group(1), timeout=10)  # the fight as A left it
            async with await connect(first, "alice", user_keys["alice"]) as conn_a:
                again = await Terminal.open(conn_a, size=(110, 32))
                await again.expect("Continue: Iriel's run", timeout=30)
                again.send("c")
                await again.expect("already being played", timeout=10)
                await _read_only_then_quit(again)
            on_b.send("\x11")
            await on_b.finish(timeout=10)
        assert SqlRuns(database, "alice", tmp_path).load_run(run["id"])["depth"] == 1
    finally:
        await first.stop()
        await second.stop()
        database.close()


async def test_two_hosts_one_postgresql_a_campaign_open_on_one_is_read_only_on_the_other(tmp_path, user_keys,
                                                                                          postgres_url):
    """A GM's campaign made on host A is listed on host B; opened there while A's window holds it,
    it is offered read-only (or taken over) and opens READ-ONLY."""
    first, second = _two_hosts(tmp_path, postgres_url)
    pub = tmp_path / "bob.pub"
    pub.write_bytes(user_keys["bob"].export_public_key("openssh"))
    first.accounts.add("bob", pub)
    first.accounts.set_role("bob", "gm")
    await _started(first, second)
    try:
        async with await connect(first, "bob", user_keys["bob"]) as conn_a:
            on_a = await Terminal.open(conn_a, size=(110, 32))
            await on_a.expect("New campaign", timeout=30)
            on_a.send("Lantern Road\r")
            await on_a.expect("Campaign — Lantern Road", timeout=20)
            assert [c.slug for c in SqlCampaigns(shared_database(postgres_url), "bob").listing()] == ["lantern-road"]
            async with await connect(second, "bob", user_keys["bob"]) as conn_b:
                on_b = await Terminal.open(conn_b, size=(110, 32))
                await on_b.expect("lantern-road", timeout=30)  # host B lists it (its key column)
                on_b.send("\r")
                await on_b.expect("Lantern Road is already open", timeout=20)
                await on_b.expect("Take it over", timeout=5)
                await _read_only_then_quit(on_b)
            on_a.send("\x11")
            await on_a.finish(timeout=10)
        assert not (tmp_path / "host-a" / "users" / "bob" / "saves" / "horizon.sqlite3").exists()
    finally:
        await first.stop()
        await second.stop()
        shared_database(postgres_url).close()
