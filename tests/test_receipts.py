"""Every outcome carries the seed's minimum receipt; a receipt missing a field is an error."""

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from alp_nb.loops.decision import OUTCOMES
from alp_nb.loops.errors import LoopContractError
from alp_nb.loops.receipts import RECEIPT_FIELDS, RECEIPT_TYPES, make_receipt, receipt_owner

SEED_TABLE = {
    "exit-success": ("gate_output", "artifact", "final_state"),
    "exit-noop": ("query", "checkpoint_time"),
    "retry-with-new-evidence": ("attempt", "hypothesis", "next_action"),
    "escalate": ("blocker", "evidence", "destination"),
    "stop-with-receipt": ("attempts", "reason", "residual_risk", "owner"),
}

VALUES = {
    "gate_output": "3 passed", "artifact": "diff of parser.py", "final_state": "item-1 done",
    "query": "label:flaky since last run", "checkpoint_time": datetime(2026, 1, 1, 8, 0, tzinfo=UTC),
    "attempt": 1, "hypothesis": "month-first dates", "next_action": "parse with a format",
    "blocker": "no write token", "evidence": "push exited 128", "destination": "release manager",
    "attempts": 3, "reason": "retry budget spent", "residual_risk": "item-1 unresolved", "owner": "release manager",
}


def test_receipt_fields_are_the_seed_table():
    assert RECEIPT_FIELDS == SEED_TABLE


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_a_complete_receipt_records_its_outcome_and_fields(outcome):
    receipt = make_receipt(outcome, **{name: VALUES[name] for name in SEED_TABLE[outcome]})
    assert isinstance(receipt, RECEIPT_TYPES[outcome])
    assert receipt.outcome == outcome
    assert {name: getattr(receipt, name) for name in SEED_TABLE[outcome]} == {
        name: VALUES[name] for name in SEED_TABLE[outcome]}


@pytest.mark.parametrize(("outcome", "missing"), [
    (outcome, name) for outcome in OUTCOMES for name in SEED_TABLE[outcome]
], ids=lambda value: value)
def test_a_receipt_missing_a_field_is_an_error_naming_it(outcome, missing):
    fields = {name: VALUES[name] for name in SEED_TABLE[outcome] if name != missing}
    with pytest.raises(LoopContractError) as error:
        make_receipt(outcome, **fields)
    assert error.value.code == "RECEIPT_INCOMPLETE"
    assert [issue.split(":")[0] for issue in error.value.issues] == [missing]


@pytest.mark.parametrize("outcome", [outcome for outcome in OUTCOMES if outcome != "exit-noop"])
def test_a_blank_text_field_counts_as_missing(outcome):
    text_field = next(name for name in SEED_TABLE[outcome] if isinstance(VALUES[name], str))
    fields = {name: VALUES[name] for name in SEED_TABLE[outcome]} | {text_field: "  "}
    with pytest.raises(LoopContractError, match=r"RECEIPT|needs"):
        make_receipt(outcome, **fields)


def test_receipts_are_frozen():
    receipt = make_receipt("escalate", blocker="b", evidence="e", destination="d")
    with pytest.raises(ValidationError):
        receipt.destination = "someone else"


def test_escalate_and_stop_name_their_owner_and_the_others_have_none():
    owners = {outcome: receipt_owner(make_receipt(outcome, **{name: VALUES[name] for name in SEED_TABLE[outcome]}))
              for outcome in OUTCOMES}
    assert owners == {"exit-success": None, "exit-noop": None, "retry-with-new-evidence": None,
                      "escalate": "release manager", "stop-with-receipt": "release manager"}


def test_an_unknown_outcome_has_no_receipt():
    with pytest.raises(LoopContractError) as error:
        make_receipt("give-up", reason="tired")
    assert error.value.code == "UNKNOWN_OUTCOME"


@pytest.mark.parametrize("outcome", [{"outcome": "escalate"}, ["escalate"], None], ids=["dict", "list", "none"])
def test_an_outcome_that_is_not_a_name_is_an_unknown_outcome(outcome):
    with pytest.raises(LoopContractError) as error:
        make_receipt(outcome, blocker="b", evidence="e", destination="d")
    assert error.value.code == "UNKNOWN_OUTCOME"
