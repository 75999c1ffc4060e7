"""``alp-nb workflow``: list the saved workflows, run or resume one in a run store, show a stored run.

Runs answer every agent call with ``MockAgentRunner``: nothing documents a way to pick another runner
from the command line, and the mock keeps a terminal run offline and repeatable. Other runners
(``AnthropicAgentRunner``) are chosen from Python with ``run_workflow(..., runner=...)``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Self, TextIO

from alp_nb.runtime import DEFAULT_REGISTRY, RunStore, WorkflowInputError, WorkflowRun, resume_workflow, run_workflow
from alp_nb.viz.runs import CallTally, event_line, progress_bar, registry_text, run_text, stored_run_text

STORE_HELP = "run store folder (default: ./.alp-runs)"


def register(groups) -> None:
    """Add ``alp-nb workflow ...`` to the top-level subparsers."""
    workflow = groups.add_parser("workflow", help="list, run, resume and show saved workflows").add_subparsers(
        title="workflow commands")
    workflow.add_parser("list", help="the saved workflows: name, description, phases").set_defaults(handler=_list)
    run = workflow.add_parser("run", help="run a saved workflow (agent calls answered by the mock runner)")
    run.add_argument("name", help="the saved workflow's name")
    run.add_argument("--args", help="the workflow's arguments, a JSON object")
    run.add_argument("--store", help=STORE_HELP)
    run.set_defaults(handler=_run)
    resume = workflow.add_parser("resume", help="resume a run: journaled calls are served from the journal")
    resume.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    resume.add_argument("--store", help=STORE_HELP)
    resume.set_defaults(handler=_resume)
    show = workflow.add_parser("show", help="a stored run: status, usage, phases and every journaled call")
    show.add_argument("run_id", help="wf_…")
    show.add_argument("--store", help=STORE_HELP)
    show.set_defaults(handler=_show)


def _list(args) -> int:
    print(registry_text(DEFAULT_REGISTRY))
    return 0


def _run(args) -> int:
    workflow_args = _json_object(args.args)
    with _Progress(sys.stdout) as progress:
        run = asyncio.run(run_workflow(args.name, workflow_args, store=args.store, on_event=progress))
    return _report(run, args.store)


def _resume(args) -> int:
    with _Progress(sys.stdout) as progress:
        run = asyncio.run(resume_workflow(args.run_id, store=args.store, on_event=progress))
    return _report(run, args.store)


def _show(args) -> int:
    print(stored_run_text(RunStore(args.store).load(args.run_id), limit=None))
    return 0


def _json_object(text: str | None) -> Any:
    """``--args`` parsed; its shape (an object of JSON values) is checked by ``run_workflow``."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError as error:
        raise WorkflowInputError("INVALID_ARGS", f"--args is not valid JSON: {error}") from None


def _report(run: WorkflowRun, store: str | None) -> int:
    print(run_text(run))
    print(f"OUTPUT     {run.launched.output_file}")
    if run.status == "completed":
        return 0
    where = f" --store {store}" if store else ""
    print(f"RESUME     alp-nb workflow resume {run.run_id}{where}")
    return 1


class _Progress:
    """Live events on the terminal: one redrawn bar when the stream is a TTY, plain lines otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.tally = CallTally()
        self.wrote = False

    def __enter__(self) -> Self:
        return self

    def __call__(self, event: dict[str, Any]) -> None:
        line = event_line(event)
        if not self.tty:
            if line is not None:
                print(line, file=self.stream, flush=True)
                self.wrote = True
            return
        if line is None and event.get("type") != "workflow_agent":
            return
        self.tally.add(event)
        above = f"{line}\n\x1b[K" if event.get("type") == "workflow_log" else ""  # log lines stay, above the bar
        self.stream.write(f"\r\x1b[K{above}{progress_bar(self.tally)}")
        self.stream.flush()
        self.wrote = True

    def __exit__(self, *exc_info: object) -> None:
        if self.wrote:  # ends the bar's line, or separates the event lines from the summary
            print(file=self.stream)
