"""`serve-ssh --motd FILE`: the message is shown after login and before the
menu; a key goes on to the game. A file that can't be shown is refused at start, naming it."""

from __future__ import annotations

import pytest
from openssh_kit import OpenSSHTerminal, needs_openssh
from ssh_kit import Terminal, connect

from horizon_tui.cli import main
from horizon_tui.host.motd import MAX_BYTES, PROMPT, MotdError, read_motd


def test_a_message_is_sent_with_crlf_and_the_prompt(tmp_path):
    path = tmp_path / "motd.txt"
    path.write_text("Welcome to Horizon!\nTables on Fridays.\n\n", encoding="utf-8")
    assert read_motd(path) == f"Welcome to Horizon!\r\nTables on Fridays.\r\n\r\n{PROMPT}".encode()


@pytest.mark.parametrize("content, message", [
    (b"hello \x1b[2J world\n", "motd.txt:1:7: control character U+001B is not allowed"),
    (b"ok\nbell \x07\n", "motd.txt:2:6: control character U+0007 is not allowed"),
    (b"ok\n\xff\xfe\n", "motd.txt:2: not UTF-8 text (byte 0xff)"),
    (b"x" * (MAX_BYTES + 1), f"{MAX_BYTES + 1} bytes; a message may have at most {MAX_BYTES}"),
])
def test_a_message_that_cant_be_shown_is_refused_with_where(tmp_path, content, message):
    path = tmp_path / "motd.txt"
    path.write_bytes(content)
    with pytest.raises(MotdError) as refused:
        read_motd(path)
    assert str(refused.value).startswith(f"--motd {tmp_path}") and message in str(refused.value)


def test_serve_ssh_with_a_missing_motd_exits_1_naming_it(tmp_path, capsys):
    assert main(["serve-ssh", "--port", "0", "--data-dir", str(tmp_path / "srv"),
                 "--motd", str(tmp_path / "none.txt")]) == 1
    err = capsys.readouterr().err
    assert f"--motd {tmp_path / 'none.txt'}: can't be read" in err
    assert not (tmp_path / "srv").exists()  # nothing started


async def test_the_message_comes_before_the_menu_and_a_key_goes_on(start_host, user_keys, tmp_path):
    path = tmp_path / "motd.txt"
    path.write_text("Welcome, adventurers.\nServer rules: be kind.\n")
    host = await start_host(motd=read_motd(path))
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn)
        shown = await term.expect(PROMPT)
        assert "Welcome, adventurers.\r\nServer rules: be kind." in shown
        assert "MAIN MENU" not in shown and not host.sessions.pop().process
        term.send(" ")
        await term.expect("READY")
        assert "KEY ' '" not in term.output.decode()  # that key was the message's, not the game's
        term.send("j")
        await term.expect("KEY 'j'")


@needs_openssh
async def test_openssh_players_see_the_message_first(start_host, ssh_command, tmp_path):
    path = tmp_path / "motd.txt"
    path.write_text("Tonight: the Sunken Keep.\n")
    host = await start_host(motd=read_motd(path))
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path) as ssh:
        await ssh.expect(PROMPT)
        assert "Tonight: the Sunken Keep." in ssh.text and "MAIN MENU" not in ssh.text
        ssh.process.write(b"\r")
        await ssh.expect("READY")


def test_serve_ssh_with_a_pipe_or_a_device_for_motd_exits_1_at_once(tmp_path, capsys):
    """By hand: `--motd /dev/zero` read for ever (or a pipe: waited for ever) before serving."""
    import os

    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    for motd in (fifo, link):
        assert main(["serve-ssh", "--port", "0", "--data-dir", str(tmp_path / "srv"), "--motd", str(motd)]) == 1
        assert f"--motd {motd}: is not a plain file" in capsys.readouterr().err
