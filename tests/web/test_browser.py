"""The page in a real browser: Playwright driving Debian's chromium (skipped, and said so in the
summary, when it can't be installed). Log in by the link, keys without a click, numpad keys
with NumLock on and off, resizing, the reconnect banner, a watcher who can't type, the real app's
menu, and no Content-Security-Policy violation on the way."""

from __future__ import annotations

import asyncio
import re

import pytest
from web_kit import login_link

pytestmark = pytest.mark.slow


async def screen_text(page) -> str:
    return await page.locator(".xterm-rows").inner_text()


async def wait_for_screen(page, text: str, timeout: float = 15.0, count: int = 1) -> str:
    """Poll the terminal's rows until `text` is there `count` times (the page's CSP forbids
    Playwright's evaluated predicates). Keys may arrive together: one line can echo several."""
    shown = ""
    for _ in range(int(timeout / 0.1)):
        shown = await screen_text(page)
        if shown.replace("\xa0", " ").replace("\n", "").count(text) >= count:
            return shown
        await asyncio.sleep(0.1)
    raise AssertionError(f"{text!r} not on the screen within {timeout} s: {shown[-1500:]!r}")


async def open_logged_in(browser, host, user: str, violations: list):
    context = await browser.new_context(viewport={"width": 900, "height": 600})
    page = await context.new_page()
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    await page.goto(login_link(host, user))
    assert await page.locator("button").inner_text() == f"Continue as {user}"
    await page.click("button")
    await page.wait_for_url(re.compile(r"/$"))
    return page


async def test_login_by_link_and_a_key_works_without_a_click(start_host, browser):
    host = await start_host()
    violations: list[str] = []
    page = await open_logged_in(browser, host, "alice", violations)
    await wait_for_screen(page, "READY")
    await page.keyboard.press("j")  # focused on load: no click first
    await wait_for_screen(page, "KEY 'j'")
    assert not violations


# Notes the characters xterm.js measures itself, as it draws them (reads of the width of its own
# measuring elements, the first four children of its WidthCache's container: one forced layout
# each), and counts those the page measures beforehand, in elements of its own appended after them.
COUNT_MEASURING = """(() => {
  window.measuredWhileDrawing = [];
  window.measuredAhead = 0;
  const width = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetWidth").get;
  Object.defineProperty(HTMLElement.prototype, "offsetWidth", {configurable: true, get() {
    const container = this.parentElement;
    if (container && container.classList.contains("xterm-width-cache-measure-container")) {
      if (Array.prototype.indexOf.call(container.children, this) < 4) window.measuredWhileDrawing.push(this.textContent[0]);
      else window.measuredAhead += 1;
    }
    return width.call(this);
  }});
})()"""


async def test_the_first_screens_characters_are_measured_before_they_are_drawn_not_one_by_one(start_host, browser):
    host = await start_host()
    context = await browser.new_context(viewport={"width": 900, "height": 600})
    await context.add_init_script(COUNT_MEASURING)
    page = await context.new_page()
    await page.goto(login_link(host, "alice"))
    await page.click("button")
    shown = await wait_for_screen(page, "READY")
    drawing = await page.evaluate("window.measuredWhileDrawing")
    # only what xterm.js measures as it opens, before any message: "W" (its default spacing) and
    # the space under its cursor; none of the app's characters (as its first screen, one by one)
    assert set(drawing) <= {"W", " "}, drawing
    distinct = {c for c in shown if c not in "\n\xa0"}
    assert await page.evaluate("window.measuredAhead") >= len(distinct)  # each one, and its bold
    # measured as xterm.js measures: no character's width differs from its, so none is spaced apart
    assert await page.locator(".xterm-rows span[style*='letter-spacing']").count() == 0
    for key in "jxzvbn":  # more messages, each with a new character: still measured ahead
        await page.keyboard.press(key)
        await wait_for_screen(page, f"KEY '{key}'")
    assert set(await page.evaluate("window.measuredWhileDrawing")) <= {"W", " "}


