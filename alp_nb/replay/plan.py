"""``plan_resume``: what a resume of a stored run would do, call by call, worked out before anything runs.

A plan reads the run as a resume reads it (snapshot, journal, and the events for what they tell of failures),
without taking its lock and writing nothing; takes the runtime's own decision (``decide_resume``); and runs the
script in a dry run (``runtime.dry_run``), where every journaled call is served exactly as a resume serves it and
every other one is answered by a stand-in that costs nothing and never asks a model. Each call the script would
make is then named, in the order it makes them: ``cached`` (served from the journal, its tokens saved) or
``live``, with the one reason it runs again:

- ``downstream of a live call``: it was asked after a live call its line of the script could depend on, so once
  the real answer is in it may be asked differently (the dry run asked it with a stand-in answer);
- ``changed prompt``, ``changed schema``, ``changed prompt and schema``: the journal holds a call with the same
  label under another key that the script no longer asks for; ``detail`` says the first difference;
- ``failed before``: the run's events show the call (by key, else by label) failed, or the journal has a spend
  line for its key whose answer was refused or was not JSON;
- ``never journaled``: none of these: a new call, or one the run never reached or that was cancelled (``detail``
  says so when the events do).

The s16 reference's journal lines hold no labels, so a changed prompt cannot be told there: such a call is
``never journaled``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import zip_longest
from typing import TYPE_CHECKING, Any

from alp_nb.base.errors import AlpError
from alp_nb.base.text import clip
from alp_nb.runtime.calls import ObservedCall
from alp_nb.runtime.dry_runs import DryRun, JournalMatch, dry_run, journal_match
from alp_nb.runtime.errors import WorkflowInputError
from alp_nb.runtime.forecast import AnswerCosts, CostForecast, forecast_cost
from alp_nb.runtime.journal.lines import Answered, CopiedAnswer, Spend
from alp_nb.runtime.journal.reader import JournalRead
from alp_nb.runtime.keys import canonical_dumps
from alp_nb.runtime.resume import decide_resume, spent_text
from alp_nb.runtime.saved_workflows import DEFAULT_REGISTRY, WorkflowRegistry
from alp_nb.runtime.store import RunStore
from alp_nb.runtime.stored_events import AgentEvent, TaskStarted
from alp_nb.runtime.sync import run_sync

from .errors import ReplayError
from .record import JOURNAL_PAGE_SIZE, store_of
from .timeline import attempt_finder

if TYPE_CHECKING:
    import pandas as pd

    from alp_nb.runtime.snapshot import RunSnapshot

PLAN_COLUMNS: tuple[str, ...] = (
    "order", "label", "action", "reason", "detail", "tokens_saved", "phase", "workflow", "journal_seq", "after_live",
    "key", "prompt",
)
"""The columns of ``ResumePlan.calls``, in order."""
UNUSED_COLUMNS: tuple[str, ...] = ("seq", "label", "key", "phase", "tokens")
"""The columns of ``ResumePlan.unused``, in order."""

CACHED, LIVE = "cached", "live"
DOWNSTREAM = "downstream of a live call"
CHANGED_PROMPT = "changed prompt"
CHANGED_SCHEMA = "changed schema"
CHANGED_BOTH = "changed prompt and schema"
FAILED_BEFORE = "failed before"
NEVER_JOURNALED = "never journaled"
REASONS: tuple[str, ...] = (DOWNSTREAM, CHANGED_PROMPT, CHANGED_SCHEMA, CHANGED_BOTH, FAILED_BEFORE, NEVER_JOURNALED)
"""Every reason a live call can have, in the order they are tried: the first that holds is the call's."""

PLAN_PAGE_SIZE = JOURNAL_PAGE_SIZE
"""The calls a view of a plan shows at once (``ResumePlan.page(n)`` picks the page)."""
DETAIL_CHARS = 40
"""How much of a differing line (or value) a detail quotes, on each side of the arrow."""
ENDED = ("done", "cached", "failed", "cancelled")
"""The ``workflow_agent`` statuses that end a call (``retry`` does not: the call goes on)."""
BAD_ANSWERS = {"refused": "its answer broke its schema even after a retry", "not JSON": "its answer was not JSON",
               "failed": "its runner failed instead of answering"}
