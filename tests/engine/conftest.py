"""Fixtures for the engine tests; the builders themselves live in `engine_kit` (plain functions,
importable from any test module here: `from engine_kit import character, make_battle, ...`).

- `character(...)`: a character from a dict via `character_from_dict` (species "human", catalogue
  weapon ids such as "dagger", "longsword", "spear", "longbow", "quarterstaff");
- `enemy_def(...)`: an `EnemyDef` built inline;
- `setup(rows, party_start, enemies)`: an `EncounterSetup` on `Battlefield.from_rows`;
- `make_battle(rows, party, enemies, seed=...)`: `create_battle` with explicit positions;
- `give_turn(battle, id)`: script whose turn it is; `next_turn_of(battle, id)`: the others wait
  until it is; `events(battle, type)`: the log filtered.

`catalogue` (the shipped one) comes from tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engine_kit import check_log, make_battle
from horizon_tui.engine.battle import Battle


@pytest.fixture
def new_battle() -> Iterator[Callable[..., Battle]]:
    """`make_battle`, and when the test ends every event of every battle it made is checked
    against INTERFACES.md "Battle events" (so each scripted situation guards the schema)."""
    made: list[Battle] = []

    def make(*args: Any, **kwargs: Any) -> Battle:
        battle = make_battle(*args, **kwargs)
        made.append(battle)
        return battle

    yield make
    for battle in made:
        check_log(battle)
