"""`horizon users add|list|remove`, user names, key files, the host key and the login limiter —
no network needed."""

from __future__ import annotations

import os
import stat

import asyncssh
import pytest

from horizon_tui.cli import main
from horizon_tui.storage.accounts import AccountError, Accounts, check_name
from horizon_tui.host.ssh.hostkey import host_key_path, load_or_create_host_key
from horizon_tui.host.limits import LoginLimiter


@pytest.fixture
def pub_file(tmp_path, user_keys):
    path = tmp_path / "alice.pub"
    path.write_bytes(user_keys["alice"].export_public_key("openssh"))
    return path


def users(capsys, *argv):
    code = main(["users", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["alice", "Bob_2", "x", "a-b", "z" * 32])
def test_good_names_pass(name):
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["../x", "a/b", ".", "..", "", "z" * 33, "al ice", "é", "a\nb", "~root", "q" * 5000])
def test_path_trick_names_are_refused_at_users_add(capsys, tmp_path, pub_file, name):
    data = tmp_path / "srv"
    code, out, err = users(capsys, "add", name, "--key", str(pub_file), "--data-dir", str(data))
    assert code == 1
    assert ("is not allowed" if name else "can't be empty") in err and "letters, digits" in err
    assert len(err) < 160  # one short line, however long the name typed
    assert not (data / "users").exists() or list((data / "users").iterdir()) == []
    assert not (tmp_path / "x").exists()


def test_add_list_remove(capsys, tmp_path, pub_file):
    data = tmp_path / "srv"
    code, out, _ = users(capsys, "add", "alice", "--key", str(pub_file), "--data-dir", str(data))
    assert code == 0 and "added user alice" in out
    keys = data / "users" / "alice" / "authorized_keys"
    assert keys.read_bytes().startswith(b"ssh-ed25519 ")
    assert stat.S_IMODE(os.stat(data / "users" / "alice").st_mode) == 0o700

    code, out, _ = users(capsys, "add", "alice", "--key", str(pub_file), "--data-dir", str(data))
    assert code == 0 and "already has that key" in out
    assert len(keys.read_text().splitlines()) == 1

    assert users(capsys, "list", "--data-dir", str(data))[:2] == (0, "alice\tplayer\t1 key\n")

    (data / "users" / "alice" / "saves").mkdir()
    code, out, _ = users(capsys, "remove", "alice", "--data-dir", str(data))
    assert code == 0 and "their saves stay" in out
    assert (data / "users" / "alice" / "saves").is_dir()
    code, out, err = users(capsys, "list", "--data-dir", str(data))
    assert (code, out) == (0, "") and "no users" in err

    code, _, err = users(capsys, "remove", "alice", "--data-dir", str(data))
    assert code == 1 and "no user 'alice'" in err


def test_a_private_key_or_junk_is_refused(capsys, tmp_path, user_keys):
    private = tmp_path / "id"
    private.write_bytes(user_keys["alice"].export_private_key("openssh"))
    code, _, err = users(capsys, "add", "alice", "--key", str(private), "--data-dir", str(tmp_path / "s"))
    assert code == 1 and "private key" in err
    junk = tmp_path / "junk.pub"
    junk.write_text("hello world\n")
    code, _, err = users(capsys, "add", "alice", "--key", str(junk), "--data-dir", str(tmp_path / "s"))
    assert code == 1 and "junk.pub:1: not an OpenSSH public key" in err
    code, _, err = users(capsys, "add", "alice", "--key", str(tmp_path / "missing.pub"), "--data-dir", str(tmp_path / "s"))
    assert code == 1 and "can't be read" in err


def test_a_symlinked_user_folder_is_refused(tmp_path, pub_file):
    accounts = Accounts(tmp_path / "srv")
    (tmp_path / "srv" / "users").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "srv" / "users" / "mallory").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(AccountError, match="symbolic link"):
        accounts.add("mallory", pub_file)
    assert accounts.allowed_keys("../x") == set()


def test_host_key_is_made_once_with_mode_0600(tmp_path):
    first = load_or_create_host_key(tmp_path / "srv")
    path = host_key_path(tmp_path / "srv")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    again = load_or_create_host_key(tmp_path / "srv")
    assert again.public_data == first.public_data
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # a loosened mode is tightened back
    assert isinstance(again, asyncssh.SSHKey)


def test_login_limiter_bans_after_failures_in_the_window_then_lets_go():
    now = [0.0]
    limiter = LoginLimiter(max_failures=3, window=60, ban=30, clock=lambda: now[0])
    assert not limiter.record_failure("1.2.3.4")
    now[0] = 61  # the first failure has left the window
    assert not limiter.record_failure("1.2.3.4")
    assert not limiter.record_failure("1.2.3.4")
    assert limiter.blocked_for("1.2.3.4") == 0
    assert limiter.record_failure("1.2.3.4")
    assert limiter.blocked_for("1.2.3.4") == 30
    assert limiter.blocked_for("5.6.7.8") == 0  # per address
    now[0] = 61 + 31
    assert limiter.blocked_for("1.2.3.4") == 0


def test_login_limiter_forgives_a_connection_that_logged_in():
    limiter = LoginLimiter(max_failures=2, window=60, ban=30)
    limiter.record_failure("a")
    limiter.forgive("a")
    assert limiter.failures("a") == 0
    assert not limiter.record_failure("a")


