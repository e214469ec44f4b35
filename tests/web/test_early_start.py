"""The game of a logged-in browser starts as its page is served, not when the page's socket
opens: the browser says its window's size (Client Hints, asked for by `Accept-CH` and, for the
page itself, `Critical-CH`); what the app writes before the socket comes is kept for it. Never
before a login, never for a prefetch; a tab going back to its own game ends the page's new one;
a page that never connects gives its game up."""

from __future__ import annotations

import asyncio
import json
import re
import time

import aiohttp
from web_kit import SocketTerminal, log_in

from horizon_tui.host.web import server as web_server
from horizon_tui.host.web.server import COOKIE, VIEWPORT_HINTS

WINDOW = {"Sec-CH-Viewport-Width": "900", "Sec-CH-Viewport-Height": "600"}  # 93 x 31 cells of 9.632 x 19 px


async def open_page(http, host, headers: dict | None = None) -> tuple[str, str]:
    """GET / as a browser's navigation: (the game named in the page, or "", the page)."""
    async with http.get(f"{host.web.origin}/", headers=headers or {}) as page:
        assert page.status == 200
        text = await page.text()
        found = re.search(r'<meta name="horizon-game" content="([^"]*)">', text)
        assert found, text
        return found.group(1), text


async def alices_page_game(http, host):
    """alice logged in and her page served with its window's size: (the id the page names, the
    game started with it)."""
    await log_in(http, host, "alice")
    game_id, _page = await open_page(http, host, WINDOW)
    (game,) = host.sessions  # before any socket
    return game_id, game


