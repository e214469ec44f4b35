"""A key in battle repaints only what changed: the map's changed cells, the panels whose text
changed; a panel whose height can't change doesn't lay the screen out again."""

from __future__ import annotations

import contextlib
import numpy as np
from rich.text import Text
from textual.app import App
from textual.geometry import Region
from textual.visual import Visual, visualize
from textual.widget import Widget

from horizon_tui.engine.battle import comp, pos
from horizon_tui.engine.components import TurnState
from horizon_tui.ui.battle import panels
from horizon_tui.ui.battle.widget import BattlefieldView, Panel
from horizon_tui.ui.player.app import create_app

from .conftest import write
from .test_battle_flow import CHAMPION, _open_battle

PANELS = ("#initiative", "#unit", "#enemies", "#slots", "#legend", "#status")


class _OnePanel(App):
    CSS = "#bar { height: 1; } #box { height: auto; width: 20; }"

    def compose(self):
        yield Panel(id="bar")
        yield Panel(id="box")


async def test_a_panel_given_the_text_it_shows_is_not_repainted():
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Panel)
        box.show(Text("movement 5"))
        await pilot.pause()
        asked: list[bool] = []
        box.refresh = lambda *regions, layout=False, **kw: asked.append(layout)  # type: ignore[method-assign]
        box.show(Text("movement 5"))
        assert asked == [] and box.updates == 1
        box.show(Text("movement 4"))  # one line for one line, none wrapping: no new layout
        box.show(Text("movement 4\nfree actions 2"))  # a line more: the screen is laid out again
        box.show(Text("a line far too long for twenty cells"))  # it wraps: laid out again too
        assert asked == [False, True, True]


async def test_a_bar_of_one_line_is_never_laid_out_again():
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        bar = app.query_one("#bar", Panel)
        await pilot.pause()
        asked: list[bool] = []
        bar.refresh = lambda *regions, layout=False, **kw: asked.append(layout)  # type: ignore[method-assign]
        bar.show(Text("Your turn\nsecond line and a very long one that wraps at forty cells"))
        assert asked == [False]


async def test_the_map_refreshes_the_changed_span_of_each_changed_row_only(saves, catalogue):
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
        await pilot.pause()
        view = screen.query_one("#map", BattlefieldView)
        regions: list[Region] = []
        view.refresh = lambda *r, **kw: regions.extend(r)  # type: ignore[method-assign]
        changed = np.zeros((view.console.height, view.console.width), dtype=bool)
        changed[2, 3:6] = True  # cells 3, 4 and 5 of row 2, and cell 7 of row 4
        changed[4, 7] = True
        view.refresh_cells(changed)
        left, top = view._margins()  # noqa: SLF001 - where the map sits in the pane
        cam_x, cam_y = view.camera
        assert regions == [Region(3 + left - cam_x, 2 + top - cam_y, 3, 1), Region(7 + left - cam_x, 4 + top - cam_y, 1, 1)]


async def _ready_to_step(pilot, app, path):
    """A goblin ambush, up to a turn of the character's with movement left: (the screen, the
    character, where it stands, a key that steps it onto a free cell)."""
    screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
    await pilot.pause()
    for _ in range(30):
        if screen.me is not None and comp(screen.me, TurnState).movement_left >= 1:
            break
        await pilot.press("x" if screen.me is None else "full_stop")
    me = screen.me
    assert me is not None
    start = pos(me)
    field = screen.battle.battlefield
    step = next(key for key, (x, y) in (("l", (start[0] + 1, start[1])), ("h", (start[0] - 1, start[1])),
                                        ("j", (start[0], start[1] + 1)), ("k", (start[0], start[1] - 1)))
                if field.in_bounds((x, y)) and field.walkable[y, x] and screen.battle.at((x, y)) is None)
    await pilot.pause()
    return screen, me, start, step


@contextlib.asynccontextmanager
async def _stepping(saves, catalogue):
    """The champion's goblin ambush in an app of 120x40, ready to step: (the pilot, and
    `_ready_to_step`'s screen, character, cell and key)."""
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        yield (pilot, *await _ready_to_step(pilot, app, path))


