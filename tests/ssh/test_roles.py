"""Roles: a GM's account (`users add NAME --key FILE --gm`) gets the GM tool
over SSH, on its own campaigns; a player's account gets the player app. Both real, pre-forked."""

from __future__ import annotations

from ssh_kit import Terminal, connect

from horizon_tui.host.ssh.server import default_app_command


def test_a_gm_account_runs_the_gm_tool_and_a_player_the_player_app(tmp_path):
    assert default_app_command("gm")[-2:] == ("gm", "--saves-dir")
    assert default_app_command("player")[-2:] == ("play", "--saves-dir")
    assert default_app_command("anything else")[-2:] == ("play", "--saves-dir")


async def test_over_ssh_the_gm_gets_campaigns_and_the_player_the_menu(start_host, user_keys, server_dir, caplog):
    caplog.set_level("INFO", logger="horizon.ssh")
    host = await start_host(app_command=None)  # the real apps, pre-forked
    host.accounts.set_role("bob", "gm")
    await host.session_server.wait_ready()
    async with await connect(host, "bob", user_keys["bob"]) as conn:
        gm = await Terminal.open(conn, size=(120, 36))
        await gm.expect("Campaigns", timeout=20)
        assert "New character" not in gm.output.decode("utf-8", "replace")
        gm.send("\x11")  # ctrl+q
        await gm.finish(timeout=10)
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        player = await Terminal.open(conn, size=(120, 36))
        await player.expect("New character", timeout=20)
        player.send("\x11")
        await player.finish(timeout=10)
    assert "login user=bob role=gm" in caplog.text and "login user=alice role=player" in caplog.text
    assert not (server_dir / "users" / "alice" / "saves" / "campaigns").exists()


async def test_a_gms_screen_is_not_watched_unless_the_gm_allows_it():
    """The GM sees hidden enemies, so spectators watch the players' screens, not the
    GM's — unless the GM's app says it may be watched; a player's game is watchable unless refused."""
    from types import SimpleNamespace

    from horizon_tui.host.ssh.channel import SshGameSession

    host = SimpleNamespace(settings=SimpleNamespace(resize_interval=0.1))
    gm = SshGameSession(host, SimpleNamespace(user="bob", role="gm"))
    player = SshGameSession(host, SimpleNamespace(user="alice", role="player"))
    assert not gm.watchable and player.watchable
    gm.app_status = lambda: {"watchers": "allow"}
    player.app_status = lambda: {"watchers": "refuse"}
    assert gm.watchable and not player.watchable
