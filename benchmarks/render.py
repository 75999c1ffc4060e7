"""What drawing costs: each picture in each format, the stepper's redraw and the viewer's move.

Each picture is built from its core object (the intermediate model alone: the
floor) and then drawn in each of its formats, from the core object each time,
as a user calling ``delegation_graph(registry).to_svg()`` meets it. Printed,
best of ``--repeats``: milliseconds and the ratio to the model alone, for

- the built-ins: the delegation graph, every role's state machine, the status
  lifecycle, both capability matrices, a contract's flow and the timeline of
  the sample ``review-changes`` run;
- scale: a 1,000-agent registry (the DAG of ``registry_scale.py``) for the
  delegation graph and both matrices, and the timeline of a 1,000-call run.

Then the widgets, as a click meets them: a ``WorkflowStepper`` transition
(the session moves and its picture redraws) and a ``RunViewer`` move to the
next call over a ``--journal-calls`` journal, median and worst of 50 moves.
Then the sizes real teams reach, each in fresh interpreters as a user meets it
(median of ``--runs``): the delegation graph of 150 agents (the 9 built-ins and
141 custom agents of a project, 126 trusted, 15 not: ``tests/scale_samples.py``)
and the timeline of a 100,000-call run of three phases, each loaded from disk
and then drawn to SVG: the drawing's milliseconds and the SVG's bytes.
Last, a fresh interpreter's first picture: ``import alp_nb`` and the built-in
delegation graph's SVG, beside ``import alp_nb`` and the registry alone.

Targets: a stepper redraw or viewer move under 50 ms; the 1,000-agent
delegation graph under 2 s; the 150-agent graph and the 100,000-call timeline
each drawn in under 1 s and under 2 MB of SVG.
Run: ``python benchmarks/render.py [--repeats R] [--journal-calls N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import matplotlib
from import_time import timed_inside
from registry_scale import best_of, generated_agents
from runtime_overhead import REGISTRY as SCALE_WORKFLOWS

import alp_nb
from alp_nb.agents import create_agent_registry
from alp_nb.loops import LoopContract
from alp_nb.replay import timeline_of
from alp_nb.runtime import MockAgentRunner, RunStore, run_workflow
from alp_nb.viz.pictures.timeline_picture import RunTimeline

CONTRACT = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "flaky-test-quarantine-loop.json"
TESTS = Path(__file__).resolve().parents[1] / "tests"
INSTANT_MS = 50.0
LARGE_GRAPH_MS = 2000.0
SCALE_MS, SCALE_BYTES = 1000.0, 2_000_000
TEAM, TRUSTED, UNTRUSTED = "team", 126, 15
RUN, RUN_CALLS = "run", 100_000
DRAWN_AT_SCALE = """
import json, sys, time
sys.path[:0] = [{tests!r}]
start = time.perf_counter()
import alp_nb
{load}
loaded = time.perf_counter()
svg = {draw}.to_svg()
drawn = time.perf_counter()
print(json.dumps({{"load": loaded - start, "draw": drawn - loaded, "bytes": len(svg.encode())}}))
"""
"""A fresh interpreter that loads a subject from disk, then draws it: the seconds of each, and the SVG's bytes."""


def best_ms(repeats: int, work: Callable[[], object]) -> float:
    return best_of(repeats, work) * 1e3


def drawn(picture: Any) -> None:
    """matplotlib's ``draw`` and the figure really rendered, as a notebook shows it."""
    import matplotlib.pyplot as plt

    axes = picture.draw()
    axes.figure.canvas.draw()
    plt.close(axes.figure)


FORMATS: Mapping[str, Callable[[Any], object]] = {
    "svg": lambda picture: picture.to_svg(),
    "mermaid": lambda picture: picture.to_mermaid(),
    "text": lambda picture: picture.to_text(),
    "draw": drawn,
}


def picture_row(repeats: int, name: str, build: Callable[[], Any]) -> list[str]:
    """``name``'s model time, then each format's time from the core object and its ratio to the model."""
    build()  # the first call pays for imports: the fresh-interpreter line below measures that
    model = best_ms(repeats, build)
    cells = [f"{name:<34}{model:>9.1f}"]
    sample = build()
    for fmt, render in FORMATS.items():
        if fmt != "draw" and fmt not in sample.formats:
            cells.append(f"{'—':>17}")
            continue
        total = best_ms(repeats, lambda render=render: render(build()))
        cells.append(f"{total:>9.1f} {total / model:>5.1f}×  ")
    return cells


