"""Reading a 100,000-call run after the fact, each subject against the reads it needs, in fresh processes.

The runs are written by the real runtime: fan-outs of ``--calls`` calls (``agent_cap=calls``) with
``MockAgentRunner``. Each subject runs in a fresh subprocess, alternating with its floor, timed inside it after
its imports (the subject's modules, imported the same in its floor's process):

- ``load_run``: the record with its ``.journal`` DataFrame, ≤ 1.2× the load floor (it only reads and checks);
- ``RunViewer(load_run(...))``: ≤ 1.3× the load floor (a viewer adds its timeline and its first call to a load);
- ``plan_resume``: ≤ 1.3× the load floor (a plan reads the journal once and rehearses the script against it);
- ``compare_runs`` of two runs: ≤ 1.3× the load floor run on both journals (it reads each run once);
- ``fork_run`` of one answer replaced: ≤ 1.3× the load floor plus ``shutil.copyfile`` of the journal into the
  store (a fork reads its source, writes its copy and asks only what the change touches: here nothing), each
  trial on a fresh copy of the store.

The load floor: ``json.loads`` of each journal line, each answer joined to its ask (the answer names its ask's
``seq``) and kept in one ``pandas.DataFrame``: no checksum, order or seal checked.
Peak memory (peak RSS minus RSS after imports) ÷ the journal's size (both journals for ``compare_runs``) ≤ 4×:
what is read is held about once, as a DataFrame holds it. Medians of ``--repeats``.
Run: ``python benchmarks/replay_load.py [--calls N] [--repeats R] [--subjects load,viewer,plan,compare,fork]``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass
from pathlib import Path

import pandas
from runtime_overhead import REGISTRY, TOKENS, fanout_run, memory

from alp_nb.runtime import RunStore

LOAD_TARGET = 1.2
READS_TARGET = 1.3
MEMORY_TARGET = 4.0
READ_MODULES = ("numpy", "pandas", "alp_nb.replay.record", "alp_nb.replay.journal_table", "alp_nb.replay.timeline",
                "alp_nb.replay.run_calls")
"""What every subject's process imports before its clock (load_run's modules), its floor's too."""


@dataclass(frozen=True)
class Trial:
    """What a child process is given: the store's folder, the runs (the second only for a comparison), calls."""

    root: str
    runs: tuple[str, ...]
    calls: int

    def journal(self, index: int = 0) -> Path:
        return RunStore(self.root).paths(self.runs[index]).journal


def floor_frame(path: Path):
    """The load floor: each line ``json.loads``-ed, each answer joined to its ask, in one DataFrame."""
    asks, answers = {}, []
    with open(path, "rb") as handle:
        for line in map(json.loads, handle):
            if line["kind"] == "ask":
                asks[line["seq"]] = line
            elif line["kind"] == "agent":
                answers.append({**asks[line["ask"]], **line})
    return pandas.DataFrame(answers)


def load_floor(trial: Trial) -> int:
    return len(floor_frame(trial.journal()))


def both_floor(trial: Trial) -> int:
    return len(floor_frame(trial.journal(0))) + len(floor_frame(trial.journal(1)))


def copy_floor(trial: Trial) -> int:
    rows = load_floor(trial)
    shutil.copyfile(trial.journal(), Path(trial.root) / "floor-copy.journal.jsonl")
    return rows


def load(trial: Trial) -> int:
    from alp_nb.replay import load_run

    return len(load_run(trial.runs[0], store=trial.root).journal)


def viewer(trial: Trial) -> int:
    from alp_nb.replay import load_run
    from alp_nb.widgets import RunViewer

    return len(RunViewer(load_run(trial.runs[0], store=trial.root)).record.journal)


def plan(trial: Trial) -> int:
    from alp_nb.replay import plan_resume

    # agent_cap as the run had it: at the default 1,000 the rehearsal stops at call 1,001
    made = plan_resume(trial.runs[0], store=trial.root, registry=REGISTRY, agent_cap=trial.calls)
    assert made.dry_run_status == "completed", made.dry_run_error
    return len(made.calls)


def compare(trial: Trial) -> int:
    from alp_nb.replay import compare_runs

    compared = compare_runs(trial.runs[0], trial.runs[1], store=trial.root)
    assert compared.counts["same"] == trial.calls, compared.counts
    return 2 * len(compared.calls)


def fork(trial: Trial) -> int:
    """``fork_run`` of ``item-0`` answered ``x``, with the run's ``agent_cap``."""
    from alp_nb.replay import fork_run
    from alp_nb.runtime import MockAgentRunner

    runner = MockAgentRunner(tokens=TOKENS)
    forked = fork_run(trial.runs[0], overrides={"item-0": "x"}, store=trial.root, registry=REGISTRY, runner=runner,
                      agent_cap=trial.calls)
    assert forked.status == "completed" and runner.calls == [], (forked.status, forked.error, len(runner.calls))
    return len(forked.journal)


@dataclass(frozen=True)
class Subject:
    """One row of the table: the subject and its floor (each ``Trial -> rows``), the time target, what its
    process imports before the clock beyond ``READ_MODULES``, how many journals it reads, and whether each trial
    needs a fresh copy of the store (it writes into it)."""

    label: str
    run: Callable[[Trial], int]
    floor: Callable[[Trial], int]
    target: float
    floor_says: str
    imports: tuple[str, ...] = ()
    journals: int = 1
    writes: bool = False


