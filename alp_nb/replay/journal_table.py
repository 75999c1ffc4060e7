"""A run's journal as one pandas DataFrame, built in bulk from the runtime's own reader.

``read_journal(path, on_answer=...)`` checks every line exactly as a resume does (its checksum, a stripped
checksum, a call recorded twice with other values, a torn last line) and hands each answer it accepts, typed and
joined with its ask, to ``JournalColumns.on_answer``, which appends its fields to plain column arrays: no model
per row and no frozen copy of its value. The DataFrame is made once, at the end: numbers in typed arrays, the few
repeated strings (kind, phase, status) as categoricals, text and values as the very objects the reader parsed.
(What an old line holds of the wrong type for a viewer is already missing, and warned of, by the reader.)
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alp_nb.runtime.journal.lines import Answered, Spend
from alp_nb.runtime.journal.outcomes import DONE, UNANSWERED
from alp_nb.runtime.journal.reader import AnswerHandler, Unanswered
from alp_nb.runtime.snapshot import Attempt

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

JOURNAL_COLUMNS: tuple[str, ...] = (
    "seq", "key", "kind", "label", "phase", "status", "cached", "tokens", "attempt", "started", "ended", "duration",
    "prompt", "value", "error", "recovered",
)
"""The columns of ``RunRecord.journal``, in order."""

KINDS = ("agent", "spend", "ask")
"""The kinds of rows: a call's answer kept, an answer paid for but not kept, a call asked and never answered."""
S16_FINAL = ("completed", "failed")
"""The statuses of an s16 snapshot written at the end of an attempt: only those hold its progress (the reference
writes its snapshot when a run starts, with no progress, and when it ends)."""


