"""Reading a run after the fact: ``load_run`` on a 100,000-line journal against a floor, in fresh processes.

The journal is written by the real runtime: a fan-out of ``--calls`` calls (``agent_cap=calls``) with
``MockAgentRunner``. Then, alternating, each in a fresh subprocess and timed inside it after its imports:

(a) ``load_run``: snapshot, the journal through the runtime's reader (checksums and all) into the record's
    DataFrame, and the output;
(b) the floor: ``json.loads`` of each line of the same file into one ``pandas.DataFrame`` (no checks at all).

Each prints its time and its peak memory: peak RSS minus the RSS after imports, beside the journal's size.
Targets: load ≤ 1.5× the floor (medians of ``--repeats`` runs); peak memory ≤ 3× the journal's size.
Run: ``python benchmarks/replay_load.py [--calls N] [--repeats R]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from runtime_overhead import fanout_run, memory

from alp_nb.runtime import RunStore

LOAD_TARGET, MEMORY_TARGET = 1.5, 3.0


def child(kind: str, root: str, run_id: str) -> None:
    """One measurement, printed as ``seconds rss_before peak_rss rows``: everything is imported first."""
    import json
    import time

    import numpy  # noqa: F401 (imported before the clock starts, as pandas needs it)
    import pandas

    from alp_nb.replay import load_run
    from alp_nb.replay.journal_table import JournalColumns  # noqa: F401 (load_run's modules, imported up front)

    path = RunStore(root).paths(run_id).journal
    before = memory("VmRSS")
    start = time.perf_counter()
    if kind == "load":
        rows = len(load_run(run_id, store=root).journal)
    else:
        with open(path, "rb") as handle:
            rows = len(pandas.DataFrame([json.loads(line) for line in handle]))
    elapsed = time.perf_counter() - start
    print(elapsed, before, memory("VmHWM"), rows)


def measure(kind: str, root: Path, run_id: str) -> tuple[float, int]:
    """(seconds, peak bytes above the RSS after imports) of one fresh process."""
    done = subprocess.run([sys.executable, __file__, "--child", kind, str(root), run_id], check=True,
                          capture_output=True, text=True)
    seconds, before, peak, _rows = done.stdout.split()
    return float(seconds), int(peak) - int(before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(*options.child)
        return

    with tempfile.TemporaryDirectory() as temp:
        store = RunStore(Path(temp) / "runs")
        run_id = fanout_run(store, options.calls)
        size = store.paths(run_id).journal.stat().st_size
        results: dict[str, list[tuple[float, int]]] = {"load": [], "floor": []}
        for _ in range(options.repeats):
            for kind in results:  # alternating, so a slower moment of the machine falls on both
                results[kind].append(measure(kind, store.root, run_id))

    times = {kind: statistics.median(seconds for seconds, _ in runs) for kind, runs in results.items()}
    peaks = {kind: statistics.median(peak for _, peak in runs) for kind, runs in results.items()}
    print(f"load_run of a {options.calls:,}-line journal ({size / 1e6:.1f} MB), fresh processes, "
          f"median of {options.repeats}")
    print(f"{'':<10}{'ms':>9}{'ratio':>8}{'target':>8}{'peak MB':>10}{'/ file':>8}{'target':>8}")
    for kind, label in (("load", "load_run"), ("floor", "floor")):
        ratio = times[kind] / times["floor"]
        target = f"{LOAD_TARGET:>7.1f}×" if kind == "load" else f"{'':>8}"
        memory_target = f"{MEMORY_TARGET:>7.1f}×" if kind == "load" else f"{'':>8}"
        print(f"{label:<10}{times[kind] * 1e3:>9.0f}{ratio:>7.2f}×{target}{peaks[kind] / 1e6:>10.1f}"
              f"{peaks[kind] / size:>7.2f}×{memory_target}")
    print("floor: json.loads of each line into one pandas.DataFrame; peak: peak RSS minus RSS after imports")


if __name__ == "__main__":
    main()
