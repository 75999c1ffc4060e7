"""Views of a loop contract (its parts by phase, lint findings beside the parts they concern, and alp_nb's extension
when it has one, said so plainly: it validates only against the schema alp_nb ships) and of a findings list, as
HTML and as plain text. Contract text is untrusted: all of it is escaped."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from alp_nb.loops.extension import EXTENDED_SCHEMA_ID, EXTENSION_KEY
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.loop_contract import AgentRole
from alp_nb.viz.html import badge, block, esc, table
from alp_nb.viz.pictures.contract_picture import contract_flow, firing_budget_text

if TYPE_CHECKING:
    from alp_nb.loops.lint import Finding
    from alp_nb.loops.loop_contract import LoopContract

TONES = {"error": "bad", "warning": "warn", "info": "info"}
SEVERITIES = ("error", "warning", "info")


def _linted(contract: LoopContract, findings: Sequence[Finding] | None) -> Sequence[Finding]:
    """``findings``, or the contract's own lint when none are given (how a contract shows in a notebook)."""
    return lint_contract(contract) if findings is None else findings


def _tally(findings: Iterable[Finding]) -> dict[str, int]:
    counts = dict.fromkeys(SEVERITIES, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def _counted(count: int, severity: str) -> str:
    return f"{count} {severity}{'s' if count != 1 else ''}"


def _tally_text(findings: Iterable[Finding]) -> str:
    return ", ".join(_counted(count, severity) for severity, count in _tally(findings).items())


# --- HTML -----------------------------------------------------------------------------------------


def _value_html(value: Any) -> str:
    if isinstance(value, BaseModel):
        if isinstance(value, AgentRole):
            return f"<b>{esc(value.role)}</b>: {esc(value.responsibility)}"
        return "".join(f'<div><span class="muted">{esc(key)}</span> {_value_html(getattr(value, key))}</div>'
                       for key in type(value).model_fields)
    if isinstance(value, tuple):
        if not value:
            return '<span class="muted">none</span>'
        items = "".join(f"<li>{_value_html(item)}</li>" for item in value)
        return f'<ul style="margin:0;padding-left:1.2em">{items}</ul>'
    return esc(value)


def _finding_line_html(finding: Finding) -> str:
    return (f'<div>{badge(finding.rule, TONES[finding.severity])} <code>{esc(finding.path)}</code> '
            f"{esc(finding.message)}</div>")


def flow_html(contract: LoopContract) -> str:
    """The flow of one run as inline SVG, at its own size even where that is wider than the tables (shrunk only
    to fit the window), so its text stays as legible as theirs."""
    return ('<details open class="alp-flow" style="width:max-content;max-width:calc(100vw - 4em)">'
            "<summary>one run, step by step</summary><style>.alp-flow svg{max-width:100%;height:auto}</style>"
            f"{contract_flow(contract).to_svg()}</details>")


def extension_lines(contract: LoopContract) -> list[str]:
    """What the extension holds, and what it means for the contract, one fact a line; none for a public contract."""
    extension = contract.x_alp_nb
    if extension is None:
        return []
    dropped = ", ".join(path for path, _ in contract.to_public()[1])
    lines = [f"uses alp_nb's extension ({EXTENSION_KEY}): it validates against the schema alp_nb ships "
             f"({EXTENDED_SCHEMA_ID}), not the public one; an export to the public schema drops {dropped}"]
    if extension.owner is not None:
        lines.append(f"owner: {extension.owner}")
    if extension.review is not None:
        review = extension.review
        due = review.due.isoformat() if review.due is not None else f"never (after {date.max.isoformat()})"
        lines.append(f"review: every {review.every_days} days; last {review.last_reviewed.isoformat()}, next due {due}")
    if extension.budget is not None:
        lines.append("budget of one firing: " + firing_budget_text(contract))
    return lines


def loop_contract_fragment(contract: LoopContract, findings: Sequence[Finding], *, flow: bool = False) -> str:
    """The contract's parts by phase, each row with the findings about that part, and with ``flow`` the flow of
    one run above them; no style block."""
    counts = _tally(findings)
    summary = " ".join(badge(_counted(count, severity), TONES[severity]) for severity, count in counts.items() if count)
    beside: dict[str, list[str]] = {}
    for finding in findings:
        beside.setdefault(finding.part, []).append(_finding_line_html(finding))
    header = (f"<div><b>Loop contract</b> <code>{esc(contract.name)}</code> "
              f"{summary or badge('lint clean', 'ok')}</div>"
              + "".join(beside.get("name", ())) + "".join(beside.get("$", ())))
    sections = []
    for phase, parts in contract.phases().items():
        rows = [(f"<b>{esc(part)}</b>", _value_html(value), "".join(beside.get(part, ())))
                for part, value in parts.items()]
        sections.append(f"<h4 style=\"margin:8px 0 2px\">{esc(phase)}</h4>" + table(("part", "value", "lint"), rows))
    facts = extension_lines(contract)
    if facts:
        sections.append(f'<h4 style="margin:8px 0 2px">{badge("extension", "info")} alp_nb\'s extension, beyond the '
                        f"public schema</h4>" + "".join(f"<div>{esc(fact)}</div>" for fact in facts)
                        + "".join(beside.get(EXTENSION_KEY, ())))
    return header + (flow_html(contract) if flow else "") + "".join(sections)


def loop_contract_html(contract: LoopContract, findings: Sequence[Finding] | None = None) -> str:
    """The flow of one run, then the contract by phase with its findings (by default, the contract's own lint)
    beside each part."""
    return block(loop_contract_fragment(contract, _linted(contract, findings), flow=True))


def findings_fragment(findings: Sequence[Finding]) -> str:
    if not findings:
        return f"<div>{badge('no findings', 'ok')}</div>"
    rows = [(badge(finding.severity, TONES[finding.severity]), f"<code>{esc(finding.rule)}</code>",
             f"<code>{esc(finding.path)}</code>", esc(finding.message),
             f'<span class="muted">{esc(finding.hint)}{_looked_for_html(finding)}</span>')
            for finding in findings]
    return f"<div>{esc(_tally_text(findings))}</div>" + table(("severity", "rule", "path", "message", "hint"), rows)


def _looked_for_html(finding: Finding) -> str:
    return f"<br>looked for: {esc(finding.looked_for)}" if finding.looked_for else ""


def findings_html(findings: Sequence[Finding]) -> str:
    return block(findings_fragment(findings))


# --- plain text -----------------------------------------------------------------------------------


def _value_lines(value: Any) -> list[str]:
    if isinstance(value, BaseModel):
        if isinstance(value, AgentRole):
            return [f"{value.role}: {value.responsibility}"]
        lines = []
        for key in type(value).model_fields:
            item = getattr(value, key)
            if isinstance(item, tuple):
                lines += [f"{key}:", *("  " + line for line in _value_lines(item))]
            else:
                lines.append(f"{key}: {item}")
        return lines
    if isinstance(value, tuple):
        return [f"- {_value_lines(item)[0]}" for item in value] or ["(none)"]
    return [str(value)]


def _finding_line(finding: Finding) -> str:
    return f"[{finding.severity} {finding.rule}] {finding.path}: {finding.message}"


def loop_contract_text(contract: LoopContract, findings: Sequence[Finding] | None = None) -> str:
    findings = _linted(contract, findings)
    lines = [f"Loop contract: {contract.name}  ({_tally_text(findings)})"]
    lines += [f"  ! {_finding_line(finding)}" for finding in findings if finding.part in ("name", "$")]
    for phase, parts in contract.phases().items():
        lines.append(phase)
        for part, value in parts.items():
            values = _value_lines(value)
            lines.append(f"  {part:<13}{values[0]}")
            lines += [f"  {'':<13}{line}" for line in values[1:]]
            lines += [f"  {'':<13}! {_finding_line(finding)}" for finding in findings if finding.part == part]
    facts = extension_lines(contract)
    if facts:
        lines += ["alp_nb extension", *(f"  {fact}" for fact in facts)]
        lines += [f"  ! {_finding_line(finding)}" for finding in findings if finding.part == EXTENSION_KEY]
    return "\n".join(lines)


def findings_text(findings: Sequence[Finding]) -> str:
    if not findings:
        return "no findings"
    lines = [f"{_finding_line(finding)}\n    fix: {finding.hint}"
             + (f"\n    looked for: {finding.looked_for}" if finding.looked_for else "") for finding in findings]
    return "\n".join([_tally_text(findings), *lines])
