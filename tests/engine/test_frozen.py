"""engine.frozen.quick_init: the quicker constructor takes what attrs' own takes and makes the same
frozen object (events and the actions a battle makes every turn)."""

from __future__ import annotations

import inspect

import attrs
import pytest

from horizon_tui.engine import actions, events
from horizon_tui.engine.frozen import quick_init

QUICK = sorted(
    {cls for module in (events, actions) for cls in vars(module).values()
     if isinstance(cls, type) and "__attrs_own_init__" in cls.__dict__},
    key=lambda cls: cls.__qualname__,
)


def _signature(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_the_battle_classes_have_it() -> None:
    names = {cls.__name__ for cls in QUICK}
    assert set(events.EVENT_TYPES.values()) <= set(QUICK)
    assert {"Move", "Attack", "Wait", "Success"} <= names


@pytest.mark.parametrize("cls", QUICK, ids=lambda cls: cls.__qualname__)
def test_same_signature_same_object_still_frozen(cls) -> None:
    own = cls.__attrs_own_init__
    quick, theirs = _signature(cls.__init__), _signature(own)
    assert [(n, k) for n, k, _ in quick] == [(n, k) for n, k, _ in theirs]
    for (name, _, mine), (_, _, attrs_default) in zip(quick, theirs):
        if not isinstance(attrs_default, attrs.Factory):  # a factory shows as NOTHING in ours
            assert mine is attrs_default or mine == attrs_default, name
    required = {f.name: f"{f.name}-value" for f in attrs.fields(cls) if f.default is attrs.NOTHING}
    made = cls(**required)
    reference = object.__new__(cls)
    own(reference, **required)
    assert made == reference and repr(made) == repr(reference)
    for field in attrs.fields(cls):
        if isinstance(field.default, attrs.Factory):
            assert getattr(made, field.name) is not getattr(cls(**required), field.name)  # a fresh one each
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(made, attrs.fields(cls)[0].name, None)


def test_refuses_what_it_cannot_do() -> None:
    @attrs.frozen
    class Checked:
        value: int = attrs.field(validator=attrs.validators.instance_of(int))

    @attrs.define(slots=False)
    class Loose:
        value: int = 0

    for cls in (Checked, Loose):
        with pytest.raises(TypeError):
            quick_init(cls)
