"""One authoritative battle, many views — the table without a transport."""

from __future__ import annotations

import pytest
from table_kit import make_rebuild, make_table, player_move

from horizon_tui.engine.battle import cid
from horizon_tui.table.core import Replica, TableError


def _play(table, views, *, gm_override_at: int | None = None, max_steps: int = 400):
    """Each seat acts on its turn; every update goes to every view."""
    steps = 0
    while not table.battle.over and steps < max_steps:
        seat = table.whose_turn()
        assert seat is not None, "the AI plays everyone else, so someone seated must be due"
        update = table.submit(seat.name, player_move(table, seat.name))
        for view in views:
            view.apply(update.to_dict())
        steps += 1
        if gm_override_at == steps:
            target = next(c for c in table.battle.by_id if c.startswith("goblin"))
            update = table.override("mira", {"type": "SetHealth", "target": target, "hp": 1, "reason": "a potion"})
            for view in views:
                view.apply(update.to_dict())
    return steps


def test_every_view_reaches_the_same_log_as_the_table():
    table = make_table(seed=5)
    for name in ("alice", "bob", "mira", "sam"):
        table.connect(name)
    rebuild, _ = make_rebuild(seed=5)
    views = [Replica(rebuild, table.snapshot()) for _ in range(3)]
    steps = _play(table, views, gm_override_at=3)
    assert table.battle.over and steps > 3
    assert {v.digest() for v in views} == {table.digest()}
    # A view that joins at the end (a spectator arriving late) reaches the same point.
    assert Replica(rebuild, table.snapshot()).digest() == table.digest()


def test_a_player_acts_only_for_their_character_on_its_turn():
    table = make_table()
    seat = table.whose_turn()
    other = "alice" if seat.name == "bob" else "bob"
    with pytest.raises(TableError, match="not your turn"):
        table.submit(other, {"type": "Wait", "actor": seat.characters[0]})
    with pytest.raises(TableError, match="spectators"):
        table.submit("sam", {"type": "Wait", "actor": seat.characters[0]})
    with pytest.raises(TableError, match="only for"):
        table.submit(seat.name, {"type": "Wait", "actor": "goblin-archer"})
    with pytest.raises(TableError, match="overrides go through the GM"):
        table.submit(seat.name, {"type": "SetHealth", "target": "goblin-archer", "hp": 1})
    with pytest.raises(TableError, match="not an action"):
        table.submit(seat.name, {"type": "Explode", "actor": seat.characters[0]})
    with pytest.raises(TableError, match="only the GM"):
        table.undo(seat.name)
    assert table.version == 0  # nothing refused was recorded


def test_undo_rebuilds_every_view_to_the_same_point():
    table = make_table(seed=7)
    rebuild, _ = make_rebuild(seed=7)
    view = Replica(rebuild, table.snapshot())
    for _ in range(4):
        seat = table.whose_turn()
        view.apply(table.submit(seat.name, player_move(table, seat.name)).to_dict())
    before_last = Replica(rebuild, {"inputs": table.snapshot()["inputs"][:-1]}).digest()
    update = table.undo("mira")
    view.apply(update.to_dict())
    assert table.version == 3 and view.version == 3
    assert view.digest() == table.digest() == before_last


def test_pause_stops_play_until_the_gm_resumes():
    table = make_table()
    seat = table.whose_turn()
    table.pause("mira", True)
    with pytest.raises(TableError, match="paused"):
        table.submit(seat.name, player_move(table, seat.name))
    table.pause("mira", False)
    table.submit(seat.name, player_move(table, seat.name))


def test_an_absent_player_is_handed_to_the_ai_and_back():
    table = make_table(absent_wait_s=30)
    for name in ("alice", "bob", "mira"):
        table.connect(name)
    seat = table.whose_turn()
    mine = seat.characters[0]
    table.disconnect(seat.name, now=100.0)
    assert table.tick(now=120.0) == []  # not yet
    [update] = table.tick(now=131.0)
    assert "is away" in update.note
    assert table.whose_turn() is not seat or cid(table.battle.current) != mine
    rebuild, _ = make_rebuild()
    assert Replica(rebuild, table.snapshot()).digest() == table.digest()  # the hand-over replays
    back = table.connect(seat.name)
    assert back and "is back" in back[0].note
    from horizon_tui.table.core import controller_of

    assert controller_of(table.battle, mine) == "player"


def test_requests_wait_for_the_gm():
    table = make_table()
    request = table.ask("alice", "free_action", "I kick the brazier onto the goblins")
    assert table.requests[request.id].combatant == "iriel"
    with pytest.raises(TableError, match="only the GM"):
        table.answer("bob", request.id, True)
    assert table.answer("mira", request.id, True) == request
    assert table.requests == {}
    with pytest.raises(TableError):
        table.ask("alice", "free_action", "x" * 501)
    with pytest.raises(TableError):
        table.ask("alice", "bribe", "gold")
