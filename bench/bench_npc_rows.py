"""The GM dashboard's NPC rows' numbers: each NPC's effective health and willpower (R-2, through
`Npc.stats`), 40 NPCs, CPU time. "first": every NPC object new (a campaign just opened); "again":
the same objects asked again, as on the next roster change (a new NPC keeps the others' objects).

    .venv/bin/python bench/bench_npc_rows.py [--npcs 40] [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import attrs

from horizon_tui.campaign.model import Npc
from horizon_tui.content.catalogue import default_catalogue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npcs", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    catalogue = default_catalogue()
    roster = [Npc(f"NPC {n}", level=1 + n % 4) for n in range(args.npcs)]
    first, again = [], []
    for _ in range(args.repeat):
        npcs = [attrs.evolve(npc) for npc in roster]  # new objects: nothing kept for them yet
        for times in (first, again):
            start = time.process_time()
            for npc in npcs:
                npc.effective_health(catalogue), npc.effective_willpower(catalogue)
            times.append(time.process_time() - start)
    print(f"{args.npcs} NPCs' rows, CPU ms, median of {args.repeat}: "
          f"first {statistics.median(first) * 1000:.2f}, again {statistics.median(again) * 1000:.2f}")


if __name__ == "__main__":
    main()
