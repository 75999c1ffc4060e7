"""A v4 journal says each call once: its ask line holds what the call is, each answer names its ask by seq, and
times count from the epoch of the writer's first line. A line that points at nothing is tampering, named."""

from __future__ import annotations

import json
import time

import pytest
from runtime_support import FailingRunner, journal_records, launch, sealed_line

from alp_nb.replay import load_run
from alp_nb.runtime import MockAgentRunner, RunnerOutput, WorkflowInputError, read_journal
from alp_nb.runtime.journal import writer as journal_writer

ANSWER_SECONDS = 2.0
"""How long each answer of ``InvalidThenValid`` takes, on the journal's faked clock (``clock``)."""


def raw_lines(store, run_id):
    return [json.loads(line) for line in store.paths(run_id).journal.read_text().splitlines()]


def rewrite(store, run_id, records):
    store.paths(run_id).journal.write_text("".join(sealed_line(record) for record in records))


class JournalClock:
    """The journal writer's clock, faked: it stands still until a runner moves it on, so the times a journal holds
    are known exactly, whatever the machine's speed."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> JournalClock:
    fake = JournalClock()
    monkeypatch.setattr(journal_writer, "time", fake)
    return fake


class InvalidThenValid:
    """Answers ``check`` with output failing its schema, then with output that fits (one retry); each answer takes
    ANSWER_SECONDS on ``clock``."""

    blocking = False

    def __init__(self, clock: JournalClock):
        self.clock = clock
        self.answers = [{"ok": "yes"}, {"ok": True}]

    def run(self, prompt, schema, label):
        self.clock.now += ANSWER_SECONDS
        return RunnerOutput(self.answers.pop(0), 5)


def test_an_answer_names_its_ask_and_holds_only_what_came_back(store):
    run = launch("sequence", store, args={"calls": 2})
    asks, answers = (lambda lines: (lines[0::2], lines[1::2]))(raw_lines(store, run.run_id))
    assert [answer["ask"] for answer in answers] == [ask["seq"] for ask in asks] == [1, 3]
    assert all("key" not in answer and "label" not in answer and "prompt" not in answer for answer in answers)
    assert [ask["prompt"] for ask in asks] == ["step 0", "step 1"] and "attempts" not in asks[0]  # the first answer


def test_only_a_writers_first_line_carries_the_epoch_and_every_time_counts_from_it(store):
    before = time.time()
    failed = launch("sequence", store, runner=FailingRunner({"step-1"}))
    launch("sequence", store, resume=failed.run_id)
    lines = raw_lines(store, failed.run_id)
    with_epoch = [line["seq"] for line in lines if "epoch" in line]
    assert with_epoch == [1, 5]  # the first run's first ask, and the resume's
    assert lines[0]["at"] == 0.0 and lines[4]["at"] == 0.0 and lines[4]["epoch"] >= lines[0]["epoch"] >= before
    calls = journal_records(store, failed.run_id)
    assert [call["started"] <= call["ended"] for call in calls] == [True] * len(calls)
    assert calls[-1]["ended"] <= time.time() and calls[0]["started"] == pytest.approx(lines[0]["epoch"])


def test_a_retried_call_started_when_it_was_first_asked(store, clock):
    run = launch("checked", store, runner=InvalidThenValid(clock))
    ask, retried, again, kept = raw_lines(store, run.run_id)
    assert (retried["reason"], again["attempts"], kept["ask"]) == ("retried", 2, again["seq"])
    call = read_journal(store.paths(run.run_id).journal, keep_entries=True).entries[0]
    assert call.attempts == 2 and call.started == pytest.approx(ask["epoch"] + ask["at"], abs=1e-6)
    assert call.ended - call.started == pytest.approx(2 * ANSWER_SECONDS)  # both answers, not only the second


def test_an_answer_whose_ask_line_was_deleted_is_refused_naming_it(store):
    run = launch("sequence", store)
    lines = raw_lines(store, run.run_id)
    rewrite(store, run.run_id, lines[:2] + lines[3:])  # step-1's ask (seq 3) is gone, its answer stays
    with pytest.raises(WorkflowInputError) as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "JOURNAL_TAMPERED"
    assert refused.value.message.endswith("line 3 answers the ask at seq 3, which no line before it holds unanswered")


def test_an_ask_answered_twice_is_refused_naming_the_second_answer(store):
    run = launch("sequence", store)
    lines = raw_lines(store, run.run_id)
    rewrite(store, run.run_id, [*lines, {**lines[1], "seq": 7}])
    with pytest.raises(WorkflowInputError, match="line 7 answers the ask at seq 1, which no line before it holds "
                                                 "unanswered") as refused:
        launch("sequence", store, resume=run.run_id)
    assert refused.value.code == "JOURNAL_TAMPERED"


def test_lines_after_a_deleted_first_line_have_no_epoch_and_are_refused(store):
    run = launch("sequence", store)
    rewrite(store, run.run_id, raw_lines(store, run.run_id)[1:])
    with pytest.raises(WorkflowInputError, match="line 1: no line before it carries the epoch its time counts "
                                                 "from, so its writer's first line was removed") as refused:
        load_run(run.run_id, store=store)
    assert refused.value.code == "JOURNAL_TAMPERED"


@pytest.mark.parametrize(("line", "field", "value", "problem"), [
    (1, "ask", 2, "`ask` must be the seq of an earlier line"),
    (1, "ask", "1", "`ask` must be the seq of an earlier line"),
    (1, "at", -1.0, "`at` must be a non-negative number of seconds"),
    (0, "epoch", "now", "`epoch` must be a non-negative number of seconds"),
    (0, "attempts", 0, "`attempts` must be a positive integer"),
    (0, "key", "step-0", "`key` must be a string agent-<hash>"),
    (1, "tokens", -1, "`tokens` must be a non-negative integer"),
])
def test_a_malformed_v4_line_is_refused_naming_its_line_and_field(store, line, field, value, problem):
    run = launch("sequence", store)
    lines = raw_lines(store, run.run_id)
    lines[line][field] = value
    rewrite(store, run.run_id, lines)
    with pytest.raises(WorkflowInputError) as refused:
        launch("sequence", store, resume=run.run_id)
    assert refused.value.code == "JOURNAL_CORRUPT"
    assert refused.value.message.endswith(f"line {line + 1}: {problem}")


def test_a_v4_answer_is_shown_with_its_calls_schema_read_from_its_ask(store, clock):
    run = launch("checked", store, runner=InvalidThenValid(clock))
    entry = load_run(run.run_id, store=store).entry(1)
    assert (entry.label, entry.prompt, entry.attempts) == ("check", "check it", 2)
    assert entry.to_json()["schema"]["required"] == ["ok"] and entry.started < entry.ended


def test_a_cached_resume_reads_a_100_call_v4_journal_as_it_was_written(store):
    run = launch("fanout", store, args={"calls": 100})
    runner = MockAgentRunner()
    again = launch("fanout", store, args={"calls": 100}, resume=run.run_id, runner=runner)
    assert runner.calls == [] and again.result == run.result and again.task.attempts[-1].cached == 100
    assert len(raw_lines(store, run.run_id)) == 200  # the resume wrote nothing
