"""A finished run's record: the morgue (text, as Crawl's, and JSON) and its hall-of-fame entry."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from horizon_tui.play.runs.run import Run
from horizon_tui.rules.character import build
from horizon_tui.rules.numbers import whole
from horizon_tui.rules.texts import counted


def score_entry(run: Run, rules, *, account: str = "", ended: str = "") -> dict[str, Any]:
    """The run's line in the hall of fame."""
    return {
        "id": run.id, "account": account, "party": [m.name for m in run.members],
        "levels": [build(m.character, rules).level for m in run.members],
        "depth": run.depth, "score": run.score, "won": run.won, "seed": run.seed,
        "daily": run.daily, "pace": run.pace, "permadeath": run.permadeath, "version": run.version,
        "started": run.started, "ended": ended, "cause": run.cause_of_death,
    }


def totals(run: Run) -> tuple[dict[str, int], dict[str, int]]:
    """Kills by member, and the party's damage by ability, over the whole run."""
    kills: dict[str, int] = defaultdict(int)
    damage: dict[str, int] = defaultdict(int)
    for fight in run.fights:
        for who, killed in fight.get("kills", {}).items():
            kills[who] += len(killed)
        for by_ability in fight.get("damage", {}).values():
            for ability, amount in by_ability.items():
                damage[ability] += int(amount)
    return dict(kills), dict(damage)


def morgue_data(run: Run, rules, run_dict: dict[str, Any], *, ended: str = "") -> dict[str, Any]:
    kills, damage = totals(run)
    return {"run": run_dict, "depth": run.depth, "score": run.score, "won": run.won, "cause_of_death": run.cause_of_death,
            "kills": kills, "damage_by_ability": damage, "ended": ended,
            "levels": {m.name: build(m.character, rules).level for m in run.members}}


def morgue_text(run: Run, rules, *, ended: str = "") -> str:
    """The run as a player reads it afterwards: who, how deep, each fight, kills, damage by ability,
    the cause of death, the seed, version and pace."""
    out = []
    names = ", ".join(m.name for m in run.members)
    title = f"Horizon {run.version} — a run of {names}"
    out += [title, "=" * len(title), ""]
    end = ("won the last depth" if run.won else f"fell at depth {run.depth}") if run.over else f"at depth {run.depth}"
    out.append(f"{names} {end}, scoring {run.score} (XP earned).")
    if run.cause_of_death:
        out.append(f"Cause of death: {run.cause_of_death}.")
    seed = f"daily seed of {run.daily} ({run.seed})" if run.daily else f"seed {run.seed}"
    out.append(f"Run {run.id}: {seed}; pace {run.pace}; {'permadeath' if run.permadeath else 'practice'}.")
    if run.started:
        out.append(f"Started {run.started}" + (f", ended {ended}." if ended else "."))
    out += ["", "The party", "---------"]
    for m in run.members:
        b = build(m.character, rules)
        state = "dead" if m.dead else ("down" if m.down else "standing")
        full = whole(b.stats["health"])  # never fought this run (given up before the first fight)
        health = f"{m.state['hp']}/{m.state['max_hp']}" if m.state else f"{full}/{full}"
        out.append(f"  {m.name:<20} level {b.level:<3} health {health:<11} {state}  ({m.character.weapon.name})")
    out += ["", "Fights", "------"]
    for f in run.fights:
        result = {"party": "won", "enemies": "lost", "draw": "a draw"}.get(f["winner"], f["winner"])
        xp = sum(f.get("xp", {}).values())
        out.append(f"  depth {f['depth']:>2}  {f['name']:<24} {result:<7} {counted(f['rounds'], 'round'):<10} {xp} XP")
        for who, killed in f.get("kills", {}).items():
            out.append(f"            {who} killed {', '.join(killed)}")
        for who, what in f.get("fell", {}).items():
            out.append(f"            {who} fell to {what}")
    kills, damage = totals(run)
    out += ["", "Kills", "-----"]
    out += [f"  {who:<20} {n}" for who, n in sorted(kills.items(), key=lambda kv: (-kv[1], kv[0]))] or ["  none"]
    out += ["", "Damage by ability", "-----------------"]
    out += [f"  {name:<24} {n:>8}" for name, n in sorted(damage.items(), key=lambda kv: (-kv[1], kv[0]))] or ["  none"]
    return "\n".join(out) + "\n"
