"""A receipt log: the receipts of runs (simulated or real) as JSON Lines, so they can come back to the contract.

One line per step a run decided, each a JSON object::

    {"firing": "night-1", "item": "test_checkout_total", "attempt": 2,
     "evidence": {"summary": "gate failed: ...", "gates_failed": ["rerun log shows ..."], ...},
     "receipt": {"outcome": "stop-with-receipt", "attempts": 4, "reason": "...", ...},
     "caps_hit": [{"path": "objective", "cap": "at most 3 pull requests"}]}

``firing`` names the firing of the trigger (a night, a run id), ``item`` the item (absent for a firing's no-op),
``attempt`` the attempt (0 for intake), ``evidence`` what the decision read (the ``Evidence`` model), ``receipt``
the outcome's receipt (``make_receipt``'s fields, with ``outcome``), ``caps_hit`` the caps and budgets the step ran
into. A real loop writes the same lines; ``learn.py`` folds them back into findings about the contract. A log is
untrusted input: each line is read as bounded JSON and checked, and a bad line is ``RECEIPTS_INVALID`` naming the
file and line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.jsonline import line_encoder
from alp_nb.base.safe_files import RefusedFile, read_regular
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .decision import Evidence, LoopModel, Outcome, Text
from .errors import LoopContractError
from .firing import FiringSimulation
from .loop_contract import json_path
from .receipts import CapHit, Receipt
from .simulator import Simulation

MAX_LOG_BYTES = 16 << 20
"""The largest receipt log read (16 MiB), refused before it is read."""
_LINE = line_encoder(compact=True)


class ReceiptRecord(LoopModel):
    """One receipt of one run, with what it was about and the evidence behind it."""

    firing: Text
    item: Text | None = None
    attempt: Annotated[int, Field(ge=0)]
    evidence: Evidence
    receipt: Receipt
    caps_hit: tuple[CapHit, ...] = ()

    @property
    def outcome(self) -> Outcome:
        return self.receipt.outcome

    @property
    def locator(self) -> str:
        """How a finding names this receipt: ``night-1/test_checkout_total#2 stop-with-receipt``."""
        return f"{self.firing}/{self.item or 'intake'}#{self.attempt} {self.outcome}"


def receipt_records(run: Simulation | FiringSimulation, firing: str | None = None) -> tuple[ReceiptRecord, ...]:
    """Every step of a simulated run (each item of a firing) as receipt records; ``firing`` names the firing,
    by default the firing's name, or the scenario's."""
    runs = run.runs if isinstance(run, FiringSimulation) else (run,)
    name = firing or (run.firing.name if isinstance(run, FiringSimulation) else run.scenario.name)
    return tuple(ReceiptRecord(firing=name, item=each.item, attempt=step.attempt, evidence=step.evidence,
                               receipt=step.receipt, caps_hit=step.caps_hit)
                 for each in runs for step in each.steps)


def write_receipt_log(path: str | Path, records: Iterable[ReceiptRecord]) -> None:
    """Write ``records`` as one JSON line each, atomically: the file is whole or not there. The folder must exist,
    as for a contract: a typo in the path is refused rather than made into folders."""
    text = "".join(_LINE(_document(record)) + "\n" for record in records)
    if not Path(path).parent.is_dir():
        raise LoopContractError("RECEIPTS_INVALID", f"{path}: cannot write: no such directory {Path(path).parent}")
    try:
        write_atomic(path, text, mode=0o644)
    except OSError as error:
        raise LoopContractError("RECEIPTS_INVALID", f"{path}: cannot write ({error.strerror or error})") from None


def _document(record: ReceiptRecord) -> dict[str, object]:
    """A record as its line holds it: the evidence without its unset flags, the receipt whole (its ``outcome``
    says which receipt it is)."""
    return {**record.model_dump(mode="json", exclude_defaults=True),
            "receipt": record.receipt.model_dump(mode="json", exclude_none=True)}


def read_receipt_log(path: str | Path) -> tuple[ReceiptRecord, ...]:
    """The records of a receipt log; ``RECEIPTS_INVALID`` names the file and the line of the first bad one, and a
    receipt logged twice (the same firing, item, attempt and outcome)."""
    try:
        text = read_regular(os.path.realpath(path), MAX_LOG_BYTES).decode("utf-8")  # a path the user named
    except RefusedFile as refused:
        raise LoopContractError("RECEIPTS_INVALID", f"{path}: cannot read receipts: it {refused.problem}") from None
    except OSError as error:
        raise LoopContractError("RECEIPTS_INVALID", f"{path}: cannot read receipts ({error.strerror or error})") \
            from None
    except UnicodeDecodeError as error:
        raise LoopContractError("RECEIPTS_INVALID", f"{path}: not UTF-8 text (byte {error.start})") from None
    records: list[ReceiptRecord] = []
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        record = _record(path, number, line)
        if record.locator in lines:
            raise LoopContractError("RECEIPTS_INVALID", f"{path}:{number}: `{record.locator}` is logged twice "
                                    f"(line {lines[record.locator]} too)")
        lines[record.locator] = number
        records.append(record)
    return tuple(records)


def _record(path: str | Path, number: int, line: str) -> ReceiptRecord:
    try:
        return ReceiptRecord.model_validate(loads_untrusted(line))
    except UntrustedJson as error:
        raise LoopContractError("RECEIPTS_INVALID", f"{path}:{number}: {error.message}") from None
    except ValidationError as error:
        issues = tuple(f"{json_path(issue['loc'])}: {issue['msg']}" for issue in error.errors())
        raise LoopContractError("RECEIPTS_INVALID", f"{path}:{number}: not a receipt record", issues) from None
