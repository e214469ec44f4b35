"""What a GM does to a campaign, as functions from one `Campaign` to the next.

No Textual and no files: the screens ask, `campaign.open_campaign` applies and saves. A refusal a GM should
read is a `ValueError` with the reason; nothing is changed then.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.guard import current
from horizon_tui.rules.checks import dialogue_score
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.numbers import percent_text
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.models import Ability, Character
from horizon_tui.content.ruleset import Experience, Ruleset
from horizon_tui.content.encounters import AI_PROFILES, TARGETINGS
from horizon_tui.errors import DataError
from horizon_tui.campaign.model import ATTITUDES, NPC_CONTROLLERS, NPC_SIDES, Campaign, Member, Npc
from horizon_tui.rules.character import build
from horizon_tui.rules.checks import (DialogueRoll, dialogue_check, dialogue_limit_refusal, dialogue_success_chance,
                                      settlement_reaction)
from horizon_tui.rules.progression import affordable_points
from horizon_tui.rules.rating import guide_xp
from horizon_tui.rules.reward import equal_shares
from horizon_tui.table.talk import line_text

# --- party ----------------------------------------------------------------------------------------


def add_member(campaign: Campaign, character: Character, source: str = "") -> Campaign:
    if campaign.member(character.name) is not None:
        raise ValueError(f"{character.name} is already in the party")
    campaign = attrs.evolve(campaign, party=(*campaign.party, Member(character, source)))
    return campaign.logged("party", f"{character.name} joins the party", character=character.name)


def read_characters(campaign: Campaign, paths: list[Path], catalogue: Catalogue
                    ) -> tuple[list[tuple[Character, str]], list[str]]:
    """Several character files read to join the party at once: those that read (character,
    source), and a line per file that doesn't (its file and why: the reading's first problem,
    a file that can't be opened, a name in the party already or twice among these). Nothing
    raises: one bad file never stops the others."""
    read: list[tuple[Character, str]] = []
    problems: list[str] = []
    names = {m.name for m in campaign.party}
    for path in paths:
        try:
            character = load_character(path, catalogue)
        except DataError as exc:
            problems.append(str(exc.problems[0]))
            continue
        except (OSError, UnicodeError, ValueError) as exc:
            problems.append(f"{path.name}: {getattr(exc, 'strerror', None) or exc}")
            continue
        if character.name in names:
            problems.append(f"{path.name}: {character.name} is in the party already")
            continue
        names.add(character.name)
        read.append((character, str(path)))
    return read, problems


def add_members(campaign: Campaign, joining: list[tuple[Character, str]]) -> Campaign:
    """Several characters join the party in one action (one undo takes them all back)."""
    if not joining:
        raise ValueError("no character to add")
    for character, source in joining:
        campaign = add_member(campaign, character, source)
    return campaign


def remove_member(campaign: Campaign, name: str) -> Campaign:
    if campaign.member(name) is None:
        raise ValueError(f"no party member called {name}")
    campaign = attrs.evolve(campaign, party=tuple(m for m in campaign.party if m.name != name))
    return campaign.logged("party", f"{name} leaves the party", character=name)


def update_character(campaign: Campaign, old_name: str, character: Character, rules: Ruleset) -> Campaign:
    """Store a changed character; points bought with XP are logged, a new level as a level-up."""
    member = campaign.member(old_name)
    if member is None:
        raise ValueError(f"no party member called {old_name}")
    if character.name != old_name and campaign.member(character.name) is not None:
        raise ValueError(f"{character.name} is already in the party")
    before, after = build(member.character, rules), build(character, rules)
    campaign = campaign.with_member(old_name, attrs.evolve(member, character=character))
    bought = after.points_bought - before.points_bought
    if bought > 0:
        gained = {a: character.attributes.get(a, 0) - member.character.attributes.get(a, 0)
                  for a in character.attributes}
        spent = ", ".join(f"{a} +{n}" for a, n in gained.items() if n > 0)
        text = f"{character.name} buys {bought} point{'s' if bought != 1 else ''} ({spent})"
        if after.level > before.level:
            text += f" and reaches level {after.level}"
        return campaign.logged("level_up" if after.level > before.level else "points", text,
                               character=character.name, points=bought, attributes=gained,
                               level=after.level, xp_spent=member.character.xp - character.xp)
    return campaign


def add_ability(campaign: Campaign, name: str, ability: Ability, why: str = "") -> Campaign:
    """R-13: a GM's ruling written down as a permanent ability of the character."""
    member = campaign.member(name)
    if member is None:
        raise ValueError(f"no party member called {name}")
    if member.character.ability(ability.name) is not None:
        raise ValueError(f"{name} already knows an ability called {ability.name}")
    character = attrs.evolve(member.character, abilities=[*member.character.abilities, ability])
    campaign = campaign.with_member(name, attrs.evolve(member, character=character))
    text = f"{name} learns {ability.name} ({ability.difficulty})" + (f", from the ruling: {why}" if why else "")
    return campaign.logged("ability", text, character=name, ability=ability.name, difficulty=ability.difficulty.value)


