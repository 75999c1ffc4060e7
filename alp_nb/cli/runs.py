"""``alp-nb runs``: the runs of a store read after the fact (``alp_nb.replay``), nothing run again.

``list`` prints ``run_rows`` as a table (the most recently changed run last, a run whose files are bad listed
``unreadable`` with its error); it reads snapshots only and imports no pandas, so it starts as fast as ``agent
show``. ``show`` prints a ``RunRecord``'s text view: status with the failure reason under it, usage, attempts,
phases and one page of its journal, or, given a filter (``--status``, ``--phase``, ``--attempt``, ``--grep``), a page
of the calls that pass it. ``diff`` compares two runs call by call (exit 1 when they differ, as ``diff`` does).
``watch`` follows a run another process is writing (``replay.follow``) until it ends. ``export`` writes a run as
one self-contained HTML page. What the readers warn about (a torn last journal line)
goes to stderr, one line each. Every line is printed through ``alp_nb.viz.terminal``; each command imports what
it uses only.
"""

from __future__ import annotations

import argparse
import sys

from alp_nb.runtime.journal.outcomes import CALL_OUTCOMES as OUTCOMES
from alp_nb.viz.terminal import print_lines, redraw_line

from .errors import INTERRUPTED, UsageError
from .flags import number_flag

STORE_HELP = "run store folder (default: ./.alp-runs)"


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb runs ...`` commands to their group's parser."""
    runs = group.add_subparsers(title="runs commands")
    listing = runs.add_parser("list", help="every run of the store: status, failure reason, attempts, calls, tokens")
    listing.add_argument("--store", help=STORE_HELP)
    listing.set_defaults(handler=_list)
    show = runs.add_parser("show", help="one run: status with its failure reason, usage, phases, a page of calls; "
                           "with a filter, the calls that pass it")
    show.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    show.add_argument("--store", help=STORE_HELP)
    show.add_argument("--page", type=int, default=1, help="the page to print (20 rows a page; default 1)")
    show.add_argument("--status", nargs="+", action="extend", metavar="S",
                      help=f"only calls that ended so: {', '.join(OUTCOMES)}")
    show.add_argument("--phase", nargs="+", action="extend", metavar="P", help="only calls of these phases")
    show.add_argument("--attempt", type=int, metavar="N", help="only calls of attempt N")
    show.add_argument("--grep", metavar="TEXT", help="only calls whose label, prompt or answer holds TEXT (case "
                      "ignored)")
    show.set_defaults(handler=_show)
    diff = runs.add_parser("diff", help="two runs call by call: same, changed value or prompt, only in one; results "
                           "and usage")
    diff.add_argument("a", help="wf_…")
    diff.add_argument("b", help="wf_…")
    diff.add_argument("--store", help=STORE_HELP)
    diff.set_defaults(handler=_diff)
    watch = runs.add_parser("watch", help="follow a run that another process is writing, until it ends: one "
                            "redrawn line in a terminal, a line per change otherwise, then the run's status")
    watch.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    watch.add_argument("--store", help=STORE_HELP)
    watch.add_argument("--interval", type=number_flag(float, "a number of seconds", 0.01, 86_400), default=1.0,
                       metavar="S", help="seconds between looks at the run's files, from 0.01 to 86,400 (default 1; "
                       "longer as the run grows)")
    watch.set_defaults(handler=_watch)
    export = runs.add_parser("export", help="one run as one self-contained, offline HTML page: status, budget, "
                             "timeline, a searchable table of its calls, the resume plan")
    export.add_argument("run_id", nargs="?", help="wf_… (default: the store's last run)")
    export.add_argument("-o", "--output", required=True, metavar="PAGE",
                        help="the page to write, e.g. run.html; refused if it exists, unless --force")
    export.add_argument("--store", help=STORE_HELP)
    export.add_argument("--script", help="a Python file that saves the run's workflow with @saved_workflow (for "
                        "the resume plan of a workflow not built in)")
    export.add_argument("--force", action="store_true", help="replace an existing file")
    export.set_defaults(handler=_export)


def _list(args: argparse.Namespace) -> int:
    from alp_nb.replay.listing import run_rows
    from alp_nb.viz.views.records import run_list_lines

    print_lines(*run_list_lines(run_rows(args.store), args.store or "./.alp-runs"))
    return 0