"""The spend-line reasons that mean a call failed, and what a detail says of each."""


@dataclass(frozen=True)
class PlanTotals:
    """How many calls the script would make, how many are served from the journal and how many run, and the
    journaled tokens the cached ones will not pay again."""

    calls: int
    cached: int
    live: int
    tokens_saved: int


@dataclass(frozen=True, eq=False)
class ResumePlan:
    """A resume of run ``run_id``, worked out by ``plan_resume`` without running it.

    ``calls`` (a DataFrame, ``PLAN_COLUMNS``) has one row per call the script would make, in the order it makes
    them: ``order`` (1, 2, ...), ``label``, ``action`` (``cached`` or ``live``), ``reason`` (a live call's, one of
    ``REASONS``; None for a cached one), ``detail`` (short text: what changed, how it failed, why it was never
    journaled), ``tokens_saved`` (a cached call's journaled tokens, counted once per journal line), ``phase``,
    ``workflow`` (a nested workflow's name), ``journal_seq`` (the journal line that serves a cached call),
    ``after_live`` (asked after a live call its line of the script could depend on: a cached call with it stays
    cached only if the real answer asks it the same way), ``key`` and ``prompt``. ``unused`` (``UNUSED_COLUMNS``)
    lists the journaled calls the script no longer asks for.

    ``match`` counts the journaled calls the script asks for again; ``warning`` says it loudly when that is fewer
    than half (``differs``). ``budget`` is the budget a resume would run under (``budget_raised`` when the plan
    raised it), ``spent`` the tokens every attempt spent as the budget counts them: those recorded and the
    ``reserved`` ones held for the ``unanswered`` calls (asked and never answered on record); ``forecast`` what the
    live calls should cost, from the journal's own history (``runtime.forecast``), and ``shortfall`` says when the
    budget does not cover its upper end, naming the ``--budget`` that would; ``refusal`` says
    why a resume would be refused (a run over its budget: every call is still listed). ``dry_run_status`` and
    ``dry_run_error`` say how the script's dry run ended (``failed`` with the error where a real resume would fail
    the same way, or where the script broke on a stand-in answer). ``warnings`` is what the readers reported
    without failing. In a notebook a plan shows one page of its calls (``page(n)`` shows another).
    """

    run_id: str
    workflow: str
    run_status: str
    calls: pd.DataFrame = field(repr=False)
    unused: pd.DataFrame = field(repr=False)
    match: JournalMatch
    totals: PlanTotals
    budget: int | None = None
    spent: int = 0
    unanswered: int = 0
    reserved: int = 0
    forecast: CostForecast | None = None
    budget_raised: bool = False
    refusal: str | None = None
    dry_run_status: str = "completed"
    dry_run_error: str | None = None
    warning: str | None = None
    labels_known: bool = True
    warnings: tuple[str, ...] = ()
    calls_page: int = 1

    def __repr__(self) -> str:
        totals = self.totals
        flags = "".join((", differs=True" if self.differs else "", ", refused=True" if self.refused else ""))
        return (f"ResumePlan({self.run_id!r}, calls={totals.calls}, cached={totals.cached}, live={totals.live}, "
                f"tokens_saved={totals.tokens_saved}{flags})")

    @property
    def differs(self) -> bool:
        """The script is not the one that wrote the journal: it asks for fewer than half of its calls."""
        return self.match.differs

    @property
    def refused(self) -> bool:
        """A resume would be refused as things stand (``refusal`` says why and how to go on)."""
        return self.refusal is not None

    @property
    def shortfall(self) -> str | None:
        """Why a resume would most likely stop on its budget before it finishes, and the ``--budget`` that would
        do; None when the budget covers the forecast's upper end (or there is no budget)."""
        forecast = self.forecast
        if forecast is None or not forecast.calls or forecast.fits(self.budget, self.spent):
            return None
        needed = forecast.needed_budget(self.spent)
        left = max((self.budget or 0) - self.spent, 0)
        return (f"the budget leaves {left:,} tokens but the live calls should cost {forecast.expected:,} "
                f"({forecast.low:,}–{forecast.high:,}): a resume would likely stop on its budget; --budget {needed:,} "
                "would cover them")

    @property
    def pages(self) -> int:
        """How many pages of ``PLAN_PAGE_SIZE`` calls the plan fills (at least one)."""
        return max(1, -(-len(self.calls) // PLAN_PAGE_SIZE))

    def page(self, number: int) -> ResumePlan:
        """This plan showing page ``number`` (1 to ``pages``) of its calls; the tables are shared, not copied."""
        if type(number) is not int or not 1 <= number <= self.pages:
            raise ReplayError("INVALID_OPTION", f"page must be a whole number from 1 to {self.pages}, not {number!r}")
        return replace(self, calls_page=number)

    def page_rows(self) -> pd.DataFrame:
        """The calls of the page shown (``calls_page``)."""
        start = (self.calls_page - 1) * PLAN_PAGE_SIZE
        return self.calls.iloc[start:start + PLAN_PAGE_SIZE]


def plan_resume(run_id: str | None = None, store: RunStore | str | os.PathLike[str] | None = None,
                registry: WorkflowRegistry | None = None, budget: int | None = None, *,
                agent_cap: int = 1000) -> ResumePlan:
    """The plan of a resume of run ``run_id`` (default: the store's last run) in ``store`` (a RunStore or folder,
    default ``./.alp-runs``), by its workflow as ``registry`` (default: the runtime's) holds it now, under
    ``budget`` if given (a raised token budget, as ``budget=`` on resume) and ``agent_cap`` (as on resume).

    Nothing is written and no model is asked: the script runs against the journal with stand-in answers for
    what the journal lacks. Refused as a resume is refused (``RUN_NOT_FOUND``, ``WORKFLOW_MISMATCH``,
    ``UNKNOWN_WORKFLOW``, ``CORRUPT_RUN``, ``JOURNAL_CORRUPT``, ``JOURNAL_TAMPERED``, ``UNSAFE_STORE_FILE``,
    ``INVALID_OPTION`` for a budget that does not raise the run's...) and ``ReplayError`` ``STORE_NOT_FOUND``;
    except ``BUDGET_EXCEEDED``: a run over its budget still gets its plan, with ``refusal`` saying a resume is
    refused until the budget is raised. A script that fails during the plan is shown (``dry_run_status``,
    ``dry_run_error``), not raised.
    """
    return run_sync(_plan(run_id, store, registry, budget, agent_cap))


async def _plan(run_id: str | None, store: Any, registry: WorkflowRegistry | None, budget: Any,
                agent_cap: int) -> ResumePlan:
    store = store_of(store)
    if registry is None:
        registry = DEFAULT_REGISTRY
    elif not isinstance(registry, WorkflowRegistry):
        raise ReplayError("INVALID_OPTION", f"registry must be a WorkflowRegistry, not {type(registry).__name__}")
    if type(agent_cap) is not int or agent_cap < 1:
        raise ReplayError("INVALID_OPTION", f"agent_cap must be a positive integer, not {agent_cap!r}")
    if run_id is None:
        run_id = store.last_run()
        if run_id is None:
            raise WorkflowInputError("RUN_NOT_FOUND", f"no run to plan in {store.root}: it names no last run")
    snapshot = store.read_snapshot(run_id)  # as stored: no lock is taken, so nothing is caught up or created
    saved = registry.get(snapshot.workflow_name)
    lines = _JournalLines(attempt_finder(snapshot))
    journal = store.read_journal(snapshot, on_answer=lines.on_answer)  # warns of torn and missing lines itself
    found = list(journal.warnings)

    decision = decide_resume(snapshot, journal, saved, None, budget, refuse_overspent=False)
    refusal = None
    spent = decision.spent
    if decision.overspent:
        spent_words = spent_text(spent) if spent.unanswered else f"{spent.tokens} tokens"
        refusal = (f"a resume would be refused: run `{run_id}` has spent {spent_words} of its budget of "
                   f"{decision.budget}; raise the budget above {spent.counted} to go on: `--budget N` on the command "
                   "line, budget=N in Python")
    rehearsal = await dry_run(saved, decision.args, journal, registry=registry,
                              budget=None if refusal else decision.budget,
                              spent_before=spent.counted, prompts=decision.prompts, agent_cap=agent_cap,
                              run_id=run_id)
    match = journal_match(journal, rehearsal.calls)
    forecast = forecast_cost([(call.label, call.phase) for call in rehearsal.calls if call.outcome != CACHED],
                             lines.costs.history(), _run_mean(snapshot))
    needed = any(call.outcome != CACHED and not call.after_live for call in rehearsal.calls)
    events = _events(store, run_id, found) if needed else _Events()  # two lines a call: read only to tell why
    calls, totals = _classified(rehearsal, journal, lines, events, completed=snapshot.status == "completed")
    return ResumePlan(
        run_id=run_id, workflow=saved.meta.name, run_status=_status(store, snapshot), calls=calls,
        unused=_unused(journal, lines, rehearsal), match=match, totals=totals, budget=decision.budget,
        spent=spent.counted, unanswered=spent.unanswered, reserved=spent.reserved, forecast=forecast,
        budget_raised=decision.raised, refusal=refusal,
        dry_run_status=rehearsal.status, dry_run_error=rehearsal.error,
        warning=_warning(match, totals, rehearsal), labels_known=not lines.unlabelled, warnings=tuple(found))


def _status(store: RunStore, snapshot: RunSnapshot) -> str:
    """The run's status, ``interrupted`` for a running one whose lock nobody holds (probed, never taken)."""
    if snapshot.status == "running" and not store.is_active(snapshot.run_id):
        return "interrupted"
    return snapshot.status


def _run_mean(snapshot: RunSnapshot) -> float | None:
    """The tokens a call of the run cost on average, from its usage: the forecast's last resort."""
    usage = snapshot.usage.cumulative
    return usage.tokens / usage.agents if usage.agents and usage.tokens else None


# --- what the run's files tell ----------------------------------------------------------------------------------


class _JournalLines:
    """What the plan keeps of each answer the journal reader accepts (its ``on_answer``): the kept answers by key
    and by label, what their answers cost, why a call's answer failed (the runner's error, the schema's issues),
    the calls cancelled (in which attempt, and whether an answer was paid for), the attempts in which a call
    failed, and the answers replaced by a fork."""

    def __init__(self, attempt_of: Callable[[int | None], int]) -> None:
        self.attempt_of = attempt_of
        self.by_key: dict[str, Answered] = {}
        self.costs = AnswerCosts()
        self.bad: dict[str, str] = {}
        self.cancelled: dict[str, tuple[int, bool]] = {}
        self.failed_in: set[int] = set()
        self.overridden: set[str] = set()
        self.unlabelled = 0

    @cached_property
    def by_label(self) -> dict[str, list[Answered]]:
        """The kept answers by their call's label, in journal order (made only when a live call is compared)."""
        labelled: dict[str, list[Answered]] = {}
        for answered in self.by_key.values():
            if answered.ask.label is not None:
                labelled.setdefault(answered.ask.label, []).append(answered)
        return labelled

    def on_answer(self, answered: Answered) -> None:
        ask, answer = answered.ask, answered.answer
        self.costs.on_answer(answered)
        if isinstance(answer, Spend):
            if answer.reason in BAD_ANSWERS:
                why = answer.error or BAD_ANSWERS[answer.reason]
                if answer.issues:
                    why += ": " + "; ".join(answer.issues)
                self.bad[ask.key] = why
                self.failed_in.add(self.attempt_of(answer.seq))
            elif answer.reason == "cancelled":
                self.cancelled[ask.key] = (self.attempt_of(answer.seq), bool(answer.tokens))
            return
        self.by_key[ask.key] = answered
        if ask.label is None:
            self.unlabelled += 1
        if isinstance(answer, CopiedAnswer) and answer.overridden:
            self.overridden.add(ask.key)


@dataclass
class _Events:
    """What the run's events say of its calls: which failed (by key and by label, with the error), which were
    cancelled and whether a sibling's failure did it, which started and never ended."""

    failed_keys: dict[str, str] = field(default_factory=dict)
    failed_labels: dict[str, str] = field(default_factory=dict)
    cancelled: dict[str, bool] = field(default_factory=dict)
    """key → whether a call failed in the same attempt (a sibling's failure cancelled it)."""
    unfinished: set[str] = field(default_factory=set)


def _events(store: RunStore, run_id: str, found: list[str]) -> _Events:
    """The run's events, read once (an s16 run has none). Events only add reasons to a plan, so an events file
    that cannot be read is a warning, not a refusal (a resume does not read it either)."""
    seen = _Events()
    try:
        events = store.read_events(run_id)
    except AlpError as error:
        message = (f"the events of run `{run_id}` were not read, so failures are told only from the journal: "
                   f"{error.message}")
        found.append(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)
        return seen
    attempt = 0
    failed_in: set[int] = set()
    cancelled_in: dict[str, int] = {}
    for event in events:  # format 1 files hold a line per call step; format 2 files none (the journal has them)
        if isinstance(event, TaskStarted):
            attempt += 1
            continue
        if not isinstance(event, AgentEvent):
            continue
        status, key, label = event.status, event.key, event.label
        if status == "started":
            seen.unfinished.add(key)
        elif status in ENDED:
            seen.unfinished.discard(key)
        if status == "failed":
            why = event.error or "failed"
            seen.failed_keys[key] = why
            if label is not None:
                seen.failed_labels[label] = why
            failed_in.add(attempt)
        elif status == "cancelled":
            cancelled_in[key] = attempt
    seen.cancelled = {key: number in failed_in for key, number in cancelled_in.items()}
    return seen


# --- the calls, classified --------------------------------------------------------------------------------------


def _classified(rehearsal: DryRun, journal: JournalRead, lines: _JournalLines, events: _Events,
                completed: bool) -> tuple[pd.DataFrame, PlanTotals]:
    """One row per call of the dry run, in its order, and the totals."""
    unknown = {ask.key for ask in journal.unanswered}
    served = {call.seq for call in rehearsal.calls
              if call.outcome == CACHED and call.seq is not None and call.seq < rehearsal.first_seq}
    rows: list[tuple[Any, ...]] = []
    paid: set[int] = set()
    cached = saved = 0
    for order, call in enumerate(rehearsal.calls, 1):
        seq, tokens = call.seq, call.tokens
        if call.outcome == "failed":  # the dry run stopped at it: was it journaled?
            hit = journal.lookup(call.key, call.label, call.prompt, call.schema)
            seq, tokens = (hit[2], hit[1]) if hit is not None else (None, 0)
        action = CACHED if call.outcome == CACHED or (call.outcome == "failed" and seq is not None) else LIVE
        reason, save = None, 0
        if action == CACHED:
            cached += 1
            detail, save = _cached_detail(call, seq, tokens, rehearsal.first_seq, paid, lines)
        else:
            reason, detail = _reason(call, lines, events, served, completed, unknown)
        if call.outcome == "failed":
            detail = _joined(detail, f"the dry run stopped here: {call.error}")
        saved += save
        rows.append((order, call.label, action, reason, detail or None, save, call.phase, call.workflow,
                     seq if action == CACHED else None, call.after_live, call.key, call.prompt))  # PLAN_COLUMNS
    total = len(rehearsal.calls)
    return _plan_frame(rows), PlanTotals(calls=total, cached=cached, live=total - cached, tokens_saved=saved)


def _cached_detail(call: ObservedCall, seq: int | None, tokens: int, first: int, paid: set[int],
                   lines: _JournalLines) -> tuple[str, int]:
    """Why a cached call is served as it is, and the tokens it saves: a journal line saves once, however many
    calls it serves (``paid`` remembers those that already did)."""
    detail, save = "", 0
    if seq is not None and seq >= first:
        detail = "asked earlier in this resume: served from that answer"
    elif seq is not None and seq in paid:
        detail = "the same call again: served from the same journal line"
    elif call.outcome == CACHED:  # (a failed one stopped the dry run: nothing is saved by it)
        if seq is not None:
            paid.add(seq)
        save = tokens
        if call.key in lines.overridden:
            detail = "the answer this fork was given instead"
    if call.after_live:
        detail = _joined(detail, "after a live call: cached only if the real answer asks it the same way")
    return detail, save


def _plan_frame(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    """The rows as ``PLAN_COLUMNS``, with the numeric columns typed."""
    import pandas as pd

    columns = dict(zip(PLAN_COLUMNS, zip(*rows, strict=True), strict=True)) if rows else dict.fromkeys(PLAN_COLUMNS, ())
    return pd.DataFrame({
        **{name: pd.Series(values, dtype=object) for name, values in columns.items()},
        "order": pd.array(columns["order"], dtype="int64"),
        "tokens_saved": pd.array(columns["tokens_saved"], dtype="int64"),
        "journal_seq": pd.array(columns["journal_seq"], dtype="Int64"),
        "after_live": pd.Series(columns["after_live"], dtype=bool),
    }, columns=list(PLAN_COLUMNS))


def _reason(call: ObservedCall, lines: _JournalLines, events: _Events, served: set[int], completed: bool,
            unknown: set[str]) -> tuple[str, str]:
    """A live call's reason and detail: the first of ``REASONS`` that holds."""
    if call.after_live:
        return DOWNSTREAM, "asked after a live call, with a stand-in answer: the real one may change it"
    changed = _changed(call, lines, served)
    if changed is not None:
        return changed
    failed = lines.bad.get(call.key) or events.failed_keys.get(call.key) or events.failed_labels.get(call.label)
    if failed is not None:
        return FAILED_BEFORE, clip(failed, 2 * DETAIL_CHARS)
    return NEVER_JOURNALED, _never_journaled(call, lines, events, completed, unknown)


def _never_journaled(call: ObservedCall, lines: _JournalLines, events: _Events, completed: bool,
                     unknown: set[str]) -> str:
    """Why the journal holds no answer for a call that changed nothing and did not fail before."""
    if call.key in lines.cancelled:
        attempt, paid = lines.cancelled[call.key]
        if paid:
            return "cancelled as its answer arrived (paid for, not kept)"
        return "cancelled when a sibling failed" if attempt in lines.failed_in else "cancelled when the run was stopped"
    if call.key in events.cancelled:
        return "cancelled when a sibling failed" if events.cancelled[call.key] else "cancelled when the run was stopped"
    if call.key in unknown:
        return "asked and never answered: the run was interrupted (what that cost is unknown)"
    if call.key in events.unfinished:
        return "started but never finished: the run was interrupted"
    if lines.unlabelled:
        return "s16 journal lines keep no label, so a changed prompt cannot be told from a new call"
    if completed:
        return "a new call: the run that wrote the journal never asked it"
    return "a new call, or one the run did not reach"


def _changed(call: ObservedCall, lines: _JournalLines, served: set[int]) -> tuple[str, str] | None:
    """``changed ...`` when the journal holds a call with this label under another key that no call of the script
    was served from: compared with the first such line."""
    for line in lines.by_label.get(call.label, ()):
        if line.key == call.key or line.seq in served:
            continue
        prompt = line.ask.prompt != call.prompt
        schema = _json(line.ask.schema) != _json(call.schema)
        parts = []
        if prompt:
            parts.append(_prompt_difference(line.ask.prompt, call.prompt))
        if schema:
            parts.append(_schema_difference(line.ask.schema, call.schema, "schema"))
        reason = CHANGED_BOTH if prompt and schema else CHANGED_PROMPT if prompt else CHANGED_SCHEMA if schema else None
        if reason is not None:
            return reason, f"{'; '.join(parts)} (journal line {line.seq})"
    return None


def _json(value: Any) -> str:
    try:
        return canonical_dumps(value)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _prompt_difference(old: Any, new: str) -> str:
    """The first line that differs, shortened: ``prompt line 2: "…old…" → "…new…"``."""
    if not isinstance(old, str):
        return "prompt: the journal line holds none"
    for number, (before, after) in enumerate(zip_longest(old.split("\n"), new.split("\n")), 1):
        if before == after:
            continue
        if before is None or after is None:
            return f"prompt line {number}: {_quoted(before, 0)} → {_quoted(after, 0)}"
        at = next((index for index, (a, b) in enumerate(zip(before, after, strict=False)) if a != b),
                  min(len(before), len(after)))
        return f"prompt line {number}: {_quoted(before, at)} → {_quoted(after, at)}"
    return "prompt differs"


def _quoted(text: str | None, at: int) -> str:
    """``text`` around position ``at`` (where it starts to differ), at most DETAIL_CHARS characters, quoted."""
    if text is None:
        return "(no line)"
    start = max(0, min(at - 10, len(text) - DETAIL_CHARS))
    piece = text[start:start + DETAIL_CHARS]
    return f'"{"…" if start else ""}{piece}{"…" if start + DETAIL_CHARS < len(text) else ""}"'


def _schema_difference(old: Any, new: Any, path: str) -> str:
    """Where two schemas first differ: ``schema.properties.x added``, ``schema.type: "a" → "b"``."""
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for name in sorted(set(old) | set(new), key=str):
            if name not in old:
                return f"{path}.{name} added"
            if name not in new:
                return f"{path}.{name} removed"
            if _json(old[name]) != _json(new[name]):
                return _schema_difference(old[name], new[name], f"{path}.{name}")
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            if _json(before) != _json(after):
                return _schema_difference(before, after, f"{path}[{index}]")
    return f"{path}: {clip(_json(old), DETAIL_CHARS)} → {clip(_json(new), DETAIL_CHARS)}"


def _joined(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


# --- the rest of the plan ---------------------------------------------------------------------------------------


def _unused(journal: JournalRead, lines: _JournalLines, rehearsal: DryRun) -> pd.DataFrame:
    """The journaled calls no call of the script was served from, in journal order."""
    import pandas as pd

    first = rehearsal.first_seq
    served = {call.seq for call in rehearsal.calls if call.outcome == CACHED and call.seq is not None
              and call.seq < first}
    rows = sorted((seq, key, tokens) for key, (_value, tokens, seq) in journal.calls.items() if seq not in served)
    labels, phases = [], []
    for _seq, key, _tokens in rows:
        line = lines.by_key.get(key)
        labels.append(None if line is None else line.ask.label)
        phases.append(None if line is None else line.ask.phase)
    return pd.DataFrame({
        "seq": pd.array([row[0] for row in rows], dtype="int64"),
        "label": pd.Series(labels, dtype=object),
        "key": pd.Series([row[1] for row in rows], dtype=object),
        "phase": pd.Series(phases, dtype=object),
        "tokens": pd.array([row[2] for row in rows], dtype="int64"),
    }, columns=list(UNUSED_COLUMNS))


def _warning(match: JournalMatch, totals: PlanTotals, rehearsal: DryRun) -> str | None:
    """The loud line of a plan whose script asks for fewer than half of the journaled calls."""
    if not match.differs:
        return None
    rerun = "them all" if match.matched == 0 else f"{totals.live} of its {totals.calls} calls"
    stopped = "" if rehearsal.status == "completed" else f" (the plan's dry run stopped early: {rehearsal.error})"
    return (f"the script differs from the one that wrote the journal: it asks for {match.matched} of "
            f"{match.journaled} journaled calls; a resume would run {rerun} again{stopped}")
