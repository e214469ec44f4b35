"""The session log as Markdown, twice: the players' recap (the day told in order: conversations
with what was said, settlement reactions, battles and their results, rests, experience,
level-ups and new abilities) and the GM's full log (every entry, with the numbers behind it).

The recap leaves out the GM's side of the screen: overrides, the tracker's bookkeeping, the GM's
dice rolls (and the table talk's whispers and secret rolls; what was said to everyone is in "At the
table", each line as text: Markdown and HTML in it are escaped), NPC statistics (their willpower, the totals and odds of a check against them), NPC
edits, rules changes, and combatants still hidden at the end. An undone action is gone from both:
they are read from the campaign, which undo steps back. No Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from horizon_tui.campaign.campaign_files import slug
from horizon_tui.campaign.model import Campaign, LogEntry, rounds_text
from horizon_tui.rules.numbers import percent_text
from horizon_tui.storage.atomic import atomic_write

# What the players' recap tells, in the order it happened (the rest is the GM's side: dice, NPC
# edits, rules, notes). A heading above a run of entries of one kind keeps the story easy to scan.
RECAP_KINDS = {"check": "Conversation", "reaction": "Settlement reactions", "battle": "Battle", "rest": "Rest",
               "xp": "Experience", "level_up": "Level-ups", "points": "Level-ups", "ability": "New abilities",
               "party": "The party", "talk": "At the table"}
MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>|~&])")  # inline: a talk line never starts a Markdown line


def _as_text(text: str) -> str:
    """Talk (anyone's words) shown as written: every Markdown and HTML character escaped."""
    return MARKDOWN_ACTIVE.sub(r"\\\1", _escape(text).replace("\n", " "))


def _heard_by_all(entry: LogEntry) -> bool:
    return entry.kind != "talk" or entry.data.get("to") == "all"


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
    # the totals and the odds would give the NPC's willpower away: the players read the verdict
    lines = [
        f"- **{d.get('character')} → {d.get('npc')}**: {d.get('kind')} ({d.get('score_name')}), {', '.join(mods)}: "
        f"{verdict}",
        *_quote(d.get("text", "")),
    ]
    return lines


def _num(value) -> str:
    return "?" if value is None else f"{float(value):g}"


def _battle(entry: LogEntry, campaign: Campaign | None = None) -> list[str]:
    d = entry.data
    won = {"party": "the party wins", "enemies": "the enemies win", "draw": "a draw"}.get(d.get("winner"), "unfinished")

    lines = [f"### {d.get('name', 'A battle')} — {won} after {rounds_text(d.get('rounds', '?'))}"]
    if d.get("defeated"):
        lines.append(f"- Defeated: {', '.join(d['defeated'])}")
    if d.get("fled"):
        lines.append(f"- Fled: {', '.join(d['fled'])}")
    if d.get("party"):
        lines.append("- The party at the end: " + ", ".join(f"{name} {state}" for name, state in d["party"].items()))
    if d.get("joined"):
        lines.append(f"- Joined mid-fight: {', '.join(d['joined'])}")
    if d.get("revived"):
        lines.append(f"- Back on their feet: {', '.join(d['revived'])}")
    # the party's XP: an allied NPC's share is the GM's bookkeeping (it keeps it, campaign.battles)
    xp = {name: n for name, n in (d.get("xp") or {}).items()
          if campaign is None or campaign.member(name) is not None or campaign.npc(name) is None}
    if xp:
        lines.append("- XP earned (R-14): " + ", ".join(f"{name} {n}" for name, n in xp.items()))
    for ruling in d.get("free_actions") or []:
        lines.append(f"- Free action — {_without_odds(ruling)}")
    return lines


def _without_odds(ruling: str) -> str:
    """A free action's ruling as the players heard it: what was tried and whether it worked."""
    head, sep, tail = ruling.rpartition(", ")
    if sep and tail.split(":")[0].endswith("%"):
        return f"{head}: {tail.split(': ', 1)[-1]}"
    return ruling


def day_markdown(campaign: Campaign, day: int) -> list[str]:
    """One day of the recap, told in the order it happened: a conversation, then the fight it led
    to, the XP and the level-up after it (a heading starts each run of one kind)."""
    return list(_recap_day(campaign, day, campaign.lines_of(day)))


def _recap_day(campaign: Campaign, day: int, entries: Iterable[LogEntry]) -> Iterator[str]:
    """`day_markdown` over the day's lines as they come (the export of every day reads the log a
    page at a time)."""
    yield f"## Day {day}"
    yield ""
    last, heading, told = "", None, False
    for entry in entries:
        if entry.kind not in RECAP_KINDS or not _heard_by_all(entry):
            continue
        told = True
        block = []
        if entry.kind == "battle":
            block += [""] if last else []
            block += [*_battle(entry, campaign), ""]
            heading = None
        else:
            if RECAP_KINDS[entry.kind] != heading:
                heading = RECAP_KINDS[entry.kind]
                block += [""] if last else []
                block += [f"### {heading}", ""]
            if entry.kind == "check":
                block += _check(entry)
            elif entry.kind == "talk":
                block.append(f"- {_as_text(entry.text)}")
            else:
                block.append(f"- {_escape(entry.text)}")
        yield from block
        last = block[-1]
    if not told:
        yield "Nothing recorded."
    yield ""


def _gm_day(day: int, entries: Iterable[LogEntry]) -> Iterator[str]:
    yield f"## Day {day}"
    yield ""
    for entry in entries:
        text = _as_text(entry.text) if entry.kind == "talk" else _escape(entry.text)
        yield f"- *{entry.kind}* — {text}"
        d = entry.data
        if entry.kind == "check":
            odds = d.get("chance")
            yield (f"  - {_num(d.get('attacker_total'))} against {_num(d.get('defender_total'))}"
                   + (f", odds {percent_text(odds)}" if odds is not None else "")
                   + (f"; past the daily limit: {d['override']}" if d.get("override") else ""))
            yield from _quote(d.get("text", ""))
        elif entry.kind == "battle":
            for key, label in (("overrides", "override"), ("tracker", "tracker"), ("hidden", "still hidden")):
                for item in d.get(key) or []:
                    yield f"  - {label}: {item}"
            if d.get("party"):
                yield "  - the party at the end: " + ", ".join(f"{k} {v}" for k, v in d["party"].items())
    yield ""


Runs = Iterable[tuple[int, Iterable[LogEntry]]]  # (day, its lines) in the order they are told


def _runs(campaign: Campaign, days: list[int] | None) -> tuple[list[int], Runs]:
    days = days if days is not None else [campaign.day]
    return days, ((day, campaign.lines_of(day)) for day in days)


def _session_lines(campaign: Campaign, runs: Runs, title: str) -> Iterator[str]:
    yield f"# {title}"
    yield ""
    if campaign.party:
        yield "*The party: " + ", ".join(m.name for m in campaign.party) + "*"
        yield ""
    for day, entries in runs:
        yield from _recap_day(campaign, day, entries)


def _gm_lines(campaign: Campaign, runs: Runs) -> Iterator[str]:
    yield f"# {campaign.name} — the GM's log"
    yield ""
    for day, entries in runs:
        yield from _gm_day(day, entries)


def _title(campaign: Campaign, days: list[int]) -> str:
    return campaign.name if len(days) != 1 else f"{campaign.name} — day {days[0]}"


def _document(lines: Iterable[str]) -> Iterator[str]:
    """The lines as one text ending in one newline: blank lines at the end are left out (held back
    until a line follows them, so the text can be written as it is made)."""
    blank = 0
    for line in lines:
        if not line.strip():
            blank += 1
            continue
        yield "\n" * blank + line + "\n"
        blank = 0


def session_markdown(campaign: Campaign, days: list[int] | None = None) -> str:
    """The days' events (default: today) as one Markdown document."""
    days, runs = _runs(campaign, days)
    return "".join(_document(_session_lines(campaign, runs, _title(campaign, days))))


def gm_markdown(campaign: Campaign, days: list[int] | None = None) -> str:
    """The GM's full log: every entry of the days, in order, with the numbers the recap hides."""
    _days, runs = _runs(campaign, days)
    return "".join(_document(_gm_lines(campaign, runs)))


def export_path(folder: Path, campaign: Campaign, days: list[int] | None, kind: str = "", *,
                all_days: bool = False) -> Path:
    several = all_days or (days is not None and len(days) != 1)
    suffix = "all-days" if several else f"day-{(days or [campaign.day])[0]}"
    return folder / f"{slug(campaign.name)}-{suffix}{'-' + kind if kind else ''}.md"


def export(folder: Path, campaign: Campaign, days: list[int] | None = None, *, gm: bool = False,
           all_days: bool = False) -> Path:
    """The players' recap (or, with `gm`, the GM's full log) as a Markdown file beside the campaigns.
    Every day (`all_days`) is the log read in order a page at a time and written as it is told:
    a log of 100,000 lines is never in memory whole (SessionLog.runs_of_days)."""
    path = export_path(folder, campaign, days, "gm-log" if gm else "", all_days=all_days)
    if all_days:
        every = campaign.log.days() or [campaign.day]
        runs: Runs = campaign.log.runs_of_days() if len(campaign.log) else [(campaign.day, [])]
        title = _title(campaign, every)
    else:
        every, runs = _runs(campaign, days)
        title = _title(campaign, every)
    lines = _gm_lines(campaign, runs) if gm else _session_lines(campaign, runs, title)
    atomic_write(path, (text.encode() for text in _document(lines)))
    return path
