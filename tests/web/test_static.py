"""The page's files ship in the package: everything the page names is there, nothing comes from
another site, and the vendored code and font keep their licences."""

from __future__ import annotations

import re

from horizon_tui.host.web.assets import BUNDLES, Assets
from horizon_tui.host.web.server import STATIC


def test_the_page_names_only_its_own_files_and_they_are_all_there():
    page = (STATIC / "play.html").read_text()
    names = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert names and all(name.startswith("/static/") for name in names), names
    for name in names:  # a file, or a bundle of files (assets.BUNDLES)
        for part in BUNDLES.get(name, (name,)):
            assert (STATIC / part.removeprefix("/static/")).is_file(), (name, part)
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


def test_the_page_names_one_script_one_style_sheet_and_preloads_its_font():
    """Every script of the page is in one bundle (assets.BUNDLES), socket opener first, deferred;
    its styles in another; the font, named by its style sheet, is asked for at once beside them."""
    page = (STATIC / "play.html").read_text()
    assert re.findall(r'<script src="([^"]+)"', page) == ["/static/play-bundle.js"]
    assert '<script src="/static/play-bundle.js" defer></script>' in page
    assert re.findall(r'<link rel="stylesheet" href="([^"]+)">', page) == ["/static/play-bundle.css"]
    assert re.findall(r'<link rel="preload" href="([^"]+)" as="font"', page) == ["/static/vendor/dejavu/DejaVuSansMono.ttf"]
    assert BUNDLES["/static/play-bundle.js"][0] == "/static/early.js"  # the socket opens before xterm.js is run
    assert BUNDLES["/static/play-bundle.js"][-1] == "/static/play.js"


def test_a_bundle_is_its_parts_in_order_without_their_source_maps():
    assets = Assets(STATIC)
    for name, parts in BUNDLES.items():
        bundle = assets.find(name)[0].body.decode()
        at = 0
        for part in parts:
            text = assets.find(part)[0].body.decode()
            text = re.sub(r"\n//# sourceMappingURL=\S+\s*$", "", text).rstrip()
            found = bundle.find(text, at)
            assert found >= at, (name, part)
            at = found + len(text)
        assert "sourceMappingURL" not in bundle  # maps that aren't shipped: a browser's tools would ask for them
    css = assets.find("/static/play-bundle.css")[0].body.decode()
    assert "\n;\n" not in css  # the scripts' joint: in a style sheet it would void the rule after it
    assert re.search(r'url\("/static/vendor/dejavu/DejaVuSansMono[.][0-9a-f]{12}[.]ttf"\)', css)  # the font by digest