def test_gm_accounts_are_made_listed_and_changed(capsys, tmp_path, pub_file, user_keys):
    data = str(tmp_path / "srv")
    code, out, _ = users(capsys, "add", "gwen", "--key", str(pub_file), "--gm", "--data-dir", data)
    assert code == 0 and out.startswith("added GM gwen (1 key)")
    bob = tmp_path / "bob.pub"
    bob.write_bytes(user_keys["bob"].export_public_key("openssh"))
    assert users(capsys, "add", "bob", "--key", str(bob), "--data-dir", data)[0] == 0
    assert users(capsys, "list", "--data-dir", data)[1] == "bob\tplayer\t1 key\ngwen\tgm\t1 key\n"
    code, out, _ = users(capsys, "add", "bob", "--key", str(bob), "--gm", "--data-dir", data)
    assert (code, out) == (0, "user bob is now a GM\n")  # an existing player promoted, keys kept
    code, out, _ = users(capsys, "role", "bob", "player", "--data-dir", data)
    assert (code, out) == (0, "user bob is now a player\n")
    assert Accounts(tmp_path / "srv").role("bob") == "player"
    assert users(capsys, "add", "bob", "--key", str(bob), "--data-dir", data)[1] == "user bob already has that key\n"
    code, _, err = users(capsys, "role", "nobody", "gm", "--data-dir", data)
    assert code == 1 and "no user 'nobody'" in err
    with pytest.raises(SystemExit) as usage:
        users(capsys, "role", "bob", "admin", "--data-dir", data)
    assert usage.value.code == 2 and "invalid choice: 'admin'" in capsys.readouterr().err


def test_a_role_file_saying_anything_else_reads_as_a_player(tmp_path, pub_file):
    accounts = Accounts(tmp_path / "srv")
    accounts.add("gwen", pub_file, role="gm")
    role_file = tmp_path / "srv" / "users" / "gwen" / "role"
    assert role_file.read_text() == "gm\n" and stat.S_IMODE(role_file.stat().st_mode) == 0o600
    role_file.write_text("root\n")
    assert accounts.role("gwen") == "player"
    role_file.write_bytes(b"\xff")
    assert accounts.role("gwen") == "player"
    accounts.remove("gwen")  # a new account by that name starts as a player
    accounts.add("gwen", pub_file)
    assert accounts.role("gwen") == "player"


@pytest.mark.parametrize("content, message", [
    (b"garbage\n", "not a usable private key"),
    (None, "a ecdsa-sha2-nistp256 key; the host offers only ed25519"),
])
def test_an_unusable_host_key_is_refused_and_left_alone(tmp_path, capsys, content, message):
    data = tmp_path / "srv"
    data.mkdir()
    path = host_key_path(data)
    if content is None:
        content = asyncssh.generate_private_key("ecdsa-sha2-nistp256").export_private_key("openssh")
    path.write_bytes(content)
    os.chmod(path, 0o600)
    assert main(["serve-ssh", "--port", "0", "--data-dir", str(data)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: {message}" in err and "Traceback" not in err
    assert path.read_bytes() == content


def test_a_failed_start_gives_the_umask_back(tmp_path, capsys):
    data = tmp_path / "srv"
    data.mkdir()
    host_key_path(data).write_bytes(b"garbage\n")
    before = os.umask(0o022)
    try:
        assert main(["serve-ssh", "--port", "0", "--data-dir", str(data)]) == 1
        assert os.umask(0o022) == 0o022
    finally:
        os.umask(before)
    capsys.readouterr()


def test_a_key_file_that_is_a_pipe_or_a_device_is_refused_not_waited_on(capsys, tmp_path):
    """By hand: `horizon users add bob --key /dev/zero` (or a pipe) never ended."""
    fifo = tmp_path / "pipe.pub"
    os.mkfifo(fifo)
    link = tmp_path / "zero.pub"
    link.symlink_to("/dev/zero")
    for key in (fifo, link):
        code, _, err = users(capsys, "add", "bob", "--key", str(key), "--data-dir", str(tmp_path / "s"))
        assert code == 1 and f"{key}: is not a plain file" in err
    binary = tmp_path / "binary.pub"
    binary.write_bytes(b"\xb3\x00\xff")
    code, _, err = users(capsys, "add", "bob", "--key", str(binary), "--data-dir", str(tmp_path / "s"))
    assert code == 1 and f"{binary}: is not UTF-8 text" in err


def test_a_data_dir_that_is_a_file_is_refused_naming_it(capsys, tmp_path, pub_file):
    """By hand: `horizon users add zed --key k.pub --data-dir FILE` crashed (exit 70,
    FileExistsError), as did a --data-dir under a file."""
    a_file = tmp_path / "afile"
    a_file.write_text("mine\n")
    for data_dir in (a_file, a_file / "under"):
        code, _, err = users(capsys, "add", "zed", "--key", str(pub_file), "--data-dir", str(data_dir))
        assert code == 1 and f"{a_file}" in err and "not a folder" in err
    assert a_file.read_text() == "mine\n"


def test_a_key_given_twice_in_one_file_is_added_once(capsys, tmp_path, pub_file):
    """By hand: a key file holding the same key twice made '2 keys'."""
    twice = tmp_path / "twice.pub"
    twice.write_bytes(pub_file.read_bytes() + b"\n" + pub_file.read_bytes())
    code, out, _ = users(capsys, "add", "zed", "--key", str(twice), "--data-dir", str(tmp_path / "s"))
    assert code == 0 and "(1 key)" in out


def test_a_role_file_that_is_a_pipe_reads_as_a_player(capsys, tmp_path, pub_file):
    """By hand: `horizon users list` waited for ever on a role file that was a pipe."""
    data = tmp_path / "s"
    assert users(capsys, "add", "zed", "--key", str(pub_file), "--data-dir", str(data))[0] == 0
    from horizon_tui.storage.accounts import ROLE_FILE

    os.mkfifo(Accounts(data).user_dir("zed") / ROLE_FILE)
    code, out, _ = users(capsys, "list", "--data-dir", str(data))
    assert code == 0 and "zed\tplayer" in out
