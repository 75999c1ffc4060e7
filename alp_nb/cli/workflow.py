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
from typing import Any, NamedTuple, Self, TextIO

from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted
from alp_nb.runtime import (
    DEFAULT_REGISTRY,
    WorkflowInputError,
    WorkflowRun,
    load_workflow_file,
    resume_workflow,
    run_workflow,
)
from alp_nb.runtime.meta import validate_args
from alp_nb.viz.runs import CallTally, event_line, progress_bar, run_text, workflow_registry_text
from alp_nb.viz.terminal import print_lines

STORE_HELP = "run store folder (default: ./.alp-runs)"
SCRIPT_HELP = "a Python file that saves the workflow with @saved_workflow (for a workflow not built in)"
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
    run.add_argument("--script", help=SCRIPT_HELP)
    run.set_defaults(handler=_run)
    resume = workflow.add_parser("resume", help="resume a run: journaled calls are served from the journal")
    resume.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    resume.add_argument("--store", help=STORE_HELP)
    resume.add_argument("--agent-cap", type=int, default=1000,
                        help="distinct agent calls allowed (default 1000); raise it to finish a run that hit the cap")
    resume.add_argument("--budget", type=int, help="raise the run's token budget to N tokens for this resume and "
                        "the next (recorded on the attempt)")
    resume.add_argument("--script", help=SCRIPT_HELP)
    resume.set_defaults(handler=_resume)
    show = workflow.add_parser("show", help="a stored run: status, usage, phases and a page of its journaled calls")
    show.add_argument("run_id", help="wf_…")
    show.add_argument("--store", help=STORE_HELP)
    show.add_argument("--page", type=int, default=1, help="the page of calls to print (20 a page; default 1)")
    show.add_argument("--all", action="store_true", help="print every call instead of one page")
    show.set_defaults(handler=_show)
    plan = workflow.add_parser("plan", help="what a resume of a run would do, call by call, without running it: "
                               "cached or live, and why each live call runs")
    plan.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    plan.add_argument("--store", help=STORE_HELP)
    plan.add_argument("--script", help=SCRIPT_HELP)
    plan.add_argument("--budget", type=int, help="plan the resume under a token budget raised to N tokens")
    plan.add_argument("--agent-cap", type=int, default=1000, help="distinct agent calls allowed (default 1000)")
    plan.set_defaults(handler=_plan)


def _plan(args: argparse.Namespace) -> int:
    """The plan's text view, every call; nothing is written and no model is asked (pandas loads only here)."""
    from alp_nb.replay.plan import plan_resume
    from alp_nb.viz.plans import resume_plan_text

    _load_script(args.script)
    plan = plan_resume(args.run_id, store=args.store, budget=args.budget, agent_cap=args.agent_cap)
    print_lines(*resume_plan_text(plan, every_call=True, show_warnings=False).split("\n"))  # warnings: stderr
    return 0


def _list(args: argparse.Namespace) -> int:
    print(workflow_registry_text(DEFAULT_REGISTRY))
    return 0


def _run(args: argparse.Namespace) -> int:
    workflow_args = _json_object(args.args)
    _load_script(args.script)
    return _drive(lambda progress: run_workflow(args.name, workflow_args, store=args.store, agent_cap=args.agent_cap,
                                                on_event=progress), _Where(args.store, args.script))


def _resume(args: argparse.Namespace) -> int:
    _load_script(args.script)
    return _drive(lambda progress: resume_workflow(args.run_id, store=args.store, agent_cap=args.agent_cap,
                                                   budget=args.budget, on_event=progress),
                  _Where(args.store, args.script))


def _load_script(path: str | None) -> None:
    """Save the workflows of the file named by ``--script`` before the run looks its workflow up."""
    if path is not None:
        load_workflow_file(path)


def _show(args: argparse.Namespace) -> int:
    """One page of the run's journal (a run of 200,000 calls is 10,000 pages), or every row with ``--all``."""
    from alp_nb.replay.record import load_run
    from alp_nb.viz.records import run_record_text

    record = load_run(args.run_id, store=args.store)  # its readers' warnings reach stderr one line each (cli main)
    print_lines(*run_record_text(record if args.all else record.page(args.page), every_row=args.all,
                                 show_warnings=False).split("\n"))
    return 0


class _Where(NamedTuple):
    """The options a command resuming the run must repeat: its store, and the file its workflow is saved in."""

    store: str | None
    script: str | None


def _drive(launch: Callable[[_Progress], Awaitable[WorkflowRun]], where: _Where) -> int:
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
        print(f"alp-nb: interrupted{_resume_hint(progress.run_id, where, '; resume with ')}", file=sys.stderr)
        return INTERRUPTED
    except asyncio.CancelledError:
        if progress.closed:
            raise BrokenPipeError from None  # the command line's quiet exit for a reader that left
        raise
    return _report(run, where)


def _json_object(text: str | None) -> Any:
    """``--args`` parsed strictly (``loads_untrusted``: no NaN, repeated key, deep nesting or huge integer) and
    checked as ``run_workflow`` checks args, so a refusal names ``--args`` and the key (text a terminal passed
    with bytes that are not UTF-8 holds lone surrogates, which no run file could hold)."""
    if text is None:
        return None
    try:
        value = loads_untrusted(text)
    except UntrustedJson as error:
        problem = error.message.removeprefix("not JSON: ")  # the phrase already says it is not JSON
        raise WorkflowInputError("INVALID_ARGS", f"--args is not valid JSON: {problem}") from None
    return validate_args(value, "--args")


def _report(run: WorkflowRun, where: _Where) -> int:
    print(run_text(run))
    print(f"OUTPUT     {run.launched.output_file}")
    if run.status == "completed":
        return 0
    task = run.task
    if task.error_code == "BUDGET_EXCEEDED" and task.budget is not None:  # the same command would stop at once
        spent = task.usage.cumulative.counted
        print_lines(f"RAISE      the budget to go on: {_resume_hint(run.run_id, where, '')} --budget N "
                    f"(N above {max(spent, task.budget)})")
        return 1
    print(_resume_hint(run.run_id, where, "RESUME     "))
    return 1


def _resume_hint(run_id: str | None, where: _Where, lead: str) -> str:
    """``lead`` and the command that resumes the run (nothing before a run id was given out)."""
    if run_id is None:
        return ""
    options = "".join(f" --{name} {value}" for name, value in where._asdict().items() if value)
    return f"{lead}alp-nb workflow resume {run_id}{options}"


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