class JournalColumns:
    """The columns of a journal being read: give ``on_answer`` to ``read_journal``, then call ``frame``."""

    def __init__(self) -> None:
        self.seq, self.line, self.tokens = array("q"), array("q"), array("q")
        self.started, self.ended = array("d"), array("d")
        self.kind, self.phase, self.status = array("b"), array("q"), array("q")
        self.key: list[str] = []
        self.label: list[str | None] = []
        self.prompt: list[str | None] = []
        self.value: list[Any] = []
        self.error: list[str | None] = []
        self.phases: dict[str, int] = {}
        self.statuses: dict[str, int] = {DONE: 0}
        self.asks_added = False
        self.on_answer = self._handler()

    def _handler(self) -> AnswerHandler:
        """The reader's ``on_answer``: one append per column."""
        nan, phases, statuses = math.nan, self.phases, self.statuses
        add_seq, add_line, add_tokens = self.seq.append, self.line.append, self.tokens.append
        add_started, add_ended = self.started.append, self.ended.append
        add_kind, add_phase, add_status = self.kind.append, self.phase.append, self.status.append
        add_key, add_label, add_prompt, add_value, add_error = (self.key.append, self.label.append, self.prompt.append,
                                                                self.value.append, self.error.append)

        def code(names: dict[str, int], text: str | None) -> int:
            if text is None:
                return -1
            number = names.get(text)
            if number is None:
                number = names[text] = len(names)
            return number

        def on_answer(answered: Answered) -> None:
            ask, answer = answered.ask, answered.answer
            spend = isinstance(answer, Spend)
            add_seq(answer.seq)
            add_tokens(answer.tokens or 0)
            add_line(answered.line)
            add_key(ask.key)
            add_kind(spend)
            add_phase(code(phases, ask.phase))
            started, ended = answered.started, answered.ended
            add_started(nan if started is None else started)
            add_ended(nan if ended is None else ended)
            add_label(ask.label)
            if isinstance(answer, Spend):
                add_status(code(statuses, answer.reason))
                add_prompt(None)
                add_value(None)
                add_error(answer.error or ("; ".join(answer.issues) if answer.issues else None))
            else:
                add_status(0)
                add_prompt(ask.prompt)
                add_value(answer.value)
                add_error(None)

        return on_answer

    def add_unanswered(self, asks: Iterable[Unanswered], status_name: str = UNANSWERED) -> None:
        """A row for each call asked and never answered (read from its ask line; ``status_name`` ``in flight``
        for a run still going); ``frame`` puts the rows back in the order of their lines."""
        status = self.statuses.setdefault(status_name, len(self.statuses))
        for ask in asks:
            self.asks_added = True
            self.seq.append(ask.seq)
            self.line.append(ask.line)
            self.tokens.append(0)
            self.key.append(ask.key)
            self.kind.append(2)
            self.status.append(status)
            phase = ask.phase
            self.phase.append(-1 if phase is None else self.phases.setdefault(phase, len(self.phases)))
            self.started.append(math.nan if ask.started is None else ask.started)
            self.ended.append(math.nan)
            self.label.append(ask.label)
            self.prompt.append(None)
            self.value.append(None)
            self.error.append(None)

    def __len__(self) -> int:
        return len(self.key)

    def frame(self, attribution: Attribution) -> pd.DataFrame:
        """The DataFrame, columns ``JOURNAL_COLUMNS``; ``attribution`` says which attempt wrote each row and the
        labels and phases recovered from an s16 snapshot."""
        import numpy as np
        import pandas as pd

        count = len(self)
        for row, label, phase in attribution.recovered:
            self.label[row] = label
            self.phase[row] = -1 if phase is None else self.phases.setdefault(phase, len(self.phases))
        recovered = np.zeros(count, dtype=bool)
        recovered[[row for row, *_ in attribution.recovered]] = True
        started, ended = _numbers(self.started), _numbers(self.ended)
        columns = {
            "seq": _integers(self.seq),
            "key": _objects(self.key),
            "kind": pd.Categorical.from_codes(_integers(self.kind), categories=list(KINDS)),
            "label": _objects(self.label),
            "phase": _categories(self.phase, self.phases),
            "status": _categories(self.status, self.statuses),
            "cached": attribution.cached,
            "tokens": _integers(self.tokens),
            "attempt": pd.arrays.IntegerArray(attribution.attempt, attribution.unknown),
            "started": started,
            "ended": ended,
            "duration": ended - started,
            "prompt": _objects(self.prompt),
            "value": _objects(self.value),
            "error": _objects(self.error),
            "recovered": recovered,
        }
        frame = pd.DataFrame(columns, columns=list(JOURNAL_COLUMNS))
        if self.asks_added:  # the ask rows came last: every row in the order of its line
            frame = frame.iloc[self.order()].reset_index(drop=True)
        return frame

    def order(self) -> np.ndarray:
        """The rows in the order of their lines in the file."""
        import numpy as np

        lines = _integers(self.line)
        return np.argsort(lines, kind="stable") if self.asks_added else np.arange(len(lines))

    def line_numbers(self) -> np.ndarray:
        return _integers(self.line)[self.order()]


@dataclass(frozen=True)
class Attribution:
    """Which attempt wrote each row (``unknown`` where the snapshot does not say), whether that was before the
    run's last attempt (``cached``), and the (row, label, phase) recovered from an s16 snapshot."""

    attempt: np.ndarray
    unknown: np.ndarray
    cached: np.ndarray
    recovered: Sequence[tuple[int, str | None, str | None]] = ()


def attribute(seqs: np.ndarray, attempts: Sequence[Attempt]) -> Attribution:
    """Our runs: attempt i wrote the seqs from its ``first_seq`` up to the next attempt's; the rows of every attempt
    but the last are ``cached``: the last attempt, or a resume, gets them from the journal. A line before the first
    attempt's first seq was written by none of them (a fork's journal starts with lines copied from its source):
    its attempt is unknown, and it is ``cached`` too."""
    import numpy as np

    count = len(seqs)
    if not attempts:
        return Attribution(np.zeros(count, dtype=np.int64), np.ones(count, dtype=bool), np.zeros(count, dtype=bool))
    ordered = sorted(range(len(attempts)), key=lambda index: attempts[index].first_seq)
    firsts = np.array([attempts[index].first_seq for index in ordered], dtype=np.int64)
    numbers = np.array([attempts[index].number for index in ordered], dtype=np.int64)
    at = np.searchsorted(firsts, seqs, side="right") - 1
    before = at < 0
    last = ordered.index(len(attempts) - 1)
    return Attribution(numbers[np.maximum(at, 0)], before, at < last)


