"""A faithful runner of the s16 reference runtime's workload, for benchmarks to measure alp_nb against.

The reference (``s16_workflow_runtime/code.py``, standard library only) is not on this machine; this script does
what ``reference/s16-runtime.md`` records it doing, step for step, and nothing more: the run id reserved by an
empty snapshot made with O_EXCL, a flock on its lock file, the snapshot written whole (``indent=2``, temp file and
``os.replace``) at launch and at the end, one flushed ``{"key", "value"}`` journal line per answered call in
completion order (a fresh run truncates the journal, a resume appends), every call run through
``asyncio.to_thread`` under a limit of 8 at a time, the token budget from ``args``, its events printed one JSON
line each (``async_launched``, ``task_started``, a progress line per call, ``task_notification``), the output
file and ``last_run.txt``. Its workload is the reference's own fan-out: ``calls`` agent calls behind one gather in
the phase ``Fanout``, call ``i`` labelled ``item:NNNNN`` and asked ``Classify work item NNNNN``, each answered by a
mock that returns ``"mock answer to <label>"`` for 10 tokens.

Run: ``python benchmarks/s16_reference.py run STORE CALLS`` (prints the run id last) or
``python benchmarks/s16_reference.py resume STORE CALLS RUN_ID`` (every call served from the journal); in a
notebook cell, ``main(["run", STORE, CALLS])`` off the kernel's event loop.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import secrets
import sys
from pathlib import Path

TOKENS = 10
CONCURRENCY = 8
NAME = "fanout"
PHASE = "Fanout"


def label_of(index: int) -> str:
    return f"item:{index:05d}"


def prompt_of(index: int) -> str:
    return f"Classify work item {index:05d}"


def key_of(label: str, prompt: str, schema: object = None) -> str:
    basis = "agent|" + label + "|" + prompt + "|" + json.dumps(schema, sort_keys=True)
    return f"agent-{int(hashlib.sha256(basis.encode()).hexdigest(), 16) % 10**10:010d}"


def mock_answer(prompt: str, label: str) -> tuple[str, int]:
    return f"mock answer to {label}", TOKENS


def write_whole(path: Path, text: str) -> None:
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(text)
    os.replace(temp, path)


def emit(event: dict) -> None:
    print(json.dumps(event), flush=True)


class Run:
    def __init__(self, root: Path, run_id: str, args: dict, journal: dict[str, object]) -> None:
        self.root, self.run_id, self.args, self.journal = root, run_id, args, journal
        self.usage = {"agents": 0, "tokens": 0}
        self.progress: list[dict] = []
        self.gate = asyncio.Semaphore(CONCURRENCY)
        self.file = (root / f"{run_id}.journal.jsonl").open("a" if journal else "w")

    def snapshot(self, status: str) -> None:
        task = {"taskId": f"local_workflow_{self.run_id}", "taskType": "local_workflow", "runId": self.run_id,
                "workflowName": NAME, "status": status, "usage": self.usage, "progress": self.progress}
        write_whole(self.root / f"{self.run_id}.json", json.dumps(
            {"runId": self.run_id, "workflowName": NAME, "args": self.args, "task": task}, indent=2))

    async def agent(self, prompt: str, label: str) -> object:
        key = key_of(label, prompt)
        if key in self.journal:
            item = {"type": "workflow_agent", "label": label, "phase": PHASE, "status": "cached"}
            self.progress.append(item)
            emit(item)
            return self.journal[key]
        async with self.gate:
            value, tokens = await asyncio.to_thread(mock_answer, prompt, label)
        budget = self.args.get("budget")
        if budget is not None and self.usage["tokens"] + tokens > budget:
            raise RuntimeError(f"token budget exceeded ({self.usage['tokens'] + tokens} > {budget})")
        self.usage["agents"] += 1
        self.usage["tokens"] += tokens
        self.file.write(json.dumps({"key": key, "value": value}) + "\n")
        self.file.flush()
        item = {"type": "workflow_agent", "label": label, "phase": PHASE, "status": "done"}
        self.progress.append(item)
        emit(item)
        return value


async def fanout(run: Run, calls: int) -> int:
    values = await asyncio.gather(*(run.agent(prompt_of(i), label_of(i)) for i in range(calls)))
    return len(values)


def main(argv: list[str]) -> int:
    mode, root, calls = argv[0], Path(argv[1]), int(argv[2])
    root.mkdir(parents=True, exist_ok=True)
    args = {"calls": calls}
    if mode == "run":
        run_id = f"wf_{NAME}_{secrets.token_hex(8)}"
        os.close(os.open(root / f"{run_id}.json", os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        journal: dict[str, object] = {}
    else:
        run_id = argv[3]
        lines = (root / f"{run_id}.journal.jsonl").read_text().splitlines()
        journal = {line["key"]: line["value"] for line in map(json.loads, lines)}
    lock = (root / f"{run_id}.lock").open("a")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    run = Run(root, run_id, args, journal)
    emit({"type": "async_launched", "runId": run_id})
    run.snapshot("running")
    emit({"type": "task_started", "taskId": f"local_workflow_{run_id}"})
    try:
        output: object = asyncio.run(fanout(run, calls))
        status = "completed"
    except RuntimeError as error:
        output, status = {"error": str(error)}, "failed"
    run.file.close()
    write_whole(root / f"{run_id}.output.json", json.dumps(output))
    run.snapshot(status)
    (root / "last_run.txt").write_text(run_id)
    emit({"type": "task_notification", "status": status, **run.usage,
          "outputFile": str(root / f"{run_id}.output.json")})
    print(run_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
