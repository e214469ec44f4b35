"""End to end: `horizon play` itself over SSH, with the user's own saves (skipped, with the reason,
while the player app can't be imported)."""

from __future__ import annotations

import importlib

import pytest
import tomli_w
from ssh_kit import Terminal, connect

from horizon_tui.host.ssh.server import default_app_command


def player_app_missing() -> str | None:
    try:
        importlib.import_module("horizon_tui.ui.player.app").create_app  # noqa: B018
    except Exception as exc:  # noqa: BLE001 (any failure means: not ready)
        return f"the player app can't be imported yet: {exc!r}"
    return None


async def test_the_real_app_draws_its_menu_with_the_users_own_characters(
        start_host, user_keys, server_dir, example_data):
    reason = player_app_missing()
    if reason:
        pytest.skip(reason)
    host = await start_host(app_command=default_app_command())
    characters = server_dir / "users" / "alice" / "saves" / "characters"
    characters.mkdir(parents=True)
    (characters / "iriel.toml").write_text(tomli_w.dumps(example_data()))
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn, size=(110, 32))
        await term.expect("New character", timeout=15)
        await term.expect("Iriel", timeout=5)  # alice's own save, listed
        await term.expect("Saves: saves", timeout=5)  # by her own relative name (the menu says where saves live)
        term.send("\x11")  # ctrl+q quits the app
        result = await term.finish(timeout=10)
        assert result.exit_status == 0
    assert str(server_dir) not in term.output.decode("utf-8", "replace")  # no server path shown
