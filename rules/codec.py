"""One JSON codec for every value type of railbird.

Values are frozen dataclasses whose fields are annotated with plain types: str, int, float, bool,
`StrEnum`s, other dataclasses, ``X | None``, ``tuple[X, ...]``, fixed tuples and ``dict[K, V]``.
The codec walks the annotations, so a new value type round-trips without code of its own.
Reading is strict: an unknown key, a missing field or a value of the wrong type raises an error
that names the path of the offending value. The same walker loads config files (with
`ConfigError`) and recorded values (with `RecordError`).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, TypeVar

from rules.errors import RailbirdError, RecordError

T = TypeVar("T")


def to_jsonable(value: Any) -> Any:
    """Turn a value (dataclass, enum, tuple, dict, scalar) into plain JSON data."""
    if isinstance(value, Enum):
        return value.value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(to_jsonable(k)): to_jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"cannot encode {type(value).__name__} as JSON")


def from_jsonable(
    tp: type[T] | Any,
    data: Any,
    *,
    where: str = "",
    error: type[RailbirdError] = RecordError,
) -> T:
    """Build a value of type ``tp`` from plain JSON data, strictly.

    Args:
        tp: The annotated type to build (a dataclass, enum, tuple, ...).
        data: Parsed JSON (or TOML) data.
        where: Path of ``data`` in its document, used in error messages.
        error: The error class to raise (`RecordError` for records, `ConfigError` for config).

    Raises:
        RailbirdError: ``error``, naming the path, when ``data`` does not fit ``tp``.
    """
    return _decode(tp, data, where or "$", error)


def dumps(value: Any, **kwargs: Any) -> str:
    """JSON text of a value; keys keep field order so output is stable."""
    return json.dumps(to_jsonable(value), ensure_ascii=False, **kwargs)


def loads(tp: type[T], text: str, *, where: str = "") -> T:
    """Parse JSON text into a value of type ``tp``.

    Raises:
        RecordError: the text is not JSON or does not fit ``tp``.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{where or 'record'}: not valid JSON ({exc})") from exc
    return from_jsonable(tp, data, where=where)


@cache
def _field_types(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _decode(tp: Any, data: Any, where: str, error: type[RailbirdError]) -> Any:
    if tp is Any:
        return data
    origin = typing.get_origin(tp)
    if origin is types.UnionType or origin is typing.Union:
        return _decode_union(tp, data, where, error)
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(data)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in tp)
            raise error(f"{where}: {data!r} is not one of {allowed}") from None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _decode_dataclass(tp, data, where, error)
    if origin is tuple:
        return _decode_tuple(tp, data, where, error)
    if origin is dict:
        return _decode_dict(tp, data, where, error)
    return _decode_scalar(tp, data, where, error)


def _decode_union(tp: Any, data: Any, where: str, error: type[RailbirdError]) -> Any:
    options = typing.get_args(tp)
    if data is None and type(None) in options:
        return None
    failures = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _decode(option, data, where, error)
        except RailbirdError as exc:
            failures.append(str(exc))
    raise error(failures[0] if len(failures) == 1 else f"{where}: {data!r} fits no type of {tp}")


def _decode_dataclass(cls: type, data: Any, where: str, error: type[RailbirdError]) -> Any:
    if not isinstance(data, dict):
        raise error(f"{where}: expected a table of {cls.__name__} fields, got {data!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        known = ", ".join(fields)
        raise error(f"{where}: unknown key(s) {', '.join(unknown)} (known: {known})")
    hints = _field_types(cls)
    kwargs = {}
    for name, f in fields.items():
        if name in data:
            kwargs[name] = _decode(hints[name], data[name], f"{where}.{name}", error)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise error(f"{where}: missing key {name!r}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError) as exc:
        raise error(f"{where}: {exc}") from exc


def _decode_tuple(tp: Any, data: Any, where: str, error: type[RailbirdError]) -> Any:
    if not isinstance(data, list | tuple):
        raise error(f"{where}: expected a list, got {data!r}")
    args = typing.get_args(tp)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_decode(args[0], v, f"{where}[{i}]", error) for i, v in enumerate(data))
    if len(args) != len(data):
        raise error(f"{where}: expected {len(args)} items, got {len(data)}")
    pairs = enumerate(zip(args, data, strict=True))
    return tuple(_decode(a, v, f"{where}[{i}]", error) for i, (a, v) in pairs)


def _decode_dict(tp: Any, data: Any, where: str, error: type[RailbirdError]) -> Any:
    if not isinstance(data, dict):
        raise error(f"{where}: expected a table, got {data!r}")
    key_tp, value_tp = typing.get_args(tp)
    return {
        _decode(key_tp, k, f"{where} key {k!r}", error): _decode(value_tp, v, f"{where}.{k}", error)
        for k, v in data.items()
    }


def _decode_scalar(tp: Any, data: Any, where: str, error: type[RailbirdError]) -> Any:
    if tp is float and isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    if tp in (int, str, bool) and type(data) is tp:
        return data
    if tp is type(None) and data is None:
        return None
    name = getattr(tp, "__name__", str(tp))
    raise error(f"{where}: expected {name}, got {data!r}")
