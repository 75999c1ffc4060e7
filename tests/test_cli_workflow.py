"""``alp-nb workflow list|run|resume|show``: saved workflows from a terminal, each run in a run store
(``--store``, default ``./.alp-runs``), agent calls answered by the mock runner. Refusals print one line on
stderr and exit 2; a run that fails exits 1 and says how to resume it."""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from runtime_support import SUPPORT, FailingRunner, interrupted_review, journal_records, launch, registry

from alp_nb.cli import main
from alp_nb.cli.workflow import _Progress
from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, run_workflow

RUN_ID = re.compile(r"^RUN +(wf_\S+)$", re.MULTILINE)
TALLY = re.compile(r"^calls +(?P<made>[\d,]+) made: (?P<done>[\d,]+) done, (?P<cached>[\d,]+) cached, "
                   r"(?P<failed>[\d,]+) failed, (?P<cancelled>[\d,]+) cancelled", re.MULTILINE)
REVIEW_CALLS = 10  # review-changes with the mock runner and CHANGES: 4 audits, 6 verifications
CHANGES = '{"changes": "rename parse() to load()"}'


@pytest.fixture
def store(tmp_path) -> str:
    return str(tmp_path / "runs")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_id_of(out: str) -> str:
    return RUN_ID.search(out).group(1)


def labelled(out: str, label: str) -> str:
    return next(line for line in out.splitlines() if line.startswith(label))


def tally(out: str) -> dict[str, int]:
    """The counts of the one line a run's log ends its progress with: ``calls    N made: d done, c cached, ...``."""
    (found,) = TALLY.finditer(out)
    return {name: int(count.replace(",", "")) for name, count in found.groupdict().items()}


def test_list_shows_review_changes_with_its_description_phases_and_args(capsys):
    code, out, err = run(capsys, "workflow", "list")
    assert (code, err) == (0, "")
    assert ("review-changes  Review code changes  [Review → Verify]  "
            "args: changes (string, required): the change to review, as a diff or a description") in out.splitlines()


@pytest.mark.parametrize(("args", "named"), [
    ('{"chnages": "rename parse()"}', "args: Additional properties are not allowed ('chnages' was unexpected)"),
    ("{}", "args.changes: 'changes' is a required property"),
    ('{"changes": 5}', "args.changes: 5 is not of type 'string'"),
])
def test_run_refuses_args_review_changes_does_not_take_naming_the_key(capsys, tmp_path, store, args, named):
    code, out, err = run(capsys, "workflow", "run", "review-changes", "--args", args, "--store", store)
    assert (code, out) == (2, "")
    assert err.startswith("alp-nb: args do not match what `review-changes` takes: ") and named in err
    assert err.count("\n") == 1 and not (tmp_path / "runs").exists()


def test_run_show_resume_round_trip_serves_every_call_from_the_journal(capsys, store):
    code, out, err = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES, "--store", store)
    assert (code, err) == (0, "")
    run_id = run_id_of(out)
    assert labelled(out, "STATUS") == "STATUS     completed"
    assert labelled(out, "ATTEMPTS") == f"ATTEMPTS   #1 completed ({REVIEW_CALLS} run, 0 cached)"

    code, shown, err = run(capsys, "workflow", "show", run_id, "--store", store)
    assert (code, err) == (0, "")
    assert labelled(shown, "STATUS") == "STATUS     completed"
    assert labelled(shown, "PHASES") == "PHASES     Review  4 calls: 4 done, 0 cached, 0 failed"
    assert f"journal: rows 1–{REVIEW_CALLS} of {REVIEW_CALLS}" in shown.splitlines()
    assert len([line for line in shown.splitlines() if re.match(r"^\d+ +1 +done +(audit|verify):", line)]) == \
        REVIEW_CALLS

    code, out, err = run(capsys, "workflow", "resume", run_id, "--store", store)
    assert (code, err) == (0, "")
    assert run_id_of(out) == run_id
    assert tally(out) == {"made": REVIEW_CALLS, "done": 0, "cached": REVIEW_CALLS, "failed": 0, "cancelled": 0}
    assert labelled(out, "ATTEMPTS").endswith(f"#2 completed (0 run, {REVIEW_CALLS} cached)")
    assert labelled(out, "USAGE").startswith("USAGE      this attempt 0 agents, 0 tokens · cumulative 10 agents")


