"""Dice expressions for weapon damage (R-9), e.g. ``1d8+2`` or ``4d6kh3``.

d20 (avrae) only parses; its roller draws from the global ``random`` module, so the tree is
compiled here into closures over a passed-in ``random.Random``: same seed, same rolls.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import re
from typing import TYPE_CHECKING

import attrs

from horizon_tui.errors import echo

if TYPE_CHECKING:
    from d20 import diceast

__all__ = ["DiceError", "DiceExpr", "parse_dice", "roll"]

MAX_DICE = 100  # per term: a cap on runaway rolls
MAX_SIDES = 1000
MAX_LENGTH = 200  # keeps the recursive compiler far from Python's recursion limit


class DiceError(ValueError):
    """A dice expression that can't be parsed or isn't supported; points at the column if known."""

    def __init__(self, expression: str, message: str, column: int | None = None) -> None:
        self.expression = expression
        self.message = message
        self.column = column
        where = f" at column {column}" if column is not None else ""
        super().__init__(f"bad dice expression {echo(expression)}: {message}{where}")


@attrs.frozen
class _Node:
    """A compiled subtree: a fast roller, one that also records the faces, exact bounds."""

    roll: Callable[[random.Random], int]
    detail: Callable[[random.Random, list[int]], int]
    minimum: int
    maximum: int
    text: str
    constant: int | None = None  # set when the subtree holds no dice


def _const(value: int, text: str) -> _Node:
    return _Node(lambda rng: value, lambda rng, faces: value, value, value, text, value)


def _dice(num: int, sides: int, keep_high: bool | None, kept: int, text: str) -> _Node:
    """NdM, optionally keeping the `kept` highest (keep_high) or lowest dice."""
    if keep_high is None or kept == num:
        if num == 1:
            def roll_(rng: random.Random) -> int:
                return rng.randrange(sides) + 1
        else:
            def roll_(rng: random.Random) -> int:
                randrange = rng.randrange
                return sum([randrange(sides) for _ in range(num)]) + num

        def detail(rng: random.Random, faces: list[int]) -> int:
            faces.extend(rolled := [rng.randrange(sides) + 1 for _ in range(num)])
            return sum(rolled)
    else:
        start, stop = (num - kept, num) if keep_high else (0, kept)

        def roll_(rng: random.Random) -> int:
            randrange = rng.randrange
            return sum(sorted([randrange(sides) for _ in range(num)])[start:stop]) + kept

        def detail(rng: random.Random, faces: list[int]) -> int:
            rolled = [rng.randrange(sides) + 1 for _ in range(num)]
            order = sorted(range(num), key=rolled.__getitem__)
            faces.extend(kept := [rolled[i] for i in sorted(order[start:stop])])  # as rolled
            return sum(kept)

    return _Node(roll_, detail, kept, kept * sides, text)


_UNSUPPORTED_DICE_OPS = {"rr": "rerolls are", "ro": "rerolls are", "ra": "rerolls are",
                         "e": "exploding dice are", "mi": "minimums are", "ma": "maximums are"}


def _operated_dice(node: diceast.OperatedDice, fail: Callable[[str], DiceError]) -> _Node:
    if len(node.operations) != 1 or len(node.operations[0].sels) != 1:
        raise fail(f"'{node}': only one keep or drop (kh, kl, ph, pl) per die term is supported")
    operation, selector = node.operations[0], node.operations[0].sels[0]
    if operation.op not in ("k", "p") or selector.cat not in ("h", "l"):
        what = _UNSUPPORTED_DICE_OPS.get(operation.op, "keeping or dropping by value is")
        raise fail(f"'{node}': {what} not supported; only kh, kl, ph and pl")
    num, sides = _check_dice(node.value, fail)
    count = selector.num
    if operation.op == "k":
        if not 1 <= count <= num:
            raise fail(f"'{node}': can keep 1 to {num} of {num} dice, not {count}")
        keep_high, kept = selector.cat == "h", count
    else:
        if not 1 <= count < num:
            raise fail(f"'{node}': can drop 1 to {num - 1} of {num} dice, not {count}")
        keep_high, kept = selector.cat == "l", num - count  # dropping the highest keeps the lowest
    return _dice(num, sides, keep_high, kept, str(node))


def _check_dice(node: diceast.Dice, fail: Callable[[str], DiceError]) -> tuple[int, int]:
    if node.size == "%":
        raise fail(f"'{node}': percentile dice are not supported; write 1d100")
    if node.num < 1:
        raise fail(f"'{node}' rolls no dice")
    if node.size < 1:
        raise fail(f"'{node}': a die needs at least one side")
    if node.num > MAX_DICE:
        raise fail(f"'{node}' rolls more than {MAX_DICE} dice (a cap on runaway rolls)")
    if node.size > MAX_SIDES:
        raise fail(f"'{node}' has dice of more than {MAX_SIDES} sides (a cap on runaway rolls)")
    return node.num, node.size


def _unary(op: str, inner: _Node) -> _Node:
    text = f"{op}{inner.text}"
    if op == "+":
        return attrs.evolve(inner, text=text)
    if inner.constant is not None:
        return _const(-inner.constant, text)
    roll_, detail = inner.roll, inner.detail
    return _Node(lambda rng: -roll_(rng), lambda rng, faces: -detail(rng, faces),
                 -inner.maximum, -inner.minimum, text)


def _binary(op: str, left: _Node, right: _Node, fail: Callable[[str], DiceError]) -> _Node:
    text = f"{left.text} {op} {right.text}"
    if left.constant is not None and right.constant is not None:
        a, b = left.constant, right.constant
        return _const(a + b if op == "+" else a - b if op == "-" else a * b, text)
    lr, rr, ld, rd = left.roll, right.roll, left.detail, right.detail
    if op == "+":
        return _Node(lambda rng: lr(rng) + rr(rng), lambda rng, f: ld(rng, f) + rd(rng, f),
                     left.minimum + right.minimum, left.maximum + right.maximum, text)
    if op == "-":
        return _Node(lambda rng: lr(rng) - rr(rng), lambda rng, f: ld(rng, f) - rd(rng, f),
                     left.minimum - right.maximum, left.maximum - right.minimum, text)
    # "*": only by a constant, so the bounds stay exact and simple.
    if left.constant is None and right.constant is None:
        raise fail(f"'{text}': multiplying two dice terms is not supported; multiply by a number")
    factor, dice = (left.constant, right) if left.constant is not None else (right.constant, left)
    dr, dd = dice.roll, dice.detail
    low, high = sorted((factor * dice.minimum, factor * dice.maximum))
    return _Node(lambda rng: factor * dr(rng), lambda rng, f: factor * dd(rng, f), low, high, text)


_UNSUPPORTED_BINOPS = {"/": "division", "//": "division", "%": "remainder"}


def _compile_node(node: diceast.Node, fail: Callable[[str], DiceError]) -> _Node:
    from d20 import diceast  # already loaded by _compile's d20 path

    if isinstance(node, diceast.Literal):
        if not isinstance(node.value, int):
            raise fail(f"only whole numbers are supported, not {node.value}")
        return _const(node.value, str(node.value))
    if isinstance(node, diceast.Parenthetical):
        inner = _compile_node(node.value, fail)
        return attrs.evolve(inner, text=f"({inner.text})")
    if isinstance(node, diceast.UnOp):
        return _unary(node.op, _compile_node(node.value, fail))
    if isinstance(node, diceast.BinOp):
        if node.op not in ("+", "-", "*"):
            what = _UNSUPPORTED_BINOPS.get(node.op, "comparison")
            raise fail(f"{what} ('{node.op}') is not supported")
        left, right = _compile_node(node.left, fail), _compile_node(node.right, fail)
        return _binary(node.op, left, right, fail)
    if isinstance(node, diceast.Dice):
        num, sides = _check_dice(node, fail)
        return _dice(num, sides, None, num, str(node))
    if isinstance(node, diceast.OperatedDice):  # before OperatedSet: it is a subclass
        return _operated_dice(node, fail)
    if isinstance(node, diceast.OperatedSet | diceast.NumberSet):
        raise fail(f"'{node}': sets are not supported; keep and drop apply to dice only")
    if isinstance(node, diceast.AnnotatedNumber):
        raise fail(f"annotations like '{''.join(node.annotations)}' are not supported")
    raise fail(f"'{node}' is not supported")


_TERMINALS = {  # lark terminal names from d20's grammar -> words; unlisted ones are not shown
    "INTEGER": "a number", "DICE_VALUE": "a number", "D": "a die", "LPAR": "'('",
    "RPAR": "')'", "A_OP": "an operator", "M_OP": "an operator",
}


def _syntax_error(text: str, error) -> DiceError:
    expected = {str(name) for name in error.expected}
    words = list(dict.fromkeys(word for name, word in _TERMINALS.items() if name in expected))
    wanted = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)
    if "SELTYPE" in expected:  # after k/p: the selector we support is h/l plus a count
        wanted = "'h' or 'l' and a number"
    if getattr(error.got, "type", None) == "$END":
        stripped = text.rstrip()
        message = f"expected {wanted or 'more'} after {stripped[-1]!r}"
        return DiceError(text, message, len(stripped) + 1)
    shown = str(error.got)[:12]
    message = f"unexpected {shown!r}" + (f", expected {wanted}" if wanted else "")
    return DiceError(text, message, error.col)


# The everyday form, `NdM`, `NdM+K`, `NdM-K` or a whole number, compiled without d20 so the
# CLI's sheet needn't pay for d20's grammar; anything else goes through d20's parser.
_SIMPLE = re.compile(r"\s*(?:(\d*)d(\d+)|(\d+))\s*(?:([+-])\s*(\d+)\s*)?")


def _compile_simple(text: str, match: re.Match) -> _Node:
    count, sides, number, op, constant = match.groups()
    fail = lambda message: DiceError(text, message)  # noqa: E731
    if number is not None:
        node = _const(int(number), str(int(number)))
    else:
        num, size = int(count) if count else 1, int(sides)
        label = f"{num}d{size}"
        if num < 1:
            raise fail(f"'{label}' rolls no dice")
        if size < 1:
            raise fail(f"'{label}': a die needs at least one side")
        if num > MAX_DICE:
            raise fail(f"'{label}' rolls more than {MAX_DICE} dice (a cap on runaway rolls)")
        if size > MAX_SIDES:
            raise fail(f"'{label}' has dice of more than {MAX_SIDES} sides (a cap on runaway rolls)")
        node = _dice(num, size, None, num, label)
    if op:
        value = int(constant)
        node = _binary(op, node, _const(value, str(value)), fail)
    return node


@functools.lru_cache(maxsize=1024)
def _compile(text: str) -> _Node:
    if not isinstance(text, str):
        raise TypeError(f"a dice expression is text, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise DiceError(text, f"longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise DiceError(text, "the expression is empty")
    simple = _SIMPLE.fullmatch(text)
    if simple:
        return _compile_simple(text, simple)
    import d20  # builds its grammar on import (~0.2 s): only for expressions past NdM±K

    try:
        # A fresh Roller: d20's shared one caches trees by text with spaces removed, so after
        # parsing "12" it would hand back 12 for "1 2" instead of a syntax error.
        tree = d20.Roller().parse(text)
    except d20.RollSyntaxError as error:
        raise _syntax_error(text, error) from None
    except d20.RollError as error:
        raise DiceError(text, str(error)) from None
    return _compile_node(tree.roll, lambda message: DiceError(text, message))


@attrs.frozen
class DiceExpr:
    """A parsed dice expression, compiled once; rolls draw only from the `rng` passed in."""

    text: str
    _node: _Node = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_node", _compile(self.text))

    def roll(self, rng: random.Random) -> int:
        return self._node.roll(rng)

    def roll_detailed(self, rng: random.Random) -> tuple[int, list[int]]:
        """The total and the faces of the dice that counted (kept ones only), for the log."""
        faces: list[int] = []
        return self._node.detail(rng, faces), faces

    @property
    def minimum(self) -> int:
        return self._node.minimum

    @property
    def maximum(self) -> int:
        return self._node.maximum

    def __str__(self) -> str:
        return self._node.text


@functools.lru_cache(maxsize=1024)
def parse_dice(text: str) -> DiceExpr:
    """Parse and compile `text`; cached, since many weapons share an expression."""
    return DiceExpr(text)


def roll(text: str, rng: random.Random) -> int:
    return parse_dice(text).roll(rng)
