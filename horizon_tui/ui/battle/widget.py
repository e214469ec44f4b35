"""The battlefield widget: a tcod console drawn line by line (`view.StripCache.segments`), seen through a camera.

It is not a scroll view and takes no keys: a map larger than its space is panned by the screen
(`follow`), which keeps the character or the cursor in view with a margin — so every direction
key moves, and the view never scrolls instead.
"""

from __future__ import annotations

from typing import Self

import numpy as np
import tcod.console
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.content import Content
from textual.filter import ANSIToTruecolor
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from horizon_tui.engine.battle import Battle
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.ui.battle.view import BaseLayer, Overlay, StripCache, draw


def follow(camera: int, focus: int, view: int, world: int, margin: int) -> int:
    """The camera's new left (or top) edge so `focus` stays at least `margin` cells inside a
    `view`-wide window onto a `world`-wide map; a map that fits is never panned."""
    if world <= view:
        return 0
    margin = max(0, min(margin, (view - 1) // 2))
    if focus < camera + margin:
        camera = focus - margin
    elif focus > camera + view - 1 - margin:
        camera = focus - view + 1 + margin
    return max(0, min(camera, world - view))


def centre(focus: int, view: int, world: int) -> int:
    """The camera's edge that puts `focus` in the middle (clamped to the map)."""
    if world <= view:
        return 0
    return max(0, min(focus - view // 2, world - view))


class BattlefieldView(Widget):
    """Shows one battle as a viewer's read model has it; the screen decides what and when to redraw."""

    MARGIN = 4  # cells kept between the focus and the edge of the view

    def __init__(self, battle: Battle, **kwargs) -> None:
        super().__init__(**kwargs)
        self.battle = battle
        field = battle.battlefield
        self.console = tcod.console.Console(field.width, field.height, order="C")
        self.remembered = np.zeros((field.height, field.width), dtype=bool)
        self.seen_now = np.zeros_like(self.remembered)
        self.strips = StripCache()
        self.base = BaseLayer()
        self.glyphs: dict[str, str] = {}  # combatant id → glyph (view.glyph_map), set by the screen
        self.camera = (0, 0)  # the map cell at the view's top-left corner
        self._focus: tuple[int, int] | None = None
        self._centred = False
        self._line_style: Style | None = None  # the blank cells' style, worked out once per style change
        self._lines: dict[int, Strip] = {}  # the view's lines made so far, kept while `_lines_frame` holds
        self._lines_frame: tuple | None = None  # the width, margins, camera and style they were made for

    @property
    def line_style(self) -> Style:
        if self._line_style is None:
            self._line_style = self.rich_style
        return self._line_style

    def notify_style_update(self) -> None:
        self._line_style = None
        super().notify_style_update()

    def redraw(self, known: ReadModel, overlay: Overlay | None) -> None:
        """Repaint the console; only rows whose cells changed are drawn again and refreshed."""
        self.seen_now, self.remembered = known.visible, known.remembered
        before = self.console.rgba.copy()
        draw(self.console, self.battle, known, overlay=overlay, base=self.base, glyphs=self.glyphs)
        self.refresh_cells(changed_cells(before, self.console.rgba))

    def refresh_cells(self, changed: np.ndarray) -> None:
        """Ask Textual to repaint the changed cells ([y, x] bools) only: on each row on screen
        the span from its first changed cell to its last; its line is made again (`_line`)."""
        left, top = self._margins()
        cam_x, cam_y = self.camera
        on_screen = self.size.region
        shown = changed[max(0, cam_y - top):max(0, cam_y - top + on_screen.height)]  # the rows on screen
        rows = np.flatnonzero(shown.any(axis=1))
        if not len(rows):
            return
        cells = shown[rows]
        first = cells.argmax(axis=1)
        last = cells.shape[1] - cells[:, ::-1].argmax(axis=1)  # one past the last changed cell
        rows += max(0, cam_y - top)
        spans = []
        for y, x0, x1 in zip(rows.tolist(), first.tolist(), last.tolist()):
            self._lines.pop(y + top - cam_y, None)
            if span := Region(x0 + left - cam_x, y + top - cam_y, x1 - x0, 1).intersection(on_screen):
                spans.append(span)  # (cells left or right of the view: nothing to repaint)
        self.refresh(*spans)  # one call: each call asks the app for an idle pass

    def _margins(self) -> tuple[int, int]:
        """A map smaller than the pane sits in its middle."""
        return (max(0, (self.size.width - self.console.width) // 2),
                max(0, (self.size.height - self.console.height) // 2))

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines Textual asks for, drawn here rather than through Textual's per-line styles
        pipeline (borders, padding, tint, opacity: the map has none). A line is made once and
        kept until its map row changes (`redraw`) or the camera, the size or the style does:
        the same `Strip` again, so the app's line filters (`App.get_line_filters`) and the
        terminal's codes, cached on it, are not worked out again either."""
        width = self.size.width
        frame = (width, *self._margins(), self.camera, self.line_style)
        if frame != self._lines_frame:
            self._lines.clear()
            self._lines_frame = frame
        # every colour of the map is RGB and none is dim: the filter that turns ANSI colours and
        # dim into RGB would copy each line unchanged (the tests compare with Textual's pipeline)
        filters = [f for f in self.get_line_filters() if not isinstance(f, ANSIToTruecolor)]
        background = self.background_colors[1]
        lines = []
        made = self._lines
        for y in crop.line_range:
            line = made.get(y)
            if line is None:
                line = made[y] = self._line(y, frame)
            for line_filter in filters:
                line = line.apply_filter(line_filter, background)
            lines.append(line)
        if crop.column_span != (0, width):
            lines = [line.crop(*crop.column_span) for line in lines]
        return lines

    def render_line(self, y: int) -> Strip:
        """Line `y` as `render_lines` draws it, before the app's filters."""
        return self._line(y, (self.size.width, *self._margins(), self.camera, self.line_style))

    def _line(self, y: int, frame: tuple) -> Strip:
        """Line `y` of the view: its map row through the camera, blank around the map."""
        width, left, top, (cam_x, cam_y), style = frame
        row = y + cam_y - top
        if not 0 <= row < self.console.height:
            return Strip.blank(width, style)
        cells = self.console.rgb[row, cam_x:cam_x + width - left]
        segments = self.strips.segments(cells)
        if left:
            segments.insert(0, Segment(" " * left, style))
        if (right := width - left - len(cells)) > 0:
            segments.append(Segment(" " * right, style))
        return Strip(segments, width)

    def keep_in_view(self, xy: tuple[int, int], *, centred: bool = False) -> None:
        """Pan so the cell stays on screen with a margin (or sits in the middle)."""
        self._focus = xy
        self._centred = self._centred or centred
        self._pan()

    def _pan(self) -> None:
        if self._focus is None or not self.size.width or not self.size.height:
            return  # before the first layout: on_resize pans
        x, y = self._focus
        w, h = self.size.width, self.size.height
        field_w, field_h = self.console.width, self.console.height
        if self._centred:
            camera = (centre(x, w, field_w), centre(y, h, field_h))
            self._centred = False
        else:
            margin_x, margin_y = min(self.MARGIN, w // 4), min(self.MARGIN, h // 4)
            camera = (follow(self.camera[0], x, w, field_w, margin_x), follow(self.camera[1], y, h, field_h, margin_y))
        if camera != self.camera:
            self.camera = camera
            self.refresh()

    def on_resize(self) -> None:
        self._pan()
        self.refresh()

    def visible_region(self) -> tuple[int, int, int, int]:
        """The map cells on screen now: (x, y, width, height), for tests and the screen."""
        return (*self.camera, min(self.size.width, self.console.width), min(self.size.height, self.console.height))


def changed_cells(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """[y, x] bools: the cells of two `Console.rgba` arrays (glyph, colours; no padding bytes)
    that differ, each cell read as three 32-bit words (numpy compares records field by field,
    three times slower)."""
    h, w = after.shape
    return (np.ascontiguousarray(before).view("<u4").reshape(h, w, 3)
            != np.ascontiguousarray(after).view("<u4").reshape(h, w, 3)).any(axis=2)


LINES_KEPT = 64  # a panel's lines kept rendered (`Panel._line`): a turn's worth of movement lines and more


class Panel(Static):
    """A side panel or a bar of the battle screen, given its text on every change of the battle.
    It draws its own lines (Textual's Line API, rendered as a `Static` would): a text that
    differs repaints only the lines that changed (a move: the unit panel's movement line, not the
    whole panel), and lays the screen out again only when its height may have changed (a line
    more or less, or a line that wraps)."""

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id, markup=False)
        # no links in a panel: Textual would otherwise restyle every segment of every line it
        # renders, reading each style's pickled metadata, to find them
        self.set_reactive(Widget.auto_links, False)
        self.shown = Text("")
        self.updates = 0  # repaints asked since mounting (for tests and the benchmark)
        self._visual: Visual | None = None  # `shown` as Textual content, made once per change
        self._source: list[Content] | None = None  # `_visual` split into its lines, when asked
        self._made: dict[tuple, Strip] = {}  # lines rendered alone (`_line`), by what they were made from
        self._lines: list[Strip] = []  # `shown` rendered, at `_lines_at`
        self._lines_at: tuple[Size, object] | None = None  # the size and style they were rendered at

    _drawn: tuple[tuple[Region, Size], list[Strip]] | None = None  # `render_lines`' last answer, and what for

    def render(self) -> Visual:
        if self._visual is None:
            self._visual = visualize(self, self.shown, markup=False)
        return self._visual

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's lines of the panel, kept until it is refreshed (`show`), restyled or
        resized: the compositor asks every panel for all its lines whenever it repaints anything
        on the screen (a move: the map's rows), and each ask went through Textual's styles for
        the panel (its background worked out from every ancestor's) to give the same lines."""
        asked = (crop, self.size)
        if self._drawn is None or self._drawn[0] != asked:
            self._drawn = (asked, super().render_lines(crop))
        return self._drawn[1]

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        self._drawn = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._drawn = None
        super().notify_style_update()

    def _source_lines(self) -> list[Content]:
        """`shown` as Textual content, line by line (what `show` compares: a text split by Rich
        cost twice as much, for each of the two texts)."""
        if self._source is None:
            self._source = self.render().split(allow_blank=True)
        return self._source

    def update(self, content: object = "", *, layout: bool = True) -> None:
        """As `Static.update`, through `show`: what it shows is always `shown`."""
        self.show(content if isinstance(content, Text) else Text(str(content)))

    def _rendered(self) -> list[Strip]:
        size, style = self.size, self.visual_style
        if self._lines_at != (size, style):
            self._lines = Visual.to_strips(self, self.render(), size.width, size.height, style)
            self._lines_at = (size, style)
        return self._lines

    def render_line(self, y: int) -> Strip:
        lines = self._rendered()
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)

    def show(self, text: Text) -> None:
        if text == self.shown:
            return
        height = self.styles.height
        fixed = height is not None and not height.is_auto  # a bar of one line: never laid out again
        same_lines = not _height_may_differ(self.shown, text, self.content_region.width)
        drawn, drawn_at = self._lines, self._lines_at
        size, style = self.size, self.visual_style
        whole = not same_lines or drawn_at != (size, style) or self.text_selection is not None
        was = None if whole else self._source_lines()
        self.shown, self._visual, self._source, self._lines_at = text, None, None, None
        self.updates += 1
        if was is None:
            self.refresh(layout=not fixed and not same_lines)
            return
        # as many lines as before and none wraps: line y shows the text's line y, alone changed
        source = self._source_lines()
        changed = [y for y, (before, now) in enumerate(zip(was, source))
                   if (before.plain, before.spans) != (now.plain, now.spans) and y < len(drawn)]
        lines = list(drawn)
        for y in changed:  # rendered alone, at line y's offsets: as the whole text renders its line y
            lines[y] = self._line(y, source[y], size.width, style)
        self._lines, self._lines_at = lines, (size, style)
        if changed:  # (a refresh with no region would repaint the whole panel)
            self.refresh(*(Region(0, y, size.width, 1) for y in changed))


    def _line(self, y: int, line: Content, width: int, style: VisualStyle) -> Strip:
        """Line `y` rendered, or the same line as it was rendered before: a move's "movement 4"
        comes back every turn, and rendering one line through Textual's content costs ~0.1 ms."""
        key = (y, line.plain, tuple(line.spans), width, style)
        made = self._made.get(key)
        if made is None:
            if len(self._made) >= LINES_KEPT:
                self._made.clear()
            made = self._made[key] = Visual.to_strips(self, line, width, None, style)[0].apply_offsets(0, y)
        return made


def _height_may_differ(before: Text, after: Text, width: int) -> bool:
    """False only when both texts have the same number of lines and none wraps at `width`."""
    lines = before.plain.split("\n"), after.plain.split("\n")
    if len(lines[0]) != len(lines[1]) or width <= 0:
        return True
    return any(cell_len(line) > width for text_lines in lines for line in text_lines)