async def until(predicate, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert predicate()


async def test_the_page_starts_its_game_at_the_windows_size_and_the_socket_gets_all_it_wrote(start_host, http):
    host = await start_host()
    game_id, game = await alices_page_game(http, host)
    assert game_id == game.resume_id and game.term_size[:2] == (93, 31)  # 900 / 9.632, 600 / 19
    await until(lambda: game.playing and game._early_bytes > 0)
    term = await SocketTerminal.open(http, host, resume=game_id, cols=93, rows=31)
    await term.expect("READY")
    assert "SIZE 93x31" in await term.expect("READY")
    assert await term.message("game") == {"game": game_id}  # nothing to draw again
    await term.send("j")
    await term.expect("KEY 'j'")
    assert "REDRAW" not in await term.expect("KEY 'j'")  # all the app wrote was kept: no redraw asked
    assert host.sessions == {game} and not game.detached


async def test_what_the_app_wrote_before_the_socket_comes_in_its_first_binary_message(start_host, http):
    host = await start_host()
    game_id, game = await alices_page_game(http, host)

    def kept() -> bytes:
        return b"".join(item for item in game.early if isinstance(item, bytes))

    await until(lambda: b"READY" in kept())  # the fake app's menu, then it waits for a key
    written = kept()
    ws = await http.ws_connect(f"{host.web.origin}/ws", params={"resume": game_id, "cols": "93", "rows": "31"},
                               headers={"Origin": host.web.origin})
    first, second = await ws.receive(timeout=5), await ws.receive(timeout=5)
    assert first.type == aiohttp.WSMsgType.TEXT and json.loads(first.data) == {"game": game_id}
    assert second.type == aiohttp.WSMsgType.BINARY and second.data == written  # at once, all of it
    await ws.close()


async def test_more_output_than_is_kept_has_the_app_draw_again_when_the_socket_comes(start_host, http, monkeypatch):
    monkeypatch.setattr(web_server, "EARLY_OUTPUT_LIMIT", 16)
    host = await start_host()
    game_id, game = await alices_page_game(http, host)
    await until(lambda: game._early_bytes > 16)
    term = await SocketTerminal.open(http, host, resume=game_id, cols=93, rows=31)
    shown = await term.expect("REDRAW")
    assert "MAIN MENU" not in shown  # dropped, not sent in part: the app's redraw replaces it
    assert await term.message("game") == {"game": game_id, "redraw": True}


async def test_without_the_windows_size_the_page_asks_for_it_and_starts_nothing(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    async with http.get(f"{host.web.origin}/") as page:
        assert page.headers["Accept-CH"] == VIEWPORT_HINTS
        assert page.headers["Critical-CH"] == VIEWPORT_HINTS  # the browser asks again, saying it
        assert page.headers["Cache-Control"] == "no-store"
    game_id, _page = await open_page(http, host)
    assert game_id == "" and not host.sessions  # a browser without Client Hints: the socket starts it
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")


async def test_no_game_starts_for_a_page_without_a_login_or_for_a_prefetch_or_a_head(start_host, http, monkeypatch):
    host = await start_host()
    started = []
    real_start = web_server.WebGame.start_early
    monkeypatch.setattr(web_server.WebGame, "start_early", lambda self: started.append(self) or real_start(self))
    for cookie in ("", f"{COOKIE}={'x' * 43}"):  # none, and one that is no login
        for _ in range(50):
            async with http.get(f"{host.web.origin}/", headers={**WINDOW, "Cookie": cookie}) as page:
                assert "Log in with your SSH key" in await page.text()
    await log_in(http, host, "alice")
    for purpose in ({"Sec-Purpose": "prefetch"}, {"Sec-Purpose": "prefetch;prerender"}, {"Purpose": "prefetch"}):
        game_id, _page = await open_page(http, host, {**WINDOW, **purpose})
        assert game_id == ""
    async with http.head(f"{host.web.origin}/", headers=WINDOW) as head:  # a link checker's look
        assert head.status == 200
    assert not started and not host.sessions


async def test_a_page_that_never_connects_gives_its_game_up(start_host, http, monkeypatch):
    monkeypatch.setattr(web_server, "EARLY_GRACE", 0.5)
    host = await start_host()
    game_id, game = await alices_page_game(http, host)
    await until(lambda: game.playing)
    await until(lambda: not host.sessions and not host.web.games)
    assert not game.playing and game.end_reason == "client closed"


async def test_a_reloaded_tab_goes_back_to_its_own_game_and_the_pages_new_one_ends(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)  # the tab's game
    await term.expect("READY")
    own_id = (await term.message("game"))["game"]
    (own,) = host.sessions
    await term.ws.close()  # the reload: its socket goes, its game waits
    await until(lambda: own.detached)
    fresh_id, _page = await open_page(http, host, WINDOW)
    fresh = host.web.games[fresh_id]
    again = await SocketTerminal.open(http, host, resume=own_id, fresh=fresh_id)
    await again.expect("REDRAW")
    assert (await again.message("game"))["game"] == own_id
    await until(lambda: host.sessions == {own})
    assert fresh_id not in host.web.games and not fresh.playing


async def test_a_tab_whose_own_game_has_ended_takes_the_pages_new_one(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    fresh_id, _page = await open_page(http, host, WINDOW)
    term = await SocketTerminal.open(http, host, resume="ended-long-ago", fresh=fresh_id)
    await term.expect("READY")
    assert (await term.message("game"))["game"] == fresh_id and len(host.sessions) == 1


async def test_another_logins_page_game_is_never_taken(start_host, http):
    import aiohttp

    host = await start_host()
    await log_in(http, host, "alice")
    fresh_id, _page = await open_page(http, host, WINDOW)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as stranger:
        await log_in(stranger, host, "bob")
        theirs = await SocketTerminal.open(stranger, host, resume=fresh_id, fresh=fresh_id)
        await theirs.expect("READY")
        assert host.web.games[fresh_id].early is not None  # alice's still waits for her page
        assert len(host.sessions) == 2


async def test_with_the_accounts_games_all_taken_the_page_starts_none_and_the_socket_resumes(start_host, http):
    host = await start_host(max_sessions_per_user=1)
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    own_id = (await term.message("game"))["game"]
    await term.ws.close()
    (own,) = host.sessions
    await until(lambda: own.detached)
    fresh_id, _page = await open_page(http, host, WINDOW)
    assert fresh_id == "" and host.sessions == {own}  # no room: nothing started, nothing said yet
    again = await SocketTerminal.open(http, host, resume=own_id)
    await again.expect("REDRAW")


async def test_the_connections_per_account_count_a_pages_game_from_its_start(start_host, http):
    """A game started with its page holds one of the account's connections before its socket
    comes: another tab or an SSH login meanwhile finds no room, and the page's socket takes the
    slot its game held."""
    host = await start_host(max_connections_per_user=1)
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)  # alice's one connection
    await term.expect("READY")
    game_id, _page = await open_page(http, host, WINDOW)
    assert game_id == "" and len(host.sessions) == 1  # no game for a page whose socket would be refused
    await term.ws.close()
    await until(lambda: host.user_connections("alice") == 0)
    game_id, _page = await open_page(http, host, WINDOW)  # room again: the page's game starts
    assert game_id and host.user_connections("alice") == 1  # its slot taken as it starts
    assert host.connections_refusal("alice")  # an SSH login of alice's now is refused
    other = await SocketTerminal.open(http, host)  # meanwhile another tab: no room
    assert "connection" in await other.refusal()
    assert len([g for g in host.web.games.values() if g.early is None]) == 1  # (the first tab's, dropped)
    own = await SocketTerminal.open(http, host, resume=game_id)  # the page's socket: its game's slot
    assert await own.message("game") == {"game": game_id}
    assert host.user_connections("alice") == 1


async def test_a_pages_game_gives_its_connection_back_however_it_ends(start_host, http, monkeypatch):
    """Never connected (given up after EARLY_GRACE), or not wanted (the tab went back to its own
    game): either way the slot its page's game held is free again."""
    monkeypatch.setattr(web_server, "EARLY_GRACE", 0.5)
    host = await start_host(max_connections_per_user=2)
    await log_in(http, host, "alice")
    first, _page = await open_page(http, host, WINDOW)
    second, _page = await open_page(http, host, WINDOW)
    assert first and second and host.user_connections("alice") == 2
    third, _page = await open_page(http, host, WINDOW)
    assert third == "" and len(host.web.games) == 2  # a third page over the cap starts nothing
    await until(lambda: not host.web.games and host.user_connections("alice") == 0)  # never connected
    own = await SocketTerminal.open(http, host)  # a tab's game, and then its reload
    own_id = (await own.message("game"))["game"]
    fresh, _page = await open_page(http, host, WINDOW)
    assert fresh and host.user_connections("alice") == 2
    back = await SocketTerminal.open(http, host, resume=own_id, fresh=fresh)  # back to its own game
    await back.message("game")
    await until(lambda: fresh not in host.web.games)
    assert host.user_connections("alice") == 1  # the page's game ended: its slot is free
