"""Battle events in words, for the CLI's log and the battle screen's message log."""

from __future__ import annotations

from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import Battle, gear, ident
from horizon_tui.rules.texts import counted, listed, number_word, plural
from horizon_tui.rules.numbers import percent_text


UNSEEN = "someone unseen"
# The reason of the overrides that put a character's state from its last battle back into the next
# (a campaign's `campaign.carry`, a run's `play.runs.run`): told as the character's state, not a GM's act.
CARRIED = "carried from the last fight"


def _name(battle: Battle, cid: str | None, unseen: frozenset[str] = frozenset()) -> str:
    if cid is None:
        return "someone"
    if cid in unseen:
        return UNSEEN
    e = battle.by_id.get(cid)
    if e is None:
        return cid
    return ident(e).name


def describe(battle: Battle, event: ev.Event, unseen: frozenset[str] = frozenset()) -> str | None:
    """One line for a player to read; None for bookkeeping events. Combatants in `unseen` (ids
    the reader's side can't see now: `engine.sideview.unseen_ids`) are "someone unseen", so the
    log never names a hidden enemy (R-13); they are never counted either (the opening line and a
    joining combatant leave them out)."""
    line = _describe(battle, event, unseen)
    return line[0].upper() + line[1:] if line else line


def _describe(battle: Battle, event: ev.Event, unseen: frozenset[str]) -> str | None:
    n = lambda cid: _name(battle, cid, unseen)  # noqa: E731
    match event:
        case ev.BattleStart():
            named = [c["name"] for c in event.combatants if c.get("id") not in unseen]  # the unseen uncounted
            return f"The battle begins: {', '.join(named)}." if named else "The battle begins."
        case ev.RoundStart():
            return f"— Round {event.round} —"
        case ev.Turn():
            return None
        case ev.Moved(reason="blind"):
            return f"{n(event.actor)} stumbles blindly."
        case ev.Moved():
            return None
        case ev.Attacked():
            what = event.ability or "attacks"
            verb = f"uses {what} on" if event.ability else "attacks"
            if event.target is None:
                return f"{n(event.actor)} {verb} the area."
            result = ("critically hits!" if event.crit else "hits.") if event.hit else "misses."
            return f"{n(event.actor)} {verb} {n(event.target)} and {result}"
        case ev.Damaged():
            return f"{n(event.target)} takes {event.amount} damage ({max(0, event.hp)} health left)."
        case ev.Healed():
            return f"{n(event.target)} recovers {event.amount} health ({event.hp})."
        case ev.EffectEvent(ended=True):
            return f"{n(event.target)} is no longer under {event.effect}."
        case ev.EffectEvent(resisted=True):
            return f"{n(event.target)} is immune to {event.effect}."
        case ev.EffectEvent():
            turns = f" ({event.duration} turn{'s' if event.duration != 1 else ''} left)" if event.duration else ""
            return f"{n(event.target)} suffers {event.effect}{turns}."
        case ev.Check(kind="difficulty"):
            # rolled because the ability is above the user's level; what the roll meant, said
            fate = {"fizzle": "it fizzles", "self": "it turns on its user", "random": "it flies astray"}
            outcome = "it works" if event.success else fate.get(event.outcome or "", "it fails")
            return (f"{n(event.actor)} {'passes' if event.success else 'fails'} the difficulty check for "
                    f"{event.ability}, above its level ({percent_text(event.chance)} chance): {outcome}.")
        case ev.Check(kind="effect", success=False):
            return f"{_effect_of(battle, event)} doesn't take hold on {n(event.target)} ({percent_text(event.chance)} chance)."
        case ev.Check(kind="activation"):
            state = "activates" if event.success else "fails to activate"
            return f"{n(event.actor)} {state} {event.ability} ({percent_text(event.chance)})."
        case ev.Check(kind="free_action"):
            return f"The free action {'works' if event.success else 'fails'} ({percent_text(event.chance)})."
        case ev.Check():
            return None
        case ev.AbilityUsed():
            # the attack line names it ("uses Pinning Shot on Snikk and hits"); an area's effect,
            # a heal or a fizzle has none: say it was used, or its effects come from nowhere
            return None if _attack_follows(battle, event) else f"{n(event.actor)} uses {event.ability}."
        case ev.Swapped():
            return f"{n(event.actor)} swaps {event.removed} for {event.added}."
        case ev.Toggle():
            return f"{n(event.actor)} switches {event.ability} {'on' if event.active else 'off'}."
        case ev.FreeActionEvent():
            target = f" ({n(event.target)})" if event.target and event.target != event.actor else ""
            said = event.description.rstrip().removesuffix(".")  # a stock action's ends with its own
            return f"{n(event.actor)}: {said}{target}."
        case ev.Waited():
            return None if event.reason == "waits" else f"{n(event.actor)} {event.reason}."
        case ev.GetUp():
            return f"{n(event.actor)} gets back up."
        case ev.SideChange():
            return f"{n(event.target)} now fights for the {event.team}."
        case ev.Join():
            joined = event.combatant
            return None if joined.get("id") in unseen else f"{joined['name']} joins the battle."
        case ev.Defeated():
            return f"{n(event.target)} {'falls unconscious' if event.state == 'unconscious' else 'dies'}."
        case ev.Fled():
            return f"{n(event.target)} flees the battlefield."
        case ev.Override(reason=reason) if reason == CARRIED and _carried(event):
            return f"{n(event.target)} {_carried(event)}, carried from the last fight."
        case ev.Override():
            # a tracker act carries what it changed, "2nd → 4th" (engine.overrides): the log says it
            change = f" ({event.value})" if isinstance(event.value, str) and " → " in event.value else ""
            return f"GM: {event.what} on {n(event.target)}{change}{' — ' + event.reason if event.reason else ''}."
        case ev.Result():
            won = {"party": "The party wins", "enemies": "The enemies win", "draw": "The battle ends in a draw"}[event.winner]
            xp = ", ".join(f"{k} +{v} XP" for k, v in event.xp.items())
            return f"{won} after {counted(event.rounds, 'round')}. {xp}"
    return None


