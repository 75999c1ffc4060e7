"""What the command line prints goes through ``alp_nb.viz.terminal``: control characters from files someone
else wrote are shown as ``\\xNN``, never obeyed, and one value never starts a line of its own."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from alp_nb.viz import terminal
from alp_nb.viz.views import runs

CLI = Path(terminal.__file__).resolve().parents[1] / "cli"


def test_plain_line_shows_every_control_character_and_line_break_escaped():
    assert terminal.plain_line("a\x1b[2Jb\nc\rd\x00e\x7ff\x9bg\th") == "a\\x1b[2Jb\\x0ac\\x0dd\\x00e\\x7ff\\x9bg\th"
    assert terminal.plain_line("Search 🔍 — ok") == "Search 🔍 — ok"


def test_invisible_direction_and_width_characters_are_shown_not_obeyed():
    """Trojan Source: a right-to-left override or a zero-width space makes text read otherwise than it is."""
    assert terminal.plain("main\u202e ,rekrow") == "main\\u202e ,rekrow"
    assert terminal.plain_line("wor\u200bker\u2066x\u2069\ufeff") == "wor\\u200bker\\u2066x\\u2069\\ufeff"
    assert terminal.plain("family 👩\u200d👧") == "family 👩\u200d👧"  # the joiner of emoji sequences stays


def test_json_output_writes_invisible_characters_as_json_escapes(capsys):
    terminal.print_json({"name": "a\u202eb\x9b"})
    out = capsys.readouterr().out
    assert "\u202e" not in out and "\x9b" not in out
    assert json.loads(out) == {"name": "a\u202eb\x9b"}


def test_plain_keeps_the_line_breaks_of_text_whose_lines_are_its_own():
    assert terminal.plain("one\ntwo\x1b") == "one\ntwo\\x1b"


def test_print_lines_keeps_each_value_on_its_own_line(capsys):
    terminal.print_lines("AGENT    x\nRESULT   forged", "last")
    assert capsys.readouterr().out == "AGENT    x\\x0aRESULT   forged\nlast\n"


def test_runs_views_use_the_one_plain_of_the_terminal_module():
    assert runs.plain is terminal.plain


@pytest.mark.parametrize("module", ["agent.py", "context.py", "contract.py", "policy.py", "runs.py"])
def test_the_command_modules_print_only_through_the_terminal_module(module):
    """A bare ``print`` or ``json.dumps`` in a command module would send untrusted text to the terminal as is,
    and an ``input`` prompt is escaped like any line."""
    tree = ast.parse((CLI / module).read_text())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    named = [ast.unparse(call.func) for call in calls]
    assert "print" not in named and "json.dumps" not in named, module
    prompts = [call.args[0] for call in calls if ast.unparse(call.func) == "input"]
    assert all(isinstance(prompt, ast.Call) and ast.unparse(prompt.func) == "plain_line" for prompt in prompts)