async def test_a_move_repaints_the_cells_and_panels_that_changed_and_no_others(saves, catalogue):
    async with _stepping(saves, catalogue) as (pilot, screen, me, start, step):
        view = screen.query_one("#map", BattlefieldView)
        regions: list[Region] = []
        painted = view.refresh
        view.refresh = lambda *r, **kw: (regions.extend(r), painted(*r, **kw))  # type: ignore[method-assign]
        before = {name: screen.query_one(name, Panel).updates for name in PANELS}
        await pilot.press(step)
        assert pos(me) != start
        repainted = {name for name in PANELS if screen.query_one(name, Panel).updates != before[name]}
        assert "#unit" in repainted  # its movement left went down
        assert {"#legend", "#slots", "#initiative"}.isdisjoint(repainted)  # nothing of theirs changed
        assert regions and all(r.height == 1 for r in regions)  # spans of rows, never the whole map
        assert sum(r.width for r in regions) < view.size.width * view.size.height / 2


async def test_a_panel_repaints_only_its_lines_that_changed():
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Panel)
        box.show(Text("Iriel\nmovement 5\nfree actions 2"))
        await pilot.pause()
        asked: list[tuple[Region, ...]] = []
        painted = box.refresh
        box.refresh = lambda *regions, **kw: (asked.append(regions), painted(*regions, **kw))  # type: ignore[method-assign]
        box.show(Text("Iriel\nmovement 4\nfree actions 2"))
        assert asked == [(Region(0, 1, 20, 1),)]  # the movement line; a whole repaint asks for no region
        await pilot.pause()
        assert [str(box.render_line(y).text).rstrip() for y in range(3)] == ["Iriel", "movement 4", "free actions 2"]


def _whole(panel: Panel) -> list:
    """The panel's text rendered at once, as a `Static` renders it."""
    return Visual.to_strips(panel, visualize(panel, panel.shown, markup=False), panel.size.width,
                            panel.size.height, panel.visual_style)


async def test_a_line_redrawn_alone_is_the_line_of_the_whole_text():
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Panel)
        text = Text.assemble(("Iriel", "bold cyan"), " · level 2\n", ("movement ", "dim"), ("5", "bold"),
                             "\nfree actions 2", style="on blue")
        box.show(text)
        await pilot.pause()
        box.show(Text.assemble(("Iriel", "bold cyan"), " · level 2\n", ("movement ", "dim"), ("4", "red"),
                               "\nfree actions 2", style="on blue"))
        assert [box.render_line(y) for y in range(3)] == _whole(box)  # styles and offsets alike


async def test_a_move_repaints_one_line_of_the_unit_panel(saves, catalogue):
    async with _stepping(saves, catalogue) as (pilot, screen, me, start, step):
        unit = screen.query_one("#unit", Panel)
        asked: list[tuple[Region, ...]] = []
        painted = unit.refresh
        unit.refresh = lambda *regions, **kw: (asked.append(regions), painted(*regions, **kw))  # type: ignore[method-assign]
        await pilot.press(step)
        assert pos(me) != start
        assert len(asked) == 1 and len(asked[0]) == 1  # one region: not the whole panel (no region)
        (line,) = asked[0]
        assert line.height == 1 and "movement" in unit.render_line(line.y).text
        for name in PANELS:
            panel = screen.query_one(name, Panel)
            assert [panel.render_line(y) for y in range(panel.size.height)] == _whole(panel)


def _wording(screen, monkeypatch) -> list[str]:
    """The panels whose text is made from now on, in order: "enemies_text", "legend_text", "initiative"."""
    worded: list[str] = []
    for name in ("enemies_text", "legend_text"):
        made = getattr(panels, name)
        monkeypatch.setattr(panels, name, lambda *a, made=made, name=name, **kw: (worded.append(name), made(*a, **kw))[1])
    initiative = screen._initiative_text  # noqa: SLF001 - the initiative bar's words
    monkeypatch.setattr(screen, "_initiative_text", lambda known: (worded.append("initiative"), initiative(known))[1])
    return worded


async def test_a_redraw_that_changes_nothing_words_no_panel_again(saves, catalogue, monkeypatch):
    async with _stepping(saves, catalogue) as (pilot, screen, _me, _start, _step):
        worded = _wording(screen, monkeypatch)
        screen.refresh_all()
        assert worded == []  # the same read model: the same slices, no text made


