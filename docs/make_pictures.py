"""Draw the README's pictures, one per notebook, into docs/pictures/ (run it after a picture changes):

    .venv/bin/python docs/make_pictures.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import alp_nb as alp
from alp_nb.runtime import MockAgentRunner, RunStore, run_workflow_sync
from alp_nb.viz.rendering import render

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "contracts"


class _FailsOnce(MockAgentRunner):
    """The mock runner, but its third call fails once: the run stops part way and is resumed."""

    def __init__(self) -> None:
        super().__init__()
        self.made = 0

    async def run(self, prompt, schema=None, label=""):  # type: ignore[no-untyped-def]
        self.made += 1
        if self.made == 3:
            raise ConnectionError(f"the model API refused {label}")
        return await super().run(prompt, schema, label)


def main() -> None:
    registry = alp.builtin_registry()
    pictures = {
        "01-delegation-graph.svg": alp.delegation_graph(registry),
        "02-worker-state-machine.svg": alp.state_machine(registry.get("worker")),
        "03-contract-flow.svg": alp.contract_flow(alp.LoopContract.load(EXAMPLES / "flaky-test-quarantine-loop.json")),
    }
    changes = {"changes": "Rename parse() to load() and drop the unused cache argument."}
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder))
        pictures["04-run-timeline.svg"] = alp.run_timeline(run_workflow_sync("review-changes", changes, store=store))
        failing = run_workflow_sync("review-changes", changes, store=store, runner=_FailsOnce())
        run_workflow_sync("review-changes", changes, resume_from_run_id=failing.run_id, store=store)
        pictures["05-resumed-run-timeline.svg"] = alp.run_timeline(alp.load_run(failing.run_id, store=store))
    for name, picture in pictures.items():
        (HERE / "pictures" / name).write_text(render(picture, "svg"), encoding="utf-8")
        print("wrote", f"docs/pictures/{name}")


if __name__ == "__main__":
    main()
