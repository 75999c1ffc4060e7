"""Memory scope grants and the rule that decides whether a grant covers a scope.

Scopes are ``shared``, ``shared:<x>``, ``project:<x>`` and ``private:<agentId>``,
matched segment by segment on ``:``. Hierarchy grants nothing: ``private:<owner>``
is its owner's alone.
"""

from __future__ import annotations

import re

MEMORY_SCOPE_GRANT = re.compile(r"\A(?:shared|shared:.+|project:.+|private:.+)\Z")


def memory_grant_covers(grant: str, target: str) -> bool:
    """True when ``grant`` covers the memory scope or id ``target`` (ALP's five rules)."""
    if grant == target:
        return True
    grant_parts, target_parts = grant.split(":"), target.split(":")
    if grant_parts[0] != target_parts[0]:
        return False
    if grant == "shared":
        return len(target_parts) >= 2
    if len(grant_parts) == 2 and grant_parts[0] in ("private", "project"):
        return len(target_parts) >= 2 and grant_parts[1] in ("*", target_parts[1])
    last = len(grant_parts) - 1
    for index, segment in enumerate(grant_parts):
        if segment == "*" and index == last:
            return len(target_parts) > index
        if index >= len(target_parts):
            return False
        if segment != "*" and segment != target_parts[index]:
            return False
    return len(target_parts) >= len(grant_parts)


def private_owner(scope: str) -> str | None:
    """The owner of a ``private:<owner>[:…]`` scope, else None."""
    parts = scope.split(":")
    return parts[1] if parts[0] == "private" and len(parts) >= 2 else None