SUBJECTS = {
    "load": Subject("load_run", load, load_floor, LOAD_TARGET, "load"),
    "viewer": Subject("RunViewer(load_run)", viewer, load_floor, READS_TARGET, "load",
                      ("ipywidgets", "alp_nb.widgets.run_viewer")),
    "plan": Subject("plan_resume", plan, load_floor, READS_TARGET, "load",
                    ("alp_nb.replay.plan", "alp_nb.runtime.dry_runs")),
    "compare": Subject("compare_runs", compare, both_floor, READS_TARGET, "2× load", ("alp_nb.replay.compare",),
                       journals=2),
    "fork": Subject("fork_run", fork, copy_floor, READS_TARGET, "load + copy",
                    ("alp_nb.replay.forks", "alp_nb.runtime.run", "alp_nb.runtime.fork"), writes=True),
}


def child(name: str, role: str, trial_json: str) -> None:
    """One measurement, printed as JSON: seconds, RSS after imports, peak RSS, rows and the modules imported
    while the clock ran (none, if the imports listed for the subject are all it needs)."""
    subject, trial = SUBJECTS[name], Trial(**json.loads(trial_json))
    for module in (*READ_MODULES, *subject.imports):
        importlib.import_module(module)
    imported = set(sys.modules)
    before = memory("VmRSS")
    start = time.perf_counter()
    rows = (subject.run if role == "subject" else subject.floor)(trial)
    seconds = time.perf_counter() - start
    late = sorted(module for module in set(sys.modules) - imported if module.startswith("alp_nb"))
    print(json.dumps({"seconds": seconds, "before": before, "peak": memory("VmHWM"), "rows": rows, "late": late}))


def measure(name: str, role: str, trial: Trial) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", name, role, json.dumps(trial.__dict__)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


@contextmanager
def trial_root(store: RunStore, run_id: str, fresh: bool, folder: Path) -> Iterator[str]:
    """The store's folder, or a fresh copy of ``run_id``'s files in one, removed after the trial."""
    if not fresh:
        yield str(store.root)
        return
    root = Path(tempfile.mkdtemp(dir=folder))
    for path in astuple(store.paths(run_id)):
        if path.exists():
            shutil.copy2(path, root / path.name)
    try:
        yield str(root)
    finally:
        shutil.rmtree(root)


def run_subject(name: str, store: RunStore, runs: tuple[str, ...], calls: int, repeats: int,
                folder: Path) -> dict[str, list[dict]]:
    """``repeats`` samples of the subject and of its floor, alternating, so a slower moment falls on both."""
    subject = SUBJECTS[name]
    samples: dict[str, list[dict]] = {"subject": [], "floor": []}
    for _ in range(repeats):
        for role, taken in samples.items():
            with trial_root(store, runs[0], subject.writes, folder) as root:
                taken.append(measure(name, role, Trial(root, runs[:subject.journals], calls)))
    late = {module for sample in samples["subject"] for module in sample["late"]}
    if late:
        print(f"note: {subject.label} imported {len(late)} alp_nb modules on the clock: {', '.join(sorted(late))}")
    return samples


def row(name: str, samples: dict[str, list[dict]], size: int) -> str:
    subject = SUBJECTS[name]
    ms = statistics.median(sample["seconds"] for sample in samples["subject"]) * 1e3
    floor_ms = statistics.median(sample["seconds"] for sample in samples["floor"]) * 1e3
    peak = statistics.median(sample["peak"] - sample["before"] for sample in samples["subject"])
    ratio, per_byte = ms / floor_ms, peak / (size * subject.journals)
    return (f"{subject.label:<21}{ms:>8.0f}{floor_ms:>9.0f}{ratio:>7.2f}×{subject.target:>7.1f}×"
            f"{holds(ratio, subject.target):>6}{peak / 1e6:>9.1f}{per_byte:>8.2f}×{MEMORY_TARGET:>7.1f}×"
            f"{holds(per_byte, MEMORY_TARGET):>6}   {subject.floor_says}")


def holds(value: float, target: float) -> str:
    return "yes" if value <= target else "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--subjects", default=",".join(SUBJECTS), help=f"a comma list of {', '.join(SUBJECTS)}")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(*options.child)
        return
    names = [name for name in options.subjects.split(",") if name]
    unknown = set(names) - set(SUBJECTS)
    if unknown:
        parser.error(f"unknown subjects: {', '.join(sorted(unknown))} (known: {', '.join(SUBJECTS)})")

    with tempfile.TemporaryDirectory() as temp:
        store = RunStore(Path(temp) / "runs")
        runs = (fanout_run(store, options.calls), fanout_run(store, options.calls))
        size = store.paths(runs[0]).journal.stat().st_size
        results = {name: run_subject(name, store, runs, options.calls, options.repeats, Path(temp))
                   for name in names}

    print(f"a {options.calls:,}-call run ({size / 1e6:.1f} MB of journal), each subject and its floor in fresh "
          f"processes, alternating, median of {options.repeats}")
    print(f"{'subject':<21}{'ms':>8}{'floor ms':>9}{'ratio':>8}{'target':>8}{'holds':>6}{'peak MB':>9}"
          f"{'/journal':>9}{'target':>8}{'holds':>6}   floor")
    for name in names:
        print(row(name, results[name], size))
    print("load floor: json.loads of each line, each answer joined to its ask, one pandas.DataFrame; copy: "
          "shutil.copyfile of the journal into the store; peak: peak RSS minus RSS after imports")


if __name__ == "__main__":
    main()
