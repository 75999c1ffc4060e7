"""s16 runs written from the reference page (``reference/s16-runtime.md`` "What it writes"), not with alp_nb's
code: keys ``agent-`` + 10 digits of the documented formula, the snapshot's shape, the output's
``{"error": ...}``."""

from __future__ import annotations

import hashlib
import json

from alp_nb.runtime import RunStore

CRASH = "simulated runner crash at call 11"
OVER_BUDGET = "token budget exceeded (407 > 400)"


def s16_key(label: str, prompt: str, schema=None) -> str:
    """``"agent-%010d" % (int(sha256("agent|" + label + "|" + prompt + "|" + json.dumps(schema,
    sort_keys=True)).hexdigest(), 16) % 10**10)``, as the reference page gives it."""
    basis = "agent|" + label + "|" + prompt + "|" + json.dumps(schema, sort_keys=True)
    return f"agent-{int(hashlib.sha256(basis.encode()).hexdigest(), 16) % 10**10:010d}"


def write_s16_run(root, name: str, *, status: str, calls: list[tuple[str, str, str]],
                  progress: list[dict] | None = None, usage=None, output=None,
                  args: dict | None = None) -> tuple[RunStore, str]:
    """An s16 run in ``root`` (the reference's ``.runtime`` folder): ``calls`` (label, phase, prompt) journaled in
    order, each ``{"key", "value"}``; the snapshot's progress is ``progress``, else a phase item per new phase and
    a done item per call, in the same order; its args are ``args`` (default ``{"changes": "diff"}``)."""
    root.mkdir(parents=True, exist_ok=True)
    run_id = f"wf_{name}_0123456789abcdef"
    if progress is None:
        progress, seen = [], set()
        for label, phase, _ in calls:
            if phase not in seen:
                seen.add(phase)
                progress.append({"type": "workflow_phase", "title": phase})
            progress.append({"type": "workflow_agent", "label": label, "phase": phase, "status": "done"})
        progress.append({"type": "workflow_log", "message": "done"})
    usage = usage or {"agents": len(calls), "tokens": 37 * len(calls)}
    (root / f"{run_id}.json").write_text(json.dumps({
        "runId": run_id, "workflowName": name, "args": {"changes": "diff"} if args is None else args,
        "task": {"taskId": f"local_workflow_{run_id}", "taskType": "local_workflow", "runId": run_id,
                 "workflowName": name, "status": status, "usage": usage, "progress": progress}}, indent=2))
    (root / f"{run_id}.journal.jsonl").write_text("".join(
        json.dumps({"key": s16_key(label, prompt), "value": f"answer to {prompt}"}) + "\n"
        for label, _, prompt in calls))
    if output is not None:
        (root / f"{run_id}.output.json").write_text(json.dumps(output))
    (root / f"{run_id}.lock").write_text("")
    (root / "last_run.txt").write_text(run_id)
    return RunStore(root), run_id


CRASHED_CALLS = [(f"audit:{n}", "Audit", f"audit file {n}") for n in range(1, 5)] + [
    (f"verify:{n}", "Verify", f"verify finding {n}") for n in range(1, 7)]
"""Ten calls that finished before the runner crashed on the eleventh."""
