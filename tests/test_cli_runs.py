"""``alp-nb runs list|show|diff``: the runs of a store read after the fact. ``list`` is the ``run_rows`` table as
text, the most recently changed run last, with no pandas loaded; ``show`` is a record's text view with its failure
reason (the store's last run by default) or, given a filter, a page of the calls that pass it; ``diff`` lists every
call that differs, a changed prompt included; what a reader warns about goes to stderr; a refusal is one line on
stderr and exit 2."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from runtime_support import FailingRunner, launch, registry
from s16_support import CRASH, CRASHED_CALLS, write_s16_run

from alp_nb.cli import COMMAND_GROUPS, main
from alp_nb.replay import fork_run
from alp_nb.runtime import MockAgentRunner


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


# --- show: the last run by default, and the calls a filter picks -------------------------------------------------


def test_show_without_a_run_id_shows_the_store_s_last_run(store, capsys):
    launch("sequence", store, args={"calls": 2})
    last = launch("sequence", store, args={"calls": 3})
    code, out, err = run(capsys, "runs", "show", "--store", str(store.root))
    assert (code, err) == (0, "") and out.startswith(f"RUN        {last.run_id}\n")


def test_show_with_a_filter_prints_the_header_then_one_line_per_matching_call_under_a_caption(store, capsys):
    failed = launch("sequence", store, args={"calls": 5}, runner=FailingRunner({"step-3"}))
    code, out, err = run(capsys, "runs", "show", "--store", str(store.root), "--status", "failed")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:4] == [f"RUN        {failed.run_id}", "WORKFLOW   sequence", "STATUS     failed",
                         f"ERROR      {failed.error}"]
    caption = lines.index("calls 1–1 of 1 matching status failed of 4")
    assert re.split(r"\s{2,}", lines[caption + 1]) == ["#", "seq", "attempt", "outcome", "label", "phase", "tokens",
                                                       "prompt → value"]
    assert re.split(r"\s{2,}", lines[caption + 2]) == ["4", "8", "1", "failed", "step-3", "(no phase)", "0",
                                                       "— → RuntimeError: runner broke on step-3"]  # no prompt kept
    assert len(lines) == caption + 3


def test_show_pages_the_matching_calls_twenty_a_page_and_combines_filters(store, capsys):
    done = launch("sequence", store, args={"calls": 45})
    code, out, _ = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--status", "live", "cached",
                       "--attempt", "1", "--page", "3")
    assert code == 0 and "calls 41–45 of 45 matching status live or cached, attempt 1 of 45 · page 3 of 3" in out
    assert re.search(r"^45 +90 +1 +live +step-44 ", out, re.MULTILINE)
    code, out, _ = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--grep", "STEP 4",
                       "--phase", "(no phase)")
    assert code == 0 and 'calls 1–6 of 6 matching phase (no phase), "STEP 4" of 45' in out  # step-4, step-40…44
    code, out, _ = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--phase", "Nowhere")
    assert code == 0 and out.splitlines()[-1] == "calls: none of the 45 matches phase Nowhere"


def test_a_bad_status_or_page_is_one_line_on_stderr_and_exit_2(store, capsys):
    done = launch("sequence", store, args={"calls": 2})
    code, out, err = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--status", "broken")
    assert (code, out) == (2, "")
    assert err == ("alp-nb: --status must be one of live, retried, cached, failed, cancelled, unfinished, not "
                   "broken\n")
    code, out, err = run(capsys, "runs", "show", done.run_id, "--store", str(store.root), "--status", "live",
                         "--page", "2")
    assert (code, out, err) == (2, "", "alp-nb: page must be a whole number from 1 to 1, not 2\n")


def test_the_statuses_show_takes_are_the_call_outcomes_of_replay():
    from alp_nb.cli.runs import OUTCOMES
    from alp_nb.replay.timeline import CALL_OUTCOMES

    assert OUTCOMES == CALL_OUTCOMES


def test_an_s16_run_s_calls_show_their_tokens_missing_and_the_header_says_why(tmp_path, capsys):
    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                                  output={"error": CRASH})
    code, out, _ = run(capsys, "runs", "show", run_id, "--store", str(store.root))
    assert code == 0 and "the snapshot records only the run's total, which the usage shows" in out
    assert re.search(r"^1 +1 +done +↺ audit:1 +Audit +— ", out, re.MULTILINE)
    code, out, _ = run(capsys, "runs", "show", run_id, "--store", str(store.root), "--phase", "Verify")
    assert code == 0 and re.search(r"^5 +5 +1 +live +verify:1 +Verify +— ", out, re.MULTILINE)


# --- list starts fast, diff shows a changed prompt ---------------------------------------------------------------


def test_runs_list_reads_no_journal_and_loads_no_pandas(store):
    launch("sequence", store, args={"calls": 2})
    script = ("import sys\nfrom alp_nb.cli import main\ncode = main(['runs', 'list', '--store', sys.argv[1]])\n"
              "print('pandas' in sys.modules, 'alp_nb.replay.plan' in sys.modules, code)")
    shown = subprocess.run([sys.executable, "-c", script, str(store.root)], capture_output=True, text=True,
                           check=True)
    assert shown.stdout.splitlines()[-1] == "False False 0"


def test_runs_diff_lists_a_call_asked_with_a_changed_prompt_even_when_its_answer_is_the_same(store, capsys):
    source = launch("staged", store, args={"items": ["a"]})
    fork = fork_run((store, source.run_id), prompts={"first-a": "first a, asked another way"}, registry=registry(),
                    runner=MockAgentRunner({"first-a": "mock answer to first-a"}))
    code, out, _ = run(capsys, "runs", "diff", source.run_id, fork.run_id, "--store", str(store.root))
    assert code == 1
    assert "  [changed prompt] first-a: prompt changed, the same answer mock answer to first-a" in out.splitlines()
    assert "CALLS      1 same, 0 changed value, 1 changed prompt, 0 only in a, 0 only in b" in out.splitlines()
