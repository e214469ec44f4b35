"""What a log line means to its viewer (`engine.readmodel.line_kind`): the battle screen colours
damage taken, damage dealt, heals and effects apart by it (`ui.battle.panels.log_style`)."""

from __future__ import annotations

from engine_kit import ann_bo_and_a_grunt, give_turn
from horizon_tui.engine import ai, overrides
from horizon_tui.engine.battle import ident, team
from horizon_tui.engine.readmodel import LINE_KINDS, Reader
from horizon_tui.engine.runner import begin, override
from horizon_tui.engine.viewer import Viewer


def _kind_of(reader: Reader, battle, starts: str) -> str:
    """The kind of the last line of `reader`'s log that starts with `starts`."""
    return next(line.kind for line in reversed(reader.model(battle).lines) if line.text.startswith(starts))


def test_damage_to_the_viewers_side_is_taken_and_to_the_other_dealt(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    give_turn(battle, "bo")
    party, enemies = Reader(Viewer.of_side("party")), Reader(Viewer.of_side("enemies"))
    party.model(battle), enemies.model(battle)
    override(battle, overrides.Damage(("grunt",), 2))
    override(battle, overrides.Damage(("bo",), 3))
    override(battle, overrides.AddEffect("grunt", "slow", 2, magnitude=20))
    assert _kind_of(party, battle, "Grunt takes 2 damage") == "damage_dealt"
    assert _kind_of(party, battle, "Bo takes 3 damage") == "damage_taken"
    assert _kind_of(party, battle, "Grunt suffers slow") == "effect"
    # the grunt's side reads the same blows the other way round
    assert _kind_of(enemies, battle, "Grunt takes 2 damage") == "damage_taken"
    assert _kind_of(enemies, battle, "Bo takes 3 damage") == "damage_dealt"


def test_every_line_of_a_played_battle_has_a_known_kind_and_blows_go_by_the_target(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    party = Reader(Viewer.of_side("party"))
    begin(battle)
    for _ in range(200):
        if battle.over or battle.current is None:
            break
        ai.take_turn(battle, battle.current)
        party.model(battle)
    lines = party.model(battle).lines
    assert battle.over and {line.kind for line in lines} <= set(LINE_KINDS)
    blows = [e for e in battle.log if e.type == "damage"]
    assert blows
    for blow in blows:
        name = ident(battle[blow.target]).name
        said = [line for line in lines if line.text.startswith(f"{name} takes {blow.amount} damage")]
        assert said and all(line.kind == ("damage_taken" if team(battle[blow.target]) == "party" else "damage_dealt")
                            for line in said)

