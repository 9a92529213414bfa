"""kcli.model's ``record`` classes behave as the ``@dataclass`` ones they replace (issue 28: their
``__repr__``/``__eq__`` are shared closures, not source compiled per class at import): the same
repr, equality and hashability, checked against the module's own source declared with
``@dataclass``."""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types

import pytest

import kcli.model as model


def _stock() -> types.ModuleType:
    source = inspect.getsource(model).replace("\n@record(slots=True)\n", "\n@dataclass(slots=True)\n")
    source = source.replace("\n@record\n", "\n@dataclass\n")
    stock = types.ModuleType("kcli_model_stock")
    sys.modules[stock.__name__] = stock          # dataclasses resolves string annotations there
    try:
        exec(compile(source, "kcli_model_stock", "exec"), stock.__dict__)
    finally:
        del sys.modules[stock.__name__]
    return stock


STOCK = _stock()
RECORDS = [c for c in vars(model).values() if isinstance(c, type) and c.__module__ == model.__name__
           and dataclasses.is_dataclass(c) and not c.__dataclass_params__.frozen]


def _args(cls, salt: int) -> list:
    return [[salt, f"v{i}"] if i % 2 else f"{f.name}-{salt}" for i, f in enumerate(dataclasses.fields(cls)) if f.init]


def test_every_non_frozen_class_is_a_record():
    assert len(RECORDS) >= 25
    assert all(c.__eq__.__qualname__ == f"{c.__qualname__}.__eq__" for c in RECORDS)
    assert len({c.__eq__.__code__ for c in RECORDS}) == 1          # one function's code, not compiled per class


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_a_record_behaves_as_its_dataclass(cls):
    twin = getattr(STOCK, cls.__name__)
    assert [f.name for f in dataclasses.fields(cls)] == [f.name for f in dataclasses.fields(twin)]
    a, b, a2 = cls(*_args(cls, 1)), cls(*_args(cls, 2)), cls(*_args(cls, 1))
    ta, tb, ta2 = twin(*_args(cls, 1)), twin(*_args(cls, 2)), twin(*_args(cls, 1))
    assert repr(a).replace(cls.__qualname__, "X", 1) == repr(ta).replace(twin.__qualname__, "X", 1)
    assert (a == a2, a == b, a != b, a == ta, a.__eq__(1)) == (ta == ta2, ta == tb, ta != tb, False, NotImplemented)
    assert cls.__hash__ is None and twin.__hash__ is None
    assert hasattr(a, "__dict__") == hasattr(ta, "__dict__")        # slots kept
