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


def distance_words(far: int) -> str:
    """R-11's distance (cells between, 0: adjacent) in squares as a roguelike player counts them:
    "adjacent", "2 squares" (one cell between). The rules' own count stays R-11's."""
    return "adjacent" if far <= 0 else counted(far + 1, "square")


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def plural(name: str) -> str:
    """English plural of a name's last word: 'Grey Wolf' → 'Grey Wolves', 'Skeleton Spearman' →
    'Skeleton Spearmen', 'Huldra Enchantress' → 'Huldra Enchantresses', 'Goblin' → 'Goblins'."""
    head, _, last = name.rpartition(" ")
    lower = last.lower()
    if lower.endswith("man") and lower not in ("human", "shaman", "talisman", "caiman"):
        word = last[:-3] + last[-3:-2] + "en"
    elif lower.endswith(("lf", "rf", "ief")) and lower not in ("dwarf", "chief"):
        word = last[:-1] + "ves"
    elif lower.endswith(("s", "x", "z", "ch", "sh")):
        word = last + "es"
    elif lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        word = last[:-1] + "ies"
    else:
        word = last + "s"
    return f"{head} {word}" if head else word


def number_word(n: int) -> str:
    """'two', 'eleven'; digits from 13 on (a log line's count)."""
    return NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)


def listed(parts: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
