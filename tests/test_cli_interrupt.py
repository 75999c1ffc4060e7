"""Ctrl-C during any ``alp-nb`` command: one line, ``alp-nb: interrupted``, on stderr and exit 130 (the shell's
code for Ctrl-C), never a traceback, whether it lands while the command line is parsed, while its command
group is imported or while the command runs.

A Ctrl-C that lands before ``alp_nb.cli.main`` is called at all (while Python starts and imports the
package) cannot be covered: nothing of alp_nb runs yet to catch it. So the real signal below is sent once
the child says, from inside the command, that it runs.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import alp_nb.cli.contract
from alp_nb.cli import main

CLEAN = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "translation-sync-loop.json"


def _ctrl_c(*args: object, **kwargs: object) -> None:
    raise KeyboardInterrupt


PLACES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "parsing": lambda monkeypatch: monkeypatch.setattr(argparse.ArgumentParser, "parse_args", _ctrl_c),
    "importing the group": lambda monkeypatch: monkeypatch.setattr(importlib, "import_module", _ctrl_c),
    "running": lambda monkeypatch: monkeypatch.setattr(alp_nb.cli.contract, "lint_contract", _ctrl_c),
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

import alp_nb.cli.contract as contract
from alp_nb.cli import main

read = contract.read_contract_document


def announced(path):
    contract.read_contract_document = read
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
