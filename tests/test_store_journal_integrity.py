"""The journal vouches for itself: each line carries a checksum of its content, a call recorded twice must agree
with itself, hostile JSON is refused naming its line, and a lost journal is said before its calls run again."""

from __future__ import annotations

import hashlib
import json
import warnings

import pytest
from runtime_support import FailingRunner, launch, sealed_line

from alp_nb.cli import main
from alp_nb.runtime import MockAgentRunner, RunnerOutput, RunStore, WorkflowInputError, read_journal


def lines_of(store, run_id):
    return store.paths(run_id).journal.read_text().splitlines(keepends=True)


def refused_resume(store, run_id, code, workflow="sequence"):
    """Resume ``run_id``: it must be refused with ``code`` and leave every file of the store as it was."""
    before = {path.name: path.read_bytes() for path in store.root.iterdir() if path.is_file()}
    with pytest.raises(WorkflowInputError) as refused:
        launch(workflow, store, resume=run_id)
    assert refused.value.code == code
    assert {path.name: path.read_bytes() for path in store.root.iterdir() if path.is_file()} == before
    return refused.value.message


class Verdict:
    blocking = False

    def run(self, prompt, schema, label):
        return RunnerOutput({"ok": False}, 3)


def test_each_line_carries_the_checksum_of_its_content_as_specified(store):
    run = launch("sequence", store)
    for line in lines_of(store, run.run_id):
        record = json.loads(line)
        assert record["v"] == 2 and line == sealed_line(record)
        text = line[:line.rindex(', "sum": ')] + "}"
        assert record["sum"] == hashlib.sha256(text.encode()).hexdigest()[:16]
    assert read_journal(store.paths(run.run_id).journal).legacy_lines == 0


def test_an_edited_journal_line_is_refused_naming_the_file_and_line(store):
    run = launch("checked", store, runner=Verdict())
    path = store.paths(run.run_id).journal
    (line,) = lines_of(store, run.run_id)
    assert '"value": {"ok": false}' in line
    path.write_text(line.replace('"value": {"ok": false}', '"value": {"ok": true}'))
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED", "checked")
    assert message == f"{path.name} line 1: its checksum does not match its content, so the line was edited"
    with pytest.raises(WorkflowInputError, match="line 1: its checksum does not match"):
        store.load(run.run_id)


def test_a_second_line_for_the_same_call_with_another_value_is_refused_naming_both_lines(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    forged = {**json.loads(lines[0]), "seq": 4, "value": "another answer"}
    path.write_text("".join(lines) + sealed_line(forged))
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED")
    key = forged["key"]
    assert message == f"{path.name} lines 1 and 4 record call `{key}` with different values"


def test_the_same_call_recorded_twice_with_the_same_value_is_read_once(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    path.write_text("".join(lines) + sealed_line({**json.loads(lines[0]), "seq": 4}))
    read = read_journal(path, keep_entries=True)
    assert len(read.calls) == len(read.entries) == 3 and read.next_seq == 5
    runner = MockAgentRunner()
    again = launch("sequence", store, resume=run.run_id, runner=runner)
    assert runner.calls == [] and again.result == run.result


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda line: line.replace('"tokens": ', '"tokens": NaN, "t": '), "NaN is not a JSON number"),
    (lambda line: line.replace('"tokens": ', '"tokens": Infinity, "t": '), "Infinity is not a JSON number"),
    (lambda line: line.replace('"kind": "agent"', '"kind": "agent", "kind": "agent"'), 'repeated key "kind"'),
], ids=["NaN", "Infinity", "repeated key"])
@pytest.mark.parametrize("sealed", [True, False], ids=["checksummed", "legacy"])
def test_nan_infinity_or_a_repeated_key_in_a_line_is_refused_naming_the_line(store, edit, problem, sealed):
    """Edited in a checksummed line (its checksum then fails too) or in a legacy line without one."""
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    if not sealed:
        lines = [json.dumps({k: v for k, v in json.loads(line).items() if k not in ("sum", "v")}) + "\n"
                 for line in lines]
    lines[1] = edit(lines[1])
    path.write_text("".join(lines))
    message = refused_resume(store, run.run_id, "JOURNAL_CORRUPT")
    assert message == f"{path.name} line 2: {problem}"


def test_lines_without_a_checksum_from_s16_or_an_earlier_version_read_as_legacy(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    ours = [json.loads(line) for line in lines_of(store, run.run_id)]
    s16 = {"key": ours[0]["key"], "value": ours[0]["value"]}
    v1 = {key: value for key, value in ours[1].items() if key != "sum"} | {"v": 1}
    path.write_text(json.dumps(s16) + "\n" + json.dumps(v1) + "\n" + sealed_line(ours[2]))
    read = read_journal(path, keep_entries=True)
    assert read.legacy_lines == 2 and [entry.legacy for entry in read.entries] == [True, True, False]
    assert [entry.legacy for entry in store.load(run.run_id).journal] == [True, True, False]
    runner = MockAgentRunner()
    assert launch("sequence", store, resume=run.run_id, runner=runner).result == run.result
    assert runner.calls == []


@pytest.mark.parametrize("strip", ["sum", "sum and v"])
def test_a_line_whose_checksum_was_stripped_is_refused(store, strip):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    record = json.loads(lines[1])
    del record["sum"]
    if strip == "sum and v":
        record["v"] = 1
    lines[1] = json.dumps(record) + "\n"
    path.write_text("".join(lines))
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED")
    assert message.startswith(f"{path.name} line 2: ") and "stripped" in message


@pytest.mark.parametrize("lost", ["missing", "empty"])
def test_a_resume_warns_before_rerunning_calls_the_snapshot_counts_but_the_journal_lost(store, lost):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    if lost == "missing":
        path.unlink()
    else:
        path.write_text("")
    with pytest.warns(RuntimeWarning) as caught:
        again = launch("sequence", store, resume=run.run_id)
    assert [str(warning.message) for warning in caught] == [
        f"{run.run_id}.json records 3 agent calls but {path.name} holds none of them: they will run again"]
    assert again.task.attempts[-1].usage.agents == 3
    failed = launch("sequence", store, runner=FailingRunner({"step-0"}))  # an empty journal that lost nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert launch("sequence", store, resume=failed.run_id).status == "completed"


def test_the_command_line_prints_the_lost_journal_warning_as_one_line(tmp_path, capsys):
    assert main(["workflow", "run", "review-changes", "--args", '{"changes": "x"}', "--store",
                 str(tmp_path / "runs")]) == 0
    store = RunStore(tmp_path / "runs")
    run_id = store.last_run()
    store.paths(run_id).journal.unlink()
    capsys.readouterr()
    with warnings.catch_warnings():
        assert main(["workflow", "resume", "--store", str(store.root)]) == 0
    err = capsys.readouterr().err
    assert err == (f"alp-nb: warning: {run_id}.json records 10 agent calls but {run_id}.journal.jsonl "
                   "holds none of them: they will run again\n")



