"""Foundation speed: `horizon sheet --json` as a whole process, and loading the catalogue.

Targets: sheet process under 0.5 s; whole catalogue load under 50 ms.
Run: .venv/bin/python bench/bench_foundation.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLE = """name = "Iriel"
species = "human"
weapon = "dagger"
[attributes]
physical = 10
agility = 10
perception = 10
cognition = 6
faith = 5
beauty = 1
"""


def median_of(label: str, fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    value = statistics.median(times)
    print(f"{label}: median {value * 1000:.1f} ms over {runs} runs (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})")
    return value


def main() -> None:
    horizon = Path(sys.executable).with_name("horizon")
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "iriel.toml"
        file.write_text(EXAMPLE)
        cmd = [str(horizon), "sheet", str(file), "--json"]
        subprocess.run(cmd, check=True, capture_output=True)  # warm the disk cache
        median_of("horizon sheet --json (whole process)", lambda: subprocess.run(cmd, check=True, capture_output=True), 15)
    import_cmd = [sys.executable, "-c", "import horizon_tui.content.catalogue, horizon_tui.rules.character"]
    median_of("  of which interpreter + imports", lambda: subprocess.run(import_cmd, check=True), 15)

    from horizon_tui.content.catalogue import data_dir, load_catalogue

    load_catalogue(data_dir())  # first load compiles cattrs' structuring functions
    median_of("load the whole catalogue (warm process)", lambda: load_catalogue(data_dir()), 30)
    cold = [sys.executable, "-c",
            "import time; from horizon_tui.content.catalogue import data_dir, load_catalogue; "
            "t = time.perf_counter(); load_catalogue(data_dir()); print(time.perf_counter() - t)"]
    firsts = [float(subprocess.run(cold, check=True, capture_output=True, text=True).stdout) for _ in range(10)]
    print(f"load the whole catalogue (first load in a fresh process): median {statistics.median(firsts) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
