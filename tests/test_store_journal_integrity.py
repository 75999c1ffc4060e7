"""The journal vouches for itself: each line carries a checksum of its content, a call recorded twice must agree
with itself, hostile JSON is refused naming its line, and a lost journal is said before its calls run again."""

from __future__ import annotations

import hashlib
import json
import re
import warnings

import pytest
from runtime_support import FailingRunner, as_legacy_run, as_v3_journal, journal_records, launch, registry, sealed_line

from alp_nb.cli import main
from alp_nb.replay import load_run, plan_resume
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
        assert record["v"] == 4 and line == sealed_line(record)
        text = line[:line.rindex(',"sum":')] + "}"
        assert record["sum"] == hashlib.sha256(text.encode()).hexdigest()[:12]
        assert text == json.dumps({key: value for key, value in record.items() if key != "sum"},
                                  ensure_ascii=False, separators=(",", ":"))  # compact JSON
    assert read_journal(store.paths(run.run_id).journal).legacy_lines == 0


def test_an_edited_journal_line_is_refused_naming_the_file_and_line(store):
    run = launch("checked", store, runner=Verdict())
    path = store.paths(run.run_id).journal
    ask, line = lines_of(store, run.run_id)
    assert '"value":{"ok":false}' in line
    path.write_text(ask + line.replace('"value":{"ok":false}', '"value":{"ok":true}'))
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED", "checked")
    assert message == f"{path.name} line 2: its checksum does not match its content, so the line was edited"
    with pytest.raises(WorkflowInputError, match="line 2: its checksum does not match"):
        load_run(run.run_id, store=store)


