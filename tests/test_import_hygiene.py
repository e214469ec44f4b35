"""STYLE.md: `horizon_tui.rules` and the data loader import neither textual nor tcod.

Checked in a fresh interpreter, so modules other tests imported don't hide a heavy import."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import horizon_tui.content
import horizon_tui.rules

REPO = Path(__file__).resolve().parent.parent
FORBIDDEN = ("textual", "tcod", "tcod_ecs")

LIGHT_MODULES = sorted(
    [f"horizon_tui.rules.{m.name}" for m in pkgutil.iter_modules(horizon_tui.rules.__path__)]
    + [f"horizon_tui.content.{m.name}" for m in pkgutil.iter_modules(horizon_tui.content.__path__)]
    + ["horizon_tui.errors"]
)

PROBE = """
import importlib, json, sys
for name in {modules!r}:
    importlib.import_module(name)
from horizon_tui.content.catalogue import default_catalogue
default_catalogue()
heavy = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden!r})
print(json.dumps(heavy))
"""


def _heavy_modules_after(code: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_rules_and_loader_import_neither_textual_nor_tcod():
    for name in ("horizon_tui.rules.stats", "horizon_tui.rules.combat", "horizon_tui.content.catalogue",
                 "horizon_tui.content.characters"):
        assert name in LIGHT_MODULES
    heavy = _heavy_modules_after(PROBE.format(modules=LIGHT_MODULES, forbidden=FORBIDDEN))
    assert heavy == []


def test_the_probe_would_see_a_heavy_import():
    """The check itself works: importing textual in the probe is noticed (skipped if not installed)."""
    import importlib.util

    import pytest

    if importlib.util.find_spec("textual") is None:
        pytest.skip("textual is not installed")
    heavy = _heavy_modules_after(PROBE.format(modules=["textual"], forbidden=FORBIDDEN))
    assert "textual" in heavy


def _import_circles(graph) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan), each sorted."""
    adjacent = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in adjacent[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(adjacent):
        if module not in index:
            visit(module)
    return circles


def test_no_module_imports_itself_round_a_circle():
    """The layout shows its layers (README "Layout"): no two modules import each other, directly or
    round a circle, at the top of a file or inside a function. Imports under TYPE_CHECKING are left
    out: only the type checker reads them."""
    import grimp

    graph = grimp.build_graph("horizon_tui", cache_dir=None, exclude_type_checking_imports=True)
    assert _import_circles(graph) == []


COMMAND_PROBE = """
import contextlib, io, json, sys
from horizon_tui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}} & set({heavy!r}))))
"""
HEAVY_FOR_LIGHT_COMMANDS = ("textual", "tcod", "tcod_ecs", "numpy", "dask", "distributed", "asyncssh", "aiohttp",
                            "sqlalchemy", "alembic", "psycopg", "d20", "rich", "plotext")


def test_help_and_a_roll_import_nothing_heavy(tmp_path):
    """Imports sit at the top of files, except where `horizon --help` and `horizon roll 2d6` would pay
    for them (pyproject's per-file-ignores for PLC0415: cli.py, subcommands.py and the command modules
    subcommands.py imports to build each command's arguments). A heavy import hoisted into one of
    those fails here."""
    env = dict(os.environ, PYTHONPATH=str(REPO), HORIZON_DATA_DIR=str(tmp_path))
    for argv in (["--help"], ["roll", "2d6", "--seed", "1"], ["battle", "--help"], ["sweep", "--help"]):
        code = COMMAND_PROBE.format(argv=argv, heavy=HEAVY_FOR_LIGHT_COMMANDS)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == [], argv
