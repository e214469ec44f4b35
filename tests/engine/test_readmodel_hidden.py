"""R-13 over many battles: nothing a player or a spectator may not see reaches them.

100 seeded battles on a field split by a wall with gaps, two characters against three enemies
(each with a name and a glyph of its own), played by the AI; between turns the GM hides, reveals,
moves and hurts a random enemy (`engine.overrides`). After every change, for the party's side, a
seat with one character's eyes and a spectator: no enemy it can't see now is in its read model
(units, cells, initiative, targets, whose turn), on its map, in its panels' text, or named in the
log lines the change added (but the line saying one it saw went out of sight); a GM's act on an
enemy it can't see adds no other line, and no line ever counts the unseen."""

from __future__ import annotations

import random

import tcod.console

from engine_kit import character, enemy_def, make_battle, GRUNT
from horizon_tui.engine import ai, overrides
from horizon_tui.engine.battle import effects, ident, is_active, pos, team
from horizon_tui.engine.readmodel import Reader
from horizon_tui.engine.runner import begin, override
from horizon_tui.engine.viewer import Viewer
from horizon_tui.ui.battle.panels import enemies_text, legend_text
from horizon_tui.ui.battle.view import draw, glyph_map

ENEMIES = (("qara", "Qara", "Q"), ("wulf", "Wulf", "W"), ("zorn", "Zorn", "Z"))
VIEWERS = (Viewer.of_side("party"), Viewer.seat("party", ["ann"]), Viewer.spectator())
TERRAIN = {ord(c) for c in " .#,"}


def _field(rng: random.Random) -> list[str]:
    """16×9, a wall down the middle with one or two gaps, a few pillars."""
    rows = [["."] * 16 for _ in range(9)]
    gaps = set(rng.sample(range(9), rng.choice((1, 2))))
    for y in range(9):
        if y not in gaps:
            rows[y][8] = "#"
    for _ in range(4):
        rows[rng.randrange(9)][rng.choice((3, 4, 12, 13))] = "#"
    return ["".join(r) for r in rows]


def _battle(seed: int):
    rng = random.Random(seed)
    rows = _field(rng)
    free = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "."]
    left = [c for c in free if c[0] < 6]
    right = [c for c in free if c[0] > 9]
    spots = rng.sample(left, 2) + rng.sample(right, 3)
    enemies = [(enemy_def(eid, character(name, attributes=GRUNT), glyph=glyph), spot, name)
               for (eid, name, glyph), spot in zip(ENEMIES, spots[2:])]
    battle = make_battle(rows, party=[(character("Ann"), spots[0]), (character("Bo"), spots[1])],
                         enemies=enemies, seed=seed)
    if rng.random() < 0.5:  # some begin hidden
        override(battle, overrides.AddEffect(rng.choice(_enemy_ids(battle)), "hidden", 4))
    return battle, rng


def _enemy_ids(battle) -> list[str]:
    return [ident(e).id for e in battle.combatants() if team(e) == "enemies"]


def _gm_act(battle, rng: random.Random) -> str | None:
    """A random GM act on a random enemy still in the fight: whom, if it was done."""
    targets = [uid for uid in _enemy_ids(battle) if is_active(battle[uid])]
    if not targets:
        return None
    uid = rng.choice(targets)
    hidden = effects(battle[uid]).get("hidden") is not None
    field = battle.battlefield
    kind = rng.choice(("hide", "move", "hurt", "reveal" if hidden else "hide"))
    if kind == "hide":
        change = overrides.AddEffect(uid, "hidden", rng.randint(1, 4))
    elif kind == "reveal":
        change = overrides.RemoveEffect(uid, "hidden")
    elif kind == "hurt":
        change = overrides.Damage((uid,), rng.randint(1, 3))
    else:
        cells = [(x, y) for x in range(field.width) for y in range(field.height)
                 if field.is_walkable((x, y)) and (x, y) not in battle.occupancy]
        change = overrides.Teleport(uid, rng.choice(cells))
    return None if isinstance(override(battle, change), overrides.Impossible) else uid


def _check(battle, reader: Reader, said: int, glyphs: dict[str, str], console,
           saw: set[str]) -> tuple[list[str], set[str], set[str]]:
    """Everything `reader`'s viewer gets now (`saw`: whom it saw at the last check); returns the
    log lines the change added apart from those saying an enemy it saw went out of sight, the
    enemies it can't see and those it sees."""
    known = reader.model(battle)
    seen = {u.id for u in known.units}
    gone_from_sight = [line.text for line in known.lines[said:] if line.event == "sight" and "out of sight" in line.text]
    for line in gone_from_sight:  # only one it saw there: "Qara moves out of sight."
        assert any(line.startswith(ident(battle[uid]).name) for uid in saw - seen), (line, saw)
    unseen = [battle[uid] for uid in _enemy_ids(battle) if is_active(battle[uid]) and uid not in seen]
    draw(console, battle, known, glyphs=glyphs)
    panels = enemies_text(known, glyphs).plain + legend_text(known, glyphs).plain
    added = [text for text in known.log_text()[said:] if text not in gone_from_sight]
    in_sight = [u for u in known.units if u.team != "party"]
    assert panels.startswith(f"In sight ({len(in_sight)})" if in_sight else "No enemy in sight")  # no count
    assert not any("more unseen" in line for line in known.log_text())
    for e in unseen:
        uid, name, glyph, at = ident(e).id, ident(e).name, glyphs[ident(e).id], pos(e)
        where = (reader.viewer, uid, battle.round)
        assert uid not in [i.id for i in known.initiative], where
        assert all(uid not in ids for ids in known.targets.values()), where
        assert known.current != uid and known.acting != name, where
        assert known.unit_at(at) is None and all(u.position != at for u in known.units), where
        assert console.rgb["ch"][at[1], at[0]] in TERRAIN, where  # nothing drawn where it stands
        assert ord(glyph) not in console.rgb["ch"], where  # nor anywhere
        assert name not in panels and f"{glyph} " not in panels, (where, panels)
        assert not any(name in line for line in added), (where, added)
    return added, {ident(e).id for e in unseen}, seen


def test_no_player_or_spectator_learns_of_an_enemy_it_cannot_see():
    unseen_total = gm_acts_unseen = 0  # enemies unseen by a viewer at a check; GM acts on them
    for seed in range(100):
        battle, rng = _battle(seed)
        glyphs = glyph_map(battle)
        console = tcod.console.Console(battle.battlefield.width, battle.battlefield.height, order="C")
        readers = [Reader(v) for v in VIEWERS]
        said = [0] * len(readers)
        saw: list[set[str]] = [set() for _ in readers]
        begin(battle)
        acted_on = None
        for _turn in range(41):
            for i, reader in enumerate(readers):
                added, unseen, saw[i] = _check(battle, reader, said[i], glyphs, console, saw[i])
                said[i] = len(reader.model(battle).lines)
                unseen_total += len(unseen)
                if acted_on in unseen:  # not "GM: move on someone unseen", "Someone unseen takes 2 damage"
                    assert added == [], (reader.viewer, added)  # nothing of it in sight: not a word
                    gm_acts_unseen += 1
            if battle.over or battle.current is None:
                break
            acted_on = _gm_act(battle, rng) if rng.random() < 0.4 else None
            if acted_on is None:
                ai.take_turn(battle, battle.current)
    assert unseen_total > 1000 and gm_acts_unseen > 200, (unseen_total, gm_acts_unseen)  # they did hide
