"""Content-addressed call keys and run ids: the names a run's files and journal lines go by.

A call key hashes what the call *is* (kind, label, prompt, schema), never
when it finished, so a resumed script finds each call whatever order its
``parallel`` and ``pipeline`` branches start in.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from typing import Any

from alp_nb.base.jsonline import line_encoder

from .errors import WorkflowInputError

RUN_ID_RE = re.compile(r"wf_[A-Za-z0-9][A-Za-z0-9._-]{0,63}_[0-9a-f]{16}")
RUN_ID_MAX = len("wf_") + 64 + len("_") + 16
"""The longest run id ``RUN_ID_RE`` takes: ``wf_``, a workflow name of 64 characters, ``_`` and 16 hex digits."""

canonical_dumps = line_encoder(sort_keys=True, compact=True, allow_nan=False)
_sha256 = hashlib.sha256


def call_key(kind: str, label: str, prompt: str, schema: Any) -> str:
    """``agent-`` + 32 hex of SHA-256 over the canonical JSON of the call."""
    return f"{kind}-{_sha256(canonical_dumps([kind, label, prompt, schema]).encode()).hexdigest()[:32]}"


def s16_call_key(kind: str, label: str, prompt: str, schema: Any) -> str:
    """The reference implementation's 10-digit key, to find calls in journals it wrote."""
    basis = f"{kind}|{label}|{prompt}|{json.dumps(schema, sort_keys=True)}"
    return f"{kind}-{int(_sha256(basis.encode()).hexdigest(), 16) % 10**10:010d}"


def default_label(prompt: str) -> str:
    """s16's label for a call given none: the prompt's first 24 characters and an ellipsis."""
    return prompt[:24] + "..."


def new_run_id(workflow_name: str) -> str:
    return f"wf_{workflow_name}_{secrets.token_hex(8)}"


def validate_run_id(run_id: Any) -> str:
    """The run id itself, checked before it becomes part of any path (no ``..``, no slashes). One too long is named
    by its length, not quoted: it may be a whole file's text."""
    if not isinstance(run_id, str):
        raise WorkflowInputError("INVALID_RUN_ID", f"invalid run id of type {type(run_id).__name__}: expected "
                                 "wf_<workflow name>_<16 hex>")
    if len(run_id) > RUN_ID_MAX:
        raise WorkflowInputError("INVALID_RUN_ID", f"invalid run id of {len(run_id):,} characters: a run id is "
                                 f"wf_<workflow name>_<16 hex>, at most {RUN_ID_MAX} characters")
    if not RUN_ID_RE.fullmatch(run_id):
        raise WorkflowInputError("INVALID_RUN_ID", f"invalid run id `{run_id}`: expected wf_<workflow name>_<16 hex>")
    return run_id
