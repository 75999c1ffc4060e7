"""definitionHash: the SHA-256 of a definition's canonical JSON, pinned by every execution
and every trust record.

Canonical JSON here: keys sorted by code point, keys whose value is None
dropped, arrays in order, integral floats written as integers (as JSON.stringify
does), no whitespace, UTF-8. ``autoCompactTokens`` is normalised to both
runtimes with ``null`` for an undeclared side. The output contract is hashed
as its name, JSON Schema and kind.

How this differs from ALP's TypeScript ``hashAgentDefinition``: ALP sorts keys
with ``localeCompare`` (so ``allowedTools`` sorts before ``REPORT``), we sort by
code point (``REPORT`` first); ALP hashes ``output.validate`` as function
source text, we hash the contract's ``kind`` instead, since Python source is
not a stable identity. The same definition therefore gives a different hex
digest in ALP and in alp_nb, but within alp_nb it is stable across processes
and moves with every grant, rule, workflow state and contract change. The
mode is never part of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from alp_nb.base.jsonline import line_encoder

from .catalog import RUNTIME_IDS
from .definition import AgentDefinition, define_agent

SHORT_HASH_LENGTH = 12


def canonical_json(value: Any) -> str:
    """The canonical JSON text of ``value`` (see the module docstring)."""
    return _dumps(_canonical(value))


def definition_hash(definition: AgentDefinition | Mapping[str, Any]) -> str:
    """The 64-hex SHA-256 of the definition's canonical JSON."""
    definition = define_agent(definition)
    payload = _canonical(
        definition.model_dump(mode="json", by_alias=True, exclude={"auto_compact_tokens", "output"})
    )
    declared = definition.auto_compact_tokens
    payload["autoCompactTokens"] = {
        runtime: _canonical(getattr(declared, runtime) if declared else None) for runtime in RUNTIME_IDS
    }
    payload["output"] = _canonical({**definition.output.to_alp(), "kind": definition.output.kind})
    return hashlib.sha256(_dumps(payload).encode("utf-8")).hexdigest()


def short_hash(digest: str) -> str:
    """The 12-character prefix the CLI and the reprs print."""
    return digest[:SHORT_HASH_LENGTH]


_dumps = line_encoder(sort_keys=True, compact=True, allow_nan=False)
"""JSON text of already-canonical data: sorted keys, no whitespace, UTF-8 kept."""


def _canonical(value: Any) -> Any:
    kind = type(value)  # exact-type checks first: dumps are plain dicts and lists, and ABC checks are slow
    if kind is dict:
        return {str(key): _canonical(item) for key, item in value.items() if item is not None}
    if kind is list:
        return [_canonical(item) for item in value]
    if kind is str or kind is int or kind is bool:
        return value
    if isinstance(value, Mapping):
        return {str(key): _canonical(item) for key, item in value.items() if item is not None}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
