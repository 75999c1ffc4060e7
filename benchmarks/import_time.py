"""What a user pays before alp_nb does anything: the import, a first call, and the command line's start.

Every figure is measured in a fresh interpreter, as a notebook's first cell or
a new terminal command meets it, and runs alternate between the subject and
its floor so that both see the same machine. Printed, median of ``--runs``:

- ``import alp_nb`` beside ``import pydantic`` (the floor), each timed inside
  its fresh interpreter, and the ratio (target: at most 2×);
- a notebook's first real cell, ``alp_nb.builtin_registry()`` with its import;
- the whole process for ``python -c "import alp_nb"`` beside ``python -c pass``;
- ``alp-nb --help`` and ``alp-nb agent list`` (in an empty project, with an
  empty HOME) beside ``python -c pass``.

Run: ``python benchmarks/import_time.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

TARGET = 2.0
"""``import alp_nb`` may cost at most this many times ``import pydantic``."""


def timed_inside(statement: str) -> float:
    """Seconds ``statement`` takes inside a fresh interpreter (its own start-up left out)."""
    code = f"import time; start = time.perf_counter(); {statement}; print(time.perf_counter() - start)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(result.stdout)


def timed_process(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall-clock seconds of a whole fresh process, start-up included."""
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def medians(runs: int, subjects: dict[str, Callable[[], float]]) -> dict[str, float]:
    """The median of each subject over ``runs`` rounds; one round runs every subject once, in turn."""
    samples: dict[str, list[float]] = {name: [] for name in subjects}
    for _ in range(runs):
        for name, measure in subjects.items():
            samples[name].append(measure())
    return {name: statistics.median(values) for name, values in samples.items()}


def cli_command() -> list[str]:
    """The installed ``alp-nb`` script beside this interpreter, else ``python -m alp_nb``."""
    script = Path(sys.executable).with_name("alp-nb")
    return [str(script)] if script.exists() else [sys.executable, "-m", "alp_nb"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters per measurement (default 7)")
    runs = parser.parse_args().runs

    with tempfile.TemporaryDirectory(prefix="alp-import-") as scratch:
        project, home = Path(scratch, "project"), Path(scratch, "home")
        project.mkdir()
        home.mkdir()
        env = {**os.environ, "HOME": str(home)}
        cli = cli_command()

        def process(*arguments: str) -> Callable[[], float]:
            return lambda: timed_process([*arguments], project, env)

        imports = medians(runs, {
            "import pydantic": lambda: timed_inside("import pydantic"),
            "import alp_nb": lambda: timed_inside("import alp_nb"),
            "import alp_nb; alp_nb.builtin_registry()": lambda: timed_inside(
                "import alp_nb; alp_nb.builtin_registry()"),
        })
        processes = medians(runs, {
            "python -c pass": process(sys.executable, "-c", "pass"),
            'python -c "import alp_nb"': process(sys.executable, "-c", "import alp_nb"),
            "alp-nb --help": process(*cli, "--help"),
            "alp-nb agent list": process(*cli, "agent", "list"),
        })

    floor = imports["import pydantic"]
    ratio = imports["import alp_nb"] / floor
    print(f"fresh interpreters, median of {runs}")
    print(f"{'inside the interpreter':<44}{'ms':>8}   ratio to import pydantic")
    for name, seconds in imports.items():
        print(f"{name:<44}{seconds * 1000:>8.1f}   {seconds / floor:.2f}×")
    start = processes["python -c pass"]
    print(f"\n{'whole process, start-up included':<44}{'ms':>8}   ratio to python -c pass")
    for name, seconds in processes.items():
        print(f"{name:<44}{seconds * 1000:>8.1f}   {seconds / start:.2f}×")
    verdict = "within" if ratio <= TARGET else "OVER"
    print(f"\nimport alp_nb costs {ratio:.2f}× import pydantic: {verdict} the target of {TARGET:g}×")


if __name__ == "__main__":
    main()
