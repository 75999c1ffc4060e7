"""Every token a runner hands back is on disk before anything else is done with it: a crash during a schema
retry, or a sibling's failure in ``parallel``, never makes a run forget (and so overspend) what it paid for."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from runtime_support import KILL_BUDGET, RETRY_BUDGET, RETRY_TOKENS, SUPPORT, journal_records, launch, registry

from alp_nb.replay import load_run, plan_resume
from alp_nb.runtime import NO_USAGE, RunnerOutput, RunStore, Usage, run_workflow, run_workflow_sync
from alp_nb.viz.views.plans import resume_plan_text

KILLS = 5


def journal_lines(store, run_id):
    return journal_records(store, run_id)


def handed_back(folder: Path) -> int:
    ledger = folder / "handed-back.log"
    return sum(int(line) for line in ledger.read_text().split()) if ledger.exists() else 0


def retry_until_killed(store: RunStore, run_id: str | None) -> subprocess.CompletedProcess[str] | None:
    """Launch (or resume) ``checked`` in a process and SIGKILL it once it hangs in the schema retry; the finished
    process if it ended on its own (its resume refused by the spent budget) instead."""
    marker = store.root / "retrying.marker"
    marker.unlink(missing_ok=True)
    child = subprocess.Popen([sys.executable, SUPPORT, str(store.root), "retry", *([run_id] if run_id else [])],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(3000):  # at most a minute
            if marker.exists() or child.poll() is not None:
                break
            time.sleep(0.02)
        if child.poll() is not None:
            out, err = child.communicate()
            return subprocess.CompletedProcess(child.args, child.returncode, out, err)
        assert marker.exists(), "the run never reached its retry"
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            child.wait()
            child.communicate()
    return None


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")
def test_tokens_of_an_answer_killed_in_its_retry_are_on_disk_so_kills_never_overspend_the_budget(tmp_path):
    """Each process answers once (RETRY_TOKENS, output that fails its schema) and is killed (SIGKILL) while the
    retry hangs. Before the fix the first answer's tokens lived only in memory: every resume started from 0 and
    paid again, without limit. Now each answer is a spend line, and the retry asked as the process died is
    reserved at the largest answer recorded, so the resumes stop before the budget is reached."""
    store = RunStore(tmp_path / "runs")
    run_id = None
    for kill in range(KILLS):
        finished = retry_until_killed(store, run_id)
        run_id = run_id or store.last_run()
        spent = handed_back(store.root)
        caught_up = store.snapshot(run_id).usage.cumulative  # the dead attempts' usage, read back from the journal
        assert caught_up.tokens == spent, f"after kill {kill + 1}"
        if finished is None:  # killed in its retry: that ask is never answered
            assert (caught_up.unanswered, caught_up.reserved) == (kill + 1, (kill + 1) * RETRY_TOKENS)
        if finished is not None:  # the resume was refused: the budget is overspent, it would stop at once
            assert finished.returncode == 0, finished.stderr
            refused = json.loads(finished.stdout)["refused"]
            assert refused["code"] == "BUDGET_EXCEEDED"
            unknown = caught_up.unanswered
            assert (f"has spent its token budget ({spent} tokens recorded and {unknown * RETRY_TOKENS} reserved for "
                    f"{unknown} calls asked and never answered of {RETRY_BUDGET} tokens)") in refused["message"]
            break
    else:
        pytest.fail(f"the budget of {RETRY_BUDGET} never stopped the run after {KILLS} kills")
    assert spent + caught_up.reserved > RETRY_BUDGET >= spent  # stopped before a token past the budget was paid
    spends = [line for line in journal_lines(store, run_id) if line["kind"] == "spend"]
    assert [(line["reason"], line["tokens"], line["attempts"]) for line in spends] == [
        ("retried", RETRY_TOKENS, 1)] * (spent // RETRY_TOKENS)
    record = load_run(run_id, store=store)
    assert not (record.journal["kind"] == "agent").any() and record.usage.cumulative.tokens == spent
    assert [attempt.usage.agents for attempt in record.attempts] == [1] * (spent // RETRY_TOKENS)  # the
    # refused resume left no attempt behind


def test_a_retried_answer_is_recorded_as_spent_and_its_call_counted_once_after_a_crash(tmp_path):
    """The first answer (failing its schema) is a spend line written before the retry; the call line holds only the
    answer it keeps, so reading the journal back after a crash counts the call once and each token once."""
    store = RunStore(tmp_path / "runs")

    class SecondTimeRight:
        blocking = False

        def __init__(self) -> None:
            self.answers = iter([{"ok": "no"}, {"ok": True}])

        def run(self, prompt, schema, label):
            return RunnerOutput(next(self.answers), 7)

    first = launch("checked", store, runner=SecondTimeRight())
    assert first.result == {"ok": True} and first.task.usage.attempt == Usage(agents=1, tokens=14)
    assert [(line["kind"], line["tokens"], line["attempts"]) for line in journal_lines(store, first.run_id)] == [
        ("spend", 7, 1), ("agent", 7, 2)]
    snapshot = store.read_snapshot(first.run_id)  # as if the process had died before its last snapshot
    dead = snapshot.attempts[0].replace(status="running", usage=NO_USAGE)
    store.write_snapshot(snapshot.replace(status="running", attempts=(dead,)))
    assert store.snapshot(first.run_id).usage.cumulative == Usage(agents=1, tokens=14)
    again = launch("checked", store, resume=first.run_id)
    assert again.task.attempts[0].usage == Usage(agents=1, tokens=14) and again.task.attempts[1].cached == 1


class AnswersFromItsOwnTask:
    """An async runner whose answer is computed in a task of its own (as a client library's connection does) and
    handed back as that task: it can finish just as the call awaiting it is cancelled."""

    blocking = False

    def __init__(self) -> None:
        self.handed_back = 0

    def run(self, prompt, schema, label):
        return asyncio.ensure_future(self._answer(label))

    async def _answer(self, label):
        await asyncio.sleep(0)
        self.handed_back += 10
        return RunnerOutput(f"answer to {label}", 10)


def test_answers_that_arrive_as_a_failing_sibling_cancels_their_calls_are_counted_and_recorded(tmp_path):
    """Fifty calls of 10 tokens under a budget of 100: the call that trips the budget cancels its siblings, some of
    whose answers have already been handed back. Before the fix the run recorded 110 of the 160 tokens."""
    store = RunStore(tmp_path / "runs")
    runner = AnswersFromItsOwnTask()
    run = asyncio.run(run_workflow("fanout", {"calls": 50, "budget": 100}, store=store, registry=registry(),
                                   runner=runner))
    assert run.status == "failed" and "token budget" in run.error
    assert runner.handed_back > 110  # the scenario: answers did arrive for cancelled calls
    assert run.task.usage.cumulative.tokens == runner.handed_back
    lines = journal_lines(store, run.run_id)
    assert sum(line["tokens"] for line in lines) == runner.handed_back
    cancelled = [line for line in lines if line["kind"] == "spend"]
    assert cancelled and {line["reason"] for line in cancelled} == {"cancelled"}
    assert all(line["tokens"] == 10 for line in cancelled)  # every one of them an answer handed back, waited for


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")
def test_an_answer_handed_back_and_never_journaled_is_reserved_so_repeated_kills_stop_at_the_budget(tmp_path):
    """Each process is killed after the runner handed an answer back and before its journal line: the runtime
    never sees those tokens. Before the fix, 12 such kills under a budget of 100 had 150 tokens handed back and
    100 recorded, without bound. Now the call's ask line says it was asked: it counts as spend of unknown size,
    reserved at the largest answer recorded, so the resumes stop before a token past the budget is paid."""
    store = RunStore(tmp_path / "runs")
    run_id = None
    for kill in range(12):
        process = subprocess.run([sys.executable, SUPPORT, str(store.root), "hand-back", *([run_id] if run_id else [])],
                                 capture_output=True, text=True, timeout=60)
        run_id = run_id or store.last_run()
        handed_back = sum(int(line) for line in (store.root / "ledger").read_text().split())
        usage = store.snapshot(run_id).usage.cumulative
        assert usage.tokens <= handed_back <= usage.tokens + usage.reserved, f"after process {kill + 1}"
        if process.returncode == 0:  # refused, or stopped at its first call: the budget is spent
            break
        assert process.returncode == -signal.SIGKILL, process.stderr
    else:
        pytest.fail("the budget never stopped the kills")
    assert handed_back <= KILL_BUDGET
    plan = plan_resume(run_id, store=store, registry=registry())
    assert plan.unanswered == usage.unanswered > 0 and plan.spent == usage.tokens + usage.reserved
    assert f"{plan.reserved} of them held for {plan.unanswered} calls asked and never answered" in \
        resume_plan_text(plan)


def test_a_sync_runner_call_still_out_when_the_budget_stops_a_parallel_batch_is_waited_for_and_recorded(tmp_path):
    """50 parallel calls of a plain sync runner (a thread each, 20 ms, 10 tokens) under a budget of 100: the call
    that trips the budget stops the batch, but the calls already out in threads cannot be stopped. The run waits
    for them and records their answers as spent, so it ends with every token handed back on disk and no runner
    thread left running."""
    store = RunStore(tmp_path / "runs")
    runner = SlowSyncRunner()
    run = run_workflow_sync("fanout", {"calls": 50, "budget": 100}, store=store, registry=registry(),
                            runner=runner)
    assert run.status == "failed" and "token budget" in run.error
    for thread in [thread for thread in threading.enumerate() if thread.name == "alp-nb runner call"]:
        thread.join(timeout=60)  # each has handed back its answer: it only has its own return left to run
        assert not thread.is_alive(), "a runner thread went on after the run had its answer"
    assert runner.handed_back > 100 and run.task.usage.cumulative.tokens == runner.handed_back
    assert sum(line["tokens"] for line in journal_lines(store, run.run_id)) == runner.handed_back
    late = [line for line in journal_lines(store, run.run_id) if line["kind"] == "spend"]
    assert late and {line["reason"] for line in late} == {"cancelled"}


class SlowSyncRunner:
    """A plain sync runner (so each call runs in a thread of its own): 20 ms and 10 tokens an answer."""

    def __init__(self) -> None:
        self.handed_back = 0
        self.lock = threading.Lock()

    def run(self, prompt, schema, label):
        time.sleep(0.02)
        with self.lock:
            self.handed_back += 10
        return RunnerOutput(f"answer to {label}", 10)
