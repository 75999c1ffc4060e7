"""The journal is the record and the snapshot a cache of it: no edit of the snapshot lowers what a run has spent,
raises a count past its bound, or unseals a line its writer sealed."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from runtime_support import journal_records, launch

from alp_nb.runtime import MockAgentRunner, RunStore, WorkflowInputError

TOKENS = 10
"""What each of the mock's answers costs."""
FIRST_BUDGET, SECOND_BUDGET, RAISED_BUDGET = 45, 65, 85
HUGE = (10**99, 2**64, 2**63)


def overspent_twice(store: RunStore) -> str:
    """A ``sequence`` of 8 calls that overspent twice: at 50 of 45 tokens, then, resumed with 65, at 70. Its
    journal holds 70 tokens over two attempts; only a resume that raises the budget again may run a call."""
    first = launch("sequence", store, args={"calls": 8, "budget": FIRST_BUDGET}, runner=MockAgentRunner(tokens=TOKENS))
    second = launch("sequence", store, resume=first.run_id, budget=SECOND_BUDGET, runner=MockAgentRunner(tokens=TOKENS))
    assert (first.status, second.status, second.task.usage.cumulative.tokens) == ("failed", "failed", 70)
    return first.run_id


def journaled_tokens(store: RunStore, run_id: str) -> int:
    return sum(line["tokens"] for line in journal_records(store, run_id))


def edit_snapshot(store: RunStore, run_id: str, edit) -> None:
    path = store.paths(run_id).snapshot
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def refusal(store: RunStore, run_id: str, **options) -> str:
    with pytest.raises(WorkflowInputError) as refused:
        launch("sequence", store, resume=run_id, **options)
    return refused.value.code


@pytest.fixture(scope="module")
def spent_run(tmp_path_factory) -> tuple[RunStore, str]:
    store = RunStore(tmp_path_factory.mktemp("spent") / "runs")
    return store, overspent_twice(store)


def copy_of(spent_run, folder) -> RunStore:
    store, _ = spent_run
    shutil.copytree(store.root, folder, dirs_exist_ok=True)
    return RunStore(folder)


def zero_usage(data) -> None:
    for attempt in data["attempts"]:
        attempt["usage"] = {"agents": 0, "tokens": 0}
    data["usage"] = {"attempt": {"agents": 0, "tokens": 0}, "cumulative": {"agents": 0, "tokens": 0}}


def test_a_resume_counts_what_the_journal_holds_when_the_snapshot_says_it_spent_nothing(spent_run, tmp_path):
    store = copy_of(spent_run, tmp_path / "runs")
    run_id = spent_run[1]
    edit_snapshot(store, run_id, zero_usage)
    assert refusal(store, run_id, runner=MockAgentRunner(tokens=TOKENS)) == "BUDGET_EXCEEDED"
    asked = MockAgentRunner(tokens=TOKENS)
    done = launch("sequence", store, resume=run_id, budget=RAISED_BUDGET, runner=asked)
    assert done.status == "completed" and asked.calls == ["step-7"]
    assert done.task.usage.cumulative.tokens == journaled_tokens(store, run_id) == 80


OUT_OF_RANGE = [
    (("usage", "cumulative", "tokens"), -99824), (("attempts", 0, "usage", "tokens"), -1),
    (("budget",), -1), (("attempts", 1, "budget"), 0), (("attempts", 1, "lastSeq"), -1),
    (("attempts", 1, "firstSeq"), -3), (("sealedFrom",), -5), (("sealedFrom",), 10**99),
    (("attempts", 0, "usage", "agents"), 2**63),
]


@pytest.mark.parametrize(("field", "value"), OUT_OF_RANGE,
                         ids=[f"{'.'.join(map(str, field))}={value:.0e}" for field, value in OUT_OF_RANGE])
def test_a_snapshot_holding_a_negative_or_out_of_range_count_is_corrupt_naming_the_field(spent_run, tmp_path, field,
                                                                                        value):
    store = copy_of(spent_run, tmp_path / "runs")
    run_id = spent_run[1]

    def put(data):
        *parents, last = field
        for key in parents:
            data = data[key]
        data[last] = value

    edit_snapshot(store, run_id, put)
    with pytest.raises(WorkflowInputError) as refused:
        store.read_snapshot(run_id)
    assert refused.value.code == "CORRUPT_RUN"
    assert refused.value.message.startswith(f"{run_id}.json: `{'.'.join(map(str, field))}")