# --- NPCs -----------------------------------------------------------------------------------------


def save_npc(campaign: Campaign, old_name: str | None, npc: Npc) -> Campaign:
    if not npc.name.strip():
        raise ValueError("an NPC needs a name")
    if npc.name != old_name and campaign.npc(npc.name) is not None:
        raise ValueError(f"there is already an NPC called {npc.name}")
    if npc.level < 1:
        raise ValueError("an NPC's level is 1 or more")
    if npc.attitude not in ATTITUDES:
        raise ValueError(f"an attitude is one of {', '.join(ATTITUDES)}")
    if any(v < 0 for v in npc.attributes.values()):
        raise ValueError("attributes can't be negative")
    if (npc.willpower is not None and npc.willpower < 0) or (npc.health is not None and npc.health < 0):
        raise ValueError("willpower and health can't be negative")
    if npc.xp < 0:
        raise ValueError("XP can't be negative")
    if npc.side not in NPC_SIDES:
        raise ValueError(f"an NPC's side is one of {', '.join(NPC_SIDES)}")
    if npc.controller not in NPC_CONTROLLERS:
        raise ValueError(f"an NPC is played by one of {', '.join(NPC_CONTROLLERS)}")
    if npc.ai not in AI_PROFILES:
        raise ValueError(f"an NPC's AI profile is one of {', '.join(AI_PROFILES)}")
    if npc.targeting not in TARGETINGS:
        raise ValueError(f"an NPC's targeting is one of {', '.join(TARGETINGS)}")
    if not npc.race.strip() or not npc.weapon.strip():
        raise ValueError("an NPC needs a species id and a weapon id to fight")
    new = old_name is None or campaign.npc(old_name) is None
    campaign = campaign.with_npc(old_name, npc)
    return campaign.logged("npc", f"{'New NPC' if new else 'NPC edited'}: {npc.name}", npc=npc.name)


def remove_npc(campaign: Campaign, name: str) -> Campaign:
    if campaign.npc(name) is None:
        raise ValueError(f"no NPC called {name}")
    campaign = attrs.evolve(campaign, npcs=tuple(n for n in campaign.npcs if n.name != name))
    return campaign.logged("npc", f"NPC removed: {name}", npc=name)


# --- dialogue checks and settlement reactions (R-3) ----------------------------------------


@attrs.frozen
class CheckPlan:
    """A dialogue check before the roll: the odds, and why the daily limits refuse it (if they do)."""

    character: str
    npc: str
    kind: str
    modifier: int
    settlement: str
    settlement_modifier: int
    chance: Fraction
    score_name: str
    score: Fraction
    willpower: Fraction
    refusal: str | None  # the daily limit reached; a GM override needs a reason


def checks_today(campaign: Campaign, character: str, npc: str | None = None) -> int:
    return sum(1 for e in campaign.today("check")
               if e.data.get("character") == character and (npc is None or e.data.get("npc") == npc))


def checks_on_npc_today(campaign: Campaign, character: str, npc: str, rules: Ruleset) -> int:
    """The checks that count against the per-NPC limit (R-12): this character's on the NPC, or
    the whole party's when the house switch `dialogue.per_npc_scope` is "table"."""
    if rules.dialogue.per_npc_scope == "table":
        return sum(1 for e in campaign.today("check") if e.data.get("npc") == npc)
    return checks_today(campaign, character, npc)


