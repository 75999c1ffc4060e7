"""``alp-nb runs list|show``: the runs of a store read after the fact. ``list`` is the ``list_runs`` table as text,
the most recently changed run last; ``show`` is a record's text view with its failure reason; what a reader
warns about goes to stderr; a refusal is one line on stderr and exit 2."""

from __future__ import annotations

import os
import re

from runtime_support import FailingRunner, launch
from s16_support import CRASH, CRASHED_CALLS, write_s16_run

from alp_nb.cli import COMMAND_GROUPS, main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_runs_is_a_command_group():
    assert "runs" in COMMAND_GROUPS


def test_list_prints_one_line_per_run_with_status_counts_and_error(store, capsys):
    done = launch("sequence", store, args={"calls": 2})
    failed = launch("sequence", store, runner=FailingRunner({"step-0"}))
    for path in store.root.glob(f"{done.run_id}.*"):
        os.utime(path, (1e9, 1e9))
    code, out, err = run(capsys, "runs", "list", "--store", str(store.root))
    assert (code, err) == (0, "")
    header, first, second = out.splitlines()
    assert re.split(r"\s{2,}", header) == ["run_id", "workflow", "status", "attempts", "calls", "tokens", "updated",
                                           "error"]
    assert re.split(r"\s{2,}", first)[:6] == [done.run_id, "sequence", "completed", "1", "2",
                                              str(done.task.usage.cumulative.tokens)]
    assert "2001-09-09 01:46:40" in first
    assert second.startswith(failed.run_id) and second.endswith(failed.error) and " failed " in second


def test_list_of_an_empty_store_says_so_and_a_missing_one_is_refused(store, capsys, tmp_path):
    store.root.mkdir()
    assert run(capsys, "runs", "list", "--store", str(store.root)) == (0, f"no runs in {store.root}\n", "")
    code, out, err = run(capsys, "runs", "list", "--store", str(tmp_path / "nowhere"))
    assert (code, out) == (2, "")
    assert err == f"alp-nb: no run store at {tmp_path / 'nowhere'}: the folder does not exist\n"


def test_show_prints_the_record_with_its_failure_reason_under_the_status(tmp_path, capsys):
    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                                  output={"error": CRASH})
    code, out, err = run(capsys, "runs", "show", run_id, "--store", str(store.root))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[2:4] == ["STATUS     failed", f"ERROR      {CRASH}"]
    assert "journal: rows 1–10 of 10" in lines and any("↺ verify:6" in line for line in lines)


def test_show_pages_through_a_long_journal(store, capsys):
    done = launch("sequence", store, args={"calls": 25})
    code, out, _ = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--page", "2")
    assert code == 0 and "journal: rows 21–25 of 25 · page 2 of 2" in out and "step-24" in out
    code, out, err = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--page", "3")
    assert (code, out) == (2, "") and err == "alp-nb: page must be a whole number from 1 to 2, not 3\n"


def test_show_prints_a_torn_line_warning_on_stderr_once(store, capsys):
    done = launch("sequence", store, args={"calls": 2})
    path = store.paths(done.run_id).journal
    path.write_bytes(path.read_bytes()[:-10])
    code, out, err = run(capsys, "runs", "show", done.run_id, "--store", str(store.root))
    assert code == 0 and "WARNING" not in out
    assert err == f"alp-nb: warning: {path.name} line 4 is incomplete (torn write) and was dropped\n"


def test_show_of_a_run_that_is_not_there_exits_2_naming_it(store, capsys):
    launch("sequence", store)
    code, out, err = run(capsys, "runs", "show", "wf_sequence_0000000000000000", "--store", str(store.root))
    assert (code, out) == (2, "") and err.startswith("alp-nb: no run `wf_sequence_0000000000000000` in ")


def test_control_characters_from_the_files_never_reach_the_terminal(store, capsys):
    failed = launch("sequence", store, runner=FailingRunner({"step-0"}))
    path = store.paths(failed.run_id).snapshot
    path.write_text(path.read_text().replace("runner broke on step-0", "runner broke \\u001b[2J\\u202e"))
    for command in ("list", "show"):
        args = ["runs", command] + ([failed.run_id] if command == "show" else []) + ["--store", str(store.root)]
        code, out, _ = run(capsys, *args)
        assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\\x1b[2J\\u202e" in out
