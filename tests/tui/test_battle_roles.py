"""The battle screen is composed, not inherited: who acts here (`roles.Solo`, `roles.TableSeat`),
what carries the inputs (`roles.LocalEngine`, `roles.TableDriver`) and the side panels it is given."""

from __future__ import annotations

from types import SimpleNamespace

from rich.text import Text
from textual.app import App

from horizon_tui.engine.actions import Impossible, Wait
from horizon_tui.engine.battle import ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.runner import begin, needs_input
from horizon_tui.ui.battle.roles import SENT, LocalEngine, Solo, TableDriver, TableSeat
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.battle.widget import Panel

from .test_battle_view import _battle


def _client(seat: str, seating: dict) -> SimpleNamespace:
    sent: list[dict] = []
    return SimpleNamespace(seat=seat, seating=seating, replica=SimpleNamespace(paused=False),
                           act=sent.append, sent=sent)


def _hero_turn(catalogue):
    battle = _battle(catalogue)
    begin(battle)
    hero = next(e for e in battle.combatants() if ident(e).name == "Hero")
    assert battle.current is hero and needs_input(battle, hero)
    return battle, hero


def test_a_table_seat_plays_its_own_characters_the_gm_the_unheld_a_spectator_none(catalogue):
    battle, hero = _hero_turn(catalogue)
    hero_id = ident(hero).id
    seating = {"ann": {"role": "player", "characters": [hero_id]}, "bob": {"role": "player", "characters": []},
               "gm": {"role": "gm"}, "eve": {"role": "spectator"}}
    assert TableSeat(_client("ann", seating)).acts_here(battle, hero)
    assert not TableSeat(_client("bob", seating)).acts_here(battle, hero)  # another player's character
    assert not TableSeat(_client("gm", seating)).acts_here(battle, hero)  # a player holds it
    assert not TableSeat(_client("eve", seating)).acts_here(battle, hero)
    seating["ann"]["characters"] = []  # ann gives it up: the GM plays it now
    assert TableSeat(_client("gm", seating)).acts_here(battle, hero)
    client = _client("eve", seating)
    policy = TableSeat(client)
    client.seat = "gm"  # a hot-seat hand-over: the same policy follows the keyboard
    assert policy.role == "gm" and policy.acts_here(battle, hero)
    assert Solo().acts_here(battle, hero)


def test_the_local_engine_saves_ends_and_records_through_its_callbacks(catalogue):
    battle, hero = _hero_turn(catalogue)
    session = BattleInProgress(battle, "t", [])
    saved, ended, recorded = [], [], []
    driver = LocalEngine(autosave=saved.append, on_end=ended.append, after_input=lambda a, o: recorded.append(a))
    action = Wait(ident(hero).id)
    outcome = driver.submit(session, action)
    assert not isinstance(outcome, Impossible) and len(session.inputs) == 1
    driver.recorded(action, outcome)
    assert driver.save(session) and saved == [session]
    driver.ended(session)
    assert ended == [session] and recorded == [action]
    assert not LocalEngine().save(session)  # nothing to write with: nothing said saved


def test_a_table_driver_sends_the_input_and_refuses_while_paused(catalogue):
    battle, hero = _hero_turn(catalogue)
    session = BattleInProgress(battle, "t", [])
    client = _client("ann", {})
    driver = TableDriver(client)
    assert driver.submit(session, Wait(ident(hero).id)) == SENT
    assert client.sent and client.sent[0]["type"] == "Wait" and session.inputs == []  # the table performs it
    client.replica.paused = True
    refused = driver.submit(session, Wait(ident(hero).id))
    assert isinstance(refused, Impossible) and "paused" in refused.reason
    assert not driver.save(session) and not driver.plays_ai


class _Foes(Panel):
    """A plugged-in panel: the viewer's foes, counted."""

    given = 0

    def show_model(self, known, battle) -> None:
        self.given += 1
        self.show(Text(f"{len(known.foes())} foes seen"))


class _Host(App):
    auto_fight_stop = None  # what the battle screen asks of its app (ui.app_contract): the default

    def __init__(self, screen: BattleScreen) -> None:
        super().__init__()
        self.battle_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.battle_screen)


async def test_a_plugged_panel_sits_atop_the_side_column_and_is_given_the_read_model(catalogue):
    battle, hero = _hero_turn(catalogue)
    panel = _Foes(id="foes")
    screen = BattleScreen(BattleInProgress(battle, "t", []), panels=[panel])
    async with _Host(screen).run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        side = screen.query_one("#battle-side")
        assert side.children[0] is panel
        assert str(panel.render()) == f"{len(screen.known().foes())} foes seen"
        given = panel.given
        await pilot.press("full_stop")  # the hero's turn ends: the panel follows the battle
        assert panel.given > given