def test_resume_without_a_run_id_resumes_the_last_run(capsys, store):
    run(capsys, "workflow", "run", "review-changes", "--args", '{"changes": "a"}', "--store", store)
    _, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", '{"changes": "b"}', "--store", store)
    last = run_id_of(out)
    code, out, err = run(capsys, "workflow", "resume", "--store", store)
    assert (code, err) == (0, "")
    assert run_id_of(out) == last
    assert "(attempt 2, resumed)" in labelled(out, "TASK")


def test_resume_finishes_a_failed_run_running_only_the_calls_not_journaled(capsys, store):
    broken = asyncio.run(run_workflow("review-changes", {"changes": "x"}, store=store,
                                      runner=FailingRunner({"audit:security"})))
    journaled = len(journal_records(RunStore(store), broken.run_id, kinds=("agent",)))
    code, out, err = run(capsys, "workflow", "resume", "--store", store)
    assert (code, err) == (0, "")
    counts = tally(out)
    assert counts["cached"] == journaled and counts["cached"] + counts["done"] == REVIEW_CALLS == counts["made"]
    resumed = load_run(broken.run_id, store=store).calls
    assert "audit:security" in {resumed.call(index).label for index in resumed.select(attempt=2, status="live")}


def test_a_run_out_of_budget_exits_1_and_says_to_raise_the_budget_rather_than_repeat_the_command(capsys, store):
    code, out, err = run(capsys, "workflow", "run", "review-changes", "--args", '{"changes": "x", "budget": 1}',
                         "--store", store)
    assert (code, err) == (1, "")
    assert labelled(out, "STATUS") == "STATUS     failed"
    assert "token budget" in labelled(out, "ERROR")
    assert labelled(out, "BUDGET") == "BUDGET     1 token · 19 spent, 18 over"
    assert labelled(out, "RAISE").endswith(f"alp-nb workflow resume {run_id_of(out)} --store {store} --budget N "
                                           "(N above 19)")
    assert not [line for line in out.splitlines() if line.startswith("RESUME")]


def test_a_failed_run_exits_1_and_prints_how_to_resume_it(capsys, store):
    code, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES, "--store", store,
                       "--agent-cap", "3")
    assert code == 1 and "agent cap of 3" in labelled(out, "ERROR")
    assert labelled(out, "RESUME") == f"RESUME     alp-nb workflow resume {run_id_of(out)} --store {store}"


def test_a_run_that_hit_the_agent_cap_is_finished_by_resuming_with_a_higher_cap(capsys, store):
    code, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES, "--store", store,
                       "--agent-cap", "3")
    assert code == 1 and "agent cap of 3" in labelled(out, "ERROR")
    code, out, err = run(capsys, "workflow", "resume", "--store", store, "--agent-cap", str(REVIEW_CALLS))
    assert (code, err) == (0, "")
    assert labelled(out, "STATUS") == "STATUS     completed"


def test_the_default_store_is_alp_runs_in_the_working_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES)
    assert code == 0
    assert RunStore(tmp_path / ".alp-runs").run_ids() == (run_id_of(out),)
    assert labelled(out, "OUTPUT") == f"OUTPUT     .alp-runs/{run_id_of(out)}.output.json"


@pytest.mark.parametrize(("argv", "message"), [
    (("run", "no-such-workflow"), "alp-nb: unknown workflow `no-such-workflow` (saved: review-changes)"),
    (("run", "review-changes", "--args", "{changes: 1}"), "alp-nb: --args is not valid JSON: Expecting property"),
    (("run", "review-changes", "--args", "[1, 2]"), "alp-nb: --args must be a JSON object, not list"),
    (("show", "../../etc/passwd"), "alp-nb: invalid run id `../../etc/passwd`"),
    (("resume", "wf_review-changes_0123456789abcdef"), "alp-nb: no run `wf_review-changes_0123456789abcdef` in"),
    (("show", "wf_review-changes_0123456789abcdef"), "alp-nb: no run store at"),
    (("resume",), "alp-nb: no run to resume in"),
])
def test_refusals_exit_2_with_one_line_on_stderr_and_write_nothing(capsys, tmp_path, store, argv, message):
    code, out, err = run(capsys, "workflow", *argv, "--store", store)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "runs").exists()


def test_an_overlong_run_id_is_refused_naming_its_length(capsys, store):
    """An id too long to quote is named by its length and a run id's limit, not by its type (``str``)."""
    code, out, err = run(capsys, "workflow", "show", "wf_" + "x" * 497, "--store", store)
    assert (code, out) == (2, "")
    assert err == ("alp-nb: invalid run id of 500 characters: a run id is wf_<workflow name>_<16 hex>, at most 84 "
                   "characters\n")


