"""STYLE.md layering: the GM's models and services import no Textual (and, but for the battle
glue, no tcod); checked in a fresh interpreter, as tests/test_import_hygiene.py does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PURE = ["horizon_tui.campaign.model", "horizon_tui.campaign.changes", "horizon_tui.campaign.campaign_files", "horizon_tui.campaign.open_campaign",
        "horizon_tui.campaign.house_rules", "horizon_tui.campaign.export"]
ENGINE_GLUE = ["horizon_tui.campaign.battles", "horizon_tui.campaign.initiative"]

PROBE = """
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & {{"textual", "tcod"}})))
"""


def heavy_after(modules: list[str]) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", PROBE.format(modules=modules)], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_gm_models_and_services_import_neither_textual_nor_tcod():
    assert heavy_after(PURE) == []


def test_the_battle_glue_imports_the_engine_but_not_textual():
    assert "textual" not in heavy_after(ENGINE_GLUE)
