"""The ``alp-nb`` command in a process of its own, and a workflow kept in a file for ``--script``.

A test that loads a workflow file runs the command in a subprocess: ``load_workflow_file`` saves the file's
workflows in the process-wide default registry, which the other tests share."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

BATCH_SCRIPT = textwrap.dedent('''\
    from alp_nb import saved_workflow


    @saved_workflow(name="batch-review", description="review a batch, one call per item")
    async def batch_review(ctx, args):
        return [await ctx.agent(f"review item {i}", label=f"item-{i}") for i in range(4)]
''')
"""A workflow kept in a file: ``batch-review``, four calls of 11 tokens each with the mock runner."""


def alp_nb(*argv: str) -> subprocess.CompletedProcess[str]:
    """``alp-nb ARGV...`` run to its end in a fresh process: its exit code, stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "alp_nb", *argv], capture_output=True, text=True, check=False)


def batch_script(folder: Path) -> str:
    """The path of ``BATCH_SCRIPT`` written into ``folder``."""
    path = folder / "batch_review.py"
    path.write_text(BATCH_SCRIPT)
    return str(path)


def spent_batch_run(folder: Path, script: str) -> tuple[str, str, subprocess.CompletedProcess[str]]:
    """``batch-review`` from ``script`` run out of a 30-token budget in a store under ``folder``: the store, the
    run id and the command's result."""
    store = str(folder / "runs")
    ran = alp_nb("workflow", "run", "batch-review", "--script", script, "--args", '{"budget": 30}', "--store", store)
    assert ran.returncode == 1, ran.stderr
    return store, (folder / "runs" / "last_run.txt").read_text().strip(), ran
