"""Contracts for the loop-contract tests: a lint-clean one written here, the six shared
examples (read from ``../shared`` beside the repository), the outcome each failure injection
should end in, and a way to edit a document by path."""

from __future__ import annotations

import copy
import json
import re
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "loop-contracts"
SHARED_EXAMPLES = SHARED / "examples"
SHARED_ABSENT = ("../shared/loop-contracts is absent: it is an optional corpus of public loop contracts, "
                 "beside the repository in CI and on the team's machines but not on a user's")
"""The skip reason of every test that reads the shared corpus."""
DELETE = object()

CLEAN = {
    "name": "Nightly vulnerable-dependency bump",
    "objective": "Open one pull request per night that moves a vulnerable dependency to its patched version.",
    "trigger": {"type": "scheduled", "cadence_or_event": "Nightly at 02:00 UTC"},
    "intake": {
        "sources": ["pip-audit report", "advisory feed"],
        "selection_rule": "Take the highest-severity advisory whose id is not already in the ledger.",
    },
    "workspace": {
        "isolation": "Fresh git worktree on a new branch",
        "allowed_actions": ["edit requirements files", "run the test suite", "open one pull request per night"],
        "disallowed_actions": ["force push", "change application code"],
    },
    "context": {"required_files": ["CONTRIBUTING.md"], "runtime_sources": ["advisory text"]},
    "agents": [
        {"role": "Implementer", "responsibility": "Bump the pinned version."},
        {"role": "Verifier", "responsibility": "Rerun the test suite and read the lockfile diff."},
    ],
    "verification": {
        "gates": ["the full test suite passes", "the diff touches only requirements files"],
        "receipts": ["pip-audit output before and after", "test log", "pull request link"],
    },
    "state": {
        "artifacts": ["advisory ledger (advisory id, PR number)"],
        "update_rule": (
            "Write the advisory id and PR number to the ledger before opening the PR and after every attempt."
        ),
    },
    "budget": {"max_retries": 2, "max_runtime_minutes": 45},
    "escalation": {
        "conditions": ["retry budget exhausted", "a major version bump is needed"],
        "destination": "Issue assigned to the security owner",
    },
    "exit": {
        "success": "The pull request is open and its checks pass.",
        "stop_without_success": "Retries are exhausted or the bump needs a major version.",
    },
}
"""A contract no lint rule fires on (tested), so each rule's case can be one edit of it."""


INJECTION_OUTCOMES = {
    "timeout": "stop-with-receipt", "crash-before-side-effect": "exit-success",
    "crash-after-side-effect": "exit-success", "duplicate-item": "exit-noop", "broken-verifier": "stop-with-receipt",
    "missing-authority": "escalate", "ambiguous-requirement": "escalate", "repeated-failure": "stop-with-receipt",
    "retries-exhausted": "stop-with-receipt", "no-qualifying-work": "exit-noop", "success-on-retry": "exit-success",
    "crash-after-verify": "exit-success", "stale-input": "exit-success", "owner-not-responding": "stop-with-receipt",
}
"""The outcome the reference (§7) and the seed's decision table give each injection: the tests' expectation, not the
simulator's (a scenario states none)."""


def shared_examples() -> dict[str, dict[str, Any]]:
    """The shared example contracts by file name; the test is skipped when ``../shared`` is absent."""
    if not SHARED_EXAMPLES.is_dir():
        pytest.skip(SHARED_ABSENT)
    return {path.name: json.loads(path.read_text()) for path in sorted(SHARED_EXAMPLES.glob("*.json"))}


def published_schema() -> dict[str, Any]:
    path = SHARED / "loop-contract.schema.json"
    if not path.is_file():
        pytest.skip(SHARED_ABSENT)
    return json.loads(path.read_text())


def parse_path(path: str) -> list[str | int]:
    """``agents[0].role`` → ``["agents", 0, "role"]``."""
    return [int(index) if index else key for key, index in re.findall(r"([A-Za-z_]\w*)|\[(\d+)\]", path)]


def edit(document: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of ``document`` with each ``path: value`` set (``DELETE`` removes the key)."""
    document = copy.deepcopy(document)
    for path, value in changes.items():
        *parents, last = parse_path(path)
        target = document
        for part in parents:
            target = target[part]
        if value is DELETE:
            del target[last]
        else:
            target[last] = copy.deepcopy(value)
    return document


def peak_memory(work: Callable[[], object]) -> int:
    """The most memory ``work()`` held at once, in bytes, after a first call has filled every cache."""
    work()
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
