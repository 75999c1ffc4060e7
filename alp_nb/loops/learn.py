"""A contract that learns from its runs: receipts folded back into findings about the contract.

Seed 004: "receipts and incidents should come back as input to contract revision; an artifact that does not learn
from operations is static documentation". ``learn_from_receipts`` reads the receipts of many runs (simulated or
real, ``receipt_log.py``) and names the patterns a revision should answer, each with the receipts behind it:

- ``repeated-stop``: the same failure (its normalised signature) stops runs again and again: it is a known
  blocker, worth an escalation condition of its own or a fix upstream, not another night of retries;
- ``silent-destination``: escalations to a destination that never answered: the destination is not the owner
  it is written as;
- ``cap-every-firing``: a cap or budget hit in every firing: the cap, not the work, sets the loop's pace (or
  intake takes more than the loop may finish);
- ``gate-never-failed``: a gate checked again and again that never failed: it may check nothing (or the actor
  learned to pass it).

A pattern is learned once it shows in at least ``REPEATS`` receipts (a gate, in ``GATE_CHECKS`` checks); less is
chance, not operations.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Literal

from .decision import LoopModel
from .extension import EXTENSION_KEY
from .loop_contract import LoopContract, normalized
from .receipt_log import ReceiptRecord
from .receipts import CapHit

LearnRule = Literal["repeated-stop", "silent-destination", "cap-every-firing", "gate-never-failed"]
LEARN_RULES: tuple[LearnRule, ...] = ("repeated-stop", "silent-destination", "cap-every-firing", "gate-never-failed")
REPEATS = 2
"""How many receipts (or firings) show a pattern before it is learned."""
GATE_CHECKS = 5
"""How many times a gate must have been checked, never failing, before it is said to check nothing."""


class LearnedFinding(LoopModel):
    """One thing the receipts teach about the contract: ``path`` is the field a revision should look at, and
    ``receipts`` are the locators of the receipts behind it (``night-2/test_checkout#4 stop-with-receipt``)."""

    rule: LearnRule
    path: str
    message: str
    suggestion: str
    receipts: tuple[str, ...]


class LearnedFindings(tuple[LearnedFinding, ...]):
    """What a set of receipts taught, rule by rule; renders as a table in a notebook."""


def learn_from_receipts(contract: LoopContract, receipts: Iterable[ReceiptRecord]) -> LearnedFindings:
    """The findings the receipts of ``contract``'s runs bear out, rule by rule (``LEARN_RULES``)."""
    records = tuple(receipts)
    return LearnedFindings((*_repeated_stops(records), *_silent_destinations(records), *_caps_every_firing(records),
                            *_gates_never_failed(contract, records)))


def _repeated_stops(records: tuple[ReceiptRecord, ...]) -> list[LearnedFinding]:
    stops: dict[str, list[ReceiptRecord]] = defaultdict(list)
    for record in records:
        if record.outcome == "stop-with-receipt" and record.evidence.signature is not None and _the_works(record):
            stops[record.evidence.signature].append(record)
    return [LearnedFinding(
        rule="repeated-stop", path="escalation.conditions",
        message=f"{len(found)} runs stopped on the same failure: “{signature}”",
        suggestion="name it as an escalation condition with its owner, or fix its cause, rather than retry it "
                   "every firing",
        receipts=tuple(record.locator for record in found)) for signature, found in stops.items()
        if len(found) >= REPEATS]


def _the_works(record: ReceiptRecord) -> bool:
    """Whether a stop is the work's own failure: not an owner's silence or denial (``silent-destination``), and not
    a cap or the firing's budget (``cap-every-firing``), which other rules learn from."""
    evidence = record.evidence
    firing_budget = {f"{EXTENSION_KEY}.budget.max_tokens", f"{EXTENSION_KEY}.budget.max_cost_usd"}
    return (evidence.unanswered_escalation is None and evidence.denied_by is None and evidence.cap_reached is None
            and not firing_budget & {hit.path for hit in record.caps_hit})


def _silent_destinations(records: tuple[ReceiptRecord, ...]) -> list[LearnedFinding]:
    unanswered: dict[str, list[ReceiptRecord]] = defaultdict(list)
    answered: set[str] = set()
    for record in records:
        evidence = record.evidence
        if evidence.unanswered_escalation is not None:
            unanswered[evidence.unanswered_escalation].append(record)
        answered.update(who for who in (evidence.approved_by, evidence.denied_by) if who is not None)
    return [LearnedFinding(
        rule="silent-destination", path="escalation.destination",
        message=f"{len(found)} escalations to {destination} were never answered, and none was",
        suggestion="name a destination that answers (an on-call rotation, a queue someone triages), or say "
                   "what the loop does while it waits",
        receipts=tuple(record.locator for record in found)) for destination, found in unanswered.items()
        if len(found) >= REPEATS and destination not in answered]


def _caps_every_firing(records: tuple[ReceiptRecord, ...]) -> list[LearnedFinding]:
    firings = {record.firing for record in records}
    hits: dict[CapHit, list[ReceiptRecord]] = defaultdict(list)
    for record in records:
        for cap in record.caps_hit:
            hits[cap].append(record)
    return [LearnedFinding(
        rule="cap-every-firing", path=cap.path,
        message=f"{cap.cap} ({cap.path}) was hit in every firing ({len(firings)} of {len(firings)})",
        suggestion="the cap sets the pace, not the work: raise it with its reviewers, or take fewer items a "
                   "firing so the ones taken can finish",
        receipts=tuple(record.locator for record in found)) for cap, found in hits.items()
        if len(firings) >= REPEATS and {record.firing for record in found} == firings]


def _gates_never_failed(contract: LoopContract, records: tuple[ReceiptRecord, ...]) -> list[LearnedFinding]:
    """A record checked every gate when it proves the goal (all passed) or names the gates that failed (the
    others passed); a timeout, a crash or an escalation checked none."""
    checked = [record for record in records if record.evidence.proves_goal or record.evidence.gates_failed]
    found = []
    for index, gate in enumerate(contract.verification.gates):
        failed = [record for record in checked
                  if normalized(gate) in {normalized(text) for text in record.evidence.gates_failed}]
        if len(checked) >= GATE_CHECKS and not failed:
            found.append(LearnedFinding(
                rule="gate-never-failed", path=f"verification.gates[{index}]",
                message=f"“{gate}” was checked {len(checked)} times and never failed",
                suggestion="make sure it can fail: run it once against a change it must refuse, or drop it",
                receipts=tuple(record.locator for record in checked)))
    return found
