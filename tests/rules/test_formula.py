"""Safe, exact stat formulas (R-9: a species or character may replace the normal-attack formula)."""

import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from horizon_tui.rules.formula import Formula, FormulaError, compile_formula

STATS = ("weapon", "strength", "evasion", "accuracy", "spellpower")
NORMAL_ATTACK = "weapon + strength*1.2 + evasion + accuracy*0.7 + spellpower*1.3"


def test_normal_attack_worked_example_is_exact():
    """R-9: weapon 1, strength 20.5, evasion 19.1, accuracy 20, spellpower 24.5 -> 90.55
    (shown as 90.6 after half-up rounding)."""
    formula = compile_formula(NORMAL_ATTACK, STATS)
    values = {
        "weapon": 1,
        "strength": Fraction("20.5"),
        "evasion": Fraction("19.1"),
        "accuracy": 20,
        "spellpower": Fraction("24.5"),
    }
    result = formula.evaluate(values)
    assert result == Fraction("90.55")
    assert type(result) is Fraction


def test_decimal_literals_are_exact_fractions():
    assert compile_formula("x * 1.2", ["x"]).evaluate({"x": 1}) == Fraction(6, 5)
    assert compile_formula("0.1 + 0.2", []).evaluate({}) == Fraction(3, 10)
    assert compile_formula("1_000.5 + 2e-3", []).evaluate({}) == Fraction("1000.502")


def test_division_is_exact_even_between_whole_numbers():
    assert compile_formula("7 / 2", []).evaluate({}) == Fraction(7, 2)
    assert compile_formula("a / 3", ["a"]).evaluate({"a": 1}) == Fraction(1, 3)


def test_the_five_functions():
    formula = compile_formula("min(a, b) + max(a, b, 0) + floor(a / 2) + ceil(b) + abs(-a)", "ab")
    assert formula.evaluate({"a": 5, "b": Fraction("1.5")}) == Fraction("1.5") + 5 + 2 + 2 + 5
    assert type(compile_formula("floor(a)", ["a"]).evaluate({"a": Fraction(7, 2)})) is Fraction


def test_names_lists_the_names_used():
    formula = compile_formula(NORMAL_ATTACK, [*STATS, "health"])
    assert formula.names == frozenset(STATS)
    assert compile_formula("floor(strength) * 2", STATS).names == {"strength"}


def test_compiled_formulas_are_cached_and_compare_by_text():
    assert compile_formula(NORMAL_ATTACK, STATS) is compile_formula(NORMAL_ATTACK, list(STATS))
    assert isinstance(compile_formula(NORMAL_ATTACK, iter(STATS)), Formula)


def test_extra_values_are_ignored_and_floats_count_as_their_decimal_text():
    formula = compile_formula("strength * 10", STATS)
    assert formula.evaluate({"strength": 0.1, "evasion": 3}) == 1


def test_unknown_name_suggests_the_closest_stat():
    with pytest.raises(FormulaError) as info:
        compile_formula("weapon + strenght*1.2", STATS)
    error = info.value
    assert "unknown name 'strenght'" in error.message
    assert "did you mean 'strength'?" in error.message
    assert error.column == 10
    assert error.formula == "weapon + strenght*1.2"
    assert isinstance(error, ValueError)


def test_unknown_function_is_named():
    with pytest.raises(FormulaError, match="unknown function 'sqrt'"):
        compile_formula("sqrt(strength)", STATS)


@pytest.mark.parametrize(
    ("text", "fragment", "column"),
    [
        ("__import__('os')", "unknown function '__import__'", 1),
        ("strength.real", "attribute access is not allowed", 1),
        ("strength.__class__", "attribute access is not allowed", 1),
        ("'x'", "strings are not allowed", 1),
        ("f'{strength}'", "strings are not allowed", 1),
        ("[1]", "lists are not allowed", 1),
        ("strength * [1][0]", "indexing is not allowed", 12),
        ("(1, 2)", "tuples are not allowed", 1),
        ("strength**2", "the operator '**' is not allowed", 9),
        ("strength // 2", "the operator '//' is not allowed", 10),
        ("strength % 2", "the operator '%' is not allowed", 10),
        ("lambda: 1", "lambda is not allowed", 1),
        ("[s for s in (1, 2)]", "comprehensions are not allowed", 1),
        ("strength if evasion else 1", "'if' is not allowed", 1),
        ("strength > 1", "comparisons are not allowed", 1),
        ("strength and 1", "'and' and 'or' are not allowed", 1),
        ("not strength", "only unary '-' and '+'", 1),
        ("True", "True is not allowed", 1),
        ("min(strength)", "min() takes at least 2 argument(s)", 1),
        ("abs(strength, evasion)", "abs() takes 1 argument(s)", 1),
        ("max(strength, key=evasion)", "keyword arguments are not allowed", 1),
        ("min + 1", "min is a function", 1),
        ("1e999", "out of range", 1),
        ("1e-999999", "out of range", 1),
    ],
)
def test_anything_but_arithmetic_is_refused(text, fragment, column):
    with pytest.raises(FormulaError) as info:
        compile_formula(text, STATS)
    assert fragment in info.value.message
    assert info.value.column == column


@pytest.mark.parametrize(
    ("text", "column"),
    [("strength +", 11), ("  strength +", 13), ("strength strength", 10), ("strength = 1", 10)],
)
def test_syntax_errors_carry_the_column(text, column):
    with pytest.raises(FormulaError, match="invalid syntax") as info:
        compile_formula(text, STATS)
    assert info.value.column == column


@pytest.mark.parametrize("text", ["", "   ", "1+" * 600 + "1"])
def test_empty_or_runaway_text_is_refused(text):
    with pytest.raises(FormulaError):
        compile_formula(text, STATS)


def test_division_by_zero_is_a_formula_error():
    formula = compile_formula("weapon / (strength - evasion)", STATS)
    with pytest.raises(FormulaError, match="division by zero"):
        formula.evaluate({"weapon": 1, "strength": 3, "evasion": 3})


def test_a_missing_value_is_a_formula_error():
    with pytest.raises(FormulaError, match="no value given for evasion"):
        compile_formula("strength + evasion", STATS).evaluate({"strength": 1})


@given(
    a=st.fractions(min_value=-1000, max_value=1000, max_denominator=1000),
    b=st.fractions(min_value=-1000, max_value=1000, max_denominator=1000),
)
def test_formula_arithmetic_is_fraction_arithmetic(a, b):
    assert compile_formula("a*2 + b", ["a", "b"]).evaluate({"a": a, "b": b}) == a * 2 + b
    assert compile_formula("a*0.7 - b/4", ["a", "b"]).evaluate({"a": a, "b": b}) == (
        a * Fraction(7, 10) - b / 4
    )


@given(st.text(alphabet="ab0123456789.+-*/()%,'[]_ minflorceabsx:=<>e", max_size=25))
def test_any_text_either_compiles_or_is_a_formula_error(text):
    try:
        formula = compile_formula(text, ["a", "b"])
    except FormulaError:
        return
    try:
        assert isinstance(formula.evaluate({"a": 3, "b": Fraction(1, 3)}), Fraction)
    except FormulaError as error:
        assert "division by zero" in error.message


def test_formula_module_imports_neither_textual_nor_tcod():
    code = (
        "import sys, horizon_tui.rules.formula; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'tcod')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
