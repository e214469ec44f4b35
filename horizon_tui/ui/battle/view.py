"""Drawing a battle into a tcod console, and a tcod console into Textual `Strip`s.

`draw` paints a viewer's read model (`engine.readmodel`): terrain visible, remembered or unknown
to it, the combatants it may know as glyphs coloured by team, the one acting, and an overlay
(reach, area, path, cursor). It never works out sight itself.
`StripCache` turns a console row's cells into Segments with one cached Style per colour pair:
the map (`widget.BattlefieldView`) draws its lines from them and keeps each line itself until its
row changes; the overview (`overview.py`) also asks it for whole rows as Strips (`row`), kept per
row and re-built only when the row's cells changed.
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

from horizon_tui.engine.battle import Battle, gear, ident
from horizon_tui.engine.battlefield import Terrain
from horizon_tui.engine.readmodel import ReadModel

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
GREYED_FG = (110, 110, 110)

GLYPHS = {Terrain.FLOOR: ord("."), Terrain.WALL: ord("#"), Terrain.DIFFICULT: ord(",")}


@attrs.define
class Overlay:
    """What the screen wants shown on top of the map (targeting, travel, look)."""

    reach: np.ndarray | None = None  # bool [y, x]: cells within range
    area: Iterable[tuple[int, int]] = ()
    path: Iterable[tuple[int, int]] = ()
    cursor: tuple[int, int] | None = None
    cursor_blocked: bool = False
    greyed: Iterable[tuple[int, int]] = ()  # combatants that can't be targeted now


TERRAIN_GLYPHS = frozenset(" .#,")
_SPARE = "abcdefghijkmopqrstvwxzABCDEFGHIJKLMNOPQRSTUVWXYZ&%$"


def glyph_map(battle: Battle) -> dict[str, str]:
    """One glyph per kind of combatant, different kinds never sharing one: a player character is
    `@`, others keep their data's glyph (`glyph` in an enemy file) unless another kind took it
    first, then its other case, then a letter of its name, then a spare. Never a terrain glyph.
    Deterministic: kinds claim glyphs in spawn order."""
    by_kind: dict[str, str] = {}
    taken: set[str] = set()
    result: dict[str, str] = {}
    for e in battle.combatants():
        i = ident(e)
        kind = f"character:{i.id}" if i.kind == "character" else gear(e).character.name
        if kind not in by_kind:
            wishes = ["@"] if i.kind == "character" and not taken & {"@"} else []
            wishes += [i.glyph, i.glyph.swapcase(), *gear(e).character.name, *i.name, *_SPARE]
            glyph = next(g for g in wishes if g and g not in taken and g not in TERRAIN_GLYPHS and g.isprintable())
            by_kind[kind] = glyph
            taken.add(glyph)
        result[i.id] = by_kind[kind]
    return result


class BaseLayer:
    """The terrain as a side knows it (lit, remembered, unknown), kept until what is seen
    changes: a frame then costs one copy plus the combatants."""

    def __init__(self) -> None:
        self._key: bytes | None = None
        self._cells: np.ndarray | None = None

    def paint(self, rgb: np.ndarray, terrain: np.ndarray, visible: np.ndarray, remembered: np.ndarray) -> None:
        key = visible.tobytes() + remembered.tobytes()
        words = _words(rgb)  # whole cells copied as words: a structured copy goes field by field
        if key != self._key or self._cells is None or self._cells.shape != words.shape:
            _paint_terrain(rgb, terrain, visible, remembered)
            self._cells = words.copy()
            self._key = key
        else:
            words[...] = self._cells


def draw(
    console: tcod.console.Console,
    battle: Battle,
    known: ReadModel,
    *,
    overlay: Overlay | None = None,
    base: BaseLayer | None = None,
    glyphs: dict[str, str] | None = None,
) -> None:
    """Paint `battle`'s field as `known` (a viewer's read model) shows it. `console` is the map's
    size ([y, x] arrays)."""
    terrain = battle.battlefield.terrain
    rgb = console.rgb
    if base is not None:
        base.paint(rgb, terrain, known.visible, known.remembered)
    else:
        _paint_terrain(rgb, terrain, known.visible, known.remembered)
    _paint_overlay_and_units(rgb, battle, known, overlay, glyphs or {})


def _paint_terrain(rgb: np.ndarray, terrain: np.ndarray, visible: np.ndarray, remembered: np.ndarray) -> None:
    """Each cell from `_TERRAIN_CELLS`, by its terrain and whether it is seen now, remembered or
    unknown: one gather of whole cells (three `np.where`s over the glyph and colour fields, each
    written field by field, took ten times as long; it was most of a move's map)."""
    known = np.where(visible, 2, remembered.astype(np.intp))  # 0 unknown, 1 remembered, 2 seen now
    _words(rgb)[...] = _TERRAIN_CELLS[terrain * 3 + known]


def _words(rgb: np.ndarray) -> np.ndarray:
    """A console's cells ([y, x] of `Console.rgb`) as three 32-bit words each: glyph, foreground
    RGBA, background RGBA (alpha, which `rgb` leaves out, is 255 throughout)."""
    return rgb.view("<u4").reshape(*rgb.shape, 3)


def _paint_overlay_and_units(rgb, battle: Battle, known: ReadModel, overlay, glyphs) -> None:
    field = battle.battlefield
    if overlay is not None:
        if overlay.reach is not None:
            rgb["bg"][overlay.reach & (known.visible | known.remembered)] = REACH_BG
        for x, y in overlay.path:
            if field.in_bounds((x, y)):
                rgb["bg"][y, x] = PATH_BG
        for x, y in overlay.area:
            if field.in_bounds((x, y)):
                rgb["bg"][y, x] = AREA_BG
    for u in known.units:  # fog of war and R-13's hidden: only what the viewer may know
        x, y = u.position
        rgb["ch"][y, x] = ord(glyphs.get(u.id) or u.glyph[:1] or "?")
        rgb["fg"][y, x] = TEAM_COLOURS.get(u.team, (230, 230, 230))
        if u.id == known.current:
            rgb["bg"][y, x] = ACTIVE_BG
    if overlay is not None:
        for x, y in overlay.greyed:
            rgb["fg"][y, x] = GREYED_FG
    if overlay is not None and overlay.cursor is not None and field.in_bounds(overlay.cursor):
        x, y = overlay.cursor
        rgb["bg"][y, x] = BLOCKED_BG if overlay.cursor_blocked else CURSOR_BG
        if rgb["ch"][y, x] == ord(" "):
            rgb["ch"][y, x] = ord("X")
        rgb["fg"][y, x] = (0, 0, 0) if not overlay.cursor_blocked else (255, 255, 255)


def _by_terrain(values: dict[Terrain, object], dtype) -> np.ndarray:
    """A table indexed by terrain code: `table[terrain]` paints a whole map at once."""
    return np.array([values[t] for t in sorted(Terrain)], dtype=dtype)


_GLYPH_TABLE = _by_terrain(GLYPHS, np.int32)
_LIT_TABLE = _by_terrain({Terrain.FLOOR: FLOOR_LIT, Terrain.WALL: WALL_LIT, Terrain.DIFFICULT: ROUGH_LIT}, np.uint8)
_DIM_TABLE = _by_terrain({Terrain.FLOOR: FLOOR_DIM, Terrain.WALL: WALL_DIM, Terrain.DIFFICULT: ROUGH_DIM}, np.uint8)


def _terrain_cells() -> np.ndarray:
    """The console cell (glyph, colours, as `_words`) of each terrain as unknown, remembered and
    seen now, at index `terrain * 3 + 0, 1, 2`."""
    cells = np.zeros(len(_GLYPH_TABLE) * 3, dtype=tcod.console.rgba_graphic)
    for code in range(len(_GLYPH_TABLE)):
        cells[code * 3] = (ord(" "), (0, 0, 0, 255), (*BG_NONE, 255))
        cells[code * 3 + 1] = (_GLYPH_TABLE[code], (*_DIM_TABLE[code], 255), (*BG_DIM, 255))
        cells[code * 3 + 2] = (_GLYPH_TABLE[code], (*_LIT_TABLE[code], 255), (*BG_LIT, 255))
    return cells.view("<u4").reshape(-1, 3)  # as `_words` reads a console


_TERRAIN_CELLS = _terrain_cells()


class StripCache:
    """Console rows → Segments, with one Style per colour pair (`segments`: the map's lines);
    and → Strips cached per row (`row`: the overview's)."""

    def __init__(self) -> None:
        self._styles: dict[int, Style] = {}  # by colour pair (`_pairs`)
        self._rows: dict[int, tuple[bytes, Strip]] = {}
        self.rebuilt = 0  # rows rebuilt since the last reset (for tests and the benchmark)

    def _style(self, pair: int) -> Style:
        style = self._styles.get(pair)
        if style is None:
            r, g, b, br, bg, bb = pair.to_bytes(8, "little")[:6]  # `_pairs`: fg RGB, then bg RGB
            style = Style(color=Color.from_rgb(r, g, b), bgcolor=Color.from_rgb(br, bg, bb))
            self._styles[pair] = style
        return style

    def row(self, console: tcod.console.Console, y: int) -> Strip:
        cells = console.rgb[y]
        key = cells.tobytes()
        cached = self._rows.get(y)
        if cached is not None and cached[0] == key:
            return cached[1]
        strip = Strip(self.segments(cells), len(cells))
        self._rows[y] = (key, strip)
        self.rebuilt += 1
        return strip

    def segments(self, cells: np.ndarray) -> list[Segment]:
        """Runs of cells with the same colours become one Segment: each cell's colour pair as
        one integer, the runs where it changes, one Style per pair."""
        pairs = _pairs(cells)
        bounds = [0, *(np.flatnonzero(pairs[1:] != pairs[:-1]) + 1).tolist(), len(cells)]
        text = np.ascontiguousarray(cells["ch"], dtype="<u4").tobytes().decode("utf-32-le")
        styles, new_style = self._styles, self._style  # a Style (truthy) once made
        make = Segment._make  # a tuple's own maker: half the cost of Segment(…) per run
        return [make((text[a:b], styles.get(pair) or new_style(pair), None))
                for a, b, pair in zip(bounds, bounds[1:], pairs[bounds[:-1]].tolist())]

    def clear(self) -> None:
        self._rows.clear()


def _pairs(cells: np.ndarray) -> np.ndarray:
    """uint64 per cell of a console row: its six colour bytes (fg RGB, bg RGB) read as one
    little-endian integer, taken from the row's raw bytes at once."""
    raw = np.ascontiguousarray(cells).view(np.uint8).reshape(len(cells), cells.dtype.itemsize)
    fg, bg = cells.dtype.fields["fg"][1], cells.dtype.fields["bg"][1]  # byte offsets (padding between)
    packed = np.zeros((len(cells), 8), dtype=np.uint8)
    packed[:, 0:3] = raw[:, fg:fg + 3]
    packed[:, 3:6] = raw[:, bg:bg + 3]
    return packed.view("<u8").ravel()


def overview_step(width: int, height: int, room_w: int, room_h: int) -> tuple[int, int]:
    """How many map cells one character of the overview stands for, across and down: 1 where the
    field fits, else the fewest that make it fit (each axis on its own)."""
    return max(1, -(-width // max(1, room_w))), max(1, -(-height // max(1, room_h)))


def draw_overview(console: tcod.console.Console, battle: Battle, known: ReadModel, step: tuple[int, int],
                  glyphs: dict[str, str] | None = None) -> None:
    """Paint the whole field as `known` shows it, condensed: each character is a block of
    `step` (across, down) cells. A block shows a unit the viewer may know in it (a foe before a
    friend), else the terrain most of its known cells have — lit if any of them is seen now, dim
    if only remembered — else nothing. `console` is the condensed size ([y, x] arrays)."""
    sx, sy = step
    terrain = battle.battlefield.terrain
    h, w = terrain.shape
    rows, cols = -(-h // sy), -(-w // sx)

    def blocks(a: np.ndarray) -> np.ndarray:  # [rows, cols, sy*sx]: each block's cells
        padded = np.zeros((rows * sy, cols * sx), dtype=a.dtype)
        padded[:h, :w] = a
        return padded.reshape(rows, sy, cols, sx).swapaxes(1, 2).reshape(rows, cols, sy * sx)

    seen = blocks(known.visible)
    knows = blocks(known.visible | known.remembered)
    cells = blocks(terrain)
    counts = np.stack([(knows & (cells == t)).sum(axis=2) for t in sorted(Terrain)], axis=2)
    main = counts.argmax(axis=2)  # terrain codes are 0.. in order (`_by_terrain`)
    any_known = knows.any(axis=2)
    lit = seen.any(axis=2)
    rgb = console.rgb
    rgb["ch"] = np.where(any_known, _GLYPH_TABLE[main], ord(" "))
    rgb["fg"] = np.where(lit[..., None], _LIT_TABLE[main], np.where(any_known[..., None], _DIM_TABLE[main], 0))
    rgb["bg"] = np.where(lit[..., None], BG_LIT, np.where(any_known[..., None], BG_DIM, BG_NONE))
    glyphs = glyphs or {}
    foes = {u.id for u in known.foes()} if known.side is not None else set()
    for u in sorted(known.units, key=lambda u: u.id not in foes, reverse=True):  # foes painted last: on top
        x, y = u.position
        bx, by = x // sx, y // sy
        rgb["ch"][by, bx] = ord(glyphs.get(u.id) or u.glyph[:1] or "?")
        rgb["fg"][by, bx] = TEAM_COLOURS.get(u.team, (230, 230, 230))
        if u.id == known.current:
            rgb["bg"][by, bx] = ACTIVE_BG
