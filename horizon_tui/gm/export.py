"""The session log as Markdown for the players: the day's conversations (with what was said),
settlement reactions, battles and their results, experience, level-ups and new abilities.

No Textual here. The GM's own bookkeeping (dice rolls, NPC edits, rules changes) stays out.
"""

from __future__ import annotations

from pathlib import Path

from horizon_tui.rules.numbers import percent_text
from horizon_tui.gm.campaign import Campaign, LogEntry
from horizon_tui.saves.store import atomic_write

SECTIONS = (
    ("Conversations", ("check",)),
    ("Settlement reactions", ("reaction",)),
    ("Battles", ("battle",)),
    ("Experience", ("xp",)),
    ("Level-ups", ("level_up", "points")),
    ("New abilities", ("ability",)),
    ("The party", ("party",)),
)


def _escape(text: str) -> str:
    return text.replace("\r", "").strip()


def _quote(text: str) -> list[str]:
    return [f"  > {line}" if line.strip() else "  >" for line in _escape(text).splitlines()]


def _check(entry: LogEntry) -> list[str]:
    d = entry.data
    verdict = "**success**" if d.get("success") else "**failure**"
    mods = [f"GM modifier {int(d.get('modifier', 0)):+d}"]
    if d.get("settlement_modifier"):
        mods.append(f"{d.get('settlement')} {int(d['settlement_modifier']):+d}")
    elif d.get("settlement"):
        mods.append(f"in {d['settlement']}")
    odds = d.get("chance")
    lines = [
        f"- **{d.get('character')} → {d.get('npc')}**: {d.get('kind')} ({d.get('score_name')}), {', '.join(mods)}: "
        f"{verdict} — {_num(d.get('attacker_total'))} against {_num(d.get('defender_total'))}"
        + (f" (odds {percent_text(odds)})" if odds is not None else ""),
        *_quote(d.get("text", "")),
    ]
    if d.get("override"):
        lines.append(f"  - *Past the daily limit by the GM's leave: {d['override']}*")
    return lines


def _num(value) -> str:
    return "?" if value is None else f"{float(value):g}"


def _battle(entry: LogEntry) -> list[str]:
    d = entry.data
    won = {"party": "the party wins", "enemies": "the enemies win", "draw": "a draw"}.get(d.get("winner"), "unfinished")
    lines = [f"### {d.get('name', 'A battle')} — {won} after {d.get('rounds', '?')} rounds"]
    if d.get("defeated"):
        lines.append(f"- Defeated: {', '.join(d['defeated'])}")
    if d.get("fled"):
        lines.append(f"- Fled: {', '.join(d['fled'])}")
    if d.get("party"):
        lines.append("- The party at the end: " + ", ".join(f"{name} {state}" for name, state in d["party"].items()))
    xp = d.get("xp") or {}
    if xp:
        lines.append("- XP earned (R-14): " + ", ".join(f"{name} {n}" for name, n in xp.items()))
    for ruling in d.get("free_actions") or []:
        lines.append(f"- Free action — {ruling}")
    for override in d.get("overrides") or []:
        lines.append(f"- GM override — {override}")
    return lines


def day_markdown(campaign: Campaign, day: int) -> list[str]:
    entries = [e for e in campaign.log if e.day == day]
    lines = [f"## Day {day}", ""]
    empty = True
    for title, kinds in SECTIONS:
        chosen = [e for e in entries if e.kind in kinds]
        if not chosen:
            continue
        empty = False
        lines += [f"### {title}" if title != "Battles" else "### Battles", ""]
        for entry in chosen:
            if entry.kind == "check":
                lines += _check(entry)
            elif entry.kind == "battle":
                lines += [line.replace("### ", "#### ", 1) if line.startswith("### ") else line for line in _battle(entry)]
                lines.append("")
            else:
                lines.append(f"- {_escape(entry.text)}")
        lines.append("")
    if empty:
        lines += ["Nothing recorded.", ""]
    return lines


def session_markdown(campaign: Campaign, days: list[int] | None = None) -> str:
    """The days' events (default: today) as one Markdown document."""
    days = days if days is not None else [campaign.day]
    title = campaign.name if len(days) != 1 else f"{campaign.name} — day {days[0]}"
    lines = [f"# {title}", ""]
    if campaign.party:
        lines += ["*The party: " + ", ".join(m.name for m in campaign.party) + "*", ""]
    for day in days:
        lines += day_markdown(campaign, day)
    return "\n".join(lines).rstrip() + "\n"


def export_path(folder: Path, campaign: Campaign, days: list[int] | None) -> Path:
    from horizon_tui.gm.store import slug

    suffix = "all-days" if days is not None and len(days) != 1 else f"day-{(days or [campaign.day])[0]}"
    return folder / f"{slug(campaign.name)}-{suffix}.md"


def export(folder: Path, campaign: Campaign, days: list[int] | None = None) -> Path:
    path = export_path(folder, campaign, days)
    atomic_write(path, session_markdown(campaign, days).encode())
    return path
