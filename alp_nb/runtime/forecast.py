"""What the live calls of a resume will cost, told from the run's own history, before anything is spent.

A call's answers have cost what the journal says: a live call is estimated from the answers of calls with its label
(the same question asked before, say under another prompt), else of calls in its phase, else of every answer the
journal holds, else at the run's mean (its usage over its calls: an s16 journal records no tokens per line). Each
estimate is the mean of those answers, between their least and their most, so the forecast is a point and a
range; ``needed_budget`` is the budget the upper end fits in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .journal.lines import Answered


@dataclass(frozen=True)
class CostForecast:
    """The tokens ``calls`` live calls should cost: ``expected``, between ``low`` and ``high``; ``guessed`` of them
    had no answer of their label, phase or run to go on (estimated at the run's mean, or at 0 without one)."""

    calls: int
    low: int
    expected: int
    high: int
    guessed: int = 0

    def needed_budget(self, spent: int) -> int:
        """The budget a run that has spent ``spent`` needs for the upper end of the forecast."""
        return spent + self.high

    def fits(self, budget: int | None, spent: int) -> bool:
        """Whether the upper end fits in what ``budget`` leaves (always, without a budget)."""
        return budget is None or spent + self.high <= budget


class AnswerCosts:
    """What each call's answers cost, gathered as a journal is read (``on_answer`` is a journal reader's hook):
    every line that records tokens adds to its call's. A call counts as a sample once the runner handed an answer
    back for it: one the runner refused cost nothing, and says nothing of what its answer will cost."""

    def __init__(self) -> None:
        self._calls: dict[str, tuple[str | None, str | None, int, bool]] = {}  # key → (label, phase, tokens, answered)
        """(Tuples of text and numbers, which the collector stops tracking: a journal holds a call per line.)"""

    def on_answer(self, answered: Answered) -> None:
        tokens = answered.answer.tokens
        if tokens is None:  # an s16 line records none
            return
        ask = answered.ask
        _label, _phase, spent, sampled = self._calls.get(ask.key, (None, None, 0, False))
        self._calls[ask.key] = (ask.label, ask.phase, spent + tokens, sampled or answered.kept or tokens > 0)

    def history(self) -> list[tuple[str | None, str | None, int]]:
        """(label, phase, tokens) of every call answered: ``forecast_cost``'s history."""
        return [(label, phase, tokens) for label, phase, tokens, answered in self._calls.values() if answered]


def forecast_cost(live: Sequence[tuple[str, str | None]], history: Iterable[tuple[str | None, str | None, int]],
                  run_mean: float | None = None) -> CostForecast:
    """The forecast for ``live`` (label, phase) calls from ``history``: (label, phase, tokens) of every answer the
    journal holds that records its tokens; ``run_mean`` the tokens a call cost on average, for calls nothing else
    tells of."""
    by_label: defaultdict[str, list[int]] = defaultdict(list)
    by_phase: defaultdict[str, list[int]] = defaultdict(list)
    every: list[int] = []
    for label, phase, tokens in history:
        if label is not None:
            by_label[label].append(tokens)
        if phase is not None:
            by_phase[phase].append(tokens)
        every.append(tokens)
    low = expected = high = guessed = 0
    for label, phase in live:
        samples = by_label.get(label) or (by_phase.get(phase) if phase is not None else None) or every
        if samples:
            low += min(samples)
            high += max(samples)
            expected += round(sum(samples) / len(samples))
        else:
            guessed += 1
            mean = round(run_mean or 0)
            low, expected, high = low + mean, expected + mean, high + mean
    return CostForecast(len(live), low, expected, high, guessed)