def sample_run(store: RunStore) -> Any:
    return asyncio.run(run_workflow("review-changes", {"changes": "rename parse() to load()"},
                                    store=store, runner=MockAgentRunner()))


def fanout_run(store: RunStore, calls: int) -> Any:
    run = asyncio.run(run_workflow("fanout", {"calls": calls}, store=store, registry=SCALE_WORKFLOWS,
                                   agent_cap=calls, runner=MockAgentRunner()))
    if run.status != "completed":
        raise SystemExit(f"the {calls:,}-call run did not complete: {run.error}")
    return run


def pictures(repeats: int, scratch: Path) -> None:
    builtins = alp_nb.builtin_registry()
    large = create_agent_registry(generated_agents(1000))
    contract = LoopContract.load(CONTRACT)
    store = RunStore(scratch / "runs")
    review, thousand = sample_run(store), fanout_run(store, 1000)

    subjects: list[tuple[str, Callable[[], Any]]] = [
        ("delegation graph, built-ins", lambda: alp_nb.delegation_graph(builtins)),
        *[(f"state machine, {definition.id}", lambda definition=definition: alp_nb.state_machine(definition))
          for definition in builtins],
        ("status lifecycle", alp_nb.status_lifecycle),
        ("capability matrix, built-ins", lambda: alp_nb.capability_matrix(builtins)),
        ("  by state", lambda: alp_nb.capability_matrix(builtins, by_state=True)),
        ("contract flow", lambda: alp_nb.contract_flow(contract)),
        ("timeline, review-changes", lambda: RunTimeline(timeline_of(review))),
        ("delegation graph, 1,000 agents", lambda: alp_nb.delegation_graph(large)),
        ("capability matrix, 1,000 agents", lambda: alp_nb.capability_matrix(large)),
        ("  by state", lambda: alp_nb.capability_matrix(large, by_state=True)),
        ("timeline, 1,000 calls", lambda: RunTimeline(timeline_of(thousand))),
    ]
    print(f"Pictures, best of {repeats}: ms, and the ratio to building the model alone")
    print(f"{'picture':<34}{'model':>9}" + "".join(f"{fmt:>9}{'':8}" for fmt in FORMATS))
    for name, build in subjects:
        print("".join(picture_row(repeats, name, build)))

    large_svg = best_ms(repeats, lambda: alp_nb.delegation_graph(large).to_svg())
    print(f"1,000-agent delegation graph to SVG: {large_svg:.0f} ms, {verdict(large_svg, LARGE_GRAPH_MS)}")



def moves_ms(moves: int, move: Callable[[int], object]) -> tuple[float, float]:
    """Median and worst milliseconds of ``moves`` calls to ``move(i)``, each timed on its own."""
    timings = []
    for index in range(moves):
        start = time.perf_counter()
        move(index)
        timings.append((time.perf_counter() - start) * 1e3)
    return statistics.median(timings), max(timings)


def stepper_move(moves: int) -> tuple[float, float, float]:
    """A click on ``transition`` (or ``back``, every other move) of worker's stepper, its picture redrawn; and
    the floor: the same session move alone, with no widget."""
    from alp_nb.widgets import WorkflowStepper
    from alp_nb.workflow import WorkflowSession

    worker = alp_nb.builtin_registry().get("worker")
    stepper = WorkflowStepper(worker)

    def click(index: int) -> None:
        (stepper.back_button if index % 2 else stepper.transition_button).click()

    median, worst = moves_ms(moves, click)
    session = WorkflowSession(worker)

    def step(index: int) -> None:
        if index % 2:
            session.back()
        else:
            session.transition()

    floor, _ = moves_ms(moves, step)
    return median, worst, floor



def viewer_move(moves: int, scratch: Path, calls: int) -> tuple[float, float, float, float]:
    """Opening a ``RunViewer`` on a stored ``calls``-call run, from its files as an engineer after the run does
    (seconds), then a click on ``next`` (the cursor, the call, its neighbours and the phase progress redrawn),
    median and worst ms; and the floor: the call looked up alone."""
    from alp_nb.widgets import RunViewer

    store = RunStore(scratch / "big")
    run_id = fanout_run(store, calls).run_id
    start = time.perf_counter()
    viewer = RunViewer((store, run_id))
    opening = time.perf_counter() - start
    if len(viewer.calls) != calls:
        raise SystemExit(f"the viewer shows {len(viewer.calls):,} calls of {calls:,}")
    median, worst = moves_ms(moves, lambda _: viewer.next_button.click())
    floor, _ = moves_ms(moves, viewer.calls.call)
    return opening, median, worst, floor


