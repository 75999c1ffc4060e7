"""``alp-nb runs``: the runs of a store read after the fact (``alp_nb.replay``), nothing run again.

``list`` prints ``list_runs`` as a table (the most recently changed run last, a run whose files are bad listed
``unreadable`` with its error); ``show`` prints a ``RunRecord``'s text view: status with the failure reason under
it, usage, attempts, phases and one page of its journal; ``diff`` compares two runs call by call (exit 1 when
they differ, as ``diff`` does). What the readers warn about (a torn last journal line)
goes to stderr, one line each. Every line is printed through ``alp_nb.viz.terminal``.
"""

from __future__ import annotations

import argparse

from alp_nb.replay import compare_runs, list_runs, load_run
from alp_nb.viz.records import run_list_lines, run_record_text
from alp_nb.viz.replays import run_comparison_text
from alp_nb.viz.terminal import print_lines

STORE_HELP = "run store folder (default: ./.alp-runs)"


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb runs ...`` commands to their group's parser."""
    runs = group.add_subparsers(title="runs commands")
    listing = runs.add_parser("list", help="every run of the store: status, failure reason, attempts, calls, tokens")
    listing.add_argument("--store", help=STORE_HELP)
    listing.set_defaults(handler=_list)
    show = runs.add_parser("show", help="one run: status with its failure reason, usage, phases, a page of calls")
    show.add_argument("run_id", help="wf_…")
    show.add_argument("--store", help=STORE_HELP)
    show.add_argument("--page", type=int, default=1, help="the page of the journal to print (20 rows a page)")
    show.set_defaults(handler=_show)
    diff = runs.add_parser("diff", help="two runs call by call: same, changed value, only in one; results and usage")
    diff.add_argument("a", help="wf_…")
    diff.add_argument("b", help="wf_…")
    diff.add_argument("--store", help=STORE_HELP)
    diff.set_defaults(handler=_diff)


def _list(args: argparse.Namespace) -> int:
    print_lines(*run_list_lines(list_runs(args.store), args.store or "./.alp-runs"))
    return 0


def _show(args: argparse.Namespace) -> int:
    record = load_run(args.run_id, store=args.store)  # its readers' warnings reach stderr one line each (cli main)
    print_lines(*run_record_text(record.page(args.page), show_warnings=False).splitlines())
    return 0


def _diff(args: argparse.Namespace) -> int:
    """0 when the runs made the same calls with the same answers and results, 1 when they differ."""
    comparison = compare_runs(args.a, args.b, store=args.store)
    print_lines(*run_comparison_text(comparison).splitlines())
    counts = comparison.counts
    return 0 if counts["same"] == sum(counts.values()) and not comparison.result_diff else 1
