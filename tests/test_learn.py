"""A contract that learns from its runs: receipts written as JSON lines and read back strictly, then folded into
findings (the same stop repeating, a destination that never answers, a cap hit every firing, a gate that never
fails), each naming the receipts behind it, and none learned from chance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alp_nb.loops import (
    Evidence,
    Firing,
    FiringItem,
    LoopContract,
    LoopContractError,
    ScriptedAttempt,
    learn_from_receipts,
    read_receipt_log,
    receipt_records,
    simulate_firing,
    write_receipt_log,
)

FLAKY = LoopContract.load(Path(__file__).resolve().parents[1] / "examples" / "contracts"
                          / "flaky-test-quarantine-loop.json")
GATES = FLAKY.verification.gates
PASSED = Evidence(summary="rerun log: passes and fails on one commit", proves_goal=True, artifact="rerun log")
NOT_FLAKY = Evidence(summary="gate failed: test_payment passed all 20 reruns on commit 4f2a9c1",
                     hypothesis="it flakes only under load", next_action="rerun under load", gates_failed=(GATES[0],))
CRITICAL = FLAKY.escalation.conditions[1]


def night(number: int, answer: str = "never answers") -> Firing:
    items = [FiringItem(item=f"test_{name}_{number}", attempts=(ScriptedAttempt(evidence=PASSED),))
             for name in ("a", "b", "c", "d")]
    items.append(FiringItem(item="test_payment", attempts=(ScriptedAttempt(evidence=NOT_FLAKY),)))
    items.append(FiringItem(item=f"test_login_{number}", owner_answer=answer, attempts=(ScriptedAttempt(
        evidence=Evidence(summary="critical", escalation_condition=CRITICAL, blocker=CRITICAL)),)))
    return Firing(name=f"night-{number}", description="a night", items=tuple(items))


def records(*firings: Firing):
    return [record for firing in firings for record in receipt_records(simulate_firing(FLAKY, firing))]


@pytest.fixture(scope="module")
def learned():
    found: dict[str, list] = {}
    for finding in learn_from_receipts(FLAKY, records(night(1), night(2), night(3))):
        found.setdefault(finding.rule, []).append(finding)
    return found


def test_the_same_stop_repeating_across_nights_is_learned_with_its_receipts(learned):
    (finding,) = learned["repeated-stop"]  # the owner's silence is the destination's finding, not a repeated stop
    assert finding.path == "escalation.conditions" and finding.message.startswith("3 runs stopped on the same failure")
    assert "test_payment passed all <n> reruns on commit <id>" in finding.message
    assert finding.receipts == tuple(f"night-{n}/test_payment#2 stop-with-receipt" for n in (1, 2, 3))


def test_a_destination_that_never_answered_is_learned(learned):
    (finding,) = learned["silent-destination"]
    assert finding.path == "escalation.destination" and "were never answered" in finding.message
    assert len(finding.receipts) == 3 and all("test_login" in receipt for receipt in finding.receipts)


def test_a_cap_hit_every_night_is_learned(learned):
    caps = {finding.path: finding for finding in learned["cap-every-firing"]}
    assert caps["objective"].message == "at most 3 pull requests (objective) was hit in every firing (3 of 3)"
    assert {receipt.split("/")[0] for receipt in caps["objective"].receipts} == {"night-1", "night-2", "night-3"}
    assert list(caps) == ["objective", "budget.max_runtime_minutes"]  # the unanswered waits spend every night's


def test_a_gate_that_never_failed_is_learned_and_one_that_failed_is_not():
    found = learn_from_receipts(FLAKY, records(night(1), night(2), night(3)))
    never = [finding.path for finding in found if finding.rule == "gate-never-failed"]
    assert never == ["verification.gates[1]", "verification.gates[2]"]


def test_nothing_is_learned_from_chance():
    one_night = learn_from_receipts(FLAKY, records(night(1)))  # one stop, one silence, one firing: no pattern yet
    assert {finding.rule for finding in one_night} == {"gate-never-failed"}  # but five checks of each gate
    two_items = Firing(name="night-1", description="a short night", items=night(1).items[:2])
    assert learn_from_receipts(FLAKY, records(two_items)) == ()
    answered = learn_from_receipts(FLAKY, records(night(1), night(2, answer="approves"), night(3)))
    assert "silent-destination" not in {finding.rule for finding in answered}


def test_receipts_round_trip_through_a_log_file(tmp_path):
    written = records(night(1))
    write_receipt_log(tmp_path / "night-1.jsonl", written)
    assert list(read_receipt_log(tmp_path / "night-1.jsonl")) == written
    lines = (tmp_path / "night-1.jsonl").read_text().splitlines()
    assert len(lines) == len(written) and all(json.loads(line)["firing"] == "night-1" for line in lines)


@pytest.mark.parametrize(("line", "problem"), [
    ('{"firing": "n", "attempt": 1', "2: "),
    ('{"firing": "n", "attempt": 1, "evidence": {"summary": "x"}, "receipt": {"outcome": "done"}}',
     "2: not a receipt record"),
    ('{"firing": "n", "attempt": 1, "evidence": {"summary": "x"}, "receipt": {"outcome": "escalate"}}',
     "receipt.escalate.blocker: Field required"),
    ('{"firing": NaN}', "2: "),
])
def test_a_bad_receipt_line_is_refused_naming_the_file_and_line(tmp_path, line, problem):
    path = tmp_path / "receipts.jsonl"
    write_receipt_log(path, records(night(1))[:1])
    path.write_text(path.read_text() + line + "\n")
    with pytest.raises(LoopContractError) as refused:
        read_receipt_log(path)
    assert refused.value.code == "RECEIPTS_INVALID" and f"{path}:" in refused.value.message
    assert problem in refused.value.message


def test_a_receipt_logged_twice_is_refused_naming_both_lines(tmp_path):
    path = tmp_path / "receipts.jsonl"
    write_receipt_log(path, records(night(1))[:1] * 2)
    with pytest.raises(LoopContractError, match=r"receipts\.jsonl:2: `night-1/test_a_1#1 exit-success` is logged "
                                                r"twice \(line 1 too\)"):
        read_receipt_log(path)


def test_a_missing_or_unwritable_log_is_a_clear_error(tmp_path):
    with pytest.raises(LoopContractError, match="cannot read receipts"):
        read_receipt_log(tmp_path / "missing.jsonl")
    (tmp_path / "a-file").write_text("")
    with pytest.raises(LoopContractError, match="cannot write: no such directory"):
        write_receipt_log(tmp_path / "a-file" / "receipts.jsonl", [])
    with pytest.raises(LoopContractError, match="cannot write: no such directory"):
        write_receipt_log(tmp_path / "typo" / "receipts.jsonl", [])
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize(("content", "problem"), [
    (b'{"firing": ' + b"[" * 200 + b"]" * 200 + b"}\n", ":1: "),
    (b"\xff\xfe binary\n", "not UTF-8"),
    (b'{"firing": "a", "firing": "b"}\n', 'repeated key'),
])
def test_a_hostile_receipt_log_is_refused_in_one_clear_error(tmp_path, content, problem):
    path = tmp_path / "receipts.jsonl"
    path.write_bytes(content)
    with pytest.raises(LoopContractError) as refused:
        read_receipt_log(path)
    assert refused.value.code == "RECEIPTS_INVALID" and str(path) in refused.value.message
    assert problem in refused.value.message
