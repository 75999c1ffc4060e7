"""How a contract changes: a revision's diff (fields, who signs again, findings, scenarios that end differently) and
what its receipts taught (``learn_from_receipts``). Contract text and receipts are untrusted: all of it is escaped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from alp_nb.base.frozen import thaw
from alp_nb.viz.html import badge, block, esc, table
from alp_nb.viz.views.simulation import md

if TYPE_CHECKING:
    from collections.abc import Sequence

    from alp_nb.loops.contract_diff import ContractDiff, ScenarioChange
    from alp_nb.loops.learn import LearnedFinding

RECEIPTS_SHOWN = 6
"""Receipts a learned finding lists before ``+N more``."""


def _value(value: Any) -> str:
    """A field's value on one line: text as it is, anything else as JSON; ``(not written)`` when absent."""
    if value is None:
        return "(not written)"
    return value if isinstance(value, str) else json.dumps(thaw(value), ensure_ascii=False)


def _ending(outcome: str | None, owner: str | None, refused: tuple[str, ...]) -> str:
    if outcome is None:
        return "(no such scenario)"
    return outcome + (f" with {owner}" if owner else "") + (f", refusing {', '.join(refused)}" if refused else "")


def scenario_change_line(change: ScenarioChange) -> str:
    return (f"{change.scenario}: {_ending(change.old_outcome, change.old_owner, change.old_refused)} → "
            f"{_ending(change.new_outcome, change.new_owner, change.new_refused)}")


def diff_lines(diff: ContractDiff) -> list[str]:
    """The diff as lines of plain text, each value on a line of its own."""
    if not diff.changed:
        return [f"{diff.new_name}: no field changed"]
    lines = [f"{diff.old_name} → {diff.new_name}: {len(diff.changes)} field(s) changed"]
    for change in diff.changes:
        lines += [f"  {change.path}", f"    was: {_value(change.old)}", f"    now: {_value(change.new)}"]
    lines += [f"  cap changed: {line}" for line in diff.caps_changed]
    lines.append("must sign again:")
    lines += [f"  {entry.reviewer}: {', '.join(entry.fields)}" for entry in diff.resign] or ["  nobody"]
    lines += [f"  no reviewer signs: {', '.join(diff.unsigned)}"] if diff.unsigned else []
    lines.append("lint:")
    lines += [f"  + {finding.rule} {finding.path}: {finding.message}" for finding in diff.findings_added]
    lines += [f"  - {finding.rule} {finding.path}: {finding.message}" for finding in diff.findings_removed]
    if not diff.findings_added and not diff.findings_removed:
        lines.append("  the same findings")
    lines.append("scenarios that end differently" + (" (provisional: lint errors)" if diff.provisional else "") + ":")
    lines += [f"  {scenario_change_line(change)}" for change in diff.scenarios] or ["  none"]
    return lines


def contract_diff_text(diff: ContractDiff) -> str:
    return "\n".join(diff_lines(diff))


def contract_diff_html(diff: ContractDiff) -> str:
    if not diff.changed:
        return block(f"<div><b>{esc(diff.new_name)}</b>: {badge('no field changed', 'ok')}</div>")
    fields = table(("field", "was", "now"), [(f"<code>{esc(change.path)}</code>", esc(_value(change.old)),
                                              esc(_value(change.new))) for change in diff.changes])
    caps = "".join(f"<div>cap changed: {esc(line)}</div>" for line in diff.caps_changed)
    resign = table(("reviewer", "changed fields they sign"), [
        (f"<b>{esc(entry.reviewer)}</b>", esc(", ".join(entry.fields))) for entry in diff.resign])
    unsigned = f'<div class="muted">no reviewer signs: {esc(", ".join(diff.unsigned))}</div>' if diff.unsigned else ""
    lint = "".join(f"<div>{badge(sign, tone)} <code>{esc(finding.rule)}</code> <code>{esc(finding.path)}</code> "
                   f"{esc(finding.message)}</div>" for sign, tone, findings in (
                       ("came", "warn", diff.findings_added), ("went", "ok", diff.findings_removed))
                   for finding in findings) or '<div class="muted">the same findings</div>'
    scenarios = "".join(f"<div>{esc(scenario_change_line(change))}</div>" for change in diff.scenarios) \
        or '<div class="muted">none</div>'
    provisional = " (provisional: lint errors)" if diff.provisional else ""
    return block(f"<div><b>{esc(diff.old_name)}</b> → <b>{esc(diff.new_name)}</b>: {len(diff.changes)} field(s) "
                 f"changed</div>{fields}{caps}<h4>Must sign again</h4>{resign}{unsigned}"
                 f"<h4>Lint findings that came or went</h4>{lint}"
                 f"<h4>Scenarios that end differently{esc(provisional)}</h4>{scenarios}")


def contract_diff_markdown(diff: ContractDiff) -> str:
    return "\n".join(f"- {md(line.strip())}" if line.startswith("  ") else f"**{md(line)}**"
                     for line in diff_lines(diff))


# --- learned findings ------------------------------------------------------------------------------------------


def _receipts(finding: LearnedFinding) -> str:
    shown = ", ".join(finding.receipts[:RECEIPTS_SHOWN])
    more = len(finding.receipts) - RECEIPTS_SHOWN
    return shown + (f" +{more} more" if more > 0 else "")


def learned_lines(findings: Sequence[LearnedFinding]) -> list[str]:
    if not findings:
        return ["nothing learned: no pattern shows in the receipts"]
    return [line for finding in findings for line in (
        f"[{finding.rule}] {finding.path}: {finding.message}", f"    revise: {finding.suggestion}",
        f"    receipts: {_receipts(finding)}")]


def learned_findings_text(findings: Sequence[LearnedFinding]) -> str:
    return "\n".join(learned_lines(findings))


def learned_findings_fragment(findings: Sequence[LearnedFinding]) -> str:
    if not findings:
        return '<p class="muted">nothing learned: no pattern shows in the receipts</p>'
    return table(("rule", "field", "what the receipts show", "revise", "receipts"), [
        (f"<code>{esc(finding.rule)}</code>", f"<code>{esc(finding.path)}</code>", esc(finding.message),
         esc(finding.suggestion), f'<span class="muted">{esc(_receipts(finding))}</span>') for finding in findings])


def learned_findings_html(findings: Sequence[LearnedFinding]) -> str:
    return block(learned_findings_fragment(findings))


def learned_findings_markdown(findings: Sequence[LearnedFinding]) -> str:
    if not findings:
        return "Nothing learned: no pattern shows in the receipts."
    return "\n".join(["| rule | field | what the receipts show | revise | receipts |", "|---|---|---|---|---|",
                      *(f"| {md(finding.rule)} | {md(finding.path)} | {md(finding.message)} | "
                        f"{md(finding.suggestion)} | {md(_receipts(finding))} |" for finding in findings)])