@pytest.mark.parametrize(("field", "value", "problem"), [
    (("attempts", 1, "firstSeq"), 4, "`attempts[1]`.firstSeq 4 is not after the seq 10 an earlier attempt wrote"),
    (("attempts", 0, "firstSeq"), 3, "`attempts[0]`.firstSeq is 3: the first attempt of a run writes from seq 1"),
    (("attempts", 1, "number"), 3, "`attempts[1]`.number is 3, not 2"),
])
def test_attempts_out_of_the_order_every_writer_keeps_are_corrupt(spent_run, tmp_path, field, value, problem):
    store = copy_of(spent_run, tmp_path / "runs")
    run_id = spent_run[1]
    edit_snapshot(store, run_id, lambda data: data["attempts"][field[1]].__setitem__(field[2], value))
    with pytest.raises(WorkflowInputError) as refused:
        store.read_snapshot(run_id)
    assert (refused.value.code, refused.value.message) == ("CORRUPT_RUN", f"{run_id}.json: {problem}")


def unsealed_with_edits(store: RunStore, run_id: str) -> None:
    """Every answer rewritten as a ``v`` 1 line (no checksum), its value edited: what a sealing writer never
    writes."""
    lines = [{key: value for key, value in line.items() if key not in ("sum", "ask")}
             | {"v": 1, "seq": seq, "value": "edited"}
             for seq, line in enumerate(journal_records(store, run_id), 1)]
    store.paths(run_id).journal.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.mark.parametrize("edit", [
    lambda data: (data.pop("sealedFrom"), data.pop("errorCode")),
    lambda data: data.__setitem__("sealedFrom", 1000),
    lambda data: data.__setitem__("sealedFrom", None),
], ids=["sealedFrom-and-errorCode-deleted", "sealedFrom-1000", "sealedFrom-null"])
def test_a_snapshot_of_a_sealing_writer_is_read_as_sealed_whatever_sealed_from_says(spent_run, tmp_path, edit):
    store = copy_of(spent_run, tmp_path / "runs")
    run_id = spent_run[1]
    edit_snapshot(store, run_id, edit)
    unsealed_with_edits(store, run_id)
    assert store.read_snapshot(run_id).sealed_from == 1
    asked = MockAgentRunner(tokens=TOKENS)
    assert refusal(store, run_id, budget=RAISED_BUDGET, runner=asked) == "JOURNAL_TAMPERED" and asked.calls == []


MUTATIONS = ("negated", "zeroed", "removed", *HUGE)


def accounting_fields(data, path=()) -> list[tuple]:
    """The path of every number and seal field of a snapshot outside its args (the script's input, not its
    accounting)."""
    if isinstance(data, dict):
        found = [(*path, key) for key in ("sealedFrom", "errorCode") if key in data and not path]
        return found + [field for key, value in data.items() if key != "args"
                        for field in accounting_fields(value, (*path, key))]
    if isinstance(data, list):
        return [field for index, value in enumerate(data) for field in accounting_fields(value, (*path, index))]
    return [path] if type(data) is int else []


def mutated(data, field, mutation) -> None:
    *parents, last = field
    for key in parents:
        data = data[key]
    if mutation == "removed":
        data.pop(last) if isinstance(data, dict) else data.__setitem__(last, None)
    elif mutation == "negated":
        data[last] = -data[last] if type(data[last]) is int and data[last] else -1
    else:
        data[last] = 0 if mutation == "zeroed" else mutation


@pytest.fixture(scope="module")
def snapshot_fields(spent_run) -> list[tuple]:
    store, run_id = spent_run
    return accounting_fields(json.loads(store.paths(run_id).snapshot.read_text()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), sealed=st.booleans())
def test_no_edit_of_the_snapshot_lets_a_resume_spend_past_the_journal_and_budget_or_trust_an_unsealed_line(
        spent_run, snapshot_fields, tmp_path_factory, data, sealed):
    field = data.draw(st.sampled_from(snapshot_fields), label="field")
    mutation = data.draw(st.sampled_from(MUTATIONS), label="mutation")
    store = copy_of(spent_run, tmp_path_factory.mktemp("edited") / "runs")
    run_id = spent_run[1]
    edit_snapshot(store, run_id, lambda snapshot: mutated(snapshot, field, mutation))
    if not sealed:
        unsealed_with_edits(store, run_id)
    asked = MockAgentRunner(tokens=TOKENS)
    # at its own budget the run is overspent, whatever the snapshot now says: nothing is asked
    assert refusal(store, run_id, runner=asked) in {"BUDGET_EXCEEDED", "CORRUPT_RUN", "JOURNAL_TAMPERED"}
    assert asked.calls == []
    try:
        done = launch("sequence", store, resume=run_id, budget=RAISED_BUDGET, runner=asked)
    except WorkflowInputError as refused:
        assert refused.code in {"CORRUPT_RUN", "JOURNAL_TAMPERED", "INVALID_OPTION"}, refused
        assert asked.calls == []
        return
    assert sealed, "a resume read lines no checksum vouches for, in a run whose writer sealed them"
    assert asked.calls == ["step-7"] and done.status == "completed"
    assert done.task.usage.cumulative.tokens >= journaled_tokens(store, run_id) == 80
