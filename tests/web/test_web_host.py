"""The browser front end without a browser: logins by link, cookies, the Origin and CSP checks,
games resumed after a dropped socket and over SSH, read-only watchers,
and 1,000 websockets without a login starting no game."""

from __future__ import annotations

import asyncio
import gzip
import re

import aiohttp
import pytest
from web_kit import SocketTerminal, log_in, login_link

from horizon_tui.host import game as game_module
from horizon_tui.host.web import server as web_server
from horizon_tui.host.web.assets import BUNDLES
from horizon_tui.host.web.server import COOKIE, CSP, STATIC


async def connect_ssh(host, user, key):
    from ssh_kit import connect

    return await connect(host, user, key)


async def test_login_by_link_sets_a_strict_http_only_cookie_and_the_page_plays(start_host, http):
    host = await start_host()
    link = login_link(host, "alice")
    async with http.get(link) as page:
        text = await page.text()
        assert "Continue as alice" in text and page.headers["Content-Security-Policy"] == CSP
    assert host.web.store.link_user(link.rsplit("/", 1)[1]) == "alice"  # GET spends nothing
    response = await log_in(http, host, "alice")
    assert response.status == 303 and response.headers["Location"] == "/"
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Max-Age=1209600" in cookie
    assert "Secure" not in cookie  # plain http on 127.0.0.1; https:// --web-url makes it Secure
    async with http.get(host.web.origin + "/") as page:
        assert re.search(r"/static/play-bundle[.][0-9a-f]{12}[.]js", await page.text())
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    await term.send("j")
    await term.expect("KEY 'j'")
    assert term.line("TERM ") == "xterm-256color COLORTERM truecolor"  # xterm.js draws 24-bit colour


async def test_behind_tls_the_cookie_is_secure(start_host, http):
    host = await start_host(web_url="https://horizon.example.org")
    assert login_link(host, "alice").startswith("https://horizon.example.org/login/")
    token = login_link(host, "alice").rsplit("/", 1)[1]
    async with http.post(f"http://127.0.0.1:{host.web.port}/login", data={"token": token},
                         headers={"Origin": "https://horizon.example.org"}, allow_redirects=False) as response:
        assert response.status == 303
        assert "Secure" in response.headers["Set-Cookie"]


async def test_a_second_use_of_the_link_is_refused(start_host, http):
    host = await start_host()
    link = login_link(host, "alice")
    token = link.rsplit("/", 1)[1]
    for expected in (303, 403):
        async with http.post(f"{host.web.origin}/login", data={"token": token},
                             headers={"Origin": host.web.origin}, allow_redirects=False) as response:
            assert response.status == expected
    async with http.get(link) as page:
        assert page.status == 403 and "used already" in await page.text()


async def test_an_expired_link_is_refused(start_host, http):
    host = await start_host()
    link = login_link(host, "alice")
    now = host.web.store.clock()
    host.web.store.clock = lambda: now + 301
    async with http.post(f"{host.web.origin}/login", data={"token": link.rsplit("/", 1)[1]},
                         headers={"Origin": host.web.origin}, allow_redirects=False) as response:
        assert response.status == 403
        assert COOKIE not in response.cookies


async def test_failed_links_count_against_the_address_with_the_ssh_hosts_bans(start_host, http):
    host = await start_host(max_failed_logins=3)
    for _ in range(3):
        async with http.get(f"{host.web.origin}/login/{'A' * 43}") as page:
            assert page.status == 403
    assert host.limiter.blocked_for("127.0.0.1") > 0  # the SSH host's limiter: SSH is refused too
    async with http.get(login_link(host, "alice")) as page:
        assert page.status == 429


@pytest.mark.parametrize("origin", ["http://evil.example", None, "null"])
async def test_cross_origin_posts_and_sockets_get_403(start_host, http, origin):
    host = await start_host()
    await log_in(http, host, "alice")
    headers = {"Origin": origin} if origin else {}
    token = login_link(host, "alice").rsplit("/", 1)[1]
    async with http.post(f"{host.web.origin}/login", data={"token": token}, headers=headers,
                         allow_redirects=False) as response:
        assert response.status == 403 and response.headers["Content-Security-Policy"] == CSP
    assert host.web.store.link_user(token) == "alice"  # not spent
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await http.ws_connect(f"{host.web.origin}/ws", headers=headers)
    assert refused.value.status == 403
    assert not host.sessions