async def test_a_move_words_again_only_the_panels_whose_slice_changed(saves, catalogue, monkeypatch):
    async with _stepping(saves, catalogue) as (pilot, screen, me, start, step):
        before = screen.known()
        worded = _wording(screen, monkeypatch)
        await pilot.press(step)
        after = screen.known()
        assert pos(me) != start and after is not before  # a new read model: the move is in its log
        assert "initiative" not in worded  # nobody's turn, round or presence changed
        assert ("enemies_text" in worded) == (after.foes() != before.foes())  # their distances from the mover
        assert ("legend_text" in worded) == ({u.kind_name for u in after.units} != {u.kind_name for u in before.units}
                                             or [u.id for u in after.units] != [u.id for u in before.units])
        for name in PANELS:  # what is shown is what a whole rebuild shows
            panel = screen.query_one(name, Panel)
            assert [panel.render_line(y) for y in range(panel.size.height)] == _whole(panel)


async def test_a_line_of_the_map_is_made_once_until_its_row_changes(saves, catalogue):
    async with _stepping(saves, catalogue) as (pilot, screen, me, start, step):
        view = screen.query_one("#map", BattlefieldView)
        whole = view.size.region
        first = view.render_lines(whole)
        assert view.render_lines(whole) == first and all(a is b for a, b in zip(view.render_lines(whole), first))
        made: list[int] = []
        line = view._line  # noqa: SLF001 - the one maker of a map line
        view._line = lambda y, frame: (made.append(y), line(y, frame))[1]  # type: ignore[method-assign]
        camera = view.camera
        before = view.console.rgba.copy()
        await pilot.press(step)
        assert pos(me) != start
        if view.camera == camera:  # the view didn't pan: only the lines of changed rows are made again
            rows = {row + view._margins()[1] - camera[1]  # noqa: SLF001
                    for row in np.flatnonzero((before != view.console.rgba).any(axis=1)).tolist()}
            again = view.render_lines(whole)
            assert made and set(made) <= rows
            assert all(a is b for y, (a, b) in enumerate(zip(again, first)) if y not in rows)
        # drawn as Textual's own per-line pipeline draws the same lines (what the snapshots see)
        assert view.render_lines(whole) == Widget.render_lines(view, whole)


async def test_a_line_shown_again_is_not_rendered_again(monkeypatch):
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Panel)
        box.show(Text("Iriel\nmovement 5\nfree actions 2"))
        await pilot.pause()
        rendered: list[str] = []
        to_strips = Visual.to_strips
        monkeypatch.setattr(Visual, "to_strips", staticmethod(
            lambda widget, visual, *a, **kw: (rendered.append(str(getattr(visual, "plain", visual))), to_strips(widget, visual, *a, **kw))[1]))
        for movement in (4, 3, 4, 3):  # a turn's steps to and fro
            box.show(Text(f"Iriel\nmovement {movement}\nfree actions 2"))
        assert rendered == ["movement 4", "movement 3"]  # each line once; shown again, as it was
        assert [str(box.render_line(y).text).rstrip() for y in range(3)] == ["Iriel", "movement 3", "free actions 2"]
        assert [box.render_line(y) for y in range(3)] == _whole(box)


async def test_a_panel_asked_again_for_its_lines_answers_without_restyling_them(monkeypatch):
    app = _OnePanel()
    async with app.run_test(size=(40, 10)) as pilot:
        box = app.query_one("#box", Panel)
        box.show(Text("Iriel\nmovement 5"))
        await pilot.pause()
        whole = box.size.region
        first = box.render_lines(whole)
        styled: list[int] = []
        render_widget = type(box._styles_cache).render_widget  # noqa: SLF001 - Textual's styles pass
        monkeypatch.setattr(type(box._styles_cache), "render_widget",  # noqa: SLF001
                            lambda cache, widget, crop: (styled.append(1), render_widget(cache, widget, crop))[1])
        assert box.render_lines(whole) is first and styled == []  # the screen repainted elsewhere
        box.show(Text("Iriel\nmovement 4"))
        again = box.render_lines(whole)
        assert styled == [1] and [str(line.text).rstrip() for line in again] == ["Iriel", "movement 4"]
        box.styles.background = "red"  # restyled: drawn again
        await pilot.pause()
        assert box.render_lines(whole) is not again
