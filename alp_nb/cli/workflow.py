"""``alp-nb workflow``: list the saved workflows, run, fork or resume one in a run store, plan a resume, show a
stored run.

Ctrl-C during ``run``, ``fork`` or ``resume`` stops the run (recorded ``cancelled``, resumable), prints how to resume
it and exits 130. Runs answer every agent call with ``MockAgentRunner``: nothing documents a way to pick another
runner from the command line, and the mock keeps a terminal run offline and repeatable. Other runners
(``AnthropicAgentRunner``) are chosen from Python with ``run_workflow(..., runner=...)``.

A ``--script`` file is loaded into a registry of its own that falls back on the default one, so a file may save
its own version of a built-in workflow (its own ``review-changes``) and the command runs that version.

On a terminal a run's progress is one redrawn bar; into a file or a pipe it is the phase, log, retried and failed
lines and, at the end, one line counting the calls by how they ended: a 2,000-call resume is tens of lines, not
thousands.
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
    Fork,
    RunStore,
    WorkflowInputError,
    WorkflowRegistry,
    WorkflowRun,
    load_workflow_file,
    resume_workflow,
    run_workflow,
)
from alp_nb.runtime.meta import validate_args
from alp_nb.viz.terminal import print_lines
from alp_nb.viz.views.runs import CallTally, event_line, progress_bar, run_text, tally_line, workflow_registry_text

from .errors import INTERRUPTED, UsageError

STORE_HELP = "run store folder (default: ./.alp-runs)"
SCRIPT_HELP = "a Python file that saves the workflow with @saved_workflow (for a workflow not built in)"
LOGGED_CALLS = ("retry", "failed")
"""The call events a log (a stream that is not a terminal) prints a line for; the others are counted at the end."""


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
    fork = workflow.add_parser("fork", help="a new run from a stored run's journal with some answers or prompts "
                               "replaced: only the calls that depend on them run (mock runner)")
    fork.add_argument("run_id", help="wf_… (the run to fork)")
    fork.add_argument("--store", help=STORE_HELP)
    fork.add_argument("--script", help=SCRIPT_HELP)
    fork.add_argument("--value", action="append", default=[], metavar="LABEL=JSON",
                      help="the answer the call labelled LABEL gets instead, as JSON (repeat for more calls)")
    fork.add_argument("--prompt", action="append", default=[], metavar="LABEL=TEXT",
                      help="the prompt the call labelled LABEL asks instead (repeat for more calls)")
    fork.add_argument("--agent-cap", type=int, default=1000, help="distinct agent calls allowed (default 1000)")
    fork.set_defaults(handler=_fork)
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
    from alp_nb.viz.views.plans import resume_plan_text

    registry = script_registry(args.script)
    plan = plan_resume(args.run_id, store=args.store, registry=registry, budget=args.budget,
                       agent_cap=args.agent_cap)
    print_lines(*resume_plan_text(plan, every_call=True, show_warnings=False).split("\n"))  # warnings: stderr
    return 0


def _list(args: argparse.Namespace) -> int:
    print(workflow_registry_text(DEFAULT_REGISTRY))
    return 0


def _run(args: argparse.Namespace) -> int:
    workflow_args = _json_object(args.args)
    registry = script_registry(args.script)
    return _drive(lambda progress: run_workflow(args.name, workflow_args, store=args.store, registry=registry,
                                                agent_cap=args.agent_cap, on_event=progress),
                  _Where(args.store, args.script))


def _resume(args: argparse.Namespace) -> int:
    registry = script_registry(args.script)
    return _drive(lambda progress: resume_workflow(args.run_id, store=args.store, registry=registry,
                                                   agent_cap=args.agent_cap, budget=args.budget, on_event=progress),
                  _Where(args.store, args.script))


def _fork(args: argparse.Namespace) -> int:
    """The fork run to its end as ``run`` runs a workflow; its report ends with the command comparing it with its
    source. Bad replacements are refused before anything is loaded or written."""
    values = _replacements(args.value, "--value", _json_value)
    prompts = _replacements(args.prompt, "--prompt", lambda text, _field: text)
    fork = Fork(args.run_id, values, prompts)
    registry = script_registry(args.script)
    name = RunStore(args.store).read_snapshot(args.run_id).workflow_name
    return _drive(lambda progress: run_workflow(name, store=args.store, registry=registry, agent_cap=args.agent_cap,
                                                fork=fork, on_event=progress), _Where(args.store, args.script))


def _replacements(given: list[str], option: str, parse: Callable[[str, str], Any]) -> dict[str, Any]:
    """``LABEL=…`` options as {label: parsed}; USAGE naming the option for a missing ``=``, a blank or repeated
    label, or a value ``parse`` refuses."""
    found: dict[str, Any] = {}
    for text in given:
        label, equals, rest = text.partition("=")
        if not equals or not label.strip():
            raise UsageError("USAGE", f"{option} must be LABEL=…, a call's label and what it gets instead, not "
                             f"{text!r}")
        if label in found:
            raise UsageError("USAGE", f"{option} names the call `{label}` twice")
        found[label] = parse(rest, f"{option} {label}")
    return found


def _json_value(text: str, field: str) -> Any:
    """Strict JSON (``loads_untrusted``), refused in one line naming ``field``."""
    try:
        return loads_untrusted(text)
    except UntrustedJson as error:
        raise UsageError("USAGE", f"{field}: not valid JSON: {error.message.removeprefix('not JSON: ')}") from None


def script_registry(path: str | None) -> WorkflowRegistry | None:
    """The registry the file named by ``--script`` saves its workflows into, loaded before a command looks its
    workflow up: one of its own, falling back on the default registry (None without a file: the default one)."""
    if path is None:
        return None
    registry = WorkflowRegistry(fallback=DEFAULT_REGISTRY)
    load_workflow_file(path, registry)
    return registry


def _show(args: argparse.Namespace) -> int:
    """One page of the run's journal (a run of 200,000 calls is 10,000 pages), or every row with ``--all``."""
    from alp_nb.replay.record import load_run
    from alp_nb.viz.views.records import run_record_text

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
    origin = run.task.fork
    if origin is not None:
        store = f" --store {where.store}" if where.store else ""
        print_lines(f"COMPARE    alp-nb runs diff {origin.run_id} {run.run_id}{store}")
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
        """Each event's line is worded only when it is shown: most of a run's events are calls, counted only."""
        kind = event.get("type")
        if not self.tty:
            self.tally.add(event)
            line = None if kind == "workflow_agent" and event.get("status") not in LOGGED_CALLS else event_line(event)
            if line is not None:
                print(line, file=self.stream, flush=True)
                self.wrote = True
            return
        line = None if kind == "workflow_agent" else event_line(event)
        if line is None and kind != "workflow_agent":
            return
        self.tally.add(event)
        above = f"{line}\n\x1b[K" if kind == "workflow_log" else ""  # log lines stay, above the bar
        self.stream.write(f"\r\x1b[K{above}{progress_bar(self.tally)}")
        self.stream.flush()
        self.wrote = True

    def __exit__(self, *exc_info: object) -> None:
        if self.closed:
            return
        if not self.tty and self.tally.started:
            print(tally_line(self.tally), file=self.stream)
            self.wrote = True
        if self.wrote:  # ends the bar's line, or separates the event lines from the summary
            print(file=self.stream)
