"""How an ability reads on screen: its R-6 fields and what it does at the character's level
(`rules.creation.ability_preview`: damage range, difficulty-check chance, cooldown, charges)."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from horizon_tui.content.models import Ability, AbilityKind, EffectSpec, Target
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.rules.character import Build
from horizon_tui.rules.creation import ability_preview, solo_ability
from horizon_tui.rules.numbers import one_decimal, percent
from horizon_tui.play.forms import format_bonuses, number
from horizon_tui.ui.widgets.tone import tone

EFFECT_HELP = {  # R-10, in a line each
    "bleeding": "loses the magnitude in health each turn",
    "poison": "loses the magnitude in health each turn (cured and resisted apart from bleeding)",
    "disease": "loses attribute points (the stat: one attribute, blank = all); restored when it ends",
    "stun": "no movement, no action",
    "blindness": "can't target a chosen character; moves to a random free neighbouring cell",
    "slow": "speed reduced by the magnitude in percent",
    "fear": "can't act; flees towards the nearest edge (leaving there) or hides",
    "domination": "fights for the dominator's side",
    "knockdown": "spends its next turn getting up; counts as downed and immobile",
    "heal": "restores health at once (the magnitude, or normal attack × multiplier if 0)",
    "regeneration": "restores the magnitude in health each turn",
    "buff": "adds the magnitude to one derived stat (the stat) for the duration",
    "cleanse": "ends one negative effect",
}


def kind_label(ability: Ability) -> str:
    if ability.kind in (AbilityKind.passive, AbilityKind.companion):
        return f"{ability.kind.value}, {'replaceable' if ability.replaceable else 'non-replaceable'}"
    return ability.kind.value


def target_label(ability: Ability) -> str:
    if ability.target is Target.area:
        return f"area, radius {ability.radius}"
    if ability.target is Target.line:
        return f"line, length {ability.length}"
    return {"self": "self", "ally": "one ally", "enemy": "one enemy"}[ability.target.value]


def effect_label(effect: EffectSpec) -> str:
    """'bleeding 20, 60% chance, 3 turns'; a heal at once says how much ('heal 120 health at
    once', or the normal attack × multiplier: `preview_text`'s Heals line), never a duration."""
    if effect.effect == "heal":
        amount = f"{number(effect.magnitude)} health" if effect.magnitude else "normal attack × multiplier"
        return f"heal {amount} at once, {number(effect.chance * 100)}% chance"
    parts = [effect.effect]
    if effect.stat:
        parts.append(effect.stat)
    if effect.magnitude:
        parts.append(f"{'+' if effect.effect == 'buff' and effect.magnitude > 0 else ''}{number(effect.magnitude)}")
    if effect.effect == "regeneration":
        parts.append("health a turn")
    text = " ".join(parts)
    text += f", {number(effect.chance * 100)}% chance, {effect.duration} turn{'s' if effect.duration != 1 else ''}"
    if effect.gradual:
        text += ", gradual"
    return text


def preview_text(widget: Widget, ability: Ability, b: Build, rules: Ruleset) -> Text:
    """Damage, check chance, cooldown and charges, in three short lines."""
    p = ability_preview(ability, b, rules)
    strong = tone(widget, "accent", bold=True)
    text = Text()
    if p.damage_min is not None:
        text.append("Damage ", style="dim")
        text.append(f"{p.damage_min} – {p.damage_max}", style=strong)
        text.append(f"  (normal attack {one_decimal(b.attack_min):.1f} – {one_decimal(b.attack_max):.1f}"
                    f" × {number(p.multiplier)}{', GM override' if ability.multiplier is not None else ''})",
                    style="dim")
    elif p.heal is not None:
        text.append("Heals ", style="dim")
        low, high = p.heal
        text.append(f"{low} – {high}" if high != low else f"{low}", style=strong)
        text.append(" health at once" + (f"  (normal attack {one_decimal(b.attack_min):.1f} – "
                    f"{one_decimal(b.attack_max):.1f} × {number(p.multiplier)})" if high != low else ""), style="dim")
    else:
        text.append("No damage", style="dim")
        text.append(f"  ({ability.kind.value}: its effects use their own numbers; multiplier "
                    f"×{number(p.multiplier)})", style="dim")
    text.append("\nCheck ", style="dim")
    if p.check_needed:
        chance_style = tone(widget, "success" if p.check_chance >= 1 else "warning", bold=True)
        text.append(f"{percent(p.check_chance):.1f}%", style=chance_style)
        threshold = rules.difficulty(ability.difficulty).threshold
        text.append(f" at level {b.level}  (the normal attack's middle {one_decimal(p.check_basis):.1f}"
                    f" ÷ threshold {number(threshold)}, R-7)", style="dim")
    else:
        text.append("none", style=tone(widget, "success", bold=True))
        text.append(f" at level {b.level}  (difficulty {ability.difficulty} needs none from level "
                    f"{rules.difficulty(ability.difficulty).check_dropped_at})", style="dim")
    text.append("\nCooldown ", style="dim")
    text.append(f"{p.cooldown}", style="bold")
    text.append(f" own turn{'' if p.cooldown == 1 else 's'}   Charges ", style="dim")
    text.append("unlimited" if p.charges is None else f"{p.charges}", style="bold")
    if p.charges is not None:
        text.append(f" of {ability.difficulty} per battle, shared by every {ability.difficulty}", style="dim")
    text.append("   Range ", style="dim")
    text.append(f"{p.range}", style="bold")
    text.append(" cells" if p.range else " (adjacent)", style="dim")
    return text


def ability_text(widget: Widget, ability: Ability, b: Build, rules: Ruleset, slotted: bool) -> Text:
    text = Text()
    text.append(ability.name, style=tone(widget, "accent", bold=True))
    text.append(f"   difficulty {ability.difficulty} · {kind_label(ability)}", style="bold")
    if slotted:
        text.append("   ● slotted", style=tone(widget, "success"))
    text.append(f"\n{ability.description or '(no description)'}\n", style="italic")
    text.append("\nTarget   ", style="dim")
    text.append(target_label(ability))
    for index, effect in enumerate(ability.effects):
        text.append("\nEffects  " if index == 0 else "\n         ", style="dim")
        text.append(effect_label(effect))
    if ability.modifiers:
        text.append("\nWhile on ", style="dim")
        text.append(format_bonuses({}, ability.modifiers))
    if ability.companion:
        text.append("\nCompanion ", style="dim")
        text.append(ability.companion)
    overrides = []
    if ability.multiplier is not None:
        overrides.append(f"multiplier ×{number(ability.multiplier)}")
    if ability.range is not None:
        overrides.append(f"range {ability.range}")
    if ability.crit:
        overrides.append("can deal critical damage")
    allowed = getattr(widget.app, "overrides_allowed", True)
    if overrides:
        text.append("\nGM       ", style="dim")
        text.append(", ".join(overrides))
        if not allowed:
            text.append("  (needs the GM: without one the rules' numbers apply, R-6)", style=tone(widget, "warning"))
    text.append("\n\n")
    text.append_text(preview_text(widget, ability if allowed else solo_ability(ability, rules), b, rules))
    return text
