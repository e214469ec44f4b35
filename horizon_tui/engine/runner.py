"""Driving a battle: AI turns run themselves, player and GM turns wait for an action.

Inputs (actions from players and the GM) are recorded with the log position they were given
at; with the seed they replay the battle exactly (`replay`), which is also how a battle saved
mid-fight resumes.
"""

from __future__ import annotations

from typing import Any

import attrs

from horizon_tui.engine import ai, turns
from horizon_tui.engine.actions import ACTION_TYPES, Impossible, Outcome, perform
from horizon_tui.engine.battle import Battle, Entity, comp, ident, team
from horizon_tui.engine.components import Controller
from horizon_tui.engine.overrides import OVERRIDE_TYPES
from horizon_tui.content.convert import converter


@attrs.frozen
class Input:
    at: int  # len(battle.log) when it was given
    action: Any  # an action object
    auto_end: bool = True


def needs_input(battle: Battle, e: Entity | None = None) -> bool:
    """A player's or GM's combatant, fighting for its own side (domination hands it to the AI)."""
    e = e if e is not None else battle.current
    if e is None:
        return False
    return comp(e, Controller).kind in ("player", "gm") and team(e) == ident(e).base_team


def run_ai(battle: Battle, *, max_turns: int | None = None) -> int:
    """Play AI turns until a player or GM must decide, or the battle ends. Returns turns played."""
    played = 0
    while not battle.over and battle.current is not None and not needs_input(battle):
        if max_turns is not None and played >= max_turns:
            break
        now = battle.current
        if now is not None:
            ai.take_turn(battle, now)
        played += 1
    return played


def begin(battle: Battle) -> None:
    turns.start(battle)


def submit(battle: Battle, action, inputs: list[Input] | None = None, *, auto_end: bool = True) -> Outcome:
    """A player's or GM's action on the current turn; recorded in `inputs` if it succeeds."""
    at = len(battle.log)
    outcome = perform(battle, action, auto_end=auto_end)
    if inputs is not None and not isinstance(outcome, Impossible):
        inputs.append(Input(at, action, auto_end))
    return outcome


def override(battle: Battle, change, inputs: list[Input] | None = None) -> Outcome:
    """A GM override (engine.overrides), at any moment; recorded in `inputs` if it succeeds."""
    at = len(battle.log)
    outcome = change(battle)
    if inputs is not None and not isinstance(outcome, Impossible):
        inputs.append(Input(at, change, False))
    return outcome


def _is_override(action) -> bool:

    return type(action).__name__ in OVERRIDE_TYPES


def play_out(battle: Battle) -> None:
    """A whole battle with every side played by the AI (`horizon battle`, the simulator)."""
    begin(battle)
    while not battle.over:
        e = battle.current
        if e is None:
            break
        ai.take_turn(battle, e)


def replay(battle: Battle, inputs: list[Input]) -> None:
    """Re-run a battle from its start with the recorded inputs, stopping where they end."""
    begin(battle)
    queue = list(inputs)
    while queue and not battle.over:
        nxt = queue[0]
        if _is_override(nxt.action) and len(battle.log) >= nxt.at:
            queue.pop(0)
            if isinstance(nxt.action(battle), Impossible):
                raise ValueError("the saved battle doesn't replay: a GM override no longer applies")
            continue
        if len(battle.log) >= nxt.at and needs_input(battle):
            queue.pop(0)
            outcome = perform(battle, nxt.action, auto_end=nxt.auto_end)
            if isinstance(outcome, Impossible):
                raise ValueError(f"the saved battle doesn't replay: {outcome.reason}")
            continue
        if needs_input(battle):
            raise ValueError("the saved battle doesn't replay: a decision is missing")
        now = battle.current
        if now is not None:
            ai.take_turn(battle, now)


def action_to_dict(action) -> dict[str, Any]:

    data = converter.unstructure(action)
    data.pop("via", None)  # Move's path found by the AI: a shortcut, not part of the input
    data["type"] = type(action).__name__
    return data


def action_from_dict(data: dict[str, Any]):


    data = dict(data)
    kind = data.pop("type")
    cls = ACTION_TYPES.get(kind) or OVERRIDE_TYPES[kind]
    return converter.structure(data, cls)
