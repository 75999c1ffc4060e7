"""``compare_runs``: two runs of a workflow side by side, call by call, with what their results and usage differ by.

Calls are paired by label (an s16 line without one, by key), the n-th call of a label in one run with the n-th
in the other, in journal order (a fork's lines copied from its source count only where its script asked them);
each pair is ``same`` (the same call, the same answer), ``changed value``, ``changed prompt`` (asked with another
prompt or schema, and answered the same: a rerun that changed nothing is still a difference to see), ``only in a``
or ``only in b``. ``prompt_changed`` says a pair's prompt or schema differs whatever its answer. A fork and its
source compare this way: every call the fork reran is a changed or new one.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alp_nb.runtime.store import RunStore

from .locate import record_of
from .record import RunRecord

if TYPE_CHECKING:
    import pandas as pd

COMPARISON_COLUMNS: tuple[str, ...] = ("label", "status", "prompt_changed", "a_seq", "b_seq", "a_value", "b_value",
                                       "a_tokens", "b_tokens")
STATUSES = ("same", "changed value", "changed prompt", "only in a", "only in b")


@dataclass(frozen=True)
class RunComparison:
    """Runs ``a`` and ``b`` compared: ``calls`` (one row per paired call, ``COMPARISON_COLUMNS``), ``counts`` of each
    status, whether the results are the same (``result_diff``: a unified diff of their JSON otherwise) and the
    usage of each with the difference."""

    a: RunRecord
    b: RunRecord
    calls: pd.DataFrame

    @property
    def counts(self) -> dict[str, int]:
        found = self.calls["status"].value_counts()
        return {status: int(found.get(status, 0)) for status in STATUSES}

    @property
    def result_diff(self) -> str:
        """``""`` when both results (or both failures) are the same, else a diff of their JSON, a → b."""
        before, after = _outcome(self.a), _outcome(self.b)
        if before == after:
            return ""
        return "\n".join(difflib.unified_diff(before.splitlines(), after.splitlines(), f"{self.a.run_id}",
                                              f"{self.b.run_id}", lineterm=""))

    @property
    def usage(self) -> dict[str, tuple[int, int, int]]:
        """Agents and tokens over all attempts: (a, b, b minus a)."""
        a, b = self.a.usage.cumulative, self.b.usage.cumulative
        return {"agents": (a.agents, b.agents, b.agents - a.agents),
                "tokens": (a.tokens, b.tokens, b.tokens - a.tokens)}


def compare_runs(a: Any, b: Any, *, store: RunStore | str | os.PathLike[str] | None = None) -> RunComparison:
    """Compare two runs (RunRecords, WorkflowRuns, ``(RunStore, run_id)`` or run ids in ``store``)."""
    import pandas as pd

    first, second = record_of(a, store), record_of(b, store)
    left, right = dict(_paired(first)), dict(_paired(second))
    rows = []
    for slot in [*left, *(slot for slot in right if slot not in left)]:
        one, other = left.get(slot), right.get(slot)
        prompt_changed = one is not None and other is not None and one["key"] != other["key"]
        if one is None or other is None:
            status = "only in b" if one is None else "only in a"
        elif _json(one["value"]) != _json(other["value"]):
            status = "changed value"
        else:
            status = "changed prompt" if prompt_changed else "same"
        rows.append((slot[0], status, prompt_changed,
                     *(row["seq"] if row is not None else None for row in (one, other)),
                     *(row["value"] if row is not None else None for row in (one, other)),
                     *(row["tokens"] if row is not None else None for row in (one, other))))
    frame = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    for name in ("a_seq", "b_seq", "a_tokens", "b_tokens"):
        frame[name] = frame[name].astype("Int64")
    return RunComparison(first, second, frame)


def _paired(record: RunRecord) -> Iterator[tuple[tuple[str, int], dict[str, Any]]]:
    """Each call line of ``record`` under its slot: (its label, or key without one; which call of that label)."""
    journal = record.journal
    calls = journal[journal["kind"] == "agent"]
    if record.snapshot.fork is not None:  # a fork's copied lines are its calls only where its script asked them
        served = {span.key for span in record.timeline.spans if span.outcome == "cached"}
        calls = calls[calls["attempt"].notna() | calls["key"].isin(served)]
    seen: dict[str, int] = {}
    for row in calls[["seq", "key", "label", "value", "tokens"]].to_dict("records"):
        name = row["label"] if isinstance(row["label"], str) else row["key"]
        seen[name] = seen.get(name, 0) + 1
        yield (name, seen[name]), row


def _outcome(record: RunRecord) -> str:
    if record.status == "completed":
        return _json(record.result)
    return f"{record.status}: {record.error}"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, default=str)
