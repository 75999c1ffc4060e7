"""A run pays only for what it uses: launching and resuming a workflow, from Python or from ``alp-nb workflow``,
imports no pydantic (about 100 ms a process, more than a 2,000-call run): the runtime's snapshot, journal
entries, events and workflow metadata are msgspec records. Definitions, loaded only when a role is used, are
pydantic models still."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

FANOUT = '''
import alp_nb as alp


@alp.saved_workflow(name="fanout", description="parallel fan-out")
async def fanout(ctx, args):
    return len(await ctx.parallel([lambda i=i: ctx.agent(f"item {i}", label=f"item-{i}") for i in range(20)]))
'''


def _heavy_modules_after(code: str) -> str:
    """What ``code`` prints, then the pydantic modules it left imported, run in a fresh interpreter."""
    probe = textwrap.dedent(code) + "\nimport sys\nprint(sorted(m for m in sys.modules if m.startswith('pydantic')))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_run_and_its_resume_from_python_import_no_pydantic(tmp_path):
    shown = _heavy_modules_after(f"""
        import alp_nb as alp
        workflows = alp.WorkflowRegistry()

        async def fanout(ctx, args):
            return await ctx.parallel([lambda i=i: ctx.agent(f"item {{i}}", label=f"item-{{i}}") for i in range(20)])

        workflows.register({{"name": "fanout", "description": "d"}}, fanout)
        store = alp.RunStore({str(tmp_path)!r})
        run = alp.run_workflow_sync("fanout", store=store, registry=workflows, runner=alp.MockAgentRunner())
        again = alp.run_workflow_sync("fanout", resume_from_run_id=run.run_id, store=store, registry=workflows)
        print(run.status, again.status, again.task.attempts[-1].cached)
    """)
    assert shown.splitlines() == ["completed completed 20", "[]"]


def test_alp_nb_workflow_run_and_resume_import_no_pydantic(tmp_path):
    script = tmp_path / "fanout.py"
    script.write_text(FANOUT)
    store = tmp_path / "runs"
    cli = "from alp_nb.cli import main\nassert main({words!r}) == 0"
    ran = _heavy_modules_after(cli.format(words=["workflow", "run", "fanout", "--script", str(script), "--store",
                                                str(store)]))
    assert ran.splitlines()[-1] == "[]" and "completed" in ran
    resumed = _heavy_modules_after(cli.format(words=["workflow", "resume", "--script", str(script), "--store",
                                                    str(store)]))
    assert resumed.splitlines()[-1] == "[]" and "completed" in resumed
    assert len(list(Path(store).glob("*.journal.jsonl"))) == 1