def limit_refusal(campaign: Campaign, character: str, npc: str, rules: Ruleset) -> str | None:
    """R-12's daily limits (rules.checks.dialogue_limit_refusal) over today's log of the campaign."""
    return dialogue_limit_refusal(character, npc, checks_today(campaign, character),
                                  checks_on_npc_today(campaign, character, npc, rules), rules.dialogue)


def settlement_modifier(campaign: Campaign, character: str, settlement: str) -> int:
    """R-3 [H]: the reaction rolled today in this settlement gives ± on its dialogue checks."""
    if not settlement.strip():
        return 0
    for entry in reversed(campaign.today("reaction")):
        if entry.data.get("character") == character and entry.data.get("settlement", "").lower() == settlement.strip().lower():
            return int(entry.data.get("modifier", 0))
    return 0


def plan_check(
    campaign: Campaign, character: str, npc: str, kind: str, modifier: int, rules: Ruleset, settlement: str = "",
    catalogue: Catalogue | None = None,
) -> CheckPlan:
    """The odds (R-12) before the roll; the NPC's willpower with its species' bonuses when the
    catalogue is given (the GM screens always give it)."""
    member, target = campaign.member(character), campaign.npc(npc)
    if member is None:
        raise ValueError(f"no party member called {character}")
    if target is None:
        raise ValueError(f"no NPC called {npc}")
    if not target.checkable:
        raise ValueError(f"{npc} can't be swayed by dialogue checks (the GM says so)")
    dialogue = rules.dialogue
    if kind not in dialogue.types:
        raise ValueError(f"a check is one of {', '.join(dialogue.types)}")
    if not dialogue.modifier_min <= modifier <= dialogue.modifier_max:
        raise ValueError(f"the GM's modifier is {dialogue.modifier_min}…{dialogue.modifier_max}")
    b = build(member.character, rules)
    place = settlement_modifier(campaign, character, settlement)
    total = modifier + place
    willpower = target.effective_willpower(catalogue)

    score_name, score = dialogue_score(kind, b.attributes, b.stats, dialogue)
    chance = dialogue_success_chance(kind, b.attributes, b.stats, willpower, total, _widened(rules, total))
    return CheckPlan(character, npc, kind, modifier, settlement.strip(), place, chance, score_name, score, willpower,
                     limit_refusal(campaign, character, npc, rules))


def _widened(rules: Ruleset, total: int):
    """The settlement's ± comes on top of the GM's −4…+4, so the bounds widen by it."""
    d = rules.dialogue
    return attrs.evolve(d, modifier_min=min(d.modifier_min, total), modifier_max=max(d.modifier_max, total))


def roll_check(
    campaign: Campaign, plan: CheckPlan, text: str, rules: Ruleset, override: str = ""
) -> tuple[Campaign, DialogueRoll]:
    """Roll a planned check with the campaign's random source and record it with its roleplay
    text. Past a daily limit only with a GM override, which must give its reason."""
    if plan.refusal and not override.strip():
        raise ValueError(plan.refusal)
    if not text.strip():
        raise ValueError("type what the character says or does: R-12 expects roleplay, not just a roll")
    b = build(campaign.member(plan.character).character, rules)
    total = plan.modifier + plan.settlement_modifier
    rng, campaign = campaign.rng()
    roll = dialogue_check(plan.kind, b.attributes, b.stats, plan.willpower, total, rng, _widened(rules, total))
    verdict = "succeeds" if roll.success else "fails"
    line = (f"{plan.character} tries {plan.kind} on {plan.npc}: {verdict} "
            f"({float(roll.attacker_total):g} vs {float(roll.defender_total):g}, odds {percent_text(plan.chance)})")
    if override.strip():
        line += f" — over the daily limit by GM override: {override.strip()}"
    campaign = campaign.logged(
        "check", line, character=plan.character, npc=plan.npc, kind=plan.kind, text=text.strip(),
        modifier=plan.modifier, settlement=plan.settlement, settlement_modifier=plan.settlement_modifier,
        score_name=roll.score_name, score=roll.score, attacker_die=roll.attacker_die,
        attacker_total=roll.attacker_total, defender_die=roll.defender_die, defender_total=roll.defender_total,
        chance=plan.chance, success=roll.success, override=override.strip(),
    )
    return campaign, roll


