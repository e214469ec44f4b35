"""Drawing a battle into a tcod console, and a tcod console into Textual `Strip`s.

`draw` paints terrain (visible, remembered or unknown to the player's side), combatants as
glyphs coloured by team, the active combatant, and an overlay (reach, area, path, cursor).
`StripCache` turns console rows into Strips with cached styles, re-building only rows whose
cells changed, so a frame where one combatant moved touches two rows.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import numpy as np
import tcod.console
from rich.color import Color
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from horizon_tui.engine.battle import Battle, ident, pos, team
from horizon_tui.engine.battlefield import Terrain

# Colours: one palette, named for what they show.
FLOOR_LIT, FLOOR_DIM = (110, 110, 100), (55, 55, 60)
WALL_LIT, WALL_DIM = (170, 150, 120), (80, 72, 64)
ROUGH_LIT, ROUGH_DIM = (90, 140, 90), (45, 70, 50)
BG_LIT, BG_DIM, BG_NONE = (24, 24, 28), (10, 10, 14), (0, 0, 0)
TEAM_COLOURS = {"party": (120, 200, 255), "enemies": (240, 90, 80)}
ACTIVE_BG = (90, 80, 20)
REACH_BG = (20, 40, 60)
AREA_BG = (90, 40, 20)
PATH_BG = (30, 60, 30)
CURSOR_BG = (200, 200, 60)
BLOCKED_BG = (70, 20, 20)

GLYPHS = {Terrain.FLOOR: ord("."), Terrain.WALL: ord("#"), Terrain.DIFFICULT: ord(",")}


@attrs.define
class Overlay:
    """What the screen wants shown on top of the map (targeting, travel, look)."""

    reach: np.ndarray | None = None  # bool [y, x]: cells within range
    area: Iterable[tuple[int, int]] = ()
    path: Iterable[tuple[int, int]] = ()
    cursor: tuple[int, int] | None = None
    cursor_blocked: bool = False


def team_view(battle: Battle, side: str | None) -> np.ndarray:
    """What a side sees now: the union of its active members' fields of view. `None` is the
    game master, who sees everything."""
    field = battle.battlefield
    if side is None:
        return np.ones((field.height, field.width), dtype=bool)
    seen = np.zeros((field.height, field.width), dtype=bool)
    from horizon_tui.engine.battle import gear

    for e in battle.active.values():
        if team(e) == side:
            seen |= field.fov(pos(e), gear(e).sight_radius)
    return seen


class BaseLayer:
    """The terrain as a side knows it (lit, remembered, unknown), kept until what is seen
    changes: a frame then costs one copy plus the combatants."""

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._cells: np.ndarray | None = None

    def paint(self, rgb: np.ndarray, terrain: np.ndarray, visible: np.ndarray, remembered: np.ndarray) -> None:
        key = visible.tobytes() + remembered.tobytes()
        if key != self._key or self._cells is None or self._cells.shape != rgb.shape:
            _paint_terrain(rgb, terrain, visible, remembered)
            self._cells = rgb.copy()
            self._key = key
        else:
            rgb[...] = self._cells


def draw(
    console: tcod.console.Console,
    battle: Battle,
    visible: np.ndarray,
    remembered: np.ndarray,
    *,
    side: str | None = "party",
    active: str | None = None,
    overlay: Overlay | None = None,
    base: BaseLayer | None = None,
) -> None:
    """Paint the battle as `side` knows it. `console` is the map's size ([y, x] arrays)."""
    field = battle.battlefield
    rgb = console.rgb
    known = visible | remembered
    if base is not None:
        base.paint(rgb, field.terrain, visible, remembered)
    else:
        _paint_terrain(rgb, field.terrain, visible, remembered)
    _paint_overlay_and_units(rgb, battle, visible, known, side, active, overlay)


