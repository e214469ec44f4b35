"""The page's files ship in the package: everything the page names is there, nothing comes from
another site, and the vendored code and font keep their licences."""

from __future__ import annotations

import re

from horizon_tui.host.web.server import STATIC


def test_the_page_names_only_its_own_files_and_they_are_all_there():
    page = (STATIC / "play.html").read_text()
    names = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert names and all(name.startswith("/static/") for name in names), names
    for name in names:
        assert (STATIC / name.removeprefix("/static/")).is_file(), name
    for css in ("horizon.css", "vendor/xterm/xterm.css"):
        for url in re.findall(r'url\("?([^")]+)"?\)', (STATIC / css).read_text()):
            assert url.startswith("/static/") and (STATIC / url.removeprefix("/static/")).is_file(), url


def test_nothing_in_the_page_reaches_another_site():
    for path in STATIC.rglob("*"):
        if path.suffix in (".html", ".css"):
            text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)  # comments name sites
            assert not re.search(r"(url\(|src=|href=|@import)\s*[\"']?\s*(https?:)?//", text), path
        elif path.parent == STATIC and path.suffix == ".js":  # ours; xterm.js opens nothing itself
            assert "://" not in path.read_text(), path


def test_the_vendored_files_keep_their_licences():
    vendor = STATIC / "vendor"
    for licence in ("LICENSE-xterm", "LICENSE-addon-fit"):  # MIT's words
        assert "Permission is hereby granted, free of charge" in (vendor / "xterm" / licence).read_text()
    assert "Bitstream" in (vendor / "dejavu" / "LICENSE").read_text()


def test_the_page_asks_first_for_the_script_that_opens_the_socket_and_preloads_the_deferred_ones():
    """early.js is the first file the page names (the game's socket opens as soon as it runs);
    each deferred script is also preloaded, so that Chromium doesn't hold it back as a
    low-priority request while early.js blocks the parser (measured: up to 150 ms later)."""
    page = (STATIC / "play.html").read_text()
    names = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert names[0] == "/static/early.js"
    deferred = re.findall(r'<script src="([^"]+)" defer>', page)
    preloaded = re.findall(r'<link rel="preload" href="([^"]+)" as="script">', page)
    assert deferred and preloaded == deferred
