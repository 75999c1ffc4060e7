"""Ctrl-C during any ``alp-nb`` command: one line, ``alp-nb: interrupted``, on stderr and exit 130 (the shell's
code for Ctrl-C), never a traceback, from the first line of alp_nb that runs: while the package and the command
line's modules import, while the command line is parsed, while its command group is imported or while the
command runs.

What comes before alp_nb's first line is Python's own start (reading the site packages, finding the package),
which no code of alp_nb can reach; the test below therefore sends its signals from inside the child, at chosen
lines of alp_nb's own code, counted by a trace hook.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kill_seed import VARIABLE, kill_seed

import alp_nb
import alp_nb.loops.lint
from alp_nb.cli import main

CLEAN = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "translation-sync-loop.json"


def _ctrl_c(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


def _ctrl_c_wrapped(*args: object, **kwargs: object) -> None:
    """A Ctrl-C inside a library's callback, raised again as the library's own error (pydantic's serializers do)."""
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as interrupt:
        raise RuntimeError("Error calling function `<lambda>`: KeyboardInterrupt") from interrupt


PLACES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "parsing": lambda monkeypatch: monkeypatch.setattr(argparse.ArgumentParser, "parse_args", _ctrl_c),
    "importing the group": lambda monkeypatch: monkeypatch.setattr(importlib, "import_module", _ctrl_c),
    "running": lambda monkeypatch: monkeypatch.setattr(alp_nb.loops.lint, "lint_contract", _ctrl_c),
    "a library's callback": lambda monkeypatch: monkeypatch.setattr(alp_nb.loops.lint, "lint_contract",
                                                                    _ctrl_c_wrapped),
}


@pytest.mark.parametrize("place", PLACES)
def test_ctrl_c_anywhere_in_a_command_prints_one_line_and_exits_130(capsys, monkeypatch, place):
    PLACES[place](monkeypatch)
    try:
        code = main(["contract", "lint", str(CLEAN)])
    except KeyboardInterrupt:  # caught here: pytest would stop the session on it
        pytest.fail("Ctrl-C escaped the command line")
    assert code == 130
    assert capsys.readouterr() == ("", "alp-nb: interrupted\n")


CHILD = """
import sys

import alp_nb.loops.loop_contract as contract
from alp_nb.cli import main

read = contract.read_contract_document
told = []


def announced(path):
    if not told:  # once: the command holds this function for every file it reads
        told.append(path)
        print("reading", file=sys.stderr, flush=True)
    return read(path)


contract.read_contract_document = announced
sys.exit(main(sys.argv[1:]))
"""
"""The console script's two lines, with a word to the test from inside the command (its first contract read),
so that the signal cannot land before ``main`` runs."""


def test_a_real_sigint_while_a_command_runs_exits_130_without_a_traceback(tmp_path):
    shutil.copy(CLEAN, tmp_path / "c.json")
    files = ["c.json"] * 20_000  # some seconds of work: the signal lands while the command runs
    child = subprocess.Popen([sys.executable, "-c", CHILD, "contract", "lint", *files], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stderr is not None and child.stderr.readline() == "reading\n"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert "Traceback" not in err
    assert (child.returncode, out, err) == (130, "", "alp-nb: interrupted\n")


KILL_AT_LINE = """
import os
import sys

import _signal

root, target = os.environ["ALP_NB_PACKAGE"], int(os.environ["ALP_NB_SIGINT_AT_LINE"])
seen = 0
ready = False  # from alp_nb's first statement on: it puts its own Ctrl-C handler in place


def in_alp_nb(frame, event, arg):
    global seen, ready
    ready = ready or _signal.getsignal(2) is not _signal.default_int_handler
    if event == "line" and ready:
        seen += 1
        if seen == target:
            os.kill(os.getpid(), 2)  # SIGINT, as a Ctrl-C sends it
    return in_alp_nb


def watch(frame, event, arg):
    return in_alp_nb if frame.f_code.co_filename.startswith(root) else None


sys.settrace(watch)
if target < 0:
    import atexit

    atexit.register(lambda: os.write(2, f"lines {seen}\\n".encode()))
"""
"""A ``sitecustomize`` that sends the process a SIGINT at the given line of alp_nb's code that it runs once its
first statement has put the command's Ctrl-C handler in place (or, for a target below 0, says how many such
lines the command ran)."""
STARTS = 16


def test_a_sigint_at_any_line_of_alp_nb_as_the_command_starts_prints_one_line_and_exits_130(tmp_path):
    """``alp-nb agent list``, as its console script runs it, interrupted at 16 lines drawn by a seed from the lines
    of alp_nb it runs in its first part: the package's and the command line's imports, parsing, the group's import."""
    (tmp_path / "sitecustomize.py").write_text(KILL_AT_LINE)
    script = shutil.which("alp-nb", path=str(Path(sys.executable).parent))
    assert script is not None, "the alp-nb console script is not installed beside this Python"

    def started(at: int) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(tmp_path), "ALP_NB_PACKAGE": str(Path(alp_nb.__file__).parent),
               "ALP_NB_SIGINT_AT_LINE": str(at)}
        return subprocess.run([script, "agent", "list"], env=env, capture_output=True, text=True, timeout=60)

    counted = started(-1)
    assert counted.returncode == 0, counted.stderr
    lines = int(counted.stderr.rsplit("lines ", 1)[1])
    first_part = lines // 2  # up to about the command's own work: the imports and the start come first
    seed = kill_seed()
    for at in sorted(random.Random(seed).sample(range(1, first_part + 1), STARTS)):
        finished = started(at)
        assert (finished.returncode, finished.stdout, finished.stderr) == (130, "", "alp-nb: interrupted\n"), (
            f"a SIGINT at line {at} of {lines} ({VARIABLE}={seed}): {finished.stderr[-800:]}")