def test_a_second_line_for_the_same_call_with_another_value_is_refused_naming_both_lines(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    ask, answer = json.loads(lines[0]), json.loads(lines[1])
    forged = sealed_line({**ask, "seq": 7}) + sealed_line({**answer, "seq": 8, "ask": 7, "value": "another answer"})
    path.write_text("".join(lines) + forged)
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED")
    assert message == f"{path.name} lines 2 and 8 record call `{ask['key']}` with different values"


def test_the_same_call_recorded_twice_with_the_same_value_is_read_once(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    ask, answer = json.loads(lines[0]), json.loads(lines[1])
    path.write_text("".join(lines) + sealed_line({**ask, "seq": 7}) + sealed_line({**answer, "seq": 8, "ask": 7}))
    read = read_journal(path, keep_entries=True)
    assert len(read.calls) == len(read.entries) == 3 and read.next_seq == 9
    runner = MockAgentRunner()
    again = launch("sequence", store, resume=run.run_id, runner=runner)
    assert runner.calls == [] and again.result == run.result


@pytest.mark.parametrize(("edit", "problem"), [
    (lambda line: line.replace('"tokens":', '"tokens":NaN,"t":'), "NaN is not a JSON number"),
    (lambda line: line.replace('"tokens":', '"tokens":Infinity,"t":'), "Infinity is not a JSON number"),
    (lambda line: re.sub(r'"kind": ?"agent"', '"kind":"agent","kind":"agent"', line), 'repeated key "kind"'),
], ids=["NaN", "Infinity", "repeated key"])
@pytest.mark.parametrize("sealed", [True, False], ids=["checksummed", "legacy"])
def test_nan_infinity_or_a_repeated_key_in_a_line_is_refused_naming_the_line(store, edit, problem, sealed):
    """Edited in a checksummed line (its checksum then fails too) or in a legacy line without one."""
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    if not sealed:  # a run written before lines were sealed: no checksums, and no ask lines
        as_legacy_run(store, run.run_id)
        lines = [json.dumps({k: v for k, v in line.items() if k not in ("sum", "v")}) + "\n"
                 for line in journal_records(store, run.run_id)]
    lines[1] = edit(lines[1])
    path.write_text("".join(lines))
    message = refused_resume(store, run.run_id, "JOURNAL_CORRUPT")
    assert message == f"{path.name} line 2: {problem}"


def test_lines_without_a_checksum_from_s16_or_an_earlier_version_read_as_legacy(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    as_legacy_run(store, run.run_id)
    ours = journal_records(store, run.run_id)
    s16 = {"key": ours[0]["key"], "value": ours[0]["value"]}
    v1 = {key: value for key, value in ours[1].items() if key != "sum"} | {"v": 1, "seq": 2}
    path.write_text(json.dumps(s16) + "\n" + json.dumps(v1) + "\n" + sealed_line(ours[2] | {"v": 3, "seq": 3}))
    read = read_journal(path, keep_entries=True)
    assert read.legacy_lines == 2 and [entry.legacy for entry in read.entries] == [True, True, False]
    record = load_run(run.run_id, store=store)
    assert len(record.journal) == 3
    assert f"{path.name}: 2 lines carry no checksum" in record.warnings[-1]  # nothing vouches for them
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





# --- lines relabelled, deleted, or from a newer writer ------------------------------------------------------------


def test_lines_relabelled_as_the_old_format_are_refused_in_a_run_whose_writer_sealed_every_line(store):
    """Strip every checksum, say ``v`` 1 and edit a value: the snapshot says every line of this run was written
    with a checksum (``sealedFrom``), so the first such line is tampering, named, and nothing is resumed."""
    run = launch("checked", store, runner=Verdict())
    path = store.paths(run.run_id).journal
    downgraded = [{key: value for key, value in record.items() if key != "sum"} | {"v": 1}
                  for record in journal_records(store, run.run_id, asks=True)]
    downgraded[-1]["value"] = {"ok": True}
    path.write_text("".join(json.dumps(record) + "\n" for record in downgraded))
    message = refused_resume(store, run.run_id, "JOURNAL_TAMPERED", "checked")
    assert message == (f"{path.name} line 1: it has no checksum, but every line of this run from seq 1 on was "
                       "written with one, so the line was stripped or relabelled as an older format")
    with pytest.raises(WorkflowInputError, match="line 1: it has no checksum"):
        load_run(run.run_id, store=store)


def test_a_snapshot_of_the_previous_writer_counts_as_sealed_so_its_lines_cannot_be_relabelled_either(store):
    """A snapshot written before ``sealedFrom`` existed, by the writer that already sealed its lines (it has
    ``errorCode``), is held to the same rule; only a snapshot from before checksums lets legacy lines read."""
    run = launch("checked", store, runner=Verdict())
    snapshot = store.paths(run.run_id).snapshot
    data = json.loads(snapshot.read_text())
    del data["sealedFrom"]
    snapshot.write_text(json.dumps(data))
    path = store.paths(run.run_id).journal
    calls = journal_records(store, run.run_id)  # v1 had no ask lines
    path.write_text("".join(json.dumps({k: v for k, v in record.items() if k != "sum"} | {"v": 1, "seq": seq}) + "\n"
                            for seq, record in enumerate(calls, 1)))
    refused_resume(store, run.run_id, "JOURNAL_TAMPERED", "checked")
    as_legacy_run(store, run.run_id)  # really written before checksums: the same lines read, as legacy
    assert launch("checked", store, resume=run.run_id, runner=Verdict()).status == "completed"


def test_a_line_deleted_from_the_middle_is_named_by_its_seq_before_a_resume_runs_it_again(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    path.write_text("".join(lines[:3] + lines[4:]))  # step-1's answer (seq 4) is gone
    expected = (f"{path.name} is missing seq 4: deleted from the journal, so a resume runs any call they held "
                "again, and pays for it again")
    with pytest.warns(RuntimeWarning) as plan_warnings:
        plan = plan_resume(run.run_id, store=store, registry=registry())
    assert expected in plan.warnings and expected in [str(warning.message) for warning in plan_warnings]
    with pytest.warns(RuntimeWarning):
        assert expected in load_run(run.run_id, store=store).warnings
    runner = MockAgentRunner()
    with pytest.warns(RuntimeWarning) as resume_warnings:
        launch("sequence", store, resume=run.run_id, runner=runner)
    assert expected in [str(warning.message) for warning in resume_warnings] and runner.calls == ["step-1"]


def test_lines_deleted_from_the_end_are_named_from_the_last_seq_the_snapshot_says_was_written(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    path.write_text("".join(lines_of(store, run.run_id)[:4]))
    with pytest.warns(RuntimeWarning, match=rf"{path.name} ends at seq 4 but {run.run_id}.json says the run wrote "
                                            r"up to seq 6: seq 5–6 \(2 lines\) deleted from its end"):
        plan = plan_resume(run.run_id, store=store, registry=registry())
    assert any("deleted from its end" in warning for warning in plan.warnings)


def test_a_snapshot_older_than_last_seq_still_tells_lost_lines_by_the_tokens_its_attempt_recorded(store):
    run = launch("sequence", store)
    snapshot = store.paths(run.run_id).snapshot
    data = json.loads(snapshot.read_text())
    del data["attempts"][0]["lastSeq"]
    snapshot.write_text(json.dumps(data))
    path = store.paths(run.run_id).journal
    path.write_text("".join(lines_of(store, run.run_id)[:4]))
    with pytest.warns(RuntimeWarning, match=rf"{run.run_id}.json says attempt 1 spent 27 tokens but its lines in "
                                            rf"{path.name} hold 18: lines were deleted"):
        load_run(run.run_id, store=store)


@pytest.mark.parametrize("version", [5, 12])
def test_a_line_of_a_newer_journal_format_is_refused_as_a_newer_snapshot_is(store, version):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    lines[1] = sealed_line({**json.loads(lines[1]), "v": version, "confidence": 0.9})
    path.write_text("".join(lines))
    message = refused_resume(store, run.run_id, "JOURNAL_CORRUPT")
    assert message == (f"{path.name} line 2: it is a v{version} line, a newer journal format than this alp_nb reads "
                       "(up to v4): upgrade alp_nb to read this run")
    snapshot = store.paths(run.run_id).snapshot
    snapshot.write_text(json.dumps(json.loads(snapshot.read_text()) | {"journalFormat": version}))
    with pytest.raises(WorkflowInputError) as newer_snapshot:
        store.read_snapshot(run.run_id)
    assert newer_snapshot.value.code == "CORRUPT_RUN"


def test_a_field_no_writer_of_the_lines_version_writes_is_refused_naming_it(store):
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    lines = lines_of(store, run.run_id)
    lines[3] = sealed_line({**json.loads(lines[3]), "severity": "critical"})
    path.write_text("".join(lines))
    message = refused_resume(store, run.run_id, "JOURNAL_CORRUPT")
    assert message == f"{path.name} line 4: unknown field `severity`: no v4 writer writes it"


def test_a_v2_journal_of_the_previous_writer_still_reads_and_resumes(store):
    """Lines in the spaced v2 form, with no ask lines: checked the same way, served the same way."""
    run = launch("sequence", store)
    path = store.paths(run.run_id).journal
    v2 = [sealed_line({**record, "v": 2, "seq": seq})
          for seq, record in enumerate(journal_records(store, run.run_id), 1)]
    path.write_text("".join(v2))
    snapshot = store.paths(run.run_id).snapshot
    data = json.loads(snapshot.read_text())
    del data["sealedFrom"]
    for attempt in data["attempts"]:
        attempt["lastSeq"] = 3
    snapshot.write_text(json.dumps(data))
    runner = MockAgentRunner()
    assert launch("sequence", store, resume=run.run_id, runner=runner).result == run.result and runner.calls == []
    assert read_journal(path).legacy_lines == 0


def test_a_v3_journal_of_the_previous_writer_still_reads_plans_and_resumes_with_v4_lines_after_it(store):
    """Lines in the v3 form (each saying all about its call, 16-digit checksums, asks without prompts): shown,
    planned and served as before; a resume continues the file in v4 lines, and the whole reads back."""
    failed = launch("sequence", store, runner=FailingRunner({"step-1"}))
    shown = ["seq", "key", "kind", "label", "prompt", "tokens", "status"]
    before = load_run(failed.run_id, store=store).journal[shown]
    as_v3_journal(store, failed.run_id)
    assert load_run(failed.run_id, store=store).journal[shown].equals(before)
    plan = plan_resume(failed.run_id, store=store, registry=registry())
    assert plan.calls["action"].tolist() == ["cached", "live", "live"]
    runner = MockAgentRunner()
    resumed = launch("sequence", store, resume=failed.run_id, runner=runner)
    assert runner.calls == ["step-1", "step-2"] and resumed.status == "completed"
    versions = [json.loads(line)["v"] for line in lines_of(store, failed.run_id)]
    assert versions[:4] == [3, 3, 3, 3] and set(versions[4:]) == {4}
    record = load_run(failed.run_id, store=store)
    assert record.journal["label"].tolist() == ["step-0", "step-1", "step-1", "step-2"]
    assert record.journal["status"].tolist() == ["done", "failed", "done", "done"]
    assert launch("sequence", store, resume=failed.run_id, runner=runner).task.attempts[-1].cached == 3