async def test_every_response_has_the_content_security_policy(start_host, http):
    host = await start_host()
    for path in ("/", "/login/nope", "/static/play.js", "/static/vendor/xterm/xterm.js", "/nothing",
                 "/watch", "/static/../../etc/passwd"):
        async with http.get(host.web.origin + path) as response:
            assert response.headers.get("Content-Security-Policy") == "default-src 'self'", path
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")


async def test_the_page_names_its_files_by_digest_kept_a_year_and_gzipped(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    async with http.get(f"{host.web.origin}/") as page:
        names = set(re.findall(r'(?:src|href)="([^"]+)"', await page.text()))  # preloaded, then used
    # the font (preloaded), the style sheets' bundle and the scripts' bundle
    assert len(names) == 3 and all(re.search(r"[.][0-9a-f]{12}[.](js|css|ttf)$", name) for name in names), names
    for name in names:
        async with http.get(f"{host.web.origin}{name}", headers={"Accept-Encoding": "gzip"}) as response:
            assert response.status == 200 and response.headers["Content-Encoding"] == "gzip"
            assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            assert response.headers["Content-Security-Policy"] == CSP
            plain_name = re.sub(r"[.][0-9a-f]{12}[.]", ".", name)
            body = await response.read()
            if plain_name in BUNDLES:  # its parts, in order: the scripts' starts with early.js's
                first = (STATIC / BUNDLES[plain_name][0].removeprefix("/static/")).read_bytes()
                assert body.startswith(first.rstrip()) or plain_name.endswith(".css"), plain_name
            else:
                assert body == (STATIC / plain_name.removeprefix("/static/")).read_bytes()
    async with http.get(f"{host.web.origin}/static/vendor/xterm/xterm.js", headers={"Accept-Encoding": "gzip"},
                        auto_decompress=False) as response:
        sent = await response.read()
        assert len(sent) < (STATIC / "vendor/xterm/xterm.js").stat().st_size // 3  # 477 KiB → 118 KiB
        assert gzip.decompress(sent) == (STATIC / "vendor/xterm/xterm.js").read_bytes()


async def test_a_file_by_its_plain_name_is_asked_for_again_and_answered_304_if_unchanged(start_host, http):
    host = await start_host()
    async with http.get(f"{host.web.origin}/static/play.js") as script:
        assert script.status == 200 and script.headers["Cache-Control"] == "no-cache"
        assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
        etag = script.headers["ETag"]
    async with http.get(f"{host.web.origin}/static/play.js", headers={"If-None-Match": etag}) as again:
        assert again.status == 304 and not await again.read()  # unchanged: nothing sent again
    for missing in ("/static/nothing.js", "/static/../server.py", "/static/vendor/"):
        async with http.get(f"{host.web.origin}{missing}") as response:
            assert response.status == 404


async def test_a_thousand_sockets_without_a_login_start_no_game(start_host, http, monkeypatch):
    host = await start_host()
    started = []
    real_start = game_module.GameSession._start_app
    monkeypatch.setattr(game_module.GameSession, "_start_app", lambda self: started.append(self) or real_start(self))
    refused = 0

    async def one(index: int) -> None:
        nonlocal refused
        headers = {"Origin": host.web.origin}
        if index % 2:  # half with a cookie that is no login
            headers["Cookie"] = f"{COOKIE}={'x' * 43}"
        try:
            ws = await http.ws_connect(f"{host.web.origin}/ws", headers=headers)
        except aiohttp.WSServerHandshakeError as exc:
            assert exc.status == 401
            refused += 1
        else:
            await ws.close()

    for batch in range(10):
        await asyncio.gather(*(one(batch * 100 + i) for i in range(100)))
    assert refused == 1000 and not started and not host.sessions


async def test_a_dropped_socket_resumes_the_same_game(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    pid = int(term.line("PID "))
    game_id = (await term.message("game"))["game"]
    (game,) = host.sessions
    app_pid = game.process.pid
    await term.ws.close()
    await asyncio.sleep(0.2)
    assert game.detached and game.playing
    again = await SocketTerminal.open(http, host, resume=game_id, cols=100, rows=30)
    await again.expect("REDRAW")  # the app was asked to draw its screen again
    assert await again.message("game") == {"game": game_id, "redraw": True}  # and the page told so
    await again.send("k")
    await again.expect("KEY 'k'")
    assert host.sessions == {game} and game.process.pid == app_pid == pid
    await again.expect("SIZE 100x30")


async def test_a_page_resuming_a_game_whose_socket_still_looks_open_takes_it_over(start_host, http):
    host = await start_host(max_connections_per_user=1)  # the new socket takes the old one's place
    await log_in(http, host, "alice")
    old = await SocketTerminal.open(http, host)  # its network went away: the host hasn't noticed
    await old.expect("READY")
    game_id = (await old.message("game"))["game"]
    (game,) = host.sessions
    again = await SocketTerminal.open(http, host, resume=game_id)
    await again.expect("REDRAW")
    assert (await again.message("game"))["game"] == game_id
    told = await old.message("refused")  # the page shows it and doesn't reconnect (play.js)
    assert told["refused"] == "This game was opened in another window."
    await old.wait_closed()
    await again.send("k")
    await again.expect("KEY 'k'")
    assert host.sessions == {game} and game.playing and not game.detached
    assert host.user_connections("alice") == 1
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as stranger:
        await log_in(stranger, host, "bob")  # another login can't take it
        theirs = await SocketTerminal.open(stranger, host, resume=game_id)
        await theirs.expect("READY")
        assert len(host.sessions) == 2 and game.sender.ws is not theirs.ws


async def test_a_game_left_in_the_browser_is_saved_and_resumed_over_ssh(start_host, http, user_keys,
                                                                       monkeypatch, server_dir):
    from ssh_kit import Terminal

    monkeypatch.setattr(web_server, "RECONNECT_GRACE", 0.3)
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    await term.ws.close()
    for _ in range(100):  # the page never came back: the game is saved (SIGTERM) and ended
        if not host.sessions:
            break
        await asyncio.sleep(0.1)
    assert not host.sessions
    assert (server_dir / "users" / "alice" / "saves" / "saved-on-sigterm").exists()
    async with await connect_ssh(host, "alice", user_keys["alice"]) as conn:
        ssh_term = await Terminal.open(conn)
        await ssh_term.expect("READY")
        assert "saved-on-sigterm" in ssh_term.line("FILES ")  # the same account's saves


async def test_web_logout_over_ssh_ends_every_browser_and_its_games(start_host, http, user_keys):
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    async with await connect_ssh(host, "alice", user_keys["alice"]) as conn:
        result = await conn.run("web-logout", term_type="xterm", timeout=10)
    assert "Logged 1 browser out; 1 game in them saved and closed" in result.stdout
    await term.wait_closed()
    assert "You were logged out" in str(term.messages)
    with pytest.raises(aiohttp.WSServerHandshakeError):
        await SocketTerminal.open(http, host)


async def test_web_login_over_ssh_prints_a_link(start_host, user_keys):
    host = await start_host()
    async with await connect_ssh(host, "alice", user_keys["alice"]) as conn:
        result = await conn.run("web-login", term_type="xterm", timeout=10)
    text = result.stdout
    assert f"{host.web.origin}/login/" in text and result.exit_status == 0
    token = text.split("/login/")[1].split()[0]
    assert host.web.store.link_user(token) == "alice"


async def test_users_remove_ends_the_accounts_browser_logins(start_host, http, server_dir):
    from horizon_tui.cli import main

    host = await start_host()
    await log_in(http, host, "alice")
    assert main(["users", "remove", "alice", "--data-dir", str(server_dir)]) == 0
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await SocketTerminal.open(http, host)
    assert refused.value.status == 401


async def test_a_watcher_sees_the_game_and_cannot_type(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    player = await SocketTerminal.open(http, host)
    await player.expect("READY")
    (game,) = host.sessions
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as bobs:
        await log_in(bobs, host, "bob")
        async with bobs.get(f"{host.web.origin}/watch") as page:
            assert f"/watch/{game.id}" in await page.text()
        watcher = await SocketTerminal.open(bobs, host, path=f"/ws/watch/{game.id}")
        assert (await watcher.message("watching"))["watching"] == "alice (FAKE-HERO)"
        await player.expect("REDRAW")
        await watcher.send("q")  # would quit the fake app if it got through
        await watcher.send("j")
        await player.send("x")
        await watcher.expect("KEY 'x'")
        await asyncio.sleep(0.3)
        assert "KEY 'j'" not in plain_output(player) and game.playing
        assert len(game.watchers) == 1


def plain_output(term: SocketTerminal) -> str:
    from ssh_kit import plain

    return plain(term.output)


async def test_watching_needs_a_login_unless_anyone_may(start_host, http):
    host = await start_host()
    async with http.get(f"{host.web.origin}/watch") as page:
        assert page.status == 401
    host_anyone = await start_host(spectators="anyone", data_dir=host.settings.data_dir.parent / "other")
    async with http.get(f"{host_anyone.web.origin}/watch") as page:
        assert page.status == 200 and "No one is playing" in await page.text()


async def test_a_connection_that_sends_no_request_is_closed_after_the_login_grace_time(start_host):
    host = await start_host(login_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", host.web.port)
    writer.write(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
    started = asyncio.get_running_loop().time()
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the host
    assert asyncio.get_running_loop().time() - started < 3
    writer.close()


async def test_hostile_socket_messages_are_ignored_and_the_game_goes_on(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host, cols="1e999", rows="-5")
    await term.expect("SIZE 80x24")  # what could not be read is the usual 80x24
    for junk in ('{"resize": [1e999, 2]}', '{"resize": [-1, "x"]}', '{"resize": 3}', "[" * 60000,
                 "not json", '{"resize": [100000, 100000]}'):
        await term.ws.send_str(junk)
    await term.expect("SIZE 500x200")  # the largest a game is given (limits.MAX_COLUMNS x MAX_ROWS)
    await term.send("j")
    await term.expect("KEY 'j'")
    (game,) = host.sessions
    assert game.playing


async def test_watch_a_game_from_the_menu_and_back_in_the_browser(start_host, http):
    host = await start_host()
    await log_in(http, host, "alice")
    term = await SocketTerminal.open(http, host)
    await term.expect("READY")
    first_pid = int(term.line("PID "))
    await term.send("w")  # the app's "Watch a game": it exits and the host shows the list
    await term.expect("live games")
    await term.send("q")  # back to the game, started again from its save
    await term.expect("PID ")
    for _ in range(50):
        if term.output.count(b"READY") >= 2:
            break
        await term._read_one()
    assert int(term.line("PID ")) != first_pid and len(host.sessions) == 1


async def test_a_browser_game_is_listed_by_who_and_watched_over_ssh(start_host, http, user_keys, server_dir):
    from ssh_kit import Terminal

    from horizon_tui.host.live import live_sessions

    host = await start_host()
    await log_in(http, host, "alice")
    player = await SocketTerminal.open(http, host)
    await player.expect("READY")
    assert [s.player for s in live_sessions(server_dir)] == ["alice"]  # `horizon who`
    async with await connect_ssh(host, "bob", user_keys["bob"]) as conn:
        watcher = await Terminal.open(conn, size=(100, 30), command="watch")
        await watcher.expect("FAKE-HERO")
        watcher.send("\r")
        await player.expect("REDRAW")  # the browser's app drew its screen for the watcher
        await watcher.expect("REDRAW")
        await player.send("z")
        await watcher.expect("KEY 'z'")