def _carried(event: ev.Override) -> str | None:
    """What a carried state is, in words: "starts with 133 health", "has 0 charges of II left"."""
    what, value = event.what, event.value
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if what == "starts with health":
        return f"starts with {value} health"
    if what.startswith("charges "):
        return f"has {counted(value, 'charge')} of {what.removeprefix('charges ')} left"
    if what.startswith("add "):
        return f"is still under {what.removeprefix('add ')} ({counted(value, 'turn')} left)"
    if what.startswith("cooldown of "):
        return f"waits {counted(value, 'more turn')} for {what.removeprefix('cooldown of ')}"
    return None


def _attack_follows(battle: Battle, used: ev.AbilityUsed) -> bool:
    """An attack line of the same use follows `used` in the log (its events end at the next turn)."""
    for later in battle.log[used.seq:]:  # `seq` is the event's place in the log, from 1
        if isinstance(later, (ev.Turn, ev.RoundStart, ev.AbilityUsed, ev.Result)):
            return False
        if isinstance(later, ev.Attacked) and later.actor == used.actor:
            return True
    return False


def _effect_of(battle: Battle, check: ev.Check) -> str:
    """"Rot Touch's disease": the effect a failed effect check was for (the ability's effect with
    that chance), or the ability's effect when it has several with that chance."""
    e = battle.by_id.get(check.actor) if check.actor else None
    ability = gear(e).character.ability(check.ability) if e is not None and check.ability else None
    names = {spec.effect for spec in ability.effects if float(spec.chance) == check.chance} if ability else set()
    return f"{check.ability}'s {names.pop() if len(names) == 1 else 'effect'}"


def sight_change(known: dict[str, tuple[str, str]], came: list[str], moved_off: list[str], lost: list[str]) -> list[str]:
    """The lines for a change of sight, one per kind of change, enemies of a kind grouped as Crawl
    groups them: "Two Grey Wolves come into view.", "Goblin 2 moves out of sight." — `came`: ids
    now seen that weren't, `moved_off`: those that moved out of the viewer's sight, `lost`: those
    still where they were (the viewer moved, or they hid); `known`: id → (its kind's name, its
    name)."""
    lines = []
    for ids, one, many in ((came, "comes into view", "come into view"),
                           (moved_off, "moves out of sight", "move out of sight"),
                           (lost, "is out of sight", "are out of sight")):
        if ids:
            lines.append(f"{_grouped(known, ids)} {one if len(ids) == 1 else many}.")
    return [line[0].upper() + line[1:] for line in lines]


def _grouped(known: dict[str, tuple[str, str]], ids: list[str]) -> str:
    """'Grey Wolf 2', 'two Grey Wolves and Goblin 1': one of a kind by its name, several by count."""
    by_kind: dict[str, list[str]] = {}
    for uid in ids:
        kind, name = known[uid]
        by_kind.setdefault(kind, []).append(name)
    parts = [names[0] if len(names) == 1 else f"{number_word(len(names))} {plural(kind)}"
             for kind, names in by_kind.items()]
    return listed(parts)
