"""kcli.model's ``datatype`` classes (kcli.datatypes) behave as the ``@dataclass`` ones they replace
(for start-up: no dataclasses module, no source compiled per class at import; ``__init__`` compiled
on a class's first instance): the same constructor, repr, equality, hashability, frozenness and
slots, and ``dataclasses.fields``/``replace``/``asdict`` on them, checked against the module's
own source declared with ``@dataclass``."""

from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import types

import pytest

import kcli.model as model
from kcli import datatypes


def _stock() -> types.ModuleType:
    source = inspect.getsource(model).replace("from kcli.datatypes import field, datatype\n",
                                              "from dataclasses import dataclass, field\n")
    for options in ("", "(slots=True)", "(frozen=True)"):
        source = source.replace(f"\n@datatype{options}\n", f"\n@dataclass{options}\n")
    assert "@datatype" not in source
    stock = types.ModuleType("kcli_model_stock")
    sys.modules[stock.__name__] = stock          # dataclasses resolves string annotations there
    try:
        exec(compile(source, "kcli_model_stock", "exec"), stock.__dict__)
    finally:
        del sys.modules[stock.__name__]
    return stock


STOCK = _stock()
RECORDS = [c for c in vars(model).values() if isinstance(c, type) and c.__module__ == model.__name__
           and "__datatype_fields__" in c.__dict__]


def _args(cls, salt: int) -> list:
    return [[salt, f"v{i}"] if i % 2 else f"{f.name}-{salt}" for i, f in enumerate(dataclasses.fields(cls)) if f.init]


def _hashable_args(cls, salt: int) -> list:
    return [(salt, f"v{i}") if i % 2 else f"{f.name}-{salt}" for i, f in enumerate(dataclasses.fields(cls)) if f.init]


def test_every_class_is_a_datatype():
    assert len(RECORDS) >= 30
    assert len({c.__eq__.__code__ for c in RECORDS}) == 1          # one function's code, not compiled per class
    assert all(c.__eq__.__qualname__ == f"{c.__qualname__}.__eq__" for c in RECORDS)


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_a_datatype_behaves_as_its_dataclass(cls):
    twin = getattr(STOCK, cls.__name__)
    assert [(f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(cls)] == [
        (f.name, f.init, f.repr, f.compare) for f in dataclasses.fields(twin)]
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen == twin.__dataclass_params__.frozen
    args = _hashable_args if twin.__dataclass_params__.frozen else _args
    a, b, a2 = cls(*args(cls, 1)), cls(*args(cls, 2)), cls(*args(cls, 1))
    ta, tb, ta2 = twin(*args(cls, 1)), twin(*args(cls, 2)), twin(*args(cls, 1))
    assert repr(a).replace(cls.__qualname__, "X", 1) == repr(ta).replace(twin.__qualname__, "X", 1)
    assert (a == a2, a == b, a != b, a == ta, a.__eq__(1)) == (ta == ta2, ta == tb, ta != tb, False, NotImplemented)
    assert hasattr(a, "__dict__") == hasattr(ta, "__dict__")        # slots kept
    assert dataclasses.asdict(a) == dataclasses.asdict(ta)
    assert cls(**{f.name: getattr(a, f.name) for f in dataclasses.fields(cls) if f.init}) == a   # keywords
    first = dataclasses.fields(cls)[0].name
    assert datatypes.replace(a, **{first: "z"}) == dataclasses.replace(a, **{first: "z"})
    assert repr(dataclasses.replace(a, **{first: "z"})).split("(", 1)[1] == repr(
        dataclasses.replace(ta, **{first: "z"})).split("(", 1)[1]
    if twin.__dataclass_params__.frozen:
        assert hash(a) == hash(a2) == hash(ta)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(a, first, "z")
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(a, first)
    else:
        assert cls.__hash__ is None and twin.__hash__ is None


def test_defaults_and_factories_as_dataclasses_makes_them():
    @datatypes.datatype
    class R:
        a: int
        b: list = datatypes.field(default_factory=list)
        c: str = "c"
        d: object = datatypes.field(default=None, init=False, repr=False, compare=False)

    one, two = R(1), R(1)
    assert one.b == [] and one.b is not two.b and (one.c, one.d) == ("c", None) and R.c == "c"
    assert repr(R(1, [2], c="x")).endswith(".R(a=1, b=[2], c='x')") and R(1) == R(1, [])
    with pytest.raises(TypeError):
        R()
    with pytest.raises(TypeError):
        R(1, d=2)


def test_a_datatype_without_slots_is_its_own_class():
    class Base:
        def label(self):
            return "base"

    class R(Base):
        a: int

        def label(self):
            return "r+" + super().label()        # zero-argument super(): the class's own cell

    assert datatypes.datatype(R) is R and R(1).label() == "r+base" and R(1).a == 1


def test_importing_the_model_loads_no_dataclasses():
    code = "import sys, kcli.model; print('dataclasses' in sys.modules, 'typing' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "False"], proc.stderr
