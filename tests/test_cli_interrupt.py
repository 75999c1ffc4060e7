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
import dis
import os
import sys

import _signal

root, target = os.environ["ALP_NB_PACKAGE"], int(os.environ["ALP_NB_SIGINT_AT_LINE"])
seen = 0
handled_from = 0  # the first line counted with alp_nb's own Ctrl-C handler in place
stops = {}
STOPPING = {"CALL", "IMPORT_NAME", "JUMP_BACKWARD"}


def can_stop(frame):
    code = frame.f_code
    if code not in stops:
        stops[code] = {op.positions.lineno for op in dis.get_instructions(code) if op.opname in STOPPING}
    return frame.f_lineno in stops[code]


def in_alp_nb(frame, event, arg):
    global seen, handled_from
    if event == "line" and (handled_from or can_stop(frame)):
        seen += 1
        if not handled_from and _signal.getsignal(2) is not _signal.default_int_handler:
            handled_from = seen
        if seen == target:
            os.kill(os.getpid(), 2)  # SIGINT, as a Ctrl-C sends it
    return in_alp_nb


def watch(frame, event, arg):
    return in_alp_nb if frame.f_code.co_filename.startswith(root) else None


sys.settrace(watch)
if target < 0:
    import atexit

    atexit.register(lambda: os.write(2, f"lines {seen} handled from {handled_from}\\n".encode()))
"""
"""A ``sitecustomize`` that sends the process a SIGINT at the given line of alp_nb's code that it runs (or, for a
target below 0, says how many such lines the command ran and from which one on alp_nb's own Ctrl-C handler was in
place). Until the handler is in place a line counts only if Python can act on a signal there: at a call, an import
(which may run code) or a loop's jump back; storing a docstring or a function is none of those. From then on every
line counts."""
STARTS = 16
SCRIPT = shutil.which("alp-nb", path=str(Path(sys.executable).parent))
COMMANDS = {"its console script": [str(SCRIPT)], "python -m alp_nb": [sys.executable, "-m", "alp_nb"]}


def _started(tmp_path: Path, command: list[str], at: int) -> subprocess.CompletedProcess[str]:
    """``command agent list`` run with ``KILL_AT_LINE`` as its ``sitecustomize``, a SIGINT at line ``at``."""
    (tmp_path / "sitecustomize.py").write_text(KILL_AT_LINE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "ALP_NB_PACKAGE": str(Path(alp_nb.__file__).parent),
           "ALP_NB_SIGINT_AT_LINE": str(at)}
    return subprocess.run([*command, "agent", "list"], env=env, capture_output=True, text=True, timeout=60)


def _counted(tmp_path: Path, command: list[str]) -> tuple[int, int]:
    """How many lines of alp_nb ``command agent list`` runs, and the first that runs with its handler in place."""
    counted = _started(tmp_path, command, -1)
    assert counted.returncode == 0, counted.stderr
    lines, handled_from = counted.stderr.rsplit("lines ", 1)[1].split(" handled from ")
    return int(lines), int(handled_from)


def _assert_one_line_and_130(finished: subprocess.CompletedProcess[str], where: str) -> None:
    assert (finished.returncode, finished.stdout, finished.stderr) == (130, "", "alp-nb: interrupted\n"), (
        f"a SIGINT at {where}: {finished.stderr[-800:]}")


def test_a_sigint_at_any_line_of_alp_nb_as_the_command_starts_prints_one_line_and_exits_130(tmp_path):
    """``alp-nb agent list``, as its console script runs it, interrupted at 16 lines drawn by a seed from the lines
    of alp_nb it runs in its first part: the package's and the command line's imports, parsing, the group's import."""
    assert SCRIPT is not None, "the alp-nb console script is not installed beside this Python"
    lines, _ = _counted(tmp_path, COMMANDS["its console script"])
    first_part = lines // 2  # up to about the command's own work: the imports and the start come first
    seed = kill_seed()
    for at in sorted(random.Random(seed).sample(range(1, first_part + 1), STARTS)):
        _assert_one_line_and_130(_started(tmp_path, COMMANDS["its console script"], at),
                                 f"line {at} of {lines} ({VARIABLE}={seed})")


