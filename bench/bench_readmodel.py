"""What a viewer's read model costs (`engine.readmodel`), in CPU time (`time.process_time`: the
machine is shared, wall time is noise):
- building it after a change of a 50x50 battle (steppe_raid, the example party of four), for the
  party's side, one seat's eyes and the GM;
- reading it again with nothing changed (what each key and panel costs now: once per change, not
  per key or per panel);
- what the screen paid per refresh before: the side's view three times and the unseen set once.
Run: .venv/bin/python bench/bench_readmodel.py   (medians of several runs)
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine.battle import pos
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.readmodel import Reader
from horizon_tui.engine.runner import begin
from horizon_tui.engine.sideview import side_view, unseen_ids
from horizon_tui.engine.viewer import Viewer

ROOT = Path(__file__).resolve().parent.parent


def _battle():
    catalogue = default_catalogue()
    enemies = load_enemies(catalogue)
    setup = load_encounter("steppe_raid", catalogue, enemies)
    party = [PartyMember(load_character(p, catalogue)) for p in sorted((ROOT / "examples/party").glob("*.toml"))]
    battle = create_battle(setup, party, 1, catalogue, enemies)
    begin(battle)
    return battle


def _cpu_ms(work, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main(runs: int = 200) -> None:
    battle = _battle()
    hero = battle["iriel"]
    home = pos(hero)
    steps = [(home[0] + 1, home[1]), home]
    for name, viewer in (("party", Viewer.of_side("party")), ("seat (Iriel's eyes)", Viewer.seat("party", ["iriel"])),
                         ("GM", Viewer.gm())):
        reader = Reader(viewer)
        reader.model(battle)
        moved = iter(range(10**9))

        def change_and_build(reader=reader, moved=moved) -> None:
            step = steps[next(moved) % 2]
            battle.place(hero, step if step not in battle.occupancy else home)
            reader.model(battle)

        built = _cpu_ms(change_and_build, runs)
        cached = _cpu_ms(lambda reader=reader: reader.model(battle), runs * 10)
        print(f"{name}: build after a move {built:.3f} ms CPU, read again unchanged {cached * 1000:.1f} µs CPU")
    before = _cpu_ms(lambda: ([side_view(battle, "party") for _ in range(3)], unseen_ids(battle, "party")), runs)
    print(f"before, per refresh (side view x3 + unseen set): {before:.3f} ms CPU, and again for every log line")


if __name__ == "__main__":
    main()
