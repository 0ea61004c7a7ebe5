"""Console input as JSON: decoded strictly into the `rules.inputs` type its ``kind`` names.

The console posts one JSON object per input, e.g. ``{"kind": "call-shot", "ball": "9",
"pocket": "foot-left"}``. Decoding goes through the one codec (`rules.codec`), so an unknown key,
a missing field or a bad value is refused with the path of the offending value.
"""

from __future__ import annotations

import json
from typing import Any

from rules.codec import from_jsonable, to_jsonable
from rules.errors import RailbirdError
from rules.inputs import (
    CallShot,
    Decision,
    Extension,
    InputKind,
    Interference,
    OperatorFoul,
    OperatorInput,
    Override,
    PushOut,
    RackReady,
    Safety,
    Stalemate,
    TimeOut,
    Undo,
    WarningGiven,
)


class InputError(RailbirdError):
    """A console input is not JSON, names no known kind, or does not fit its type; the
    message names the path of the offending value (``$.ball``)."""


INPUT_TYPES: dict[InputKind, type] = {
    InputKind.CALL_SHOT: CallShot,
    InputKind.SAFETY: Safety,
    InputKind.PUSH_OUT: PushOut,
    InputKind.DECISION: Decision,
    InputKind.OPERATOR_FOUL: OperatorFoul,
    InputKind.WARNING_GIVEN: WarningGiven,
    InputKind.INTERFERENCE: Interference,
    InputKind.EXTENSION: Extension,
    InputKind.TIME_OUT: TimeOut,
    InputKind.UNDO: Undo,
    InputKind.OVERRIDE: Override,
    InputKind.STALEMATE: Stalemate,
    InputKind.RACK_READY: RackReady,
}
"""The input type of each kind."""


def decode_input(data: Any) -> OperatorInput:
    """The operator input that parsed JSON ``data`` describes.

    Raises:
        InputError: ``data`` is not an object, its ``kind`` is missing or unknown, or it does
            not fit the kind's type (the message names the path).
    """
    if not isinstance(data, dict):
        raise InputError(f"$: expected an object with a 'kind', got {data!r}")
    if "kind" not in data:
        raise InputError("$: missing key 'kind'")
    try:
        kind = InputKind(data["kind"])
    except ValueError:
        known = ", ".join(k.value for k in InputKind)
        raise InputError(f"$.kind: {data['kind']!r} is not one of {known}") from None
    return from_jsonable(INPUT_TYPES[kind], data, where="$", error=InputError)


def parse_input(body: bytes) -> OperatorInput:
    """The operator input in a request body (UTF-8 JSON).

    Raises:
        InputError: the body is not UTF-8 JSON or not a valid input.
    """
    try:
        data = json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(
            f"$: the body is not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"$: not valid JSON ({exc.msg} at line {exc.lineno} col {exc.colno})"
        ) from None
    return decode_input(data)


def encode_input(item: OperatorInput) -> dict[str, Any]:
    """The JSON object of an input (what the console posts)."""
    return to_jsonable(item)