@pytest.mark.parametrize("command", COMMANDS)
def test_a_sigint_from_the_first_statement_of_alp_nb_on_prints_one_line_and_exits_130(tmp_path, command):
    """Each line of alp_nb that runs before its Ctrl-C handler is in place and where Python can act on a signal,
    from the package's first statement: the first place a signal can land in alp_nb's code is the first that
    answers it as the command does."""
    assert SCRIPT is not None, "the alp-nb console script is not installed beside this Python"
    _, handled_from = _counted(tmp_path, COMMANDS[command])
    assert handled_from > 1, "alp_nb's handler was in place before its first line, or never"
    for at in range(1, handled_from + 1):
        _assert_one_line_and_130(_started(tmp_path, COMMANDS[command], at), f"line {at}, before the handler")


KILL_AT_DATETIME = """
import os
import sys


class AtDatetime:
    \"\"\"Sends a SIGINT as ``datetime`` is first looked for, then finds nothing, so the usual finders load it.\"\"\"

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "datetime":
            sys.meta_path.remove(AtDatetime)
            os.kill(os.getpid(), 2)
        return None


sys.meta_path.insert(0, AtDatetime)
"""
"""A ``sitecustomize`` that sends a SIGINT at the first import of ``datetime``."""


def test_a_sigint_as_datetime_first_imports_prints_one_line_and_exits_130(tmp_path):
    """pydantic_core's start (Rust, pyo3) imports ``datetime`` and panics when that import fails: a Ctrl-C there
    printed a Rust panic message and a PanicException, which is no KeyboardInterrupt. ``agent list`` loads
    pydantic; its first import of ``datetime``, wherever it is, must answer a Ctrl-C as the command does."""
    (tmp_path / "sitecustomize.py").write_text(KILL_AT_DATETIME)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    finished = subprocess.run([str(SCRIPT), "agent", "list"], env=env, capture_output=True, text=True, timeout=60)
    _assert_one_line_and_130(finished, "the first import of datetime")


@pytest.mark.parametrize("after", [[], ["-m", "alp_nb"], ["alp-nb"]], ids=["plain", "-m alp_nb as its args", "alp-nb"])
def test_a_library_import_of_alp_nb_leaves_the_sigint_handler_alone(after):
    """Only the command sets a handler: ``import alp_nb`` in a script (or a kernel) changes no interpreter-wide
    state, even when the script's own arguments read like the command's."""
    code = "import signal\nbefore = signal.getsignal(2)\nimport alp_nb\nprint(signal.getsignal(2) is before)"
    finished = subprocess.run([sys.executable, "-c", code, *after], capture_output=True, text=True, timeout=60)
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, "True\n", "")


KILL_IN_EXEC = """
import builtins
import sys

import _signal

real_exec = builtins.exec
armed = [True]


def exec_once_interrupted(source, *args, **kwargs):
    if (armed[0] and isinstance(source, str) and "alp_nb.cli" in sys.modules
            and _signal.getsignal(2) is _signal.default_int_handler):  # once the command's main runs
        armed[0] = False
        source = "import os as _os\\n_os.kill(_os.getpid(), 2)\\n" + source
    return real_exec(source, *args, **kwargs)


builtins.exec = exec_once_interrupted
"""
"""A ``sitecustomize`` that sends a SIGINT from inside the first text ``exec`` runs once the command's ``main``
runs (a dataclass's generated methods, a named tuple's: Python runs them from a string)."""


def test_a_sigint_in_code_run_from_a_string_exits_130_under_python_m(tmp_path):
    """Under ``-m``, CPython ends a process by SIGINT (status -2 to its parent) if a KeyboardInterrupt ever escaped
    code it ran from a string, however the program then exits; ``python -m alp_nb`` still exits 130."""
    (tmp_path / "sitecustomize.py").write_text(KILL_IN_EXEC)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    finished = subprocess.run([*COMMANDS["python -m alp_nb"], "agent", "list"], env=env, capture_output=True,
                              text=True, timeout=60)
    _assert_one_line_and_130(finished, "a dataclass's generated code")
