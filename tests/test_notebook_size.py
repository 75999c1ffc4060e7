"""Every committed notebook stays small once executed (outputs and widget state in): at most 500 KB, so that it
opens at once without a kernel and a change to it is a diff a reviewer reads."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
LIMIT_BYTES = 500_000


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_a_committed_notebook_weighs_at_most_500_kb_executed(notebook):
    assert notebook.stat().st_size <= LIMIT_BYTES, f"{notebook.name}: {notebook.stat().st_size:,} bytes"
