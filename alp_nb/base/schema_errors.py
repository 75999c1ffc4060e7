"""Where a JSON Schema error is, as a path of keys and indexes.

Output contracts and the loop-contract linter both report problems at a JSON
path; they share this one rule for where a jsonschema error belongs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jsonschema


def error_location(error: jsonschema.ValidationError) -> tuple[str | int, ...]:
    """Where a jsonschema error is. A missing property is placed at its own path (``summary.title``),
    as ALP's contracts and pydantic report it, not at the object that lacks it (jsonschema's place)."""
    location = tuple(error.absolute_path)
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [name for name in error.validator_value if error.message == f"{name!r} is a required property"]
        location += tuple(missing[:1])
    return location
