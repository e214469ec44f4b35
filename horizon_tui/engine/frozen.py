"""A quicker constructor for the frozen attrs classes a battle makes by the thousand.

attrs builds a frozen slotted instance by calling `object.__setattr__` once per field (its
`__setattr__` refuses writes); a battle makes several events and components per combatant-turn,
and those calls were a few percent of its time. `quick_init` gives such a class an `__init__`
with the same signature that writes each slot through its descriptor (what `object.__setattr__`
ends up doing, without the look-up on every field). The class stays frozen: only `__init__` is
replaced, and only for plain fields (defaults and factories; no validators, converters or
post-init hooks, which it refuses). tests/engine/test_frozen.py checks both constructors agree.
"""

from __future__ import annotations

from typing import TypeVar

import attrs

C = TypeVar("C", bound=type)


def _slot(cls: type, name: str):
    for klass in cls.__mro__:
        descriptor = klass.__dict__.get(name)
        if descriptor is not None and hasattr(descriptor, "__set__"):
            return descriptor
    raise TypeError(f"{cls.__name__}.{name} is not a slot")


def quick_init(cls: C) -> C:
    """Replace a frozen slotted attrs class's `__init__` by a quicker one (see the module)."""
    if not attrs.has(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: quick_init takes a slotted attrs class")
    if hasattr(cls, "__attrs_post_init__") or hasattr(cls, "__attrs_pre_init__"):
        raise TypeError(f"{cls.__name__}: quick_init can't run post-init hooks")
    namespace: dict[str, object] = {"NOTHING": attrs.NOTHING}
    positional, keywords, body = [], [], []
    for field in attrs.fields(cls):
        if not field.init or field.validator is not None or field.converter is not None:
            raise TypeError(f"{cls.__name__}.{field.name}: quick_init takes plain fields only")
        name = field.name
        namespace[f"_set_{name}"] = _slot(cls, name).__set__
        if field.default is attrs.NOTHING:
            parameter = name
        elif isinstance(field.default, attrs.Factory):
            if field.default.takes_self:
                raise TypeError(f"{cls.__name__}.{name}: quick_init can't take a factory of self")
            namespace[f"_factory_{name}"] = field.default.factory
            parameter = f"{name}=NOTHING"
            body.append(f"    if {name} is NOTHING:\n        {name} = _factory_{name}()")
        else:
            namespace[f"_default_{name}"] = field.default
            parameter = f"{name}=_default_{name}"
        (keywords if field.kw_only else positional).append(parameter)
        body.append(f"    _set_{name}(self, {name})")
    parameters = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    source = f"def __init__({parameters}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(compile(source, f"<quick_init {cls.__module__}.{cls.__qualname__}>", "exec"), namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__attrs_own_init__ = cls.__init__  # attrs' own, kept for the test that compares them
    cls.__init__ = init
    return cls
