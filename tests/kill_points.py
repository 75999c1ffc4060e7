"""Runs killed (SIGKILL) at every write of their run store, then resumed: the harness the kill-safety tests drive.

A trial forks a child that runs a scenario with ``os.write`` and ``os.replace`` watched: at the chosen write of a
store file (a journal or events append, a whole-file write's rename) the child kills itself, just before the write,
half way through it (a torn line) or just after it. A fresh fork then resumes whatever the kill left, as often as it
takes to finish. Each trial reports what the store holds at the end and every token the runner handed back, from a
ledger the runner writes before it returns an answer (outside the store, so never a kill point).

Run as a script (``python kill_points.py SCENARIO FOLDER [SEED]``) so that the forks come from a fresh,
single-threaded process: it prints one JSON object per trial, then the scenario's clean result. Without a seed it
kills at every write in every mode; with one, at every write in the one mode the seed turns to (see
``kill_points``), a third of the trials.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any

from journal_lines import journal_lines

from alp_nb.runtime import Fork, RunnerOutput, RunStore, WorkflowInputError, WorkflowRegistry, run_workflow

TOKENS = 10
OK_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
MODES = ("before", "torn", "after")
"""Where a kill lands at a write: just before it, half way through it (an append; a rename cannot tear, so there
it is "before" again), just after it."""


async def mixed(ctx, args):
    """Every primitive a kill can cut into: a parallel fan-out, a schema retry, a pipeline, phases and a log."""
    ctx.phase("Gather")
    facts = await ctx.parallel([lambda i=i: ctx.agent(f"fact {i}", label=f"fact-{i}") for i in range(3)])
    ctx.phase("Check")
    checked = await ctx.agent(f"check {facts}", schema=OK_SCHEMA, label="check")  # a fork of fact-0 asks again

    async def draft(_previous, item, _index):
        return await ctx.agent(f"draft {item}", label=f"draft-{item}")

    async def polish(previous, item, _index):
        return await ctx.agent(f"polish {previous}", label=f"polish-{item}")

    ctx.phase("Write")
    texts = await ctx.pipeline(["a", "b"], draft, polish)
    ctx.log("written")
    return {"facts": facts, "checked": checked, "texts": texts}


WORKFLOWS = WorkflowRegistry()
WORKFLOWS.register({"name": "mixed", "description": "kill points", "phases": ["Gather", "Check", "Write"]}, mixed)


class LedgerRunner:
    """Answers every call the same way every time, TOKENS a call; the first answer to ``check`` breaks its schema.
    It appends each answer's tokens to the ledger before handing the answer back. ``blocking`` says whether the
    runtime runs it in a thread (a plain sync runner) or inline."""

    def __init__(self, ledger: Path, *, blocking: bool) -> None:
        self.ledger = ledger
        self.blocking = blocking

    def run(self, prompt, schema, label):
        if self.blocking:
            time.sleep(0.001)
        value: Any = f"answer to {label}"
        if label == "check":
            value = {"ok": True} if prompt.endswith("Return valid JSON.") else {"ok": "not yet"}
        fd = os.open(self.ledger, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, f"{TOKENS}\n".encode())  # not a store file: never a kill point
        finally:
            os.close(fd)
        return RunnerOutput(value, TOKENS)


SCENARIOS = {"inline": False, "threads": True, "fork": False, "resume": False}
"""Each scenario and whether its runner runs in threads: a fresh run (inline or threaded runner), a fork of a
finished run, and the resume of a run killed half way."""


def _launch(scenario: str, store: RunStore, ledger: Path, *, source: str | None = None,
            resume: str | None = None) -> Any:
    runner = LedgerRunner(ledger, blocking=SCENARIOS[scenario])
    options: dict[str, Any] = {"store": store, "registry": WORKFLOWS, "runner": runner}
    if resume is not None:
        return asyncio.run(run_workflow("mixed", None, resume, **options))
    if source is not None:
        return asyncio.run(run_workflow("mixed", fork=Fork(source, values={"fact-0": "replaced"}), **options))
    return asyncio.run(run_workflow("mixed", {}, **options))


def _in_child(work, *, kill_at: int | None = None, mode: str = "before", root: Path | None = None) -> int:
    """Run ``work`` in a forked child, watching the store's writes; the child's exit status (-9 when it killed
    itself). With ``kill_at`` None the child counts the writes and exits with ``min(count, 250)``."""
    pid = os.fork()
    if pid:
        _, status = os.waitpid(pid, 0)
        return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    try:
        count = _watch(kill_at, mode, str(root))
        work()
        os._exit(min(count(), 250) if kill_at is None else 0)
    except BaseException:  # a child must never return into the harness
        os._exit(99)


class _StoreWrites:
    """Counts the writes to files under ``root`` and kills this process at write number ``kill_at``."""

    def __init__(self, kill_at: int | None, mode: str, root: str) -> None:
        self.kill_at, self.mode, self.root = kill_at, mode, root
        self.seen = 0
        self.lock = threading.Lock()
        self.real_write, self.real_replace = os.write, os.replace

    def _in_store(self, fd: int) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}").startswith(self.root)
        except OSError:
            return False

    def _is_kill_point(self) -> bool:
        with self.lock:
            self.seen += 1
            return self.seen == self.kill_at

    def write(self, fd, data):
        if not self._in_store(fd) or not self._is_kill_point():
            return self.real_write(fd, data)
        if self.mode == "torn":
            self.real_write(fd, bytes(data)[: max(1, len(data) // 2)])
        elif self.mode == "after":
            self.real_write(fd, data)
        os.kill(os.getpid(), signal.SIGKILL)

    def replace(self, source, target, *args, **kwargs):
        if not str(target).startswith(self.root) or not self._is_kill_point():
            return self.real_replace(source, target, *args, **kwargs)
        if self.mode == "after":
            self.real_replace(source, target, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)


def _watch(kill_at: int | None, mode: str, root: str):
    """Patch ``os.write`` and ``os.replace`` in this (child) process; a function saying how many store writes ran."""
    writes = _StoreWrites(kill_at, mode, root)
    os.write, os.replace = writes.write, writes.replace
    return lambda: writes.seen


def _trial(scenario: str, folder: Path, kill_at: int, mode: str, source_store: Path | None,
           source: str | None) -> dict[str, Any]:
    """One kill, then resumes in fresh forks until the run finishes; what the store holds at the end."""
    store_root, ledger = folder / "runs", folder / "ledger.txt"
    if source_store is not None:  # a fork's source lives in the store the fork is made in
        shutil.copytree(source_store, store_root)
    store = RunStore(store_root)
    before = set(store.run_ids())
    resume = _interrupted_run(scenario, store, ledger) if scenario == "resume" else None
    if resume is not None:
        before.add(resume)
    killed = _in_child(lambda: _launch(scenario, store, ledger, source=source, resume=resume), kill_at=kill_at,
                       mode=mode, root=store_root)
    new = [run_id for run_id in store.run_ids() if run_id not in before]
    run_id = resume if resume is not None else (new[0] if new else None)
    outcome: dict[str, Any] = {"kill_at": kill_at, "mode": mode, "killed": killed == -signal.SIGKILL,
                               "run_existed": run_id is not None}
    resumes = 0
    if run_id is None:  # killed before the run's first snapshot: there is no run; start it again
        _in_child(lambda: _launch(scenario, store, ledger, source=source))
        run_id = next(r for r in store.run_ids() if r not in before)
    while store.snapshot(run_id).status != "completed" and resumes < 3:
        resumes += 1
        _in_child(lambda: _launch(scenario, store, ledger, resume=run_id))
    snapshot = store.snapshot(run_id)
    lines = journal_lines(store.paths(run_id).journal)
    calls = [line for line in lines if line["kind"] == "agent" and "copiedFrom" not in line]
    cumulative = snapshot.usage.cumulative
    outcome.update(
        status=snapshot.status, resumes=resumes, result=store.read_output(run_id),
        recorded=cumulative.tokens, unanswered=cumulative.unanswered, reserved=cumulative.reserved,
        journaled=sum(line.get("tokens", 0) for line in lines if "copiedFrom" not in line),
        handed_back=sum(int(amount) for amount in ledger.read_text().split()) if ledger.exists() else 0,
        keys_journaled_twice=len(calls) - len({line["key"] for line in calls}),
        temp_files=sorted(path.name for path in store_root.glob(".*.tmp")),
        listed=[store.snapshot(each).status for each in store.run_ids()],
    )
    return outcome


def _interrupted_run(scenario: str, store: RunStore, ledger: Path) -> str:
    """A run killed just after its sixth store write (its first snapshot, two asks and an answer of its fan-out...),
    which the resume scenario resumes."""
    _in_child(lambda: _launch("inline", store, ledger), kill_at=6, mode="after", root=store.root)
    return store.run_ids()[0]


def main(scenario: str, folder: Path, seed: int | None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    source_store, source = None, None
    if scenario == "fork":
        source_store = folder / "source"
        _in_child(lambda: _launch("inline", RunStore(source_store), folder / "source-ledger.txt"))
        source = RunStore(source_store).run_ids()[0]
    clean = folder / "clean"
    clean.mkdir()
    probe_store = RunStore(clean / "runs")
    if source_store is not None:
        shutil.copytree(source_store, probe_store.root)
    resume = _interrupted_run(scenario, probe_store, clean / "ledger.txt") if scenario == "resume" else None
    writes = _in_child(lambda: _launch(scenario, probe_store, clean / "ledger.txt", source=source, resume=resume),
                       root=probe_store.root)
    finished = [run_id for run_id in probe_store.run_ids() if probe_store.snapshot(run_id).status == "completed"]
    result = probe_store.read_output(finished[-1])
    for trial, (kill_at, mode) in enumerate(kill_points(writes, seed), start=1):
        print(json.dumps(_trial(scenario, folder / f"trial-{trial}", kill_at, mode, source_store, source)),
              flush=True)
    print(json.dumps({"writes": writes, "clean_result": result}), flush=True)


def kill_points(writes: int, seed: int | None) -> list[tuple[int, str]]:
    """Every write in every mode; with a seed, every write in one mode, the modes turning by the seed (and the
    first write, before which no run exists, in all three)."""
    return [(kill_at, mode) for kill_at in range(1, writes + 1) for number, mode in enumerate(MODES)
            if seed is None or kill_at == 1 or (kill_at + seed) % len(MODES) == number]


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # torn lines and lost lines are what the kills make: the trials report them
    try:
        main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
    except WorkflowInputError as error:
        print(json.dumps({"error": error.message}))
        sys.exit(1)
