"""A battle built by hand: a map (an encounter's, or a generated one), then each chosen party member
and NPC put on its cell with a cursor. The set-up and its record are `campaign.battles.start_placed_battle`."""

from __future__ import annotations

from pathlib import Path

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import SelectionList, Static

from horizon_tui.content.catalogue import data_dir
from horizon_tui.engine import mapgen
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.campaign import battles
from horizon_tui.play.hosting import hosted
from horizon_tui.play.transfer import OutsideFolder, confined
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog
from horizon_tui.ui.gm.screens.widgets import leave_asking
from horizon_tui.play.forms import parse_whole
from horizon_tui.ui.widgets.onoff import CheckList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.gm.screens.gm_battle import gm_battle_screen

FIGHT_PICKER_ID = "gm-pick"  # the GM's fight picker (encounter.py), closed once a placed fight starts

MOVES = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


@attrs.define
class Unit:
    kind: str  # "member" | "npc"
    name: str
    side: str  # "party" | "enemies"
    controller: str  # player | gm | ai
    at: tuple[int, int] | None = None


def map_dialog(app, default: str = "rooms") -> PromptDialog:
    """Which map, and which NPCs join (names, comma-separated)."""
    generators = ", ".join(mapgen.GENERATORS)

    def check(values: dict[str, str]) -> str | None:
        try:
            spec = map_spec(values, app.host.store.catalogue.root)
            battles.map_battlefield(spec, app.host.store.catalogue, app.enemies())
        except (ValueError, KeyError) as exc:
            return str(exc)
        return None

    return PromptDialog("Place on a map", [
        Field("map", "Map", default, placeholder=f"{generators}, or an encounter id"),
        Field("width", "Width", "12", placeholder=f"{mapgen.MIN_SIZE}–50 (generated maps)"),
        Field("height", "Height", "12", placeholder=f"{mapgen.MIN_SIZE}–50 (generated maps)"),
        Field("seed", "Map seed", "1"),
    ], note=f"A generated map ({generators}) or a shipped encounter's map (without its enemies); then "
            "you pick the NPCs who join from the roster.", check=check)


def map_spec(values: dict[str, str], root: Path | None = None) -> dict:
    """The map dialog's answer as a spec (`battles.map_battlefield`); ValueError saying what is
    wrong. `root`: the data folder whose encounters/ ids are offered."""
    name = values["map"].strip()
    if name in mapgen.GENERATORS:
        return {"generator": name, "width": parse_whole(values["width"], "the width", "field_side"),
                "height": parse_whole(values["height"], "the height", "field_side"),
                "seed": parse_whole(values["seed"] or "0", "the seed", "seed")}
    if not name:
        raise ValueError("name a map")
    return {"encounter": typed_encounter(name, root)}


def typed_encounter(name: str, root: Path | None = None) -> str:
    """An encounter the GM typed: an id from the data folder's encounters/ or a file. Over SSH the
    GM tool runs as the host's user, so a file must be in the GM's own folder (`play.transfer.
    confined`): a host path such as /etc/passwd would otherwise be read, and its problems shown."""
    if not hosted():
        return name
    if "/" not in name and "\\" not in name and not name.startswith(".") \
            and ((root or data_dir()) / "encounters" / f"{name}.toml").is_file():
        return name
    try:
        return str(confined(Path(name)))
    except OutsideFolder as exc:
        raise ValueError(str(exc)) from None