def roll_reactions(
    campaign: Campaign, settlement: str, rules: Ruleset, names: list[str] | None = None
) -> tuple[Campaign, list[tuple[str, str, int]]]:
    """R-3 [H]: entering a small settlement, each uncommon-species character rolls how it is met
    (`rules.checks.settlement_reaction`), with the campaign's dice. A character who already rolled
    there today keeps its reaction."""
    place = settlement.strip()
    if not place:
        raise ValueError("name the settlement first")
    rolled = []
    for member in campaign.party:
        c = member.character
        if names is not None and c.name not in names:
            continue
        if c.species.common or any(e.data.get("character") == c.name and e.data.get("settlement", "").lower() == place.lower()
                                   for e in campaign.today("reaction")):
            continue
        rng, campaign = campaign.rng()
        reaction, modifier = settlement_reaction(rng, rules.species)
        sign = f"{modifier:+d}" if modifier else "±0"
        campaign = campaign.logged(
            "reaction", f"{place} meets {c.name} ({c.species.name}): {reaction}, {sign} on today's checks there",
            character=c.name, settlement=place, reaction=reaction, modifier=modifier, species=c.species.name,
        )
        rolled.append((c.name, reaction, modifier))
    return campaign, rolled


def rest(campaign: Campaign, why: str = "") -> Campaign:
    """A rest: what the last fights left on the party is gone (campaign.carry keeps it between
    fights): health, charges, cooldowns and effects back to what a fresh battle starts with (the
    carried state is cleared); the dead stay dead."""
    if campaign.battle is not None:
        raise ValueError("a battle is in progress: finish or leave it before resting")
    hurt = sorted(name for name, state in campaign.carried.items() if is_hurt(state))
    campaign = attrs.evolve(campaign, carried={}, rests=campaign.rests + 1)
    text = f"The party rests (rest {campaign.rests})" + (f": {why.strip()}" if why.strip() else "")
    if hurt:
        text += "; " + ", ".join(hurt) + " back to full health"
    return campaign.logged("rest", text, rest=campaign.rests, restored=hurt)


def is_hurt(state: dict[str, Any]) -> bool:
    """Whether a rest changes anything for this member (health, effects, down)."""
    return (state.get("hp", 0) < state.get("max_hp", 0) or bool(state.get("effects"))
            or state.get("presence") != "active")


def describe_carried(state: dict[str, Any]) -> str:
    """One member's carried state in words, for the dashboard ("14/30 hp · bleeding 2")."""
    if not state:
        return ""
    parts = [f"{state.get('hp', '?')}/{state.get('max_hp', '?')} hp"]
    if state.get("presence") not in (None, "active"):
        parts.append(str(state["presence"]))
    parts += [f"{fx['effect']} {fx['turns']}" for fx in state.get("effects", [])]
    return " · ".join(parts)


def advance_day(campaign: Campaign) -> Campaign:
    """The next in-game day: a night's rest (`rest`) and the daily check limits start
    again (R-12: they count the day's log)."""
    if campaign.battle is None and campaign.carried:
        campaign = rest(campaign, "the night")
    campaign = attrs.evolve(campaign, day=campaign.day + 1)
    checks = len(campaign.lines_of(campaign.day - 1, "check"))
    fights = len(campaign.lines_of(campaign.day - 1, "battle"))
    return campaign.logged("day", f"Day {campaign.day} begins (yesterday: {fights} fight{'s' if fights != 1 else ''}, "
                                  f"{checks} dialogue check{'s' if checks != 1 else ''}; today's checks start again)",
                           fights=fights, checks=checks)


# --- experience (R-4, R-14) -----------------------------------------------------------------------


def split_xp(total: int, names: list[str]) -> dict[str, int]:
    """R-14 [H]: shared equally among the party's characters, as the battle's reward is
    (rules.reward.equal_shares; what doesn't divide is lost)."""
    return equal_shares(total, names)


