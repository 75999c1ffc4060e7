"""Where a user waits, beside the s16 reference runtime (``s16_reference.py``, a faithful runner of its workload):
each case in a fresh process of the same kind on both sides, interleaved, medians printed with each target and
whether it holds. Both sides run the reference's own workload: a fan-out in the phase ``Fanout``, call ``i``
labelled ``item:NNNNN`` and asked ``Classify work item NNNNN``. Run it in the environment ``make lab`` builds
(``make bench`` does): the lab's packages are what a kernel imports beside alp_nb.

- **kernel**: a fresh Jupyter kernel's first cell (imports included, timed inside the cell) running a 20-call
  fan-out, against the same first cell of a fresh kernel running the reference's;
- **cli run / cli resume**: ``alp-nb workflow run`` of a 2,000-call fan-out and ``alp-nb workflow resume`` of it
  (every call served from the journal), whole processes, against the reference's run and resume;
- **disk**: the bytes a 2,000-call run leaves in its store, against the reference's; the bytes one all-cached
  resume adds;
- **start**: ``alp-nb runs list`` on a one-run store and ``alp-nb contract lint`` of a whole contract, against
  ``alp-nb agent show worker``.

Reading a run after the fact (``load_run``, ``RunViewer``, ``plan_resume``, ``compare_runs``, ``fork_run``) is
measured against its floor in ``replay_load.py``.

Run: ``python benchmarks/against_reference.py [--repeats R] [--calls N] [--kernel-calls N] [--cases a,b]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "s16_reference.py"
BIN = Path(sys.executable).parent
ALP_NB = str(BIN / "alp-nb")
FANOUT = '''
import alp_nb as alp


@alp.saved_workflow(name="fanout", description="parallel fan-out", phases=["Fanout"])
async def fanout(ctx, args):
    ctx.phase("Fanout")
    calls = [lambda i=i: ctx.agent(f"Classify work item {i:05d}", label=f"item:{i:05d}")
             for i in range(args["calls"])]
    return len(await ctx.parallel(calls))
'''
KERNEL_CELL = '''
import time
started = time.perf_counter()
import alp_nb as alp
workflows = alp.WorkflowRegistry()

async def fanout(ctx, args):
    ctx.phase("Fanout")
    return len(await ctx.parallel([lambda i=i: ctx.agent(f"Classify work item {i:05d}", label=f"item:{i:05d}")
                                   for i in range(args["calls"])]))

workflows.register({"name": "fanout", "description": "parallel fan-out", "phases": ["Fanout"]}, fanout)
run = alp.run_workflow_sync("fanout", {"calls": CALLS}, store=alp.RunStore(STORE), registry=workflows,
                            agent_cap=CALLS, runner=alp.MockAgentRunner())
assert run.status == "completed", run.error
print(time.perf_counter() - started)
'''
REFERENCE_CELL = '''
import time
started = time.perf_counter()
import sys
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, HERE)
import s16_reference
with ThreadPoolExecutor(1) as pool:  # off the kernel's running event loop, as run_workflow_sync runs
    assert pool.submit(s16_reference.main, ["run", STORE, "CALLS"]).result() == 0
print(time.perf_counter() - started)
'''
"""The reference's first cell: the same fan-out through its runner, its imports included."""
CONTRACT = HERE.parent / "examples" / "contracts" / "flaky-test-quarantine-loop.json"
"""What ``contract lint`` reads: a whole contract, which every rule reads (a draft the schema refuses reads
only LC001's)."""
TARGETS = {"kernel": 1.0, "cli run": 1.0, "cli resume": 1.0, "disk": 1.5, "runs list": 1.0, "contract lint": 1.0}
RESUME_GROWTH = 10_000
"""An all-cached resume may add at most this many bytes."""
START_SLACK = 1.10
"""``runs list`` and ``contract lint`` "as fast as" ``agent show``: within 10 %, the noise of one process start."""


def env() -> dict[str, str]:
    """The user's environment, with byte-compiled modules written and read as on any machine."""
    values = dict(os.environ)
    values.pop("PYTHONDONTWRITEBYTECODE", None)
    return values


def wall(command: list[str], cwd: Path | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env(), cwd=cwd)
    return time.perf_counter() - started


def run_id_in(store: Path) -> str:
    return (store / "last_run.txt").read_text().strip()


def store_bytes(store: Path) -> int:
    return sum(path.stat().st_size for path in store.iterdir() if path.is_file())


