"""The frozen base of the domain's records, and the three rows of a board.

A record is a :class:`Record`: a frozen ``msgspec.Struct`` outside the garbage collector. A
hand is about 45 of them, and a Struct is built several times faster than a frozen dataclass
(its constructor is C: no ``object.__setattr__`` per field), while it stays typed, immutable,
comparable, hashable and picklable.
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any

import msgspec

from .cards import Card


class Row(StrEnum):
    TOP = "top"
    MIDDLE = "middle"
    BOTTOM = "bottom"

    @property
    def size(self) -> int:
        return 3 if self is Row.TOP else 5


ROWS: tuple[Row, ...] = (Row.TOP, Row.MIDDLE, Row.BOTTOM)

Cards = tuple[Card, ...]


class _RecordType(msgspec.StructMeta):
    """Gives each record class the ``dataclasses`` API and frozen dataclasses' error (once
    the Struct is made: its fields and slots are known only then)."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **options: Any
    ) -> _RecordType:
        cls = super().__new__(mcls, name, bases, namespace, **options)
        fields = getattr(cls, "__struct_fields__", ())
        shadow = dataclasses.make_dataclass(name, [(field, Any) for field in fields])
        cls.__dataclass_fields__ = vars(shadow)["__dataclass_fields__"]  # type: ignore[attr-defined]
        # Assigning to a field raises what a frozen dataclass raises (an AttributeError, as
        # the Struct's own error is); set after the Struct, which installs its own check.
        cls.__setattr__ = _frozen  # type: ignore[method-assign,assignment]
        return cls


def _frozen(self: object, name: str, value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


class Record(msgspec.Struct, frozen=True, gc=False, metaclass=_RecordType):
    """The base of the records: frozen, and not tracked by the garbage collector (a record
    holds strings, numbers, cards and other records, never itself, so it makes no cycle).

    A record also answers the ``dataclasses`` functions (``is_dataclass``, ``fields``,
    ``replace``, ``asdict``) as the frozen dataclasses it replaces did: each class carries
    the field list of a dataclass with the same fields, so code and tests that walk records
    field by field keep working."""


