"""A path a command writes to that cannot be written is one line on stderr and exit 2, whatever is in the way:
here, a symlink loop (``ln -s loop loop``), which ``Path.resolve`` answers with a RuntimeError, not an OSError."""

from __future__ import annotations

from pathlib import Path

import pytest
from runtime_support import review

from alp_nb.cli import main

CLEAN = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "translation-sync-loop.json"
COMMANDS = {
    "runs export": lambda store: ["runs", "export", "--store", str(store.root)],
    "contract export": lambda store: ["contract", "export", str(CLEAN)],
    "contract packet": lambda store: ["contract", "packet", str(CLEAN)],
    "contract new": lambda store: ["contract", "new", "nightly"],
}


@pytest.mark.parametrize("through", ["loop/page.html", "loop"], ids=["in-a-looping-folder", "a-looping-file"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_export_path_through_a_symlink_loop_is_one_line_and_exit_2(tmp_path, store, capsys, command, through):
    review(store)
    (tmp_path / "loop").symlink_to("loop")
    output = tmp_path / through
    code = main([*COMMANDS[command](store), "-o", str(output)])
    out, err = capsys.readouterr()
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith(f"alp-nb: {output}") or err.startswith(f"alp-nb: {tmp_path / 'loop'}"), err
