"""The tracker for a real fight, a mixin of `GMBattleScreen`: damage and healing by an amount on
one or several marked combatants, revive, withdraw, reinforcements mid-fight (from the enemy
catalogue, the NPC roster or a quick stat line, hidden until revealed), initiative values written
by hand, and rows that show health, effects with turns left and charges.

Every change is an override of `engine.overrides`, recorded as an input (so undo and replay hold).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from horizon_tui.content.models import Difficulty
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import charge_left, comp, effects, hp, ident, is_active, pos, team
from horizon_tui.engine.components import Presence
from horizon_tui.engine.sideview import effect_turns_left
from horizon_tui.engine.turns import free_cell_near
from horizon_tui.campaign import battles
from horizon_tui.campaign.initiative import tracker_rows
from horizon_tui.ui.gm.screens.dialogs import Field, PromptDialog
from horizon_tui.ui.battle.dialogs import ChoiceDialog
from horizon_tui.ui.battle.widget import Panel
from horizon_tui.play.forms import name_length, parse_whole

CONTROLLER_TAGS = {"player": "P", "gm": "GM", "ai": "AI"}
STATE_MARKS = {"current": "▶", "acted": "✓", "waiting": "·", "out": "✗"}
SHORT_EFFECTS = {"bleeding": "bleed", "regeneration": "regen", "domination": "domin", "knockdown": "down",
                 "blindness": "blind"}
MAX_AMOUNT = 100_000  # a damage or heal typed by hand: more is a typo


def whole_in(text: str, low: int, high: int, what: str) -> int:
    """A whole number typed in a GM form, within low…high; ValueError naming the bounds. The
    player app's guarded parse (play.forms): the same digit limits and messages as its forms."""
    return parse_whole(text, what, low=low, high=high)


def checked(fields: dict[str, tuple[int, int, str]]):
    """A PromptDialog `check` for number fields: key → (low, high, what)."""
    def check(values: dict[str, str]) -> str | None:
        for key, (low, high, what) in fields.items():
            try:
                whole_in(values[key], low, high, what)
            except ValueError as exc:
                return str(exc)
        return None
    return check


class TrackerPanel(Panel):
    """The GM's tracker as a side panel of the battle screen (`ui.battle.roles.BattlePanel`):
    its rows from the screen that owns them (`rows()`), shown only while `shown()` says so (at
    one keyboard a player's seat sees no GM's tracker)."""

    def __init__(self, rows: Callable[[], Text], shown: Callable[[], bool] = lambda: True) -> None:
        super().__init__(id="gm-tracker")
        self._rows = rows
        self._shown = shown

    def show_model(self, known, battle) -> None:
        shown = self._shown()
        self.display = shown
        self.show(self._rows() if shown else Text(""))


