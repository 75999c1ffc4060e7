"""``alp-nb workflow``: list the saved workflows, run or resume one in a run store, show a stored run.

Ctrl-C during ``run`` or ``resume`` stops the run (recorded ``cancelled``, resumable), prints how to resume it and
exits 130. Runs answer every agent call with ``MockAgentRunner``: nothing documents a way to pick another runner
from the command line, and the mock keeps a terminal run offline and repeatable. Other runners
(``AnthropicAgentRunner``) are chosen from Python with ``run_workflow(..., runner=...)``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Self, TextIO

from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted
from alp_nb.runtime import DEFAULT_REGISTRY, RunStore, WorkflowInputError, WorkflowRun, resume_workflow, run_workflow
from alp_nb.viz.runs import CallTally, event_line, progress_bar, run_text, stored_run_text, workflow_registry_text

STORE_HELP = "run store folder (default: ./.alp-runs)"
INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C (128 + SIGINT)


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb workflow ...`` commands to their group's parser."""
    workflow = group.add_subparsers(title="workflow commands")
    workflow.add_parser("list", help="the saved workflows: name, description, phases, args").set_defaults(
        handler=_list)
    run = workflow.add_parser("run", help="run a saved workflow (agent calls answered by the mock runner)")
    run.add_argument("name", help="the saved workflow's name")
    run.add_argument("--args", help="the workflow's arguments, a JSON object")
    run.add_argument("--store", help=STORE_HELP)
    run.add_argument("--agent-cap", type=int, default=1000, help="distinct agent calls allowed (default 1000)")
    run.set_defaults(handler=_run)
    resume = workflow.add_parser("resume", help="resume a run: journaled calls are served from the journal")
    resume.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    resume.add_argument("--store", help=STORE_HELP)
    resume.add_argument("--agent-cap", type=int, default=1000,
                        help="distinct agent calls allowed (default 1000); raise it to finish a run that hit the cap")
    resume.set_defaults(handler=_resume)
    show = workflow.add_parser("show", help="a stored run: status, usage, phases and every journaled call")
    show.add_argument("run_id", help="wf_…")
    show.add_argument("--store", help=STORE_HELP)
    show.set_defaults(handler=_show)


def _list(args: argparse.Namespace) -> int:
    print(workflow_registry_text(DEFAULT_REGISTRY))
    return 0


def _run(args: argparse.Namespace) -> int:
    workflow_args = _json_object(args.args)
    return _drive(lambda progress: run_workflow(args.name, workflow_args, store=args.store, agent_cap=args.agent_cap,
                                                on_event=progress), args.store)


def _resume(args: argparse.Namespace) -> int:
    return _drive(lambda progress: resume_workflow(args.run_id, store=args.store, agent_cap=args.agent_cap,
                                                   on_event=progress), args.store)


def _show(args: argparse.Namespace) -> int:
    stored = RunStore(args.store).load(args.run_id)  # its reader's warnings reach stderr one line each (cli main)
    print(stored_run_text(stored, every_call=True, show_warnings=False))
    return 0


def _drive(launch: Callable[[_Progress], Awaitable[WorkflowRun]], store: str | None) -> int:
    """Run to the end with live progress. Ctrl-C stops the run (it is recorded ``cancelled``, its journal kept)
    and says how to resume it; a reader that closed the pipe stops it too, quietly."""
    progress = _Progress(sys.stdout)

    async def watched() -> WorkflowRun:
        progress.task = asyncio.current_task()
        return await launch(progress)

    try:
        with progress:
            run = asyncio.run(watched())
    except KeyboardInterrupt:
        print(f"alp-nb: interrupted{_resume_hint(progress.run_id, store, '; resume with ')}", file=sys.stderr)
        return INTERRUPTED
    except asyncio.CancelledError:
        if progress.closed:
            raise BrokenPipeError from None  # the command line's quiet exit for a reader that left
        raise
    return _report(run, store)


def _json_object(text: str | None) -> Any:
    """``--args`` parsed strictly (``loads_untrusted``: no NaN, repeated key, deep nesting or huge integer); its
    shape (an object of JSON values) is checked by ``run_workflow``."""
    if text is None:
        return None
    try:
        return loads_untrusted(text)
    except UntrustedJson as error:
        problem = error.message.removeprefix("not JSON: ")  # the phrase already says it is not JSON
        raise WorkflowInputError("INVALID_ARGS", f"--args is not valid JSON: {problem}") from None


def _report(run: WorkflowRun, store: str | None) -> int:
    print(run_text(run))
    print(f"OUTPUT     {run.launched.output_file}")
    if run.status == "completed":
        return 0
    print(_resume_hint(run.run_id, store, "RESUME     "))
    return 1


def _resume_hint(run_id: str | None, store: str | None, lead: str) -> str:
    """``lead`` and the command that resumes the run (nothing before a run id was given out)."""
    if run_id is None:
        return ""
    where = f" --store {store}" if store else ""
    return f"{lead}alp-nb workflow resume {run_id}{where}"


class _Progress:
    """Live events on the terminal: one redrawn bar when the stream is a TTY, plain lines otherwise. It keeps
    the run id it was given, and if the reader closes the pipe it stops writing and cancels the run's ``task``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.tally = CallTally()
        self.wrote = False
        self.closed = False
        self.run_id: str | None = None
        self.task: asyncio.Task[Any] | None = None

    def __enter__(self) -> Self:
        return self

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") == "async_launched":
            self.run_id = event.get("runId")
        if self.closed:
            return
        try:
            self._show(event)
        except BrokenPipeError:
            self.closed = True
            if self.task is not None:
                self.task.cancel()

    def _show(self, event: dict[str, Any]) -> None:
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
        if self.wrote and not self.closed:  # ends the bar's line, or separates the event lines from the summary
            print(file=self.stream)