class PlacementScreen(Screen):
    """Arrows move the cursor, enter places the current unit there, tab goes to the next unit."""

    TITLE = "Place the battle"
    GM_SCREEN = True
    BINDINGS = [
        *[Binding(key, f"move({dx}, {dy})", key.title(), show=False, priority=True, id=f"gmplace.{key}")
          for key, (dx, dy) in MOVES.items()],
        Binding("enter", "place", "Place", id="gmplace.place", priority=True),
        Binding("tab", "next_unit", "Next unit", id="gmplace.next", priority=True),
        Binding("ctrl+s", "start", "Start", id="gmplace.start"),
        Binding("escape", "back", "Back", id="gmplace.back"),
    ]

    def __init__(self, spec: dict, battlefield: Battlefield, units: list[Unit], seed: int | None = None) -> None:
        super().__init__(id="gm-place")
        self.spec = spec
        self.battlefield = battlefield
        self.units = units
        self.seed = seed
        self.current = 0
        self.cursor = next(((x, y) for y in range(battlefield.height) for x in range(battlefield.width)
                            if battlefield.is_walkable((x, y))), (0, 0))
        self.message = Text("")

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal():
            yield Static(id="gm-place-map", classes="panel")
            with Vertical(id="gm-place-side"):
                yield Static(id="gm-place-units", classes="panel")
                yield Static(id="gm-place-message")
        yield KeyBar()

    def on_mount(self) -> None:
        board = self.query_one("#gm-place-map")
        board.border_title = battles.map_name(self.spec, root=self.app.host.store.catalogue.root)
        board.styles.min_width = len(board.border_title) + 6  # a small map would cut its name short
        self.query_one("#gm-place-units").border_title = "Units (tab: next · enter: place · ctrl+s: start)"
        self.refresh_all()

    # --- state ---------------------------------------------------------------------------------

    def occupied(self, but: Unit | None = None) -> dict[tuple[int, int], str]:
        return {u.at: u.name for u in self.units if u.at is not None and u is not but}

    def refusal(self, cell: tuple[int, int]) -> str | None:
        return battles.placement_refusal(self.battlefield, cell, self.occupied(self.units[self.current]))

    # --- actions -------------------------------------------------------------------------------

    def action_move(self, dx: int, dy: int) -> None:
        x, y = self.cursor
        nx = min(max(0, x + dx), self.battlefield.width - 1)
        ny = min(max(0, y + dy), self.battlefield.height - 1)
        self.cursor = (nx, ny)
        self.refresh_all()

    def action_next_unit(self) -> None:
        if self.units:
            self.current = (self.current + 1) % len(self.units)
            self.message = Text("")
            self.refresh_all()

    def action_place(self) -> None:
        if not self.units:
            return
        unit = self.units[self.current]
        problem = self.refusal(self.cursor)
        if problem:
            self.app.bell()
            self.message = Text(f"✗ {unit.name} can't stand there: {problem}", style="bold red")
        else:
            unit.at = self.cursor
            self.message = Text(f"{unit.name} at [{self.cursor[0]}, {self.cursor[1]}]", style="green")
            waiting = [i for i, u in enumerate(self.units) if u.at is None]
            if waiting:
                self.current = next((i for i in waiting if i > self.current), waiting[0])
        self.refresh_all()

    def action_start(self) -> None:
        app = self.app
        waiting = [u.name for u in self.units if u.at is None]
        if waiting:
            app.bell()
            self.message = Text(f"✗ place {', '.join(waiting)} first", style="bold red")
            self.refresh_all()
            return
        placements = [(u.kind, u.name, u.at) for u in self.units]
        made = []

        def change(campaign):
            campaign, session = battles.start_placed_battle(
                campaign, self.spec, placements, app.host.store.catalogue, app.host.gm.rules_for, app.enemies(), seed=self.seed)
            made.append(session)
            return campaign

        foes = [u.name for u in self.units if u.side == "enemies"]
        name = battles.map_name(self.spec, foes, app.host.store.catalogue.root)  # as the record names it
        if app.host.act(change, f"battle: {name}"):
            app.pop_screen()
            if app.screen.id == FIGHT_PICKER_ID:  # the picker that opened this placement goes too
                app.pop_screen()
            app.push_screen(gm_battle_screen(made[0], name))

    def unsaved_work(self) -> str | None:
        """Units put on their cells, the battle not started."""
        placed = [u.name for u in self.units if u.at is not None]
        if not placed:
            return None
        return f"the placement of {', '.join(placed)} (ctrl+s starts the battle)"

    def action_back(self) -> None:
        leave_asking(self, self.app.pop_screen, "Place the battle")

    # --- drawing -------------------------------------------------------------------------------

    def refresh_all(self) -> None:
        rows = self.battlefield.to_rows()
        at = {u.at: u for u in self.units if u.at is not None}
        glyphs = dict(zip((id(u) for u in self.units),
                          battles.distinct_glyphs([(u.name, u.side) for u in self.units]), strict=True))
        text = Text()
        for y, row in enumerate(rows):
            for x, glyph in enumerate(row):
                unit = at.get((x, y))
                style = "grey50" if glyph == "#" else ""
                if unit is not None:
                    glyph = glyphs[id(unit)]
                    style = "bold green" if unit.side == "party" else "bold red"
                if (x, y) == self.cursor:
                    style = f"{style} reverse".strip()
                text.append(glyph, style=style)
            text.append("\n")
        self.query_one("#gm-place-map", Static).update(text)
        units = Text()
        for index, unit in enumerate(self.units):
            mark = "▶ " if index == self.current else "  "
            where = f"[{unit.at[0]}, {unit.at[1]}]" if unit.at else "—"
            units.append(f"{mark}{glyphs[id(unit)]} {unit.name}", style="bold" if index == self.current else "")
            units.append(f"  {unit.side} · {unit.controller}  {where}\n", style="dim")
        x, y = self.cursor
        units.append(f"\ncursor [{x}, {y}]", style="dim")
        problem = self.refusal(self.cursor) if self.units else None
        if problem:
            units.append(f" — {problem}", style="red")
        self.query_one("#gm-place-units", Static).update(units)
        self.query_one("#gm-place-message", Static).update(self.message)