async def test_numpad_keys_arrive_as_the_apps_numpad_keys_with_numlock_on_or_off(start_host, browser):
    host = await start_host()
    page = await open_logged_in(browser, host, "alice", [])
    await wait_for_screen(page, "READY")
    await page.keyboard.press("Numpad1")  # NumLock on: key "1", code Numpad1
    await wait_for_screen(page, r"KEY '\x1bOq'")
    cdp = await page.context.new_cdp_session(page)
    for key, code, virtual, expected in (("End", "Numpad1", 35, "q"), ("Clear", "Numpad5", 12, "u"),
                                         ("ArrowUp", "Numpad8", 38, "x")):  # NumLock off
        for kind in ("rawKeyDown", "keyUp"):
            await cdp.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": code,
                                                      "windowsVirtualKeyCode": virtual, "location": 3})
        await wait_for_screen(page, "\\x1bO" + expected, count=2 if expected == "q" else 1)
    await page.keyboard.press("ArrowUp")  # the arrow keys are left alone
    await wait_for_screen(page, r"\x1b[A")
    assert "KEY '1'" not in await screen_text(page)  # xterm.js sent nothing of its own


async def test_the_terminal_follows_the_window_and_the_socket_reconnects_to_the_same_game(start_host, browser):
    host = await start_host()
    page = await open_logged_in(browser, host, "alice", [])
    await wait_for_screen(page, "READY")
    (game,) = host.sessions
    before = game.term_size[:2]
    await page.set_viewport_size({"width": 1200, "height": 700})
    for _ in range(50):
        if game.term_size[:2] != before:
            break
        await asyncio.sleep(0.1)
    assert game.term_size[0] > before[0]
    await wait_for_screen(page, f"SIZE {game.term_size[0]}x{game.term_size[1]}")
    pid = game.process.pid
    assert await page.locator(".xterm-rows .xterm-cursor").count() == 1  # the fake app never hides it
    await game.sender.ws.close(code=1012)  # the connection drops (a proxy restart)
    await page.locator("#banner", has_text="reconnecting").wait_for(state="visible", timeout=5000)
    await page.locator("#banner").wait_for(state="hidden", timeout=10000)
    await wait_for_screen(page, "REDRAW")
    # the app draws its screen again, not the modes it set before: the page hides the cursor,
    # as the real app has it (a reload showed a stray cursor in the corner, found by hand)
    assert await page.locator(".xterm-rows .xterm-cursor").count() == 0
    await page.keyboard.press("k")  # focused again after the reconnect
    await wait_for_screen(page, "KEY 'k'")
    assert host.sessions == {game} and game.process.pid == pid


async def test_a_spectator_watches_from_another_browser_and_cannot_type(start_host, browser):
    host = await start_host()
    player = await open_logged_in(browser, host, "alice", [])
    await wait_for_screen(player, "READY")
    (game,) = host.sessions
    watcher = await open_logged_in(browser, host, "bob", [])
    await watcher.goto(f"{host.web.origin}/watch")
    await watcher.click(f"a[href='/watch/{game.id}']")
    await watcher.locator("#banner", has_text="Watching alice").wait_for(timeout=10000)
    await player.keyboard.press("x")
    await wait_for_screen(watcher, "KEY 'x'")
    await watcher.keyboard.type("qj")
    await asyncio.sleep(0.5)
    assert "KEY 'j'" not in await screen_text(player) and game.playing


async def test_a_watcher_sees_the_players_whole_screen_below_the_banner_without_a_cursor(start_host, browser):
    host = await start_host()
    player = await open_logged_in(browser, host, "alice", [])
    await wait_for_screen(player, "READY")
    (game,) = host.sessions
    watcher = await open_logged_in(browser, host, "bob", [])  # the same window: the banner takes rows
    await watcher.goto(f"{host.web.origin}/watch/{game.id}")
    await watcher.locator("#banner", has_text="Watching alice").wait_for(timeout=10000)
    await player.keyboard.press("x")
    await wait_for_screen(watcher, "KEY 'x'")
    columns, rows = game.term_size[:2]
    shown = await watcher.locator(".xterm-screen").bounding_box()
    banner = await watcher.locator("#banner").bounding_box()
    assert await watcher.locator(".xterm-rows > div").count() == rows
    assert shown["y"] >= banner["y"] + banner["height"] - 1
    assert shown["y"] + shown["height"] <= 600 and shown["x"] + shown["width"] <= 900, (shown, columns, rows)
    assert await watcher.locator(".xterm-rows .xterm-cursor").count() == 0


async def test_the_real_app_plays_in_the_browser(start_host, browser):
    host = await start_host(app_command=None)
    await host.session_server.wait_ready()
    violations: list[str] = []
    page = await open_logged_in(browser, host, "alice", violations)
    await wait_for_screen(page, "Recent characters", timeout=30)
    await page.keyboard.press("r")  # the Rules screen, by its key
    shown = await screen_text(page)
    for _ in range(100):
        if "Recent characters" not in shown:
            break
        await asyncio.sleep(0.1)
        shown = await screen_text(page)
    assert "Recent characters" not in shown
    assert not violations
