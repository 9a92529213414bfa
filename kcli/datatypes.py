"""``datatype``: kcli's ``@dataclass``, without the ``dataclasses`` module nor its work per class at
import (a drop-in's start-up, held within 0.08x the Java tool's wall time; building kcli.model's ~40
dataclasses was ~8 ms of a ~80 ms drop-in, and kcli's other dataclasses a few more).

A datatype behaves as the dataclass it replaces (tests/model/test_model_datatypes.py checks each of
kcli.model's against its ``@dataclass`` twin): the same ``__init__`` (positional and keyword
arguments, defaults, ``field(default_factory=...)``, ``init=False``), ``__repr__``, ``__eq__``
(equal when of the same class with equal compared fields), unhashable unless frozen, frozen
(``__hash__`` of the compared fields; assigning raises ``dataclasses.FrozenInstanceError``) and
``slots``. ``fields`` and ``replace`` here are dataclasses' for them; ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work on them too: their ``__dataclass_fields__`` is
computed, with the dataclasses module, on first use.

The difference is when the work is done: ``__repr__``, ``__eq__``, ``__hash__`` and the frozen
``__setattr__`` are shared closures, not source compiled per class, and ``__init__`` is compiled on
a class's first instantiation, so a command pays only for the classes it builds. A datatype
declares its fields in its own body (no inheritance of fields) and takes no ClassVar/InitVar.
"""

from __future__ import annotations

TYPE_CHECKING = False                 # typing's, without importing typing (start-up)
if TYPE_CHECKING:
    from typing import Any, dataclass_transform
else:
    def dataclass_transform(**_):     # the type checkers': at run time the class is left as it is
        return lambda decorator: decorator

_MISSING = type("_Missing", (), {"__repr__": lambda self: "MISSING"})()


class Field:
    """A field's options, as ``dataclasses.field`` takes them (the subset kcli uses)."""

    __slots__ = ("name", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default=_MISSING, default_factory=_MISSING, init=True, repr=True, compare=True):
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""                  # the field's, set by ``datatype``
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


def field(*, default=_MISSING, default_factory=_MISSING, init: bool = True, repr: bool = True,
          compare: bool = True):
    return Field(default, default_factory, init, repr, compare)


@dataclass_transform(field_specifiers=(field, Field))
def datatype(cls=None, /, *, frozen: bool = False, slots: bool = False):
    """``@datatype``, ``@datatype(frozen=True)``, ``@datatype(slots=True)``: see the module's text."""
    def wrap(c):
        return _build(c, frozen, slots)

    return wrap if cls is None else wrap(cls)


def fields(class_or_instance) -> tuple[Field, ...]:
    """``dataclasses.fields`` for a datatype (class or instance): its fields, in order."""
    return class_or_instance.__datatype_fields__


def replace(obj, /, **changes):
    """``dataclasses.replace`` for a datatype (and for a dataclass): a new one with ``changes``."""
    if not hasattr(type(obj), "__datatype_fields__"):
        import dataclasses

        return dataclasses.replace(obj, **changes)
    for f in obj.__datatype_fields__:
        if f.init and f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def _build(cls, frozen: bool, slots: bool):
    own = cls.__dict__
    specs = []
    for name in own.get("__annotations__", {}):
        value = own.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(default=value)
        spec.name = name
        specs.append(spec)
    names = tuple(f.name for f in specs)
    compared = tuple(f.name for f in specs if f.compare)
    shown = tuple(f.name for f in specs if f.repr)

    # As dataclasses: a plain default stays a class attribute (not with slots), a field() goes.
    dropped = [f.name for f in specs if f.name in own and (slots or f.default is _MISSING)]
    body = {f.name: f.default for f in specs if f.name in own and f.name not in dropped}
    body["__datatype_fields__"] = tuple(specs)
    body["__datatype_frozen__"] = frozen
    body["__match_args__"] = tuple(f.name for f in specs if f.init)
    body["__dataclass_fields__"] = _AsDataclass("__dataclass_fields__")
    body["__dataclass_params__"] = _AsDataclass("__dataclass_params__")
    body["__init__"] = _first_init

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return tuple(getattr(self, n) for n in compared) == tuple(getattr(other, n) for n in compared)
        return NotImplemented

    def __repr__(self):
        return f"{self.__class__.__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in shown) + ")"

    methods = [__eq__, __repr__]
    if frozen:
        def __hash__(self):
            return hash(tuple(getattr(self, n) for n in compared))

        def __setattr__(self, name, value):
            if type(self) is new or name in names:
                _frozen(name)
            super(new, self).__setattr__(name, value)

        def __delattr__(self, name):
            if type(self) is new or name in names:
                _frozen(name)
            super(new, self).__delattr__(name)

        methods += [__hash__, __setattr__, __delattr__]
    else:
        body["__hash__"] = None
    for method in methods:
        method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
        body[method.__name__] = method
    if slots:                         # a new class, as dataclasses makes one
        whole = {k: v for k, v in own.items() if k not in ("__dict__", "__weakref__", *dropped)}
        new = type(cls)(cls.__name__, cls.__bases__, {**whole, **body, "__slots__": names})
        new.__qualname__ = cls.__qualname__
        return new
    new = cls                         # otherwise the class itself (super() and __class__ keep working)
    for name in dropped:
        delattr(cls, name)
    for name, value in body.items():
        setattr(cls, name, value)
    return new