def test_progress_off_a_terminal_is_phase_and_log_lines_then_one_line_counting_the_calls(capsys, store):
    _, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES, "--store", store)
    assert "\r" not in out and "\x1b" not in out
    progress = out.split("\n\nRUN ", 1)[0].splitlines()
    assert progress[:2] == ["phase    Review", "phase    Verify"] and progress[2].startswith("log      Confirmed ")
    assert progress[-1] == f"calls    {REVIEW_CALLS} made: {REVIEW_CALLS} done, 0 cached, 0 failed, 0 cancelled"
    assert len(progress) == 4  # no line per call


def test_a_log_names_each_retried_and_failed_call_and_counts_the_others():
    log = io.StringIO()
    with _Progress(log) as progress:
        for status, label in (("started", "a"), ("done", "a"), ("started", "b"), ("retry", "b"), ("done", "b"),
                              ("cached", "c"), ("started", "d"), ("failed", "d"), ("started", "e")):
            progress({"type": "workflow_agent", "status": status, "label": label,
                      **({"error": "runner broke"} if status == "failed" else {})})
    assert log.getvalue().splitlines() == [
        "retry    b", "failed   d  runner broke",
        "calls    5 made: 2 done, 1 cached, 1 failed, 0 cancelled; 1 retried, 1 never finished", ""]


FANOUT_SCRIPT = """
from alp_nb import saved_workflow


@saved_workflow(name="wide", description="2,000 calls side by side", phases=["Fan"])
async def wide(ctx, args):
    ctx.phase("Fan")
    return await ctx.parallel([lambda i=i: ctx.agent(f"item {i}", label=f"item-{i}") for i in range(2000)])
"""


def test_a_2000_call_resume_logs_tens_of_lines_not_thousands(capsys, store, tmp_path):
    script = tmp_path / "wide.py"
    script.write_text(FANOUT_SCRIPT)
    code, out, _ = run(capsys, "workflow", "run", "wide", "--script", str(script), "--store", store, "--agent-cap",
                       "3000")
    assert code == 0 and len(out.splitlines()) < 40
    code, out, _ = run(capsys, "workflow", "resume", "--script", str(script), "--store", store, "--agent-cap", "3000")
    assert code == 0 and len(out.splitlines()) < 40
    assert tally(out) == {"made": 2000, "done": 0, "cached": 2000, "failed": 0, "cancelled": 0}


def test_progress_is_one_redrawn_bar_on_a_terminal(monkeypatch, store):
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["workflow", "run", "review-changes", "--args", CHANGES, "--store", store]) == 0
    progress, summary = terminal.getvalue().split("\nRUN ", 1)
    assert progress.count("\r") > REVIEW_CALLS and "done     " not in progress
    assert progress.rsplit("\x1b[K", 1)[1] == f"[{'#' * 24}] {REVIEW_CALLS}/{REVIEW_CALLS} calls · Verify"
    assert re.search(r"\r\x1b\[Klog      Confirmed \d+ real issues\n", progress)  # a log line stays, above the bar
    assert summary.startswith("       wf_review-changes_")