def _show(args: argparse.Namespace) -> int:
    """The record's page of journal rows, or, given a filter, its header and a page of the calls that pass it."""
    from alp_nb.replay.record import JOURNAL_PAGE_SIZE, load_run
    from alp_nb.viz.views.records import call_page_lines, record_header_lines, run_record_text

    wanted = {"status": args.status, "phase": args.phase, "attempt": args.attempt, "pattern": args.grep}
    bad = [status for status in args.status or () if status not in OUTCOMES]
    if bad:
        raise UsageError("USAGE", f"--status must be one of {', '.join(OUTCOMES)}, not {', '.join(bad)}")
    record = load_run(args.run_id, store=args.store)  # its readers' warnings reach stderr one line each (cli main)
    if all(value is None for value in wanted.values()):
        print_lines(*run_record_text(record.page(args.page), show_warnings=False).splitlines())
        return 0
    picked = record.calls.select(**wanted)
    pages = max(1, -(-len(picked) // JOURNAL_PAGE_SIZE))
    if not 1 <= args.page <= pages:
        raise UsageError("USAGE", f"page must be a whole number from 1 to {pages}, not {args.page}")
    print_lines(*record_header_lines(record, show_warnings=False),
                *call_page_lines(record, picked, args.page, _described(args)))
    return 0


def _described(args: argparse.Namespace) -> str:
    """The filters given, in words: ``status failed, phase Review, "timeout"``."""
    parts = [f"status {' or '.join(args.status)}" if args.status else "",
             f"phase {' or '.join(args.phase)}" if args.phase else "",
             f"attempt {args.attempt}" if args.attempt is not None else "",
             f'"{args.grep}"' if args.grep is not None else ""]
    return ", ".join(part for part in parts if part)


def _diff(args: argparse.Namespace) -> int:
    """0 when the runs made the same calls with the same answers and results, 1 when they differ."""
    from alp_nb.replay.compare import compare_runs
    from alp_nb.viz.views.replays import run_comparison_text

    comparison = compare_runs(args.a, args.b, store=args.store)
    print_lines(*run_comparison_text(comparison).splitlines())
    counts = comparison.counts
    return 0 if counts["same"] == sum(counts.values()) and not comparison.result_diff else 1


def _watch(args: argparse.Namespace) -> int:
    """0 when the run completes, 1 when it fails, is cancelled or its process dies; a Ctrl-C stops the watching,
    not the run."""
    from alp_nb.replay.follow import RunFollower
    from alp_nb.replay.record import RunRecord, load_run
    from alp_nb.viz.views.records import record_header_lines
    from alp_nb.viz.views.runs import CallTally, progress_bar

    tty, tally, shown = sys.stdout.isatty(), CallTally(), [""]

    def show(record: RunRecord) -> None:
        tally.read(record.timeline.spans)
        line = f"{progress_bar(tally)} · {record.status}"
        if line != shown[0]:
            if tty:
                redraw_line(line)
            else:
                print_lines(line)
                sys.stdout.flush()  # a log (a pipe, a file) sees each line as it comes, not when the run ends
            shown[0] = line

    watched = args.run_id or "the last run"
    try:  # a Ctrl-C while the first reading loads is a stop of the watching too
        follower = RunFollower(load_run(args.run_id, store=args.store), interval=args.interval)
        watched = follower.run_id
        assert follower.record is not None  # the first reading, given
        show(follower.record)
        last = follower.follow(show)
    except KeyboardInterrupt:
        print_lines(*([""] if tty else []), f"stopped watching {watched}; its run goes on")
        return INTERRUPTED
    if follower.error is not None:
        raise follower.error
    assert last is not None
    print_lines(*([""] if tty else []), *record_header_lines(last, show_warnings=False))
    return 0 if last.status == "completed" else 1


def _export(args: argparse.Namespace) -> int:
    from alp_nb.replay.record import load_run
    from alp_nb.viz.views.run_page import export_run

    from .workflow import script_registry

    registry = script_registry(args.script)  # as `workflow plan --script` loads it
    record = load_run(args.run_id, store=args.store)
    written = export_run(record, args.output, force=args.force, registry=registry)
    print_lines(f"wrote {written}: {record.run_id} ({record.status}), {len(record.calls):,} calls")
    return 0
