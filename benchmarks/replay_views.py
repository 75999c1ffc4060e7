"""Exploring a 100,000-call run after the fact, as an engineer meets it: each step in a fresh process, against a
floor doing the same with bare ``json`` and ``pandas`` in the same run.

The run is written by the real runtime (a fan-out of ``--calls`` calls with ``MockAgentRunner``). Each subject
runs in its own fresh interpreter, alternating with its floor, and is timed twice: the whole process (start-up
and imports included: what the user waits for) and the step alone, after its imports.

- **load**: ``load_run(run_id).calls``, the record with its timeline and the calls a viewer steps through, against
  ``json.loads`` of every line, each answer joined to its ask (label, prompt) and kept in one DataFrame (no
  checksum, order or seal checked);
- **filter**: after that load, ``calls.select(status="live", pattern=...)`` (the pattern over label, prompt and
  value) against ``str.contains`` over the same three columns of the floor's DataFrame;
- **export**: after that load, ``export_run`` of the run to one HTML page, against the floor's DataFrame written
  as JSON records (the bytes a page of those calls would need, and nothing of the page).

Targets (medians of ``--repeats``): each step ≤ ``STEP_TARGETS`` × its floor; every whole process ≤
``PROCESS_TARGET`` × its floor.
Run: ``python benchmarks/replay_views.py [--calls N] [--repeats R] [--tasks load,filter,export]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from runtime_overhead import REGISTRY, fanout_run

from alp_nb.runtime import RunStore

PATTERN = "item-4242"
"""Found in eleven calls of 100,000 (item-4242, item-42420...): a needle, as a search usually is."""
STEP_TARGETS = {"load": 2.0, "filter": 2.0, "export": 3.0}
PROCESS_TARGET = 2.0
TASKS = ("load", "filter", "export")


def child(task: str, side: str, root: str, run_id: str, out: str) -> None:
    """One measurement, printed as ``seconds matches``: imports first, then the clock."""
    from replay_load import floor_frame  # the load floor of the replay_load benchmark (pandas imported with it)

    if side == "alp":
        from alp_nb.replay import load_run

        if task == "export":
            from alp_nb.viz.views.run_page import export_run

        start = time.perf_counter()
        record = load_run(run_id, store=root)
        calls = record.calls
        if task == "load":
            found = len(calls)
        else:
            start = time.perf_counter()
            if task == "filter":
                found = len(calls.select(status="live", pattern=PATTERN))
            else:
                export_run(record, out, force=True, registry=REGISTRY)  # its plan too
                found = len(calls)
    else:
        path = RunStore(root).paths(run_id).journal
        start = time.perf_counter()
        frame = floor_frame(path)
        if task == "load":
            found = len(frame)
        else:
            start = time.perf_counter()
            if task == "filter":
                texts = [frame[column].astype(str).str.contains(PATTERN, regex=False)
                         for column in ("label", "prompt", "value")]
                found = int((texts[0] | texts[1] | texts[2]).sum())
            else:
                shown = frame.reindex(columns=["seq", "label", "phase", "prompt", "value", "tokens"])
                shown.to_json(out, orient="records")
                found = len(frame)
    print(time.perf_counter() - start, found)


def measure(task: str, side: str, root: Path, run_id: str, out: Path) -> tuple[float, float, int]:
    """(whole process seconds, step seconds, what the step found) of one fresh interpreter."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, __file__, "--child", task, side, str(root), run_id, str(out)],
                          check=True, capture_output=True, text=True)
    whole = time.perf_counter() - started
    step, found = done.stdout.split()
    return whole, float(step), int(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tasks", default=",".join(TASKS), help="which of load, filter, export (default: all)")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(*options.child)
        return

    tasks = [task for task in TASKS if task in options.tasks.split(",")]
    with tempfile.TemporaryDirectory() as temp:
        store = RunStore(Path(temp) / "runs")
        run_id = fanout_run(store, options.calls)
        size = store.paths(run_id).journal.stat().st_size
        samples: dict[tuple[str, str], list[tuple[float, float, int]]] = {
            (task, side): [] for task in tasks for side in ("alp", "floor")}
        pages: dict[str, int] = {}
        for _ in range(options.repeats):
            for task, side in samples:  # alternating, so a slower moment of the machine falls on both
                out = Path(temp) / f"{task}-{side}.out"
                samples[task, side].append(measure(task, side, store.root, run_id, out))
                if out.exists():
                    pages[side] = out.stat().st_size
        for task in tasks:  # the subject and its floor did the same work
            assert samples[task, "alp"][0][2] == samples[task, "floor"][0][2], (task, samples[task, "alp"][0],
                                                                                 samples[task, "floor"][0])

    print(f"a {options.calls:,}-call run ({size / 1e6:.1f} MB of journal), each step in a fresh process, "
          f"median of {options.repeats}")
    print(f"{'':<8}{'step ms':>9}{'floor':>8}{'ratio':>8}{'target':>8}{'process ms':>12}{'floor':>8}{'ratio':>8}"
          f"{'target':>8}")
    for task in tasks:
        alp, floor = samples[task, "alp"], samples[task, "floor"]
        step = statistics.median(s for _, s, _ in alp), statistics.median(s for _, s, _ in floor)
        whole = statistics.median(w for w, _, _ in alp), statistics.median(w for w, _, _ in floor)
        print(f"{task:<8}{step[0] * 1e3:>9.0f}{step[1] * 1e3:>8.0f}{step[0] / step[1]:>7.2f}×"
              f"{STEP_TARGETS[task]:>7.1f}×{whole[0] * 1e3:>12.0f}{whole[1] * 1e3:>8.0f}{whole[0] / whole[1]:>7.2f}×"
              f"{PROCESS_TARGET:>7.1f}×")
    print(f"export: a {pages.get('alp', 0) / 1e6:.1f} MB page beside {pages.get('floor', 0) / 1e6:.1f} MB of bare "
          "JSON records")
    print("floors: json.loads of each line, each answer joined to its ask in one pandas.DataFrame; str.contains over "
          "label, prompt and value; DataFrame.to_json of the calls; process: the whole fresh interpreter, imports "
          "included")


if __name__ == "__main__":
    main()
