"""Rules text a player reads while looking at a combatant (R-10 effects), in the game's words."""

EFFECT_TEXT: dict[str, str] = {
    "bleeding": "Loses the magnitude in health at the start of each of its turns.",
    "poison": "Loses the magnitude in health at the start of each of its turns (cured and resisted apart from bleeding).",
    "disease": "Has lost attribute points (at once or some each turn); derived stats follow. Restored when it ends.",
    "stun": "Can't move or act; its turn passes. Immobile: melee hits it without an accuracy check.",
    "blindness": "Can't pick a target; stumbles to a random free neighbouring cell each turn.",
    "slow": "Speed reduced by the magnitude in percent.",
    "fear": "Can't attack or use abilities; flees towards the nearest edge and leaves the battlefield there, or hides.",
    "domination": "Fights for the dominator's side until it ends.",
    "knockdown": "Downed: spends its next turn getting up; takes critical damage and is hit in melee without a check.",
    "heal": "Restores health at once, never above the maximum.",
    "regeneration": "Restores the magnitude in health at the start of each of its turns.",
    "buff": "Adds the magnitude to one derived stat while it lasts.",
    "cleanse": "Ends one negative effect.",
    "hidden": "Out of sight: enemies can't pick it as a target until it acts.",
}


def counted(n: int, word: str) -> str:
    """'1 round', '2 rounds', '0 charges': a number with its word, singular only for one."""
    return f"{n} {word}{'' if n == 1 else 's'}"