def first_picture(runs: int) -> tuple[float, float]:
    """Median seconds, each in a fresh interpreter, of ``import alp_nb`` and the built-in delegation graph as SVG;
    and of ``import alp_nb`` and the registry alone."""
    picture = "import alp_nb; alp_nb.delegation_graph(alp_nb.builtin_registry()).to_svg()"
    registry = "import alp_nb; alp_nb.builtin_registry()"
    drawn, floor = [], []
    for _ in range(runs):
        drawn.append(timed_inside(picture))
        floor.append(timed_inside(registry))
    return statistics.median(drawn), statistics.median(floor)


def at_scale(runs: int, scratch: Path) -> None:
    """The 150-agent delegation graph and the 100,000-call timeline, each loaded and drawn in ``runs`` fresh
    interpreters: the median drawing time and the SVG's size, against the targets."""
    sys.path[:0] = [str(TESTS)]
    from scale_samples import custom_agent_project, scale_run

    custom_agent_project(scratch / TEAM, TRUSTED, UNTRUSTED)
    run_id = scale_run(scratch / RUN, RUN_CALLS).run_id
    subjects = {
        f"delegation graph, {9 + TRUSTED + UNTRUSTED} agents": (
            "from alp_nb.agents import TrustStore, project_registry\n"
            f"registry = project_registry({str(scratch / TEAM / 'project')!r}, "
            f"TrustStore({str(scratch / TEAM / 'trust.json')!r}))", "alp_nb.delegation_graph(registry)"),
        f"timeline, {RUN_CALLS:,} calls": (
            f"record = alp_nb.load_run({run_id!r}, store={str(scratch / RUN / 'runs')!r})",
            "alp_nb.run_timeline(record)"),
    }
    for name, (load, draw) in subjects.items():
        code = DRAWN_AT_SCALE.format(tests=str(TESTS), load=load, draw=draw)
        results = [json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                             check=True).stdout) for _ in range(runs)]
        drawn = statistics.median(result["draw"] for result in results) * 1e3
        loaded = statistics.median(result["load"] for result in results) * 1e3
        size = results[0]["bytes"]
        held = "within" if drawn < SCALE_MS and size < SCALE_BYTES else "OVER"
        print(f"{name}: drawn in {drawn:.0f} ms (median of {runs} fresh interpreters, after {loaded:.0f} ms to "
              f"import alp_nb and load it), {size:,} bytes of SVG; {held} the {SCALE_MS:.0f} ms and "
              f"{SCALE_BYTES / 1e6:.0f} MB targets")


def verdict(ms: float, target: float) -> str:
    return f"within the {target:.0f} ms target" if ms < target else f"OVER the {target:.0f} ms target"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of this many, per picture and format")
    parser.add_argument("--journal-calls", type=int, default=100_000, help="calls of the viewer's run")
    parser.add_argument("--runs", type=int, default=5, help="fresh interpreters for the first picture")
    options = parser.parse_args()
    matplotlib.use("Agg")
    with tempfile.TemporaryDirectory(prefix="alp-render-") as scratch:
        pictures(options.repeats, Path(scratch))
        print()
        median, worst, floor = stepper_move(50)
        print(f"WorkflowStepper click and redraw: median {median:.2f} ms, worst {worst:.2f} ms "
              f"({median / floor:.0f}× the session move alone, {floor * 1e3:.1f} µs); {verdict(worst, INSTANT_MS)}")
        opening, median, worst, floor = viewer_move(50, Path(scratch), options.journal_calls)
        print(f"RunViewer over {options.journal_calls:,} calls: opened in {opening:.2f} s; next call: "
              f"median {median:.2f} ms, worst {worst:.2f} ms ({median / floor:.0f}× looking the call up alone, "
              f"{floor * 1e3:.1f} µs); {verdict(worst, INSTANT_MS)}")
        print()
        at_scale(options.runs, Path(scratch))
    drawn, floor = first_picture(options.runs)
    print(f"fresh interpreter, import and the built-in delegation graph's SVG: {drawn * 1e3:.0f} ms, "
          f"{drawn / floor:.2f}× import and the registry alone ({floor * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
