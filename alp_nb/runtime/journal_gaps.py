"""Lines missing from a journal, told from the journal itself and from its run's snapshot.

The journal is the record a resume serves from: a call whose line is gone runs again, and is paid for again. A
writer numbers its lines ``seq`` 1, 2, 3... without a gap (a torn last line is dropped and its seq written
again), so a hole in the numbers is a line deleted from the middle. Lines deleted from the end leave no hole:
the snapshot tells those, by the last seq each attempt said it had written, or, in a snapshot older than that
field, by the tokens each attempt recorded against what its lines hold.
"""

from __future__ import annotations

from .journal.reader import JournalRead
from .snapshot import RunSnapshot


def missing_lines(snapshot: RunSnapshot, journal: JournalRead, journal_name: str) -> list[str]:
    """One message per run of lines missing from ``journal`` (named ``journal_name``), each saying what a resume
    will do about it."""
    if not (journal.calls or journal.spends or journal.unanswered):
        return _all_lost(snapshot, journal_name)
    found = [f"{journal_name} is missing {_seqs(first, last)}: deleted from the journal, so a resume runs any call "
             "they held again, and pays for it again" for first, last in journal.gaps]
    last_line = journal.next_seq - 1
    said = max((attempt.last_seq or 0 for attempt in snapshot.attempts), default=0)
    if said > last_line + journal.torn:  # a torn last line is already said, and dropped
        found.append(f"{journal_name} ends at seq {last_line} but {snapshot.run_id}.json says the run wrote up to "
                     f"seq {said}: {_seqs(last_line + 1, said)} deleted from its end, so a resume runs any call they "
                     "held again, and pays for it again")
    elif not (found or said or journal.torn or journal.legacy_lines):  # a snapshot older than ``last_seq``
        found.extend(_tokens_lost(snapshot, journal, journal_name))  # (legacy lines may carry no tokens)
    return found


def _all_lost(snapshot: RunSnapshot, journal_name: str) -> list[str]:
    """A snapshot that counts finished calls (or tokens spent) beside a journal that holds no line: the journal
    was lost or emptied."""
    done = sum(phase.done for phase in snapshot.phases)
    if not (done or snapshot.usage.cumulative.tokens):
        return []
    calls = max(done, snapshot.usage.cumulative.agents)
    return [f"{snapshot.run_id}.json records {calls} agent calls but {journal_name} holds none of them: they will "
            "run again"]


def _tokens_lost(snapshot: RunSnapshot, journal: JournalRead, journal_name: str) -> list[str]:
    """For a snapshot without ``last_seq``: an attempt that recorded more tokens than its lines hold lost lines."""
    attempts = snapshot.attempts
    bounds = [attempt.first_seq for attempt in attempts[1:]] + [journal.next_seq]
    found = []
    for attempt, end in zip(attempts, bounds, strict=True):
        start = attempt.first_seq
        held = sum(tokens for _value, tokens, seq in journal.calls.values() if start <= seq < end)
        held += sum(tokens for seq, tokens, _key in journal.spends if start <= seq < end)
        if attempt.usage.tokens > held:
            found.append(f"{snapshot.run_id}.json says attempt {attempt.number} spent {attempt.usage.tokens} tokens "
                         f"but its lines in {journal_name} hold {held}: lines were deleted, so a resume runs any "
                         "call they held again, and pays for it again")
    return found


def _seqs(first: int, last: int) -> str:
    return f"seq {first}" if first == last else f"seq {first}–{last} ({last - first + 1} lines)"