def award_suggestion(fallen: list[tuple[str, int, int]], standing: list[str], catalogue_xp: dict[int, list[int]],
                     rules: Ruleset) -> tuple[dict[str, int], list[str]]:
    """The award offered after a fight whose R-14 shares are all 0: `fallen` (name, level, XP)
    are the defeated foes; those worth 0 XP (an NPC's default) are valued by `guide_xp`, and the
    total shared by the party members `standing` (R-14). The shares and a line per foe valued."""

    notes, total = [], 0
    for name, level, xp in fallen:
        if xp:
            total += xp
            continue
        worth = guide_xp(level, catalogue_xp, rules)  # R-4's guide (rules.rating)
        total += worth
        notes.append(f"{name} (level {level}) gave 0 XP; R-4's guide puts it at {worth} XP")
    return split_xp(total, standing), notes


def award_xp(campaign: Campaign, amounts: dict[str, int], reason: str = "", limit: int | None = None) -> Campaign:
    """Give (or take back) XP. Each amount is bounded by `experience.award_max` [H] (`limit`; the
    shipped default when None): a typo of 20 digits is refused, never stored."""
    limit = limit if limit is not None else Experience().award_max
    amounts = {name: int(n) for name, n in amounts.items() if int(n) != 0}
    if not amounts:
        raise ValueError("no XP to award")
    for name, n in amounts.items():
        if abs(n) > limit:
            raise ValueError(f"{name}: {n:+d} XP is more than one award gives (at most ±{limit}, "
                             f"experience.award_max)")
    for name, n in amounts.items():
        member = campaign.member(name)
        if member is None:
            raise ValueError(f"no party member called {name}")
        if member.character.xp + n < 0:
            raise ValueError(f"{name} has only {member.character.xp} XP")
        campaign = campaign.with_member(name, attrs.evolve(member, character=attrs.evolve(
            member.character, xp=member.character.xp + n)))
    who = ", ".join(f"{name} {n:+d}" for name, n in amounts.items())
    text = f"XP: {who}" + (f" ({reason.strip()})" if reason.strip() else "")
    return campaign.logged("xp", text, amounts=amounts, reason=reason.strip())


def can_buy(campaign: Campaign, rules: Ruleset) -> dict[str, int]:
    """How many attribute points each party member's XP buys now (R-4)."""
    found = {}
    for member in campaign.party:
        b = build(member.character, rules)
        found[member.name] = affordable_points(member.character.xp, b.points_bought, rules.experience)
    return found


# --- rules, dice ----------------------------------------------------------------------------------


def set_rules(campaign: Campaign, overrides: dict[str, Any], changes: list[tuple[str, Any, Any]]) -> Campaign:
    campaign = attrs.evolve(campaign, rules=overrides)
    if not changes:
        return campaign.logged("rules", "House rules back to the shipped defaults", changes=[])
    shown = "; ".join(f"{key} {old} → {new}" for key, old, new in changes[:6])
    more = f" (and {len(changes) - 6} more)" if len(changes) > 6 else ""
    return campaign.logged("rules", f"House rules: {shown}{more}", changes=[list(c) for c in changes])


def log_talk(campaign: Campaign, line: dict[str, Any]) -> Campaign:
    """A line of the table's talk (`table.talk`), as the GM read it, in the session log: to
    everyone, or only to the GM (`to`: a whisper, a secret roll), which the players' recap leaves out."""
    faces = line.get("faces") if isinstance(line.get("faces"), list) else []
    total = line.get("total")
    return campaign.logged("talk", line_text(line), seat=str(line.get("seat", ""))[:40],
                           said=str(line.get("kind", "say"))[:10], to="gm" if line.get("to") == "gm" else "all",
                           faces=[int(f) for f in faces if isinstance(f, int)],
                           **({"total": total} if isinstance(total, int) else {}))


def roll_dice(campaign: Campaign, expression: str) -> tuple[Campaign, int, list[int]]:
    """A GM's roll with the campaign's random source (`r`); kept in the log as history."""
    dice = parse_dice(expression)  # DiceError is a ValueError
    rng, campaign = campaign.rng()
    total, faces = dice.roll_detailed(rng)
    digits = len(str(abs(total)))
    if digits > current().digits:  # the log keeps it: said here, not as a file's problem
        raise ValueError(f"{dice} gives a number of {digits} digits; a campaign keeps at most "
                         f"{current().digits} (files.digits in limits.toml)")
    shown = f" [{', '.join(map(str, faces))}]" if faces else ""
    campaign = campaign.logged("roll", f"{dice} = {total}{shown}", expr=str(dice), total=total, faces=faces)
    return campaign, total, faces