def attribute_s16(snapshot: Mapping[str, Any], line_numbers: np.ndarray, attempt: int,
                  source: str) -> tuple[Attribution, list[str]]:
    """The rows of a journal the s16 reference wrote, matched to the ``workflow_agent`` items with ``status:
    "done"`` of its snapshot's ``progress`` list (``snapshot`` is that file's JSON, ``source`` its name).

    The rule, and nothing beyond it. The reference appends a journal line and a done-item for each call it runs,
    both in completion order, and its snapshot holds the progress of its last attempt only, written when that
    attempt ended. So, when the snapshot is final (``completed`` or ``failed``) and the journal's rows are its
    lines 1..n exactly (no blank line, no call recorded twice):

    - as many done-items as rows: row i is done-item i;
    - fewer done-items (d) than rows: the run was resumed, and its last attempt appended the last d rows, which
      are the done-items in order; the rows before them were written by earlier attempts, which the snapshot
      does not record (``attempt`` None, ``cached`` True);
    - more done-items than rows: nothing is matched.

    Calls served from the cache (``cached`` items) carry no key, so they match no line. A row not matched keeps
    label and phase None and ``recovered`` False. Matched rows belong to the snapshot's one attempt,
    ``attempt``. Returns the attribution and the warnings (why nothing could be matched)."""
    import numpy as np

    count = len(line_numbers)
    unknown = Attribution(np.zeros(count, dtype=np.int64), np.ones(count, dtype=bool), np.zeros(count, dtype=bool))
    if not count:
        return unknown, []
    task = snapshot.get("task")
    task = task if isinstance(task, Mapping) else {}
    progress, status = task.get("progress"), task.get("status", "running")
    done = [item for item in (progress if isinstance(progress, list) else ())
            if isinstance(item, Mapping) and item.get("type") == "workflow_agent" and item.get("status") == DONE]
    why = ""
    if status not in S16_FINAL:
        why = (f"{source} says {status}: the reference writes it when an attempt starts, before it lists any "
               "finished call, and again only when the attempt ends")
    elif not np.array_equal(line_numbers, np.arange(1, count + 1)):
        why = "the journal has blank or repeated lines, so its rows cannot be lined up with the finished calls"
    elif len(done) > count:
        why = f"{source} lists {len(done)} finished calls but the journal holds {count}"
    if why:
        return unknown, [f"labels and phases of this s16 run not recovered: {why}"]
    first = count - len(done)
    recovered = [(first + index, _text(item.get("label")), _text(item.get("phase"))) for index, item in
                 enumerate(done)]
    cached = np.arange(count) < first
    return Attribution(np.full(count, attempt, dtype=np.int64), cached.copy(), cached,
                       [item for item in recovered if item[1] is not None or item[2] is not None]), []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _integers(values: array[int]) -> np.ndarray:
    """A copy of ``values`` as int64 (the array may grow again; the copy does not share its memory)."""
    import numpy as np

    if not len(values):
        return np.empty(0, dtype=np.int64)
    return np.frombuffer(values, dtype=f"i{values.itemsize}").astype(np.int64)


def _numbers(values: array[float]) -> np.ndarray:
    import numpy as np

    return np.frombuffer(values, dtype=np.float64).copy() if len(values) else np.empty(0, dtype=np.float64)


def _objects(values: list[Any]) -> pd.Series:
    """An object column holding the very objects given (a list value stays one cell, a string stays a str)."""
    import numpy as np
    import pandas as pd

    return pd.Series(np.fromiter(values, dtype=object, count=len(values)), dtype=object, copy=False)


def _categories(codes: array[int], names: Mapping[str, int]) -> pd.Categorical:
    import pandas as pd

    categories = pd.Index(list(names), dtype=object)
    return pd.Categorical.from_codes(_integers(codes), categories=categories)
