"""The login store: one-time links (256 bits, ≤ 5 minutes, once), 14-day sessions, only digests
kept, every session of an account ended at once; the file and the in-memory twin alike."""

from __future__ import annotations

import json

import pytest

from horizon_tui.host.web.logins import (
    LINK_LIFETIME,
    SESSION_LIFETIME,
    FileLoginStore,
    MemoryLoginStore,
    digest,
)


class Clock:
    def __init__(self):
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    clock = Clock()
    made = MemoryLoginStore(clock) if request.param == "memory" else FileLoginStore(tmp_path, clock)
    made.test_clock = clock
    return made


def test_a_link_is_256_bits_and_works_once(store):
    token = store.issue_link("alice")
    assert len(token) == 43  # 32 bytes, URL-safe base64
    assert store.link_user(token) == "alice"  # looking does not spend it
    assert store.link_user(token) == "alice"
    assert store.spend_link(token) == "alice"
    assert store.spend_link(token) is None
    assert store.link_user(token) is None


def test_a_link_expires_after_five_minutes(store):
    assert LINK_LIFETIME <= 300
    token = store.issue_link("alice")
    store.test_clock.now += LINK_LIFETIME + 1
    assert store.link_user(token) is None
    assert store.spend_link(token) is None


def test_sessions_last_fourteen_days_and_logout_ends_them_all(store):
    assert SESSION_LIFETIME == 14 * 86400
    first, second = store.open_session("alice"), store.open_session("alice")
    bobs = store.open_session("bob")
    assert store.session_user(first) == "alice" and store.session_key_user(digest(second)) == "alice"
    assert store.end_sessions("alice") == 2
    assert store.session_user(first) is None and store.session_user(second) is None
    assert store.session_user(bobs) == "bob"
    store.test_clock.now += SESSION_LIFETIME + 1
    assert store.session_user(bobs) is None


def test_every_live_sessions_user_comes_from_one_lookup(store):
    alice, bob = store.open_session("alice"), store.open_session("bob")
    store.test_clock.now += SESSION_LIFETIME / 2
    later = store.open_session("alice")
    assert store.session_key_users() == {digest(alice): "alice", digest(bob): "bob", digest(later): "alice"}
    store.test_clock.now += SESSION_LIFETIME / 2 + 1  # the first two expired
    assert store.session_key_users() == {digest(later): "alice"}


def test_lookups_parse_the_file_again_only_when_it_changed(tmp_path, monkeypatch):
    store = FileLoginStore(tmp_path)
    elsewhere = FileLoginStore(tmp_path)  # `horizon users remove`, another process
    cookie = store.open_session("alice")
    reads = []
    real_read = FileLoginStore._read
    monkeypatch.setattr(FileLoginStore, "_read", lambda self: reads.append(self) or real_read(self))
    for _ in range(100):  # every page and socket, and every game's check every few seconds
        assert store.session_user(cookie) == "alice" and store.session_key_users() == {digest(cookie): "alice"}
    assert reads == [store]
    elsewhere.end_sessions("alice")
    assert store.session_user(cookie) is None and store.session_key_users() == {}


def test_garbage_never_logs_anyone_in(store):
    for bad in (None, "", "x" * 43, "../../etc/passwd", "é" * 43, "a" * 4000):
        assert store.session_user(bad) is None
        assert store.spend_link(bad) is None


def test_the_file_keeps_only_digests_and_survives_a_restart(tmp_path):
    store = FileLoginStore(tmp_path)
    token, cookie = store.issue_link("alice"), store.open_session("alice")
    text = store.path.read_text()
    assert token not in text and cookie not in text and digest(cookie) in text
    assert store.path.stat().st_mode & 0o077 == 0
    assert FileLoginStore(tmp_path).session_user(cookie) == "alice"  # a restarted host


@pytest.mark.parametrize("content", [b"", b"[]", b"{", b'{"sessions": {"x": 1}}', b"\xff" * 10,
                                     json.dumps({"sessions": {"a" * 64: {"user": 3, "expires": "z"}}}).encode()])
def test_a_damaged_file_logs_no_one_in_and_is_kept_aside(tmp_path, content):
    store = FileLoginStore(tmp_path)
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)
    assert store.session_user("a" * 43) is None
    cookie = store.open_session("alice")
    assert store.session_user(cookie) == "alice"
    if content.startswith(b"{\"") or content == b"[]":  # JSON, entries dropped: nothing to keep
        return
    (aside,) = store.path.parent.glob("logins.json.damaged-*")
    assert aside.read_bytes() == content


@pytest.mark.parametrize(("given", "origin"), [
    ("https://Horizon.Example.org", "https://horizon.example.org"),
    ("https://horizon.example.org:443/", "https://horizon.example.org"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
    ("http://[::1]:8080", "http://[::1]:8080"),
])
def test_the_public_url_is_kept_as_the_origin_browsers_send(given, origin):
    from horizon_tui.host.web.server import parse_public_url

    assert parse_public_url(given) == origin


@pytest.mark.parametrize("bad", ["ftp://x", "horizon.example.org", "https://x/play", "https://x:99999",
                                 "https://u:p@x", "https://x/?a=1"])
def test_a_bad_public_url_says_what_is_wrong(bad):
    from horizon_tui.host.web.server import parse_public_url

    with pytest.raises(ValueError, match="https://"):
        parse_public_url(bad)


def test_serve_ssh_refuses_a_web_url_without_web(capsys, tmp_path):
    from horizon_tui.cli import main

    assert main(["serve-ssh", "--data-dir", str(tmp_path), "--web-url", "https://h.example"]) == 2
    assert "give --web too" in capsys.readouterr().err
