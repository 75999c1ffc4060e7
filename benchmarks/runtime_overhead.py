"""Workflow runtime overhead against floors measured in the same process and run.

(a) A 2,000-call fan-out through ``ctx.parallel`` with ``MockAgentRunner``,
fresh and then resumed (every call served from the journal), timed as whole
``run_workflow`` calls (launch, snapshots, events and output included).
(b) The floors for the same work: a bare ``asyncio.gather`` of 2,000
coroutines that each build the same key and append the same JSON line to a
file and flush (fresh); reading those lines into a dict and gathering 2,000
coroutines that each hash a key and look it up (resume).

Then peak RSS of resuming a 10,000- and a 100,000-call journal, each in a
fresh subprocess, beside the journal's size.

Targets: fresh ≤ 2× its floor, resume ≤ 1.5× its floor.
Run: ``python benchmarks/runtime_overhead.py [--calls N] [--repeats R] [--memory-calls 10000,100000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from alp_nb.runtime import MockAgentRunner, RunStore, WorkflowRegistry, run_workflow
from alp_nb.runtime.keys import call_key

REGISTRY = WorkflowRegistry()
TOKENS = 10


async def fanout(ctx, args):
    """``calls`` independent agent calls behind one parallel barrier."""
    values = await ctx.parallel([lambda i=i: ctx.agent(f"item {i}", label=f"item-{i}")
                                 for i in range(args["calls"])])
    return len(values)


async def sequence(ctx, args):
    """``calls`` agent calls one after another (the memory benchmark: no task per call)."""
    for i in range(args["calls"]):
        await ctx.agent(f"item {i}", label=f"item-{i}")
    return args["calls"]


REGISTRY.register({"name": "fanout", "description": "parallel fan-out"}, fanout)
REGISTRY.register({"name": "sequence", "description": "sequential calls"}, sequence)


def fanout_run(store: RunStore, calls: int) -> str:
    """The id of a completed ``calls``-call fan-out, written into ``store`` by the real runtime: the run the
    replay benchmarks read."""
    run = asyncio.run(run_workflow("fanout", {"calls": calls}, store=store, registry=REGISTRY, agent_cap=calls,
                                   runner=MockAgentRunner(tokens=TOKENS)))
    assert run.status == "completed", run.error
    return run.run_id


def journal_line(i: int) -> str:
    """The line the runtime journals for call ``i`` of the fan-out (same fields, same sizes)."""
    prompt, label = f"item {i}", f"item-{i}"
    now = time.time()
    return json.dumps({"v": 1, "seq": i + 1, "key": call_key("agent", label, prompt, None), "kind": "agent",
                       "label": label, "phase": None, "prompt": prompt, "schema": None,
                       "value": f"mock answer to {label}", "tokens": TOKENS, "attempts": 1, "started": now,
                       "ended": now}, ensure_ascii=False)


async def floor_fresh(calls: int, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as handle:  # blocking, as the runtime opens its journal too
        async def one(i: int) -> None:
            handle.write(journal_line(i) + "\n")
            handle.flush()
        await asyncio.gather(*(one(i) for i in range(calls)))


async def floor_resume(calls: int, path: Path) -> None:
    with open(path, encoding="utf-8") as handle:  # blocking, as the runtime reads its journal too
        journal = {record["key"]: record["value"] for record in map(json.loads, handle)}

    async def one(i: int) -> str:
        return journal[call_key("agent", f"item-{i}", f"item {i}", None)]
    await asyncio.gather(*(one(i) for i in range(calls)))


async def measure(calls: int, repeats: int, folder: Path) -> dict[str, float]:
    best = {"fresh": float("inf"), "resume": float("inf"), "floor fresh": float("inf"),
            "floor resume": float("inf")}
    for repeat in range(repeats):
        store = RunStore(folder / f"store-{repeat}")
        options = {"store": store, "registry": REGISTRY, "agent_cap": calls}
        start = time.perf_counter()
        run = await run_workflow("fanout", {"calls": calls}, runner=MockAgentRunner(tokens=TOKENS), **options)
        best["fresh"] = min(best["fresh"], time.perf_counter() - start)
        runner = MockAgentRunner(tokens=TOKENS)
        start = time.perf_counter()
        resumed = await run_workflow("fanout", None, run.run_id, runner=runner, **options)
        best["resume"] = min(best["resume"], time.perf_counter() - start)
        assert run.result == resumed.result == calls and runner.calls == [], "the resume must be all cached"

        floor_path = folder / f"floor-{repeat}.jsonl"
        start = time.perf_counter()
        await floor_fresh(calls, floor_path)
        best["floor fresh"] = min(best["floor fresh"], time.perf_counter() - start)
        start = time.perf_counter()
        await floor_resume(calls, floor_path)
        best["floor resume"] = min(best["floor resume"], time.perf_counter() - start)
    return best


def peak_rss_of_resume(calls: int, folder: Path) -> tuple[int, int, int]:
    """(journal bytes, RSS before the resume, peak RSS after it), in bytes, measured in a fresh process."""
    store = RunStore(folder / f"memory-{calls}")
    run = asyncio.run(run_workflow("sequence", {"calls": calls}, store=store, registry=REGISTRY, agent_cap=calls,
                                   runner=MockAgentRunner(tokens=TOKENS)))
    child = subprocess.run([sys.executable, __file__, "--resume-child", str(store.root), run.run_id, str(calls)],
                           check=True, capture_output=True, text=True)
    before, peak = map(int, child.stdout.split())
    return store.paths(run.run_id).journal.stat().st_size, before, peak


def memory(field: str) -> int:
    """``VmRSS`` (now) or ``VmHWM`` (peak) of this process in bytes; the peak from getrusage off Linux."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss is in bytes on macOS, KiB elsewhere
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def resume_child(root: str, run_id: str, calls: int) -> None:
    before = memory("VmRSS")
    runner = MockAgentRunner(tokens=TOKENS)
    run = asyncio.run(run_workflow("sequence", None, run_id, store=RunStore(root), registry=REGISTRY,
                                   agent_cap=calls, runner=runner))
    assert run.status == "completed" and runner.calls == [], run.error
    print(before, memory("VmHWM"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--memory-calls", default="10000,100000")
    parser.add_argument("--resume-child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.resume_child:
        root, run_id, calls = options.resume_child
        resume_child(root, run_id, int(calls))
        return

    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        best = asyncio.run(measure(options.calls, options.repeats, folder))
        count = options.calls
        print(f"{count}-call parallel fan-out, MockAgentRunner, best of {options.repeats}")
        print(f"{'':<8}{'runtime µs/call':>17}{'floor µs/call':>15}{'ratio':>8}{'target':>8}")
        for name, target in (("fresh", 2.0), ("resume", 1.5)):
            ours, floor = best[name] / count * 1e6, best[f"floor {name}"] / count * 1e6
            print(f"{name:<8}{ours:>17.1f}{floor:>15.1f}{ours / floor:>7.2f}×{target:>7.1f}×")

        print("\nresume of a sequential journal, each in a fresh process")
        print(f"{'calls':>8}{'journal MB':>12}{'RSS before MB':>15}{'peak RSS MB':>13}{'growth / journal':>18}")
        for calls in (int(text) for text in options.memory_calls.split(",") if text):
            size, before, peak = peak_rss_of_resume(calls, folder)
            print(f"{calls:>8}{size / 1e6:>12.1f}{before / 1e6:>15.1f}{peak / 1e6:>13.1f}"
                  f"{(peak - before) / size:>17.2f}×")


if __name__ == "__main__":
    main()