def open_placement(screen, members: list[str], seed: int | None) -> None:
    """From the encounter picker: ask for the map and the NPCs, then place them all."""
    app = screen.app
    if app.campaign.battle is not None:
        app.notify("A battle is in progress already: finish or abandon it first", severity="warning")
        return
    if not members:
        app.notify("Pick at least one party member (space toggles)", severity="warning")
        return

    def placed(spec: dict, names: list[str]) -> None:
        battlefield = battles.map_battlefield(spec, app.host.store.catalogue, app.enemies())
        units = [Unit("member", name, "party", "player") for name in members]
        for name in names:
            npc = app.campaign.npc(name)
            side = npc.combat_side()
            units.append(Unit("npc", npc.name, side, "gm" if side == "party" else npc.controller))
        app.push_screen(PlacementScreen(spec, battlefield, units, seed))

    def chosen(values: dict[str, str] | None) -> None:
        if not values:
            return
        spec = map_spec(values, app.host.store.catalogue.root)
        alive = [n for n in app.campaign.npcs if not n.dead]
        if not alive:
            placed(spec, [])
            return
        app.push_screen(PickDialog("Which NPCs join? (space picks, enter goes on)",
                                   [(n.name, f"{n.name} — {n.combat_side()}, level {n.level}") for n in alive]),
                        lambda names: names is not None and placed(spec, names))

    app.push_screen(map_dialog(app), chosen)


class PickDialog(ModalScreen[list[str] | None]):
    """Pick any of a list (space toggles, enter answers, escape cancels): names are picked, never
    typed (typed names were case-sensitive)."""

    BINDINGS = [Binding("enter", "done", "OK", id="pick.ok", priority=True),
                Binding("escape", "cancel", "Cancel", id="pick.cancel")]

    def __init__(self, title: str, options: list[tuple[str, str]]) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog gm-prompt") as box:
            box.border_title = self.title_text
            box.border_subtitle = "space picks · enter: OK · esc: cancel"
            yield CheckList(*[(label, value, False) for value, label in self.options], id="pick-list")

    def on_mount(self) -> None:
        picks = self.query_one("#pick-list", CheckList)
        if picks.option_count:
            picks.highlighted = 0  # space ticks the first at once (it ticked nothing until a move)

    def action_done(self) -> None:
        self.dismiss(list(self.query_one("#pick-list", SelectionList).selected))

    def action_cancel(self) -> None:
        self.dismiss(None)


class CellPicker(ModalScreen[tuple[int, int] | None]):
    """A cell on a map, by cursor: arrows move, enter picks a free floor cell, escape cancels."""

    BINDINGS = [
        *[Binding(key, f"move({dx}, {dy})", key.title(), show=False, priority=True, id=f"cell.{key}")
          for key, (dx, dy) in MOVES.items()],
        Binding("enter", "pick", "Pick", id="cell.pick", priority=True),
        Binding("escape", "cancel", "Cancel", id="cell.cancel"),
    ]

    def __init__(self, battlefield: Battlefield, taken: dict[tuple[int, int], str], title: str) -> None:
        super().__init__(classes="dialog-screen")
        self.battlefield = battlefield
        self.taken = taken
        self.title_text = title
        self.cursor = next(((x, y) for y in range(battlefield.height) for x in range(battlefield.width)
                            if battlefield.is_walkable((x, y)) and (x, y) not in taken), (0, 0))

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog gm-prompt") as box:
            box.border_title = self.title_text
            box.border_subtitle = "arrows · enter picks · esc cancels"
            yield Static(id="cell-map")
            yield Static(id="cell-note")

    def on_mount(self) -> None:
        self._draw()

    def action_move(self, dx: int, dy: int) -> None:
        x, y = self.cursor
        self.cursor = (min(max(0, x + dx), self.battlefield.width - 1), min(max(0, y + dy), self.battlefield.height - 1))
        self._draw()

    def action_pick(self) -> None:
        problem = battles.placement_refusal(self.battlefield, self.cursor, self.taken)
        if problem:
            self.app.bell()
            self.query_one("#cell-note", Static).update(Text(f"✗ {problem}", style="bold red"))
            return
        self.dismiss(self.cursor)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def _draw(self) -> None:
        text = Text()
        for y, row in enumerate(self.battlefield.to_rows()):
            for x, glyph in enumerate(row):
                style = "grey50" if glyph == "#" else ""
                if (x, y) in self.taken:
                    glyph, style = ("@", "bold green") if self.taken[(x, y)] == "the party" else ("e", "bold red")
                if (x, y) == self.cursor:
                    style = f"{style} reverse".strip()
                text.append(glyph, style=style)
            text.append("\n")
        self.query_one("#cell-map", Static).update(text)
        x, y = self.cursor
        problem = battles.placement_refusal(self.battlefield, self.cursor, self.taken)
        self.query_one("#cell-note", Static).update(Text(f"[{x}, {y}]" + (f" — {problem}" if problem else ""),
                                                          style="red" if problem else "dim"))
