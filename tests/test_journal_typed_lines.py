"""A journal reads into one family of typed lines whatever format wrote it, each number within its bound, each
refusal in the words of the field's type, and how a call went in one vocabulary."""

from __future__ import annotations

import gc
import json
import re
from pathlib import Path

import pytest
from runtime_support import FailingRunner, as_v3_journal, launch, sealed_line

import alp_nb.cli.runs
import alp_nb.replay.timeline
import alp_nb.runtime.calls
from alp_nb.runtime import WorkflowInputError, read_journal
from alp_nb.runtime.journal import outcomes, v4
from alp_nb.runtime.journal.lines import MAX_COUNT, Answer, Answered, Ask, Spend

RUNTIME = Path(alp_nb.runtime.calls.__file__).parent


def answers(path: Path) -> list[Answered]:
    found: list[Answered] = []
    read_journal(path, on_answer=found.append)
    return found


def call_of(answered: Answered) -> tuple:
    """What an answer says about its call, whatever format wrote it."""
    ask, answer = answered.ask, answered.answer
    return (answered.kept, ask.key, ask.label, ask.phase, ask.attempts, answered.value, answered.tokens,
            answer.reason if isinstance(answer, Spend) else None)


def test_a_v4_journal_and_the_same_run_rewritten_as_v3_read_into_the_same_typed_answers(store):
    run = launch("sequence", store, args={"calls": 3}, runner=FailingRunner({"step-2"}))
    path = store.paths(run.run_id).journal
    as_written = answers(path)
    path.write_text("".join(sealed_line(line) for line in as_v3_journal(store, run.run_id)))
    upgraded = answers(path)
    assert [call_of(answered) for answered in upgraded] == [call_of(answered) for answered in as_written]
    assert all(isinstance(answered.ask, Ask) and isinstance(answered.answer, Answer | Spend) for answered in upgraded)
    assert {type(answered.answer) for answered in as_written} <= {v4.V4Answer, v4.V4Spend}


def test_every_answer_is_joined_with_the_ask_it_names_and_placed_in_time(store):
    run = launch("sequence", store, args={"calls": 2})
    found = answers(store.paths(run.run_id).journal)
    assert [(answered.ask.seq, answered.seq) for answered in found] == [(1, 2), (3, 4)]
    assert all(answered.started <= answered.ended for answered in found)


@pytest.mark.parametrize(("field", "value", "problem"), [
    ("tokens", MAX_COUNT + 1, "`tokens` must be a non-negative integer"),
    ("seq", 0, "`seq` must be a positive integer"),
    ("at", 1e11, "`at` must be a non-negative number of seconds"),
    ("reason", "bored", '`reason` must be one of "cancelled", "failed", "not JSON", "refused", "retried"'),
])
def test_a_v4_number_or_reason_beyond_its_bound_is_refused_naming_the_field(store, field, value, problem):
    run = launch("sequence", store, runner=FailingRunner({"step-0"}))
    path = store.paths(run.run_id).journal
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    spend = next(index for index, line in enumerate(lines) if line["kind"] == "spend")
    lines[spend][field] = value
    path.write_text("".join(sealed_line(line) for line in lines))
    with pytest.raises(WorkflowInputError) as refused:
        read_journal(path)
    assert refused.value.code == "JOURNAL_CORRUPT"
    assert refused.value.message == f"{path.name} line {spend + 1}: {problem}"


def test_a_whole_line_token_count_beyond_the_bound_a_reader_holds_is_refused(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = as_v3_journal(store, run.run_id)
    lines[-1]["tokens"] = MAX_COUNT + 1
    path.write_text("".join(sealed_line(line) for line in lines))
    with pytest.raises(WorkflowInputError, match=r"`tokens` must be a non-negative integer") as refused:
        read_journal(path)
    assert refused.value.code == "JOURNAL_CORRUPT"


def test_a_refusal_of_a_record_is_worded_from_its_type_not_from_the_parser(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).snapshot
    snapshot = json.loads(path.read_text())
    snapshot["attempts"][0]["usage"]["agents"] = "three"
    path.write_text(json.dumps(snapshot))
    with pytest.raises(WorkflowInputError) as refused:
        store.read_snapshot(run.run_id)
    assert refused.value.message == f"{path.name}: `attempts.0.usage.agents` must be a non-negative integer"


def test_decoded_lines_and_answers_are_never_tracked_by_the_collector(store):
    run = launch("sequence", store, args={"calls": 2})
    found = answers(store.paths(run.run_id).journal)
    assert not any(gc.is_tracked(thing) for answered in found for thing in (answered, answered.ask, answered.answer))


def test_how_a_call_went_has_one_vocabulary_every_layer_speaks():
    assert alp_nb.replay.timeline.CALL_OUTCOMES is outcomes.CALL_OUTCOMES
    assert alp_nb.cli.runs.OUTCOMES is outcomes.CALL_OUTCOMES
    assert alp_nb.runtime.calls.ObservedCall.__annotations__["outcome"] == "CallOutcome"
    written = set(re.findall(r'_spend\([^,]+, [^,]+, "([^"]+)"', (RUNTIME / "attempt.py").read_text()))
    assert written == set(outcomes.SPEND_REASONS)