def _paint_terrain(rgb: np.ndarray, terrain: np.ndarray, visible: np.ndarray, remembered: np.ndarray) -> None:
    ch = np.select(
        [terrain == Terrain.WALL, terrain == Terrain.DIFFICULT], [GLYPHS[Terrain.WALL], GLYPHS[Terrain.DIFFICULT]],
        GLYPHS[Terrain.FLOOR],
    )
    known = visible | remembered
    rgb["ch"] = np.where(known, ch, ord(" "))
    lit = _palette(terrain, FLOOR_LIT, WALL_LIT, ROUGH_LIT)
    dim = _palette(terrain, FLOOR_DIM, WALL_DIM, ROUGH_DIM)
    rgb["fg"] = np.where(visible[..., None], lit, np.where(remembered[..., None], dim, 0))
    rgb["bg"] = np.where(visible[..., None], BG_LIT, np.where(remembered[..., None], BG_DIM, BG_NONE))


def _paint_overlay_and_units(rgb, battle: Battle, visible, known, side, active, overlay) -> None:
    field = battle.battlefield
    if overlay is not None:
        if overlay.reach is not None:
            rgb["bg"][overlay.reach & known] = REACH_BG
        for x, y in overlay.path:
            if field.in_bounds((x, y)):
                rgb["bg"][y, x] = PATH_BG
        for x, y in overlay.area:
            if field.in_bounds((x, y)):
                rgb["bg"][y, x] = AREA_BG
    for e in battle.active.values():
        x, y = pos(e)
        if team(e) != side and not visible[y, x]:
            continue  # fog of war: the player sees only what its side sees
        i = ident(e)
        rgb["ch"][y, x] = ord(i.glyph[:1] or "?")
        rgb["fg"][y, x] = TEAM_COLOURS.get(team(e), (230, 230, 230))
        if i.id == active:
            rgb["bg"][y, x] = ACTIVE_BG
    if overlay is not None and overlay.cursor is not None and field.in_bounds(overlay.cursor):
        x, y = overlay.cursor
        rgb["bg"][y, x] = BLOCKED_BG if overlay.cursor_blocked else CURSOR_BG
        if rgb["ch"][y, x] == ord(" "):
            rgb["ch"][y, x] = ord("X")
        rgb["fg"][y, x] = (0, 0, 0) if not overlay.cursor_blocked else (255, 255, 255)


def _palette(terrain: np.ndarray, floor, wall, rough) -> np.ndarray:
    return np.select(
        [(terrain == Terrain.WALL)[..., None], (terrain == Terrain.DIFFICULT)[..., None]],
        [np.array(wall, dtype=np.uint8), np.array(rough, dtype=np.uint8)],
        np.array(floor, dtype=np.uint8),
    ).astype(np.uint8)


class StripCache:
    """Console rows → Strips, with one Style per colour pair and a cache per row."""

    def __init__(self) -> None:
        self._styles: dict[bytes, Style] = {}
        self._rows: dict[int, tuple[bytes, Strip]] = {}
        self.rebuilt = 0  # rows rebuilt since the last reset (for tests and the benchmark)

    def style(self, fg: np.ndarray, bg: np.ndarray) -> Style:
        key = fg.tobytes() + bg.tobytes()
        style = self._styles.get(key)
        if style is None:
            style = Style(color=Color.from_rgb(*fg.tolist()), bgcolor=Color.from_rgb(*bg.tolist()))
            self._styles[key] = style
        return style

    def row(self, console: tcod.console.Console, y: int) -> Strip:
        cells = console.rgb[y]
        key = cells.tobytes()
        cached = self._rows.get(y)
        if cached is not None and cached[0] == key:
            return cached[1]
        strip = Strip(self._segments(cells), len(cells))
        self._rows[y] = (key, strip)
        self.rebuilt += 1
        return strip

    def _segments(self, cells: np.ndarray) -> list[Segment]:
        """Runs of cells with the same colours become one Segment."""
        chars = cells["ch"]
        colours = np.concatenate([cells["fg"], cells["bg"]], axis=1)
        # Where the colour pair changes from one cell to the next.
        change = np.any(colours[1:] != colours[:-1], axis=1)
        starts = [0, *(np.nonzero(change)[0] + 1).tolist(), len(cells)]
        text = "".join(map(chr, chars.tolist()))
        segments = []
        for a, b in zip(starts, starts[1:]):
            segments.append(Segment(text[a:b], self.style(cells["fg"][a], cells["bg"][a])))
        return segments

    def clear(self) -> None:
        self._rows.clear()