def test_a_torn_journal_line_is_reported_in_one_line_by_workflow_show(tmp_path):
    interrupted_store = interrupted_review(tmp_path / "runs")
    run_id = interrupted_store.last_run()
    journal = interrupted_store.paths(run_id).journal
    journal.write_bytes(journal.read_bytes()[:-20])
    shown = subprocess.run([sys.executable, "-m", "alp_nb", "workflow", "show", run_id,
                            "--store", str(interrupted_store.root)], check=False, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1, shown.stderr
    assert shown.stderr == (
        f"alp-nb: warning: {run_id}.journal.jsonl line 9 is incomplete (torn write) and was dropped\n"
    )
    # the line torn is the ask of the call the process died in: every answered call is still shown
    assert "journal: rows 1–4 of 4" in shown.stdout.splitlines() and "WARNING" not in shown.stdout


def support_cli(store: str, *argv: str, **options) -> subprocess.Popen:
    """``alp-nb ARGV... --store STORE`` in a subprocess that also has the ``wait-once`` workflow saved."""
    return subprocess.Popen([sys.executable, SUPPORT, store, "cli", *argv, "--store", store], text=True, **options)


def test_ctrl_c_during_a_run_stops_it_cancelled_and_prints_how_to_resume_it(tmp_path, store):
    marker = tmp_path / "waiting.marker"
    process = support_cli(store, "workflow", "run", "wait-once", "--args", json.dumps({"marker": str(marker)}),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    for _ in range(600):  # until the run waits after its first call (at most a minute)
        if marker.exists() or process.poll() is not None:
            break
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    run_id = RunStore(store).last_run()
    assert process.returncode == 130, err
    assert err == f"alp-nb: interrupted; resume with alp-nb workflow resume {run_id} --store {store}\n"
    assert "Traceback" not in out and tally(out)["done"] == 1
    stopped = load_run(run_id, store=store)
    assert stopped.status == "cancelled" and stopped.journal["label"].tolist() == ["before"]
    resumed = launch("wait-once", RunStore(store), registry(), resume=run_id)
    assert resumed.status == "completed" and [attempt.status for attempt in resumed.task.attempts] == [
        "cancelled", "completed"]
    assert resumed.task.attempts[-1].cached == 1


def test_a_reader_that_closes_the_pipe_stops_the_run_quietly(store):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line, as `| head -0` would be
    try:
        process = support_cli(store, "workflow", "run", "review-changes", "--args", CHANGES,
                              stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (1, "")
    stopped = load_run(store=store)
    assert stopped.status == "cancelled" and stopped.journal.empty


# --- bad text and output that could run away --------------------------------------------------------------------


@pytest.mark.parametrize("args", ['{"changes": "rename \udcff"}', '{"changes": "rename \\udc80"}'],
                         ids=["undecodable byte", "escaped lone surrogate"])
def test_args_holding_a_lone_surrogate_are_refused_naming_the_key_before_anything_runs(capsys, store, args):
    """A terminal hands bytes that are not UTF-8 over as lone surrogates; no file of a run can hold them, so a
    run launched with them could never be resumed."""
    code, out, err = run(capsys, "workflow", "run", "review-changes", "--args", args, "--store", store)
    assert (code, out) == (2, "")
    assert err == ("alp-nb: --args key `changes` is not valid Unicode text (a lone surrogate at character 7): a run "
                   "could not write it to its files\n")
    assert not os.path.exists(store)


LONG_LABEL = """
from alp_nb import saved_workflow


@saved_workflow(name="long-label", description="a call with a 20,000-character label and phase")
async def long_label(ctx, args):
    ctx.phase("P" * 20_000)
    ctx.log("L" * 20_000)
    return await ctx.agent("a question", label="x" * 20_000)
"""


def test_a_20000_character_label_phase_or_log_line_is_clipped_in_every_line_a_command_prints(capsys, store,
                                                                                               tmp_path):
    script = tmp_path / "long_label.py"
    script.write_text(LONG_LABEL, encoding="utf-8")
    code, out, _ = run(capsys, "workflow", "run", "long-label", "--store", store, "--script", str(script))
    assert code == 0 and max(len(line) for line in out.splitlines()) < 400
    code, out, _ = run(capsys, "workflow", "resume", "--store", store, "--script", str(script))
    assert code == 0 and max(len(line) for line in out.splitlines()) < 400
    assert "phase    " + "P" * 70 in out and "…" in out
    code, out, _ = run(capsys, "workflow", "show", RunStore(store).last_run(), "--store", store)
    assert code == 0 and max(len(line) for line in out.splitlines()) < 400
    assert "x" * 39 + "…" in out


def test_show_prints_one_page_of_a_long_run_and_every_call_only_when_asked(capsys, store):
    launch("sequence", RunStore(store), args={"calls": 45})
    run_id = RunStore(store).last_run()
    calls = re.compile(r"^\d+ +1 +done +step-", re.MULTILINE)
    code, out, _ = run(capsys, "workflow", "show", run_id, "--store", store)
    assert code == 0 and len(calls.findall(out)) == 20 and "journal: rows 1–20 of 45 · page 1 of 3" in out
    code, out, _ = run(capsys, "workflow", "show", run_id, "--store", store, "--page", "3")
    assert code == 0 and len(calls.findall(out)) == 5 and "step-44" in out and "step-39" not in out
    code, out, _ = run(capsys, "workflow", "show", run_id, "--store", store, "--all")
    assert code == 0 and len(calls.findall(out)) == 45
    code, _, err = run(capsys, "workflow", "show", run_id, "--store", store, "--page", "4")
    assert code == 2 and err == "alp-nb: page must be a whole number from 1 to 3, not 4\n"