class Cases:
    """Each case returns (subject seconds, reference seconds) for one interleaved pair."""

    def __init__(self, temp: Path, calls: int, kernel_calls: int) -> None:
        self.temp, self.calls, self.kernel_calls = temp, calls, kernel_calls
        self.script = temp / "fanout.py"
        self.script.write_text(FANOUT)
        self.contract = CONTRACT
        self.count = 0
        self.disk: dict[str, list[int]] = {"alp": [], "ref": [], "alp resume": [], "ref resume": []}

    def fresh(self, name: str) -> Path:
        self.count += 1
        return self.temp / f"{name}-{self.count}"

    def alp_run(self, store: Path) -> list[str]:
        return [ALP_NB, "workflow", "run", "fanout", "--script", str(self.script), "--args",
                json.dumps({"calls": self.calls}), "--agent-cap", str(self.calls), "--store", str(store)]

    def alp_resume(self, store: Path) -> list[str]:
        return [ALP_NB, "workflow", "resume", "--script", str(self.script), "--agent-cap", str(self.calls),
                "--store", str(store)]

    def ref(self, *words: str) -> list[str]:
        return [sys.executable, str(REFERENCE), *words]

    def first_cell(self, cell: str) -> float:
        """The seconds a fresh kernel's first cell says it took."""
        from jupyter_client.manager import start_new_kernel

        manager, client = start_new_kernel(kernel_name="python3", env=env())
        try:
            printed: list[str] = []
            reply = client.execute_interactive(cell, timeout=120, output_hook=lambda message: printed.append(
                message["content"].get("text", "")) if message["msg_type"] == "stream" else None)
            assert reply["content"]["status"] == "ok", reply["content"]
            return float("".join(printed).split()[-1])
        finally:
            client.stop_channels()
            manager.shutdown_kernel(now=True)

    def kernel(self) -> tuple[float, float]:
        def filled(cell: str) -> str:
            store, here = repr(str(self.fresh("kernel"))), repr(str(HERE))
            return cell.replace("CALLS", str(self.kernel_calls)).replace("STORE", store).replace("HERE", here)

        return self.first_cell(filled(KERNEL_CELL)), self.first_cell(filled(REFERENCE_CELL))

    def cli_run(self) -> tuple[float, float]:
        alp, ref = self.fresh("alp"), self.fresh("ref")
        subject = wall(self.alp_run(alp))
        reference = wall(self.ref("run", str(ref), str(self.calls)))
        self.disk["alp"].append(store_bytes(alp))
        self.disk["ref"].append(store_bytes(ref))
        return subject, reference

    def cli_resume(self) -> tuple[float, float]:
        alp, ref = self.fresh("alp"), self.fresh("ref")
        wall(self.alp_run(alp))
        wall(self.ref("run", str(ref), str(self.calls)))
        before = store_bytes(alp), store_bytes(ref)
        subject = wall(self.alp_resume(alp))
        reference = wall(self.ref("resume", str(ref), str(self.calls), run_id_in(ref)))
        self.disk["alp resume"].append(store_bytes(alp) - before[0])
        self.disk["ref resume"].append(store_bytes(ref) - before[1])
        return subject, reference

    def starts(self, command: list[str]) -> tuple[float, float]:
        return wall(command, cwd=self.temp), wall([ALP_NB, "agent", "show", "worker"], cwd=self.temp)

    def runs_list(self) -> tuple[float, float]:
        store = self.temp / "one-run"
        if not store.exists():
            wall(self.alp_run(store))
        return self.starts([ALP_NB, "runs", "list", "--store", str(store)])

    def contract_lint(self) -> tuple[float, float]:
        command = [ALP_NB, "contract", "lint", str(self.contract)]
        started = time.perf_counter()
        subprocess.run(command, stdout=subprocess.DEVNULL, env=env(), cwd=self.temp, check=False)  # findings: exit 1
        subject = time.perf_counter() - started
        return subject, wall([ALP_NB, "agent", "show", "worker"], cwd=self.temp)


CASES: dict[str, Callable[[Cases], tuple[float, float]]] = {
    "kernel": Cases.kernel, "cli run": Cases.cli_run, "cli resume": Cases.cli_resume,
    "runs list": Cases.runs_list, "contract lint": Cases.contract_lint,
}
AGAINST = {"kernel": "reference's first cell", "cli run": "reference run", "cli resume": "reference resume",
           "runs list": "agent show", "contract lint": "agent show"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--kernel-calls", type=int, default=20)
    parser.add_argument("--cases", default=",".join(CASES), help="which cases (default: all)")
    options = parser.parse_args()
    chosen = [name for name in CASES if name in options.cases.split(",")]
    with tempfile.TemporaryDirectory() as temp:
        cases = Cases(Path(temp), options.calls, options.kernel_calls)
        for name in chosen:  # one unmeasured pair first: byte-compiled modules written, as on a user's machine
            CASES[name](cases)
        cases.disk = {side: [] for side in cases.disk}
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
        for _ in range(options.repeats):
            for name in chosen:
                samples[name].append(CASES[name](cases))
    print(f"medians of {options.repeats}, each in a fresh process, interleaved; a {options.calls:,}-call fan-out, "
          f"the first kernel cell's of {options.kernel_calls:,} calls")
    print(f"{'case':<15}{'alp_nb ms':>10}{'against ms':>11}  {'against':<24}{'ratio':>7}{'target':>8}  holds")
    for name in chosen:
        subject = statistics.median(s for s, _ in samples[name])
        reference = statistics.median(r for _, r in samples[name])
        ratio, target = subject / reference, TARGETS[name]
        slack = START_SLACK if name in ("runs list", "contract lint") else 1.0
        print(f"{name:<15}{subject * 1e3:>10.0f}{reference * 1e3:>11.0f}  {AGAINST[name]:<24}{ratio:>6.2f}×"
              f"{target:>7.1f}×  {'yes' if ratio <= target * slack else 'NO'}")
    if cases.disk["alp"]:
        alp, ref = statistics.median(cases.disk["alp"]), statistics.median(cases.disk["ref"])
        print(f"{'disk':<15}{alp:>10,.0f} B{ref:>9,.0f} B  {'reference store':<24}{alp / ref:>6.2f}×"
              f"{TARGETS['disk']:>7.1f}×  {'yes' if alp / ref <= TARGETS['disk'] else 'NO'}")
    if cases.disk["alp resume"]:
        alp, ref = statistics.median(cases.disk["alp resume"]), statistics.median(cases.disk["ref resume"])
        print(f"{'resume adds':<15}{alp:>10,.0f} B{ref:>9,.0f} B  {'reference resume':<24}{'':>7}"
              f"{RESUME_GROWTH:>6,} B  {'yes' if alp < RESUME_GROWTH else 'NO'}")


if __name__ == "__main__":
    main()
