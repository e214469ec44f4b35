"""Exact odds over dice expressions (R-12's dialogue roll, or any roll the rules allow).

A dice expression (`rules.dice`: `NdM`, `NdMkhK`, `+ - *` by a number, parentheses) becomes its
exact distribution: each total with the number of ways to roll it, out of sides^dice ways in all.
Pure functions; the numbers are whole, so every chance is an exact `Fraction`.

R-12 [H]: a dialogue check succeeds when die + 2×score + modifier ≥ die + willpower ÷ 2, both dice
rolled with `dialogue.die`. With a 1d20 and no edge that is 210/400 = 21/40 (ties succeed); with
2d10, 1067/2000; with 3d6, 4249/7776 (tests/rules/test_odds.py).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections import Counter
from fractions import Fraction

from horizon_tui.rules.dice import DiceError, parse_dice

# Past these the distribution is not worth computing exactly (a rules file asking for 100d1000
# gets a clear refusal, never a hang): at most this many totals, this many multisets for keep/drop.
MAX_TOTALS = 20_000
MAX_KEEP_OUTCOMES = 200_000

Distribution = dict[int, int]  # total → ways


def _convolve(a: Distribution, b: Distribution, sign: int = 1) -> Distribution:
    out: Counter[int] = Counter()
    for x, m in a.items():
        for y, n in b.items():
            out[x + sign * y] += m * n
    return dict(out)


def _uniform(num: int, sides: int, text: str) -> Distribution:
    if num * (sides - 1) + 1 > MAX_TOTALS:
        raise DiceError(text, f"too many totals to compute the odds exactly (at most {MAX_TOTALS})")
    dist: Distribution = {0: 1}
    face = {f: 1 for f in range(1, sides + 1)}
    for _ in range(num):
        dist = _convolve(dist, face)
    return dist


def _kept(num: int, sides: int, keep_high: bool, kept: int, text: str) -> Distribution:
    """Keep the `kept` highest (or lowest) of `num` dice: each sorted multiset of faces, weighted
    by the number of orders it can be rolled in."""
    if math.comb(sides + num - 1, num) > MAX_KEEP_OUTCOMES:
        raise DiceError(text, f"too many outcomes to compute the odds exactly (at most {MAX_KEEP_OUTCOMES})")
    out: Counter[int] = Counter()
    whole = math.factorial(num)
    for faces in itertools.combinations_with_replacement(range(1, sides + 1), num):  # sorted ascending
        ways = whole
        for count in Counter(faces).values():
            ways //= math.factorial(count)
        out[sum(faces[num - kept:] if keep_high else faces[:kept])] += ways
    return dict(out)


_SIMPLE = re.compile(r"\s*(?:(\d*)d(\d+)|(\d+))\s*(?:([+-])\s*(\d+)\s*)?")


def _node(node, text: str) -> Distribution:
    from d20 import diceast  # already loaded by odds' d20 path below

    if isinstance(node, diceast.Literal):
        return {int(node.value): 1}
    if isinstance(node, diceast.Parenthetical):
        return _node(node.value, text)
    if isinstance(node, diceast.UnOp):
        inner = _node(node.value, text)
        return inner if node.op == "+" else {-k: v for k, v in inner.items()}
    if isinstance(node, diceast.BinOp):
        left, right = _node(node.left, text), _node(node.right, text)
        if node.op == "*":  # rules.dice allows multiplying by a number only
            constant, dice = (left, right) if len(left) == 1 else (right, left)
            (factor, weight), = constant.items()
            product: Counter[int] = Counter()
            for k, v in dice.items():
                product[k * factor] += v * weight
            return dict(product)
        return _convolve(left, right, 1 if node.op == "+" else -1)
    if isinstance(node, diceast.OperatedDice):
        operation = node.operations[0]
        selector = operation.sels[0]
        num, sides = node.value.num, node.value.size
        if operation.op == "k":
            keep_high, kept = selector.cat == "h", selector.num
        else:  # dropping the highest keeps the lowest
            keep_high, kept = selector.cat == "l", num - selector.num
        if kept == num:
            return _uniform(num, sides, text)
        return _kept(num, sides, keep_high, kept, text)
    if isinstance(node, diceast.Dice):
        return _uniform(node.num, node.size, text)
    raise DiceError(text, f"'{node}' is not supported")  # parse_dice refused it already


@functools.lru_cache(maxsize=256)
def distribution(text: str) -> tuple[tuple[int, int], ...]:
    """The exact distribution of a dice expression: (total, ways) pairs, totals ascending.
    DiceError (a ValueError) for an expression `rules.dice` refuses, or one too big to count."""
    parse_dice(text)  # the same checks and messages as a roll
    simple = _SIMPLE.fullmatch(text)
    if simple:
        count, sides, number, op, constant = simple.groups()
        dist = {int(number): 1} if number is not None else _uniform(int(count) if count else 1, int(sides), text)
        if op:
            shift = int(constant) if op == "+" else -int(constant)
            dist = {k + shift: v for k, v in dist.items()}
    else:
        import d20  # builds its grammar on import (~0.2 s): only for expressions past NdM±K (as rules/dice.py)

        dist = _node(d20.Roller().parse(text).roll, text)
    if len(dist) > MAX_TOTALS:
        raise DiceError(text, f"too many totals to compute the odds exactly (at most {MAX_TOTALS})")
    return tuple(sorted(dist.items()))


def chance_of(text: str, predicate) -> Fraction:
    """P(predicate(total)) for one roll of `text`, exactly."""
    dist = distribution(text)
    ways = sum(n for _, n in dist)
    return Fraction(sum(n for total, n in dist if predicate(total)), ways)


def at_least_chance(text: str, edge: Fraction | int) -> Fraction:
    """P(A + edge ≥ D) for two independent rolls A, D of the same expression, exactly: R-12's
    contest, with edge = 2×score + modifier − willpower ÷ 2 (ties succeed)."""
    dist = distribution(text)
    totals = [t for t, _ in dist]
    cumulative = list(itertools.accumulate(n for _, n in dist))
    ways = cumulative[-1]
    edge = Fraction(edge)
    wins = 0
    for total, n in dist:
        bound = math.floor(total + edge)  # D ≤ A + edge
        index = bisect.bisect_right(totals, bound)
        if index:
            wins += n * cumulative[index - 1]
    return Fraction(wins, ways * ways)
