"""``alp-nb workflow list|run|resume|show``: saved workflows from a terminal, each run in a run store
(``--store``, default ``./.alp-runs``), agent calls answered by the mock runner. Refusals print one line on
stderr and exit 2; a run that fails exits 1 and says how to resume it."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from runtime_support import FailingRunner

from alp_nb.cli import main
from alp_nb.runtime import RunStore, run_workflow

RUN_ID = re.compile(r"^RUN +(wf_\S+)$", re.MULTILINE)
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


def test_list_shows_review_changes_with_its_description_and_phases(capsys):
    code, out, err = run(capsys, "workflow", "list")
    assert (code, err) == (0, "")
    assert "review-changes  Review code changes  [Review → Verify]" in out.splitlines()


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
    assert f"journal: calls 1–{REVIEW_CALLS} of {REVIEW_CALLS}" in shown.splitlines()
    assert len([line for line in shown.splitlines() if re.match(r"^\d+ +1 +(audit|verify):", line)]) == REVIEW_CALLS

    code, out, err = run(capsys, "workflow", "resume", run_id, "--store", store)
    assert (code, err) == (0, "")
    assert run_id_of(out) == run_id
    assert len([line for line in out.splitlines() if line.startswith("cached ")]) == REVIEW_CALLS
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
    journaled = len(RunStore(store).load(broken.run_id).journal)
    code, out, err = run(capsys, "workflow", "resume", "--store", store)
    assert (code, err) == (0, "")
    cached = [line for line in out.splitlines() if line.startswith("cached ")]
    done = [line for line in out.splitlines() if line.startswith("done ")]
    assert len(cached) == journaled and len(cached) + len(done) == REVIEW_CALLS
    assert "done     audit:security" in done


def test_a_failed_run_exits_1_and_prints_how_to_resume_it(capsys, store):
    code, out, err = run(capsys, "workflow", "run", "review-changes", "--args", '{"budget": 1}', "--store", store)
    assert (code, err) == (1, "")
    assert labelled(out, "STATUS") == "STATUS     failed"
    assert "token budget" in labelled(out, "ERROR")
    assert labelled(out, "RESUME") == f"RESUME     alp-nb workflow resume {run_id_of(out)} --store {store}"


def test_the_default_store_is_alp_runs_in_the_working_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "workflow", "run", "review-changes")
    assert code == 0
    assert RunStore(tmp_path / ".alp-runs").run_ids() == (run_id_of(out),)
    assert labelled(out, "OUTPUT") == f"OUTPUT     .alp-runs/{run_id_of(out)}.output.json"


@pytest.mark.parametrize(("argv", "message"), [
    (("run", "no-such-workflow"), "alp-nb: unknown workflow `no-such-workflow` (saved: review-changes)"),
    (("run", "review-changes", "--args", "{changes: 1}"), "alp-nb: --args is not valid JSON: Expecting property"),
    (("run", "review-changes", "--args", "[1, 2]"), "alp-nb: args must be a JSON object, not list"),
    (("show", "../../etc/passwd"), "alp-nb: invalid run id `../../etc/passwd`"),
    (("resume", "wf_review-changes_0123456789abcdef"), "alp-nb: no run `wf_review-changes_0123456789abcdef` in"),
    (("show", "wf_review-changes_0123456789abcdef"), "alp-nb: no run `wf_review-changes_0123456789abcdef` in"),
    (("resume",), "alp-nb: no run to resume in"),
])
def test_refusals_exit_2_with_one_line_on_stderr_and_write_nothing(capsys, tmp_path, store, argv, message):
    code, out, err = run(capsys, "workflow", *argv, "--store", store)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1
    assert not (tmp_path / "runs").exists()


def test_progress_is_plain_lines_when_stdout_is_not_a_terminal(capsys, store):
    _, out, _ = run(capsys, "workflow", "run", "review-changes", "--store", store)
    assert "\r" not in out and "\x1b" not in out
    assert out.splitlines()[:2] == ["phase    Review", "done     audit:correctness"]


def test_progress_is_one_redrawn_bar_on_a_terminal(monkeypatch, store):
    terminal = Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    assert main(["workflow", "run", "review-changes", "--args", CHANGES, "--store", store]) == 0
    progress, summary = terminal.getvalue().split("\nRUN ", 1)
    assert progress.count("\r") > REVIEW_CALLS and "done     " not in progress
    assert progress.rsplit("\x1b[K", 1)[1] == f"[{'#' * 24}] {REVIEW_CALLS}/{REVIEW_CALLS} calls · Verify"
    assert re.search(r"\r\x1b\[Klog      Confirmed \d+ real issues\n", progress)  # a log line stays, above the bar
    assert summary.startswith("       wf_review-changes_")
