"""Two versions of a contract side by side: what changed, who must sign again, and what it changes downstream.

A contract is reviewed like code, so a revision is reviewed like a diff: the fields it changes, the reviewers of
seed 004 whose slice it touches (``REVIEWERS``: the product owner for objective and exit, security for authority
and blast radius, the operator for trigger, state, budget and escalation, the builder for what is wired into the
runtime, the verifier owner for the gates), the lint findings it brings or settles, and the scenarios (and derived
firings) that now end differently: another outcome, another owner afterwards, or another refusal. A cap is blast
radius wherever its words are written, so a changed cap asks security to sign again too. A revision whose either
side has lint errors is still compared; its scenario outcomes are then provisional.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from alp_nb.base.frozen_model import FrozenJson

from .decision import LoopModel, Outcome
from .effects import effect_caps
from .firing import simulate_firing
from .injections import firings_for, scenarios_for
from .lint import Finding, lint_contract
from .loop_contract import LoopContract
from .review_packet import REVIEWERS, concerns
from .simulator import Simulation, simulate


class FieldChange(LoopModel):
    """One field whose value differs: its JSON path, and the value before and after (None: not written)."""

    path: str
    old: FrozenJson = None
    new: FrozenJson = None


class ReSign(LoopModel):
    """A reviewer who must sign again, and the changed fields of their slice."""

    reviewer: str
    fields: tuple[str, ...]


class ScenarioChange(LoopModel):
    """A scenario that ends differently: its outcome, owner and refusals before and after (an outcome of None: the
    scenario did not exist)."""

    scenario: str
    old_outcome: Outcome | None
    new_outcome: Outcome | None
    old_owner: str | None = None
    new_owner: str | None = None
    old_refused: tuple[str, ...] = ()
    new_refused: tuple[str, ...] = ()


class ContractDiff(LoopModel):
    """What a revision of a contract changes; ``diff_contracts`` builds one."""

    old_name: str
    new_name: str
    changes: tuple[FieldChange, ...]
    caps_changed: tuple[str, ...]
    """Each cap on an effect whose limit changed, appeared or went: ``pull requests: at most 3 → at most 4``."""
    resign: tuple[ReSign, ...]
    unsigned: tuple[str, ...]
    """Changed fields no reviewer signs (``name``)."""
    findings_added: tuple[Finding, ...]
    findings_removed: tuple[Finding, ...]
    scenarios: tuple[ScenarioChange, ...]
    provisional: bool
    """Whether either version has lint errors, so its scenario outcomes are provisional."""

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def diff_contracts(old: LoopContract, new: LoopContract, *, today: date | None = None) -> ContractDiff:
    """``new`` against ``old``: the fields, the reviewers who must sign again, the findings (linted on ``today``)
    and the scenario outcomes."""
    before, after = dict(_leaves(old.to_document())), dict(_leaves(new.to_document()))
    changes = tuple(FieldChange(path=path, old=before.get(path), new=after.get(path))
                    for path in dict.fromkeys((*before, *after)) if before.get(path) != after.get(path))
    changed = [change.path for change in changes]
    caps, cap_paths = _cap_changes(old, new)
    resign = tuple(ReSign(reviewer=reviewer.name, fields=tuple(dict.fromkeys(
        [path for path in changed if any(concerns(path, field) for field in reviewer.signs_off)]
        + (cap_paths if reviewer.refusals else [])))) for reviewer in REVIEWERS)
    old_findings, new_findings = lint_contract(old, today=today), lint_contract(new, today=today)
    key = {finding: (finding.rule, finding.path, finding.message) for finding in (*old_findings, *new_findings)}
    old_keys, new_keys = {key[finding] for finding in old_findings}, {key[finding] for finding in new_findings}
    return ContractDiff(
        old_name=old.name, new_name=new.name, changes=changes, caps_changed=caps,
        resign=tuple(entry for entry in resign if entry.fields),
        unsigned=tuple(path for path in changed if not any(path in entry.fields for entry in resign)),
        findings_added=tuple(finding for finding in new_findings if key[finding] not in old_keys),
        findings_removed=tuple(finding for finding in old_findings if key[finding] not in new_keys),
        scenarios=_scenario_changes(_outcomes(old), _outcomes(new)),
        provisional=bool(old_findings.errors or new_findings.errors))


def _cap_changes(old: LoopContract, new: LoopContract) -> tuple[tuple[str, ...], list[str]]:
    """Each changed cap as a line, and the paths it is written at."""
    before = {cap.effect: cap for cap in effect_caps(old)}
    after = {cap.effect: cap for cap in effect_caps(new)}
    lines, paths = [], []
    for effect in dict.fromkeys((*before, *after)):
        written = {side: cap for side, cap in (("now", after.get(effect)), ("was", before.get(effect))) if cap}
        limits = {side: f"at most {cap.limit}" for side, cap in written.items()}
        if limits.get("was") != limits.get("now"):
            path = next(iter(written.values())).path
            lines.append(f"{effect}: {limits.get('was', 'no cap')} → {limits.get('now', 'no cap')} ({path})")
            paths.append(path)
    return tuple(lines), paths


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Each field a person edits whole, by JSON path: an object's keys, down to a text, a number or a list."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}" if path else key)
    else:
        yield path, value


def _outcomes(contract: LoopContract) -> dict[str, Simulation]:
    """Every scenario's run and every derived firing's item runs, by name, lint errors or not."""
    findings = lint_contract(contract)
    runs = {scenario.name: simulate(contract, scenario, allow_lint_errors=True, findings=findings)
            for scenario in scenarios_for(contract)}
    for firing in firings_for(contract):
        firing_runs = simulate_firing(contract, firing, allow_lint_errors=True, findings=findings).runs
        runs |= {run.scenario.name: run for run in firing_runs}
    return runs


def _scenario_changes(old: dict[str, Simulation], new: dict[str, Simulation]) -> tuple[ScenarioChange, ...]:
    changes = []
    for name in dict.fromkeys((*old, *new)):
        before, after = old.get(name), new.get(name)
        ends = [(run.outcome, run.owner, run.refused) if run is not None else (None, None, ())
                for run in (before, after)]
        if ends[0] != ends[1]:
            changes.append(ScenarioChange(scenario=name, old_outcome=ends[0][0], new_outcome=ends[1][0],
                                          old_owner=ends[0][1], new_owner=ends[1][1], old_refused=ends[0][2],
                                          new_refused=ends[1][2]))
    return tuple(changes)