def _frozen(name: str):
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _first_init(self, *args, **kwargs):
    """Every datatype's ``__init__`` until its first instance: compiles the class's own (as
    ``dataclasses`` writes it) and runs it."""
    cls = next(c for c in type(self).__mro__ if "__datatype_fields__" in c.__dict__)
    init = _compile_init(cls)
    type.__setattr__(cls, "__init__", init)
    init(self, *args, **kwargs)


def _compile_init(cls):
    frozen = cls.__datatype_frozen__
    params, lines, names = [], [], {"_MISSING": _MISSING, "_set": object.__setattr__}
    for f in cls.__datatype_fields__:
        n = f.name
        if f.default_factory is not _MISSING:
            names[f"_factory_{n}"] = f.default_factory
            value = f"_factory_{n}() if {n} is _MISSING else {n}" if f.init else f"_factory_{n}()"
            if f.init:
                params.append(f"{n}=_MISSING")
        elif f.init:
            if f.default is not _MISSING:
                names[f"_default_{n}"] = f.default
                params.append(f"{n}=_default_{n}")
            else:
                params.append(n)
            value = n
        elif f.default is not _MISSING:
            names[f"_default_{n}"] = f.default
            value = f"_default_{n}"
        else:
            continue
        lines.append(f"_set(self, {n!r}, {value})" if frozen else f"self.{n} = {value}")
    source = (f"def __init__(self, {', '.join(params)}):\n    " + ("\n    ".join(lines) or "pass") + "\n")
    namespace: dict = {}
    exec(compile(source, f"<datatype {cls.__qualname__}.__init__>", "exec"), names, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


class _AsDataclass:
    """A datatype's ``__dataclass_fields__`` (and ``__dataclass_params__``), as ``dataclasses``
    would have made them, computed on first look (``dataclasses.fields``/``replace``/``asdict``/
    ``is_dataclass``), then kept."""

    def __init__(self, attr: str):
        self.attr = attr

    def __get__(self, obj, cls):
        import dataclasses

        cls = next(c for c in cls.__mro__ if "__datatype_fields__" in c.__dict__)
        ns = {"__annotations__": dict(cls.__dict__.get("__annotations__", {})), "__module__": cls.__module__}
        for f in cls.__datatype_fields__:
            kw = {k: getattr(f, k) for k in ("default", "default_factory") if getattr(f, k) is not _MISSING}
            ns[f.name] = dataclasses.field(init=f.init, repr=f.repr, compare=f.compare, **kw)
        twin: Any = dataclasses.dataclass(type(cls.__name__, (), ns), frozen=cls.__datatype_frozen__)
        type.__setattr__(cls, "__dataclass_params__", twin.__dataclass_params__)
        type.__setattr__(cls, "__dataclass_fields__", twin.__dataclass_fields__)
        return getattr(twin, self.attr)
