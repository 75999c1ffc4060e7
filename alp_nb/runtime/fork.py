"""Forking a run: a new run that starts with another run's journal, some answers or prompts replaced.

A fork copies every call the source run journaled into the new run's journal, before its first attempt, so
that attempt serves each of them exactly as a resume would. A replaced answer (``values``, by label) is
copied with the new value instead; a replaced prompt (``prompts``, by label) is asked instead of the one the
script builds, on every attempt of the fork. Whatever the script then asks differently, because it was built
from a replaced answer, misses the journal and runs live: the fork reruns only what depends on the change.
Copied lines keep what the source paid for them but are not this run's spending (they come before its
first attempt); a replaced answer costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from alp_nb.agents.errors import AgentError
from alp_nb.agents.output_contract import OutputContract
from alp_nb.base.frozen import thaw
from alp_nb.base.untrusted_json import UntrustedJson

from .errors import WorkflowInputError
from .journal.lines import Answer, Answered
from .journal.reader import JournalRead
from .journal.writer import copied_lines, journaled
from .keys import canonical_dumps, validate_run_id
from .meta import validate_args
from .saved_workflows import SavedWorkflow
from .snapshot import ForkOrigin
from .store import RunStore


@dataclass(frozen=True)
class Fork:
    """A fork of run ``run_id``: ``values`` replace journaled answers (label → value), ``prompts`` replace the
    prompts of calls (label → prompt)."""

    run_id: str
    values: Mapping[str, Any] = field(default_factory=dict)
    prompts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ForkSeed:
    """What a fork's journal starts with, checked: the records to write, the journal a first attempt reads
    from them, the source's args and where the fork came from."""

    records: tuple[dict[str, Any], ...]
    journal: JournalRead
    args: dict[str, Any]
    origin: ForkOrigin

    def lines(self) -> bytes:
        """The copied lines as the new run's journal starts, written whole before its first snapshot (their seqs
        are the ones ``journal`` holds), so a kill never leaves a fork with part of its source's answers."""
        return copied_lines(list(self.records))[0]


def fork_seed(store: RunStore, fork: Fork, saved: SavedWorkflow, args: Any) -> ForkSeed:
    """The checked seed of ``fork``: the source run is ``saved``'s, the replaced labels name journaled calls
    and their new values fit those calls' schemas; INVALID_OPTION or the store's refusals otherwise."""
    if not isinstance(fork, Fork):
        raise WorkflowInputError("INVALID_OPTION", f"fork must be a Fork, not {type(fork).__name__}")
    source_id = validate_run_id(fork.run_id)
    source = store.read_snapshot(source_id)
    if source.workflow_name != saved.meta.name:
        raise WorkflowInputError("WORKFLOW_MISMATCH", f"run `{source_id}` belongs to workflow "
                                 f"`{source.workflow_name}`, not `{saved.meta.name}`")
    source_args = saved.check_args(validate_args(thaw(source.args), f"{source_id}.json args"))
    if args is not None and canonical_dumps(validate_args(args)) != canonical_dumps(source_args):
        raise WorkflowInputError("ARGS_MISMATCH", f"a fork runs with the args of run `{source_id}`; omit args")
    prompts = _prompts(fork.prompts)
    kept: list[Answered] = []
    source_journal = store.read_journal(source, on_answer=lambda answered: kept.append(answered) if answered.kept
                                        else None)  # a spend is the source's cost, not an answer to serve
    by_label: dict[str, list[Answered]] = {}
    for answered in kept:
        if answered.ask.label is not None:
            by_label.setdefault(answered.ask.label, []).append(answered)
    replaced = {label: _replacement(source_id, label, value, by_label.get(label, []))
                for label, value in _values(fork.values).items()}
    records = tuple(_copied(answered, source_id, replaced) for answered in kept)
    journal = JournalRead(has_s16_keys=source_journal.has_s16_keys, next_seq=len(records) + 1)
    for seq, record in enumerate(records, 1):
        journal.calls.setdefault(record["key"], (record["value"], record.get("tokens", 0), seq))
        journal.largest_answer = max(journal.largest_answer, record.get("tokens", 0))
    origin = ForkOrigin(run_id=source_id, values=tuple(replaced), prompts=prompts)
    return ForkSeed(records, journal, source_args, origin)


def _copied(answered: Answered, source_id: str, replaced: Mapping[str, Any]) -> dict[str, Any]:
    """A call of the source as the fork's journal holds it: all it says about itself (``copiedFrom`` naming the
    source), with the fork's value instead where its label's answer was replaced (``overridden``, 0 tokens)."""
    ask, answer = answered.ask, answered.answer
    fields = {"key": ask.key, "kind": "agent", "label": ask.label, "phase": ask.phase, "prompt": ask.prompt,
              "schema": ask.schema, "value": answer.value if isinstance(answer, Answer) else None,
              "tokens": answer.tokens, "attempts": ask.attempts,
              "started": answered.started, "ended": answered.ended}
    copied = {name: value for name, value in fields.items() if value is not None or name == "value"}
    copied["copiedFrom"] = source_id
    if ask.label is not None and ask.label in replaced:
        copied.update(value=replaced[ask.label], tokens=0, overridden=True)
    return copied


def _values(values: Any) -> dict[str, Any]:
    if not isinstance(values, Mapping) or not all(isinstance(label, str) for label in values):
        raise WorkflowInputError("INVALID_OPTION", "fork values must map call labels to answers")
    return dict(values)


def _prompts(prompts: Any) -> dict[str, str]:
    if not isinstance(prompts, Mapping) or not all(isinstance(label, str) and isinstance(prompt, str)
                                                   for label, prompt in prompts.items()):
        raise WorkflowInputError("INVALID_OPTION", "fork prompts must map call labels to prompts")
    for label, prompt in prompts.items():
        try:
            (label + prompt).encode()
        except UnicodeEncodeError:
            raise WorkflowInputError("INVALID_OPTION", "a fork prompt or its label is not valid Unicode text") from None
    return dict(prompts)


def _replacement(source_id: str, label: str, value: Any, calls: list[Answered]) -> Any:
    """``value`` as the journal will hold it, for the one call of the source labelled ``label``."""
    if not calls:
        raise WorkflowInputError("INVALID_OPTION", f"no call of run `{source_id}` labelled `{label}` was journaled, "
                                 "so it has no answer to replace (replace its prompt instead)")
    if len({answered.key for answered in calls}) > 1:
        raise WorkflowInputError("INVALID_OPTION", f"{len(calls)} calls of run `{source_id}` are labelled "
                                 f"`{label}`; a fork replaces the answer of one call")
    try:
        value = journaled(value)
    except (TypeError, ValueError, RecursionError, UntrustedJson) as error:
        raise WorkflowInputError("INVALID_OPTION", f"fork value for `{label}` is not JSON: {error}") from None
    schema = calls[0].ask.schema
    if schema is not None:
        try:
            verdict = OutputContract("fork-value", schema).validate(value)
        except AgentError as error:
            raise WorkflowInputError("INVALID_OPTION", f"call `{label}` has a schema that cannot check a value: "
                                     f"{error.message}") from None
        if not verdict.ok:
            raise WorkflowInputError("INVALID_OPTION", f"fork value for `{label}` does not match its schema: "
                                     + "; ".join(verdict.issues))
    return value
