"""Where a Ctrl-C lands as ``alp-nb`` starts: SIGINTs at random instants of a command's first milliseconds.

Each run starts ``alp-nb agent list`` (its console script, or ``python -m alp_nb`` with ``--module``), sends it a
SIGINT after a delay drawn uniformly from ``0`` to ``--window`` seconds, and sorts what came of it: ``alp-nb:
interrupted`` and exit 130; killed by the signal before Python put its own handler in place (no output); a
traceback from Python's own start (``site`` importing the editable install's finder, the rest of ``site``, the
interpreter's start) or from the import of ``alp_nb`` before its first line, with how the process ended (killed by
the signal, which a shell reports as 130, or ``Fatal Python error`` and exit 1); lost (exit 0), when it landed in a
callback Python runs for the import system (``Exception ignored in: <function _get_module_lock...>``) or in a
``.pth`` line of ``site``, whose errors are printed and passed over; a traceback from alp_nb's own code, which must
never show. The README's exit codes quote these counts.

Run: ``python benchmarks/ctrl_c_at_start.py [--runs N] [--window S] [--seed N] [--module]``.
"""

from __future__ import annotations

import argparse
import collections
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

PLACES = (
    ("/alp_nb/", "traceback from alp_nb's own code"),
    ("__editable__", "traceback: site, importing the editable install's finder"),
    ("<frozen site>", "traceback: site, the rest"),
    ("bin/alp-nb", "traceback: the import of alp_nb, before its first line"),
    ("<frozen runpy>", "traceback: the import of alp_nb, before its first line"),
)
"""What a traceback's text names, in the order it is looked for, and what that says of where the signal landed."""


def outcome(code: int, err: str) -> str:
    """What one run's exit code and stderr say of where its SIGINT landed."""
    if (code, err) == (130, "alp-nb: interrupted\n"):
        return "one line, exit 130"
    if code == 0:
        return "finished before the signal" if not err else "lost: Python printed it as ignored, the command ran"
    if code == -signal.SIGINT and not err:
        return "killed before Python's own handler (no output)"
    if "Traceback" not in err:
        return f"something else: exit {code}, {err[-200:]!r}"
    said = next((said for mark, said in PLACES if mark in err), "traceback: the interpreter's start")
    return f"{said} ({'exit 1, Fatal Python error' if code == 1 else 'killed by the signal'})"


def interrupted(command: list[str], delay: float) -> str:
    """``command agent list`` sent a SIGINT ``delay`` seconds after it was started."""
    child = subprocess.Popen([*command, "agent", "list"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(delay)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate()
    return outcome(child.returncode, err)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--window", type=float, default=0.06, help="seconds (default 0.06)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--module", action="store_true", help="python -m alp_nb instead of the console script")
    args = parser.parse_args()
    command = [sys.executable, "-m", "alp_nb"] if args.module else [str(Path(sys.executable).with_name("alp-nb"))]
    draw = random.Random(args.seed)
    counts = collections.Counter(interrupted(command, draw.uniform(0, args.window)) for _ in range(args.runs))
    print(f"{args.runs} SIGINTs within {args.window * 1000:.0f} ms of starting {' '.join(command)} agent list:")
    for said, count in counts.most_common():
        print(f"{count:6d}  {said}")


if __name__ == "__main__":
    main()