class TrackerMixin:
    """Needs `battle`, `_selected_id()`, `_override(change, label)`, `refuse(reason)`, `prompt`,
    `refresh_all()`, `battle_name` and `app` (the GM app)."""

    marked: set[str]
    extra_enemies: dict

    # --- drawing ---------------------------------------------------------------------------

    def tracker_text(self, width: int = 32) -> Text:
        battle = self.battle
        values = ov.initiative_values(battle)
        text = Text(f"Round {battle.round} — turn order\n", style="bold", no_wrap=True, overflow="ellipsis")
        chosen = self._selected_id()
        name_width = max(6, width - 18)  # marks 2, initiative 5, health 8, controller 3
        for row in tracker_rows(battle):
            e = battle[row.id]
            colour = "cyan" if row.team == "party" else "red"
            style = "dim strike" if row.state == "out" else colour + (" dim" if row.state == "acted" else "")
            line = Text()
            line.append(STATE_MARKS[row.state], style="bold yellow" if row.state == "current" else "dim")
            line.append("•" if row.id in self.marked else " ", style="bold magenta")
            line.append(f"{row.name[:name_width]:<{name_width}}", style=style)
            value = values.get(row.id)
            # R-8's total (initiative + 1d6) as R-2 shows numbers: one decimal, half up (int() cut
            # 15.7 to 15, and equal-looking totals stood in an order nothing explained)
            line.append(f"{initiative_text(value):>5}" if value is not None else "    –", style="dim")
            health = hp(e)
            temp = ov.temp_health(e)
            shown = (f"{max(0, health.hp)}{'+' + str(temp) if temp else ''}/{health.max_hp}" if row.state != "out"
                     else row.presence[:7])
            line.append(f" {shown:>7}", style="bold red" if row.state != "out" and health.hp * 4 <= health.max_hp
                        else "")
            line.append(f" {CONTROLLER_TAGS.get(row.controller, row.controller)}",
                        style="bold" if row.controller != "ai" else "dim")
            if row.id == chosen:
                line.stylize("reverse")
            text.append_text(line)
            text.append("\n")
            details = self._row_details(e)
            if details:
                text.append(f"   {details[:width - 3]}\n", style="dim")
        return text

    def _row_details(self, e) -> str:
        parts = []
        for fx in effects(e).active:
            label = "HIDDEN" if fx.effect == "hidden" else SHORT_EFFECTS.get(fx.effect, fx.effect)
            parts.append(label if fx.effect == "hidden" else f"{label} {effect_turns_left(fx)}")
        if is_active(e):
            charges = [f"{d.value}{charge_left(e, d)}" for d in Difficulty
                       if d is not Difficulty.I and charge_left(e, d) is not None and gear_knows(e, d)]
            if charges:
                parts.append(" ".join(charges))
        return " · ".join(parts)

    # --- targets ---------------------------------------------------------------------------

    def action_mark(self) -> None:
        target = self._selected_id()
        if target is None:
            return
        self.marked ^= {target}
        self.refresh_all()

    def _targets(self) -> list[str]:
        chosen = [t for t in self.battle.order if t in self.marked and is_active(self.battle[t])]
        if chosen:
            return chosen
        target = self._selected_id()
        return [target] if target is not None and is_active(self.battle[target]) else []

    def _names(self, targets: list[str]) -> str:
        names = [ident(self.battle[t]).name for t in targets]
        return ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:3])} and {len(names) - 3} more"

    # --- damage, heal, revive, withdraw ----------------------------------------------------

    def action_damage(self) -> None:
        self._amount("damage")

    def action_heal(self) -> None:
        self._amount("heal")

    def action_temp_health(self) -> None:
        self._amount("temp")

    def _amount(self, kind: str) -> None:
        if self.battle.over:
            return
        targets = self._targets()
        if not targets:
            self.refuse("select a combatant on the battlefield ([ ]), or mark several (space)")
            return
        verb = {"damage": "Damage", "heal": "Heal", "temp": "Temporary health for"}[kind]
        title = f"{verb} {self._names(targets)}"

        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            amount = whole_in(values["amount"], 1, MAX_AMOUNT, "the amount")
            make = {"damage": ov.Damage, "heal": ov.Heal, "temp": ov.GrantTempHealth}[kind]
            change = make(tuple(targets), amount, values["reason"].strip())
            if self._override(change, f"{kind} {amount} on {self._names(targets)}"):
                self.marked.clear()
                self.refresh_all()

        self.app.push_screen(PromptDialog(title, [Field("amount", "Amount"), Field("reason", "Reason",
                                                                                  placeholder="optional")],
                                          check=checked({"amount": (1, MAX_AMOUNT, "the amount")})), done)

    def action_revive(self) -> None:
        target = self._selected_id()
        if target is None or self.battle.over:
            return
        e = self.battle[target]
        if comp(e, Presence) not in (Presence.unconscious, Presence.dead):
            self.refuse(f"{ident(e).name} is {comp(e, Presence).value}: revive is for the fallen ([ ] selects)")
            return
        top = hp(e).max_hp
        cell = ov.revive_cell(self.battle, target)
        if cell is None:
            self.refuse("no free cell to stand it on")
            return

        def done(values: dict[str, str] | None) -> None:
            if values:
                amount = whole_in(values["hp"], 1, top, "health")
                self._override(ov.Revive(target, amount, cell, values["reason"].strip()),
                               f"revive {ident(e).name} with {amount}")

        self.app.push_screen(PromptDialog(f"Revive {ident(e).name} (health 1…{top})", [
            Field("hp", "Health", "1"), Field("reason", "Reason", placeholder="a potion, a prayer…")],
            check=checked({"hp": (1, top, "health")})), done)

    def action_withdraw(self) -> None:
        target = self._selected_id()
        if target is None or self.battle.over or not is_active(self.battle[target]):
            return
        name = ident(self.battle[target]).name

        def chosen(choice: str | None) -> None:
            if choice == "yes":
                self._override(ov.Withdraw(target, "the GM takes it out"), f"withdraw {name}")

        self.app.push_screen(ChoiceDialog(f"Take {name} out of the fight? (no XP for it; v revives it)",
                                          [("yes", f"Yes, {name} leaves"), ("no", "No")]), chosen)

    def action_initiative(self) -> None:
        target = self._selected_id()
        if target is None or self.battle.over:
            return
        name = ident(self.battle[target]).name
        now = ov.initiative_values(self.battle).get(target)
        shown = "" if now is None else str(int(now))  # a whole number is what the GM types

        def done(values: dict[str, str] | None) -> None:
            if values:
                if now is not None and values["total"].strip() == shown:
                    # left as offered: the rolled total (17.7 offered as 17) stays, and so does the order
                    self.refuse(f"{name}'s initiative is unchanged")
                    return
                total = whole_in(values["total"], -999, 999, "initiative")
                self._override(ov.SetInitiative(target, total, values["reason"].strip()), f"initiative {name} {total}")

        self.app.push_screen(PromptDialog(f"Initiative of {name}", [
            Field("total", "Total", shown), Field("reason", "Reason", placeholder="optional")],
            note="The turn order follows the totals, highest first (R-8).",
            check=checked({"total": (-999, 999, "initiative")})), done)

    def action_reveal(self) -> None:
        target = self._selected_id()
        if target is None or self.battle.over:
            return
        e = self.battle[target]
        if effects(e).get("hidden") is None:
            self.refuse(f"{ident(e).name} is not hidden")
            return
        self._override(ov.RemoveEffect(target, "hidden", "revealed"), f"reveal {ident(e).name}")

    # --- reinforcements --------------------------------------------------------------------

    def action_add_combatant(self) -> None:
        if self.battle.over:
            return
        self.app.push_screen(ChoiceDialog("Who joins the fight?", [
            ("catalogue", "An enemy type from the catalogue"),
            ("npc", "An NPC from the campaign's roster"),
            ("quick", "A quick stat line (name, level, health, weapon)"),
        ]), lambda source: source and getattr(self, f"_join_{source}")())

    def _join_catalogue(self) -> None:
        defs = self.app.enemies()
        options = [(key, f"{d.character.name} (level {d.level}, {d.xp} XP)")
                   for key, d in sorted(defs.items(), key=lambda kv: (kv[1].level, kv[1].character.name))]
        self.app.push_screen(ChoiceDialog("Which enemy type?", options),
                             lambda key: key and self._join_how(key, defs[key], None))

    def _join_npc(self) -> None:
        npcs = [n for n in self.app.campaign.npcs if not n.dead]
        if not npcs:
            self.refuse("no NPC in the roster (n on the dashboard makes one)")
            return
        options = [(n.name, f"{n.name} (level {n.level}, {n.attitude})") for n in npcs]

        def picked(name: str | None) -> None:
            if not name:
                return
            npc = self.app.campaign.npc(name)
            try:
                definition = battles.npc_enemy(npc, self.app.catalogue, self.app.enemies())
            except ValueError as exc:
                self.refuse(str(exc))
                return
            self._join_how(definition.id, definition, npc.combat_side(), npc.name)

        self.app.push_screen(ChoiceDialog("Which NPC?", options), picked)

    def _join_quick(self) -> None:
        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            try:
                definition = battles.quick_enemy(
                    values["name"], whole_in(values["level"], 1, 99, "level"),
                    whole_in(values["health"], 1, MAX_AMOUNT, "health"), values["weapon"].strip(),
                    self.app.catalogue, self.app.enemies(), whole_in(values["xp"] or "0", 0, MAX_AMOUNT, "XP"))
            except ValueError as exc:
                self.refuse(str(exc))
                return
            self._join_how(definition.id, definition, None, values["name"].strip())

        def check(values):
            problem = checked({"level": (1, 99, "level"), "health": (1, MAX_AMOUNT, "health")})(values)
            if problem:
                return problem
            if not values["name"].strip():
                return "a name, please"
            if values["weapon"].strip() not in self.app.catalogue.weapons:
                return f"a weapon id: {', '.join(sorted(self.app.catalogue.weapons))}"
            return None

        self.app.push_screen(PromptDialog("A quick stat line", [
            Field("name", "Name", placeholder="Wolf", max_length=name_length()), Field("level", "Level", "1"), Field("health", "Health", "20"),
            Field("weapon", "Weapon", "dagger"), Field("xp", "XP", "0")], check=check), done)

    def _join_how(self, key: str, definition, side: str | None, name: str = "") -> None:
        def done(values: dict[str, str] | None) -> None:
            if not values:
                return
            count = whole_in(values["count"], 1, 20, "how many")
            hidden = values["hidden"].strip().lower() in ("y", "yes")
            where = values["side"].strip().lower()
            self.reinforce(key, definition, count, "party" if where.startswith("p") else "enemies", hidden,
                           values["name"].strip() or name or definition.character.name)

        self.app.push_screen(PromptDialog(f"{definition.character.name} joins", [
            Field("count", "How many", "1"), Field("side", "Side", side or "enemies"),
            Field("hidden", "Hidden", "no", placeholder="yes: unseen until revealed (R)"),
            Field("name", "Name", name or definition.character.name, max_length=name_length())],
            note="They stand on free cells beside their side and act right after this turn.",
            check=lambda v: checked({"count": (1, 20, "how many")})(v) or (
                None if v["side"].strip().lower()[:1] in ("p", "e") else "side: party or enemies")), done)

    def reinforce(self, key: str, definition, count: int, side: str, hidden: bool, name: str) -> bool:
        """`count` of them join on free cells near their side (near the enemies' middle if none)."""
        battle = self.battle
        extra = {} if key in self.app.enemies() else {key: definition}
        battle.enemy_defs.setdefault(key, definition)
        friends = [pos(e) for e in battle.active.values() if team(e) == side] or \
                  [pos(e) for e in battle.active.values()]
        anchor = friends[len(friends) // 2] if friends else (battle.battlefield.width // 2, battle.battlefield.height // 2)
        joined = 0
        for n in range(count):
            cell = free_cell_near(battle, anchor)
            if cell is None:
                break
            label = name if count == 1 else f"{name} {n + 1}"
            change = ov.Reinforce(key, cell, side, label, hidden, "ai" if not self.mapless else "gm",
                                  "joins mid-fight")
            if not self._override(change, f"{label} joins", extra=extra):
                break
            extra = {}
            joined += 1
        if joined < count:
            self.refuse(f"only {joined} of {count} found a free cell")
        return joined == count


def initiative_text(value: float) -> str:
    """An initiative total for the tracker: "17.7", "21" (one decimal, half up, R-2's way)."""
    from fractions import Fraction

    from horizon_tui.rules.numbers import one_decimal

    return f"{one_decimal(Fraction(str(value))):g}"


def gear_knows(e, difficulty: Difficulty) -> bool:
    """Whether it carries an ability of this difficulty (its charges matter then)."""
    from horizon_tui.engine.battle import gear

    return any(a.difficulty is difficulty for a in gear(e).character.abilities)
