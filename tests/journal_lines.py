"""A journal's lines as the format says to read them, written from the spec rather than the runtime's reader (so
the tests that use it check the writer against the spec): a ``v`` 4 answer line names its ask line, which holds its
call's key, label, phase, prompt, schema and answer number; its times are seconds after the latest ``epoch``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ASK_FIELDS = ("key", "label", "phase", "prompt", "schema")
LINE_FIELDS = ("v", "seq", "kind", "ask", "at", "epoch", "sum")
"""What of a v4 answer line is about the line itself, not its call."""


def journal_lines(path: Path, *, asks: bool = False) -> list[dict[str, Any]]:
    """Every line of ``path`` in file order, each call and spend line holding all it says about its call (what a
    ``v`` 3 line holds: ``key``, ``label``, ``attempts``, ``started``, ``ended``...); ask lines only with ``asks``,
    with their ``started``."""
    records: list[dict[str, Any]] = []
    by_seq: dict[int, dict[str, Any]] = {}
    epoch = 0.0
    first_asked: dict[str, float] = {}
    for raw in path.read_text().splitlines() if path.exists() else []:
        line = json.loads(raw)
        if line.get("v") != 4:
            if line.get("kind") != "ask" or asks:
                records.append(line)
            continue
        epoch = line.get("epoch", epoch)
        at = epoch + line["at"]
        if line["kind"] == "ask":
            ask = {**line, "attempts": line.get("attempts", 1), "started": at}
            if ask["attempts"] == 1:
                first_asked[ask["key"]] = at
            by_seq[line["seq"]] = ask
            if asks:
                records.append(ask)
            continue
        ask = by_seq[line["ask"]]
        record = {"v": 4, "seq": line["seq"], "kind": line["kind"]}
        record.update({name: ask[name] for name in ASK_FIELDS if name in ask
                       and (line["kind"] == "agent" or name not in ("prompt", "schema"))})
        record.update({name: value for name, value in line.items() if name not in LINE_FIELDS})
        record.update(attempts=ask["attempts"], started=first_asked.get(ask["key"], ask["started"]), ended=at)
        records.append(record)
    return records
