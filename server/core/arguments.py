"""The one argument validator of every tool: checks against the tool's input schema, with messages an agent can act on.

The low-level MCP server does not validate arguments, and a JSON Schema
validator's messages say what is wrong but not what to send instead.
``null`` for an optional argument counts as leaving it out: agents send that.
Every tool words the same mistake the same way: ``present`` refuses what is not an
object and names its schema does not have; ``within_schema`` holds each given value to
the type, ``maxLength`` and ``maxItems`` its schema states; ``string``, ``integer`` and
``choice`` read one argument; ``integer`` takes its default and range from the schema, never restated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from docs_mcp.server.errors import CONTROL_CHARACTERS, InvalidArgumentError, quoted, quoted_list

MAX_SHOWN_DIGITS = 20
_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}


def present(tool: str, arguments: Mapping[str, Any] | None, allowed: tuple[str, ...]) -> dict[str, Any]:
    """The arguments that were given (not null), after refusing anything but an object and names the schema does not have."""
    if arguments is not None and not isinstance(arguments, Mapping):
        raise InvalidArgumentError(f"Arguments of {tool} must be an object.", "Pass named arguments.")
    arguments = arguments or {}
    unknown = sorted(name for name in arguments if name not in allowed)
    if unknown:
        names = quoted_list(unknown)
        raise InvalidArgumentError(
            f"Unknown argument{'s' if len(unknown) > 1 else ''} {names} for {tool}.",
            f"Use only these arguments: {', '.join(allowed)}.",
        )
    return {name: value for name, value in arguments.items() if value is not None}


def schema_arguments(tool: str, arguments: Mapping[str, Any] | None, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The given arguments of ``tool`` (see ``present``), each within the limits its published ``schema`` states (before any work)."""
    properties = schema["properties"]
    given = present(tool, arguments, tuple(properties))
    for name, value in given.items():
        within_schema(name, value, properties[name])
    return given


def within_schema(name: str, value: Any, schema: Mapping[str, Any]) -> None:
    """Raise when ``value`` breaks the type, maxLength or maxItems ``schema`` states (ranges: see integer())."""
    if schema["type"] == "string":
        short_string(name, string({name: value}, name) or "", schema.get("maxLength"))
    elif schema["type"] == "array":
        if not isinstance(value, list):
            raise InvalidArgumentError(
                f"Argument '{name}' must be a list, not {json_type(value)}.", f"Pass e.g. {name}=['...']."
            )
        if len(value) > schema["maxItems"]:
            raise InvalidArgumentError(
                f"Argument '{name}' has {len(value)} items; the limit is {schema['maxItems']}.", "Pass fewer."
            )
        for item in value:
            if isinstance(item, str):
                short_string(f"{name}[]", item, schema["items"].get("maxLength"))


def short_string(name: str, value: str, limit: int | None) -> None:
    """Raise when ``value`` (argument ``name``) is longer than ``limit`` characters."""
    if limit is not None and len(value) > limit:
        raise InvalidArgumentError(
            f"Argument '{name}' is {len(value)} characters long; the limit is {limit}.", "Pass a shorter value."
        )


def visible_text(text: str) -> str:
    """``text`` with control characters as spaces, stripped: they carry no meaning for search and trip up tokenizers."""
    return CONTROL_CHARACTERS.sub(" ", text).strip()


def required_string(given: Mapping[str, Any], name: str, example: str) -> str:
    if name not in given:
        raise InvalidArgumentError(f"Missing required argument '{name}'.", f"Pass {example}.")
    return string(given, name) or ""


def string(given: Mapping[str, Any], name: str) -> str | None:
    value = given.get(name)
    if value is not None and not isinstance(value, str):
        raise InvalidArgumentError(
            f"Argument '{name}' must be a string, not {json_type(value)}.", "Pass it as a string."
        )
    return value


def integer(given: Mapping[str, Any], name: str, schema: Mapping[str, Any]) -> int:
    """Argument ``name``, within the minimum and maximum the tool's input ``schema`` states, or its default there."""
    stated = schema["properties"][name]
    default, low, high = stated["default"], stated["minimum"], stated["maximum"]
    value = given.get(name, default)
    # JSON Schema counts 5.0 as an integer; a boolean is not one, although Python says so.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidArgumentError(
            f"Argument '{name}' must be an integer, not {json_type(value)}.",
            f"Pass a whole number from {low} to {high}, or leave it out for {default}.",
        )
    if not low <= value <= high:
        raise InvalidArgumentError(
            f"Argument '{name}' must be between {low} and {high}, got {_number(value)}.",
            f"Pass a whole number from {low} to {high}, or leave it out for {default}.",
        )
    return value


def choice(given: Mapping[str, Any], name: str, values: tuple[str, ...]) -> str:
    value = string(given, name)
    if value is None or value not in values:
        raise InvalidArgumentError(
            f"Argument '{name}' must be one of: {', '.join(values)}; got {'null' if value is None else quoted(value)}.",
            f"Pick one of those values, or leave '{name}' out to search every {name}.",
        )
    return value


def _number(value: int) -> str:
    # str() of an integer past 4,300 digits raises, and a long one is no help to read anyway.
    return str(value) if abs(value) < 10**MAX_SHOWN_DIGITS else f"an integer of more than {MAX_SHOWN_DIGITS} digits"


def json_type(value: Any) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else type(value).__name__)
