"""The review packet as documents to hand out before a loop is scheduled: HTML and Markdown.

``alp_nb.loops.ReviewPacket`` decides what a packet holds (the flow of one run,
the contract by phase with the lint findings beside the parts they concern, its
owner and review cadence, the five field pairs, the decision table with this
contract's owner, the reviewers' expectations beside each outcome with the
disagreements first, what the receipts taught when given, the trace of each
scenario, and one sign-off section per reviewer); this module only draws it.
A contract with lint errors gets a banner, and every outcome is marked
provisional. The HTML has no script and loads nothing: its CSS is inline, so it
opens the same from a mail attachment or a file share. Every string from the
contract, the review file and the receipts is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from alp_nb.loops.lint import Finding
from alp_nb.loops.loop_contract import PHASES, LoopContract
from alp_nb.loops.review_packet import DecisionRow, ReviewerSection, ReviewPacket
from alp_nb.loops.simulator import Simulation
from alp_nb.viz.html import STYLE, badge, esc, table
from alp_nb.viz.views.contract_changes import learned_findings_fragment, learned_findings_markdown
from alp_nb.viz.views.loop_contracts import TONES, extension_lines, findings_fragment, flow_html, loop_contract_fragment
from alp_nb.viz.views.simulation import (
    PROVISIONAL_COLOUR,
    grades_fragment,
    grades_markdown,
    md,
    outcome_badge,
    outcome_label,
    simulation_markdown,
    trace_fragment,
    verdict_badge,
    verdict_text,
)

if TYPE_CHECKING:
    from alp_nb.loops.expectations import Expectations, Grade
    from alp_nb.loops.learn import LearnedFinding

PACKET_STYLE = """<style>
body{margin:2em auto;max-width:64em;padding:0 1em}
.alp{max-width:none}
.alp h1{font-size:22px}.alp h2{font-size:18px;border-bottom:1px solid #ddd;margin-top:2em}.alp h3{font-size:15px}
.alp section.part{margin:0 0 1em 1em}
.alp ul{margin:2px 0;padding-left:1.4em}
.alp section.reviewer{margin:0 0 1.5em 1em}
</style>"""


def review_packet(contract: LoopContract, simulations: Iterable[Simulation] | None = None,
                  findings: Sequence[Finding] | None = None, expectations: Expectations | None = None,
                  learned: Iterable[LearnedFinding] = (), today: date | None = None) -> str:
    """The packet as one HTML document. ``simulations`` defaults to every scenario and derived firing of the
    contract, ``findings`` to ``lint_contract(contract)``; pass ``()`` to leave either out. ``expectations`` (a
    review file) grades each simulation; ``learned`` adds what receipts taught (``learn_from_receipts``)."""
    return packet_html(ReviewPacket.build(contract, simulations, findings, expectations, learned, today))


def review_packet_markdown(contract: LoopContract, simulations: Iterable[Simulation] | None = None,
                           findings: Sequence[Finding] | None = None, expectations: Expectations | None = None,
                           learned: Iterable[LearnedFinding] = (), today: date | None = None) -> str:
    """The same packet as Markdown (for a pull request or an issue); contract text is made inert."""
    return packet_markdown(ReviewPacket.build(contract, simulations, findings, expectations, learned, today))


def _ownership_lines(packet: ReviewPacket) -> list[str]:
    """The contract's owner and review cadence (its extension), or that it has none, and whether review is due."""
    lines = extension_lines(packet.contract) or [
        "no owner and no review cadence: the public schema cannot hold them, and seed 004 asks for both (a contract "
        "is reviewed like code); alp_nb's extension does (x_alp_nb.owner, x_alp_nb.review)"]
    return lines + [f"review overdue ({finding.rule}): {finding.message}" for finding in packet.review_overdue]


def _provisional_line(packet: ReviewPacket) -> str:
    count = len(packet.findings.errors)
    return (f"this contract has {count} lint error{'s' if count != 1 else ''}: every simulated outcome below is "
            "provisional, what a broken draft would do rather than the design")


def _grades_by_scenario(packet: ReviewPacket) -> dict[str, Grade]:
    return {grade.scenario: grade for grade in packet.grades}


def _decision_cells(row: DecisionRow) -> tuple[str, str, str, str, str]:
    """(outcome, condition, minimum receipt, owner afterwards, scenarios ending there) as plain text."""
    return (row.outcome, row.condition, ", ".join(row.minimum_receipt).replace("_", " "), row.owner,
            ", ".join(row.ending_here) or "—")


# --- HTML ------------------------------------------------------------------------------------------


def _summary_html(packet: ReviewPacket) -> str:
    lint = " ".join(badge(f"{count} {severity}", TONES[severity] if count else "ok")
                    for severity, count in packet.severity_counts().items())
    verdicts = badge(packet.grades.tally, "bad" if packet.grades.disagreements else "info")
    banner = (f'<p>{badge("provisional", "provisional", PROVISIONAL_COLOUR)} {esc(_provisional_line(packet))}</p>'
              if packet.provisional else "")
    return f"<p>lint: {lint} · {len(packet.simulations)} runs simulated · reviewers: {verdicts}</p>{banner}"


def _inline_html(value: Any) -> str:
    """A field compactly: a list as items, an agent as ``role: responsibility``."""
    if isinstance(value, BaseModel):
        return ": ".join(esc(item) for _, item in value if item is not None)
    if isinstance(value, tuple):
        return "<ul>" + "".join(f"<li>{_inline_html(item)}</li>" for item in value) + "</ul>" if value else "—"
    return esc(value)


def _pairs_html(packet: ReviewPacket) -> str:
    rows = []
    for review in packet.pairs:
        sides = ["".join(f"<div><code>{esc(path)}</code> {_inline_html(value)}</div>" for path, value in side)
                 for side in (review.left, review.right)]
        rows.append((f"<b>{esc(review.pair.name)}</b><br>{esc(review.pair.question)}", *sides))
    return table(("pair and question", "one side", "other side"), rows)


def _simulations_html(packet: ReviewPacket) -> str:
    simulations, grades = packet.simulations, _grades_by_scenario(packet)
    if not simulations:
        return '<p class="muted">no simulation was run</p>'
    rows = [(esc(simulation.scenario.name), outcome_badge(simulation.outcome, simulation.provisional),
             esc(simulation.attempts), esc(simulation.owner or "—"),
             esc(", ".join(f"{key} ×{count}" for key, count in simulation.external_effects.items()) or "—"),
             verdict_badge(grades.get(simulation.scenario.name)))
            for simulation in simulations]
    summary = table(("scenario", "outcome", "attempts", "owner", "external effects", "reviewer"), rows)
    traces = "".join(f'<section class="trace" id="trace-{index}">'
                     f"{trace_fragment(simulation, grades.get(simulation.scenario.name))}</section>"
                     for index, simulation in enumerate(simulations, start=1))
    return summary + traces


def _reviewer_html(section: ReviewerSection, grades: dict[str, Grade]) -> str:
    """One reviewer's fields, the findings and derived scenarios under them, and the box to tick."""
    reviewer = section.reviewer
    fields = table(("field", "value"), [(f"<code>{esc(path)}</code>", _inline_html(value))
                                        for path, value in section.fields])
    scenarios = table(("scenario", "derived from", "outcome", "reviewer"), [
        (esc(simulation.scenario.name), f"<code>{esc(simulation.scenario.derived_from)}</code>",
         outcome_badge(simulation.outcome, simulation.provisional), verdict_badge(grades.get(simulation.scenario.name)))
        for simulation in section.simulations]) if section.simulations else '<p class="muted">none</p>'
    return (f"<h3>{esc(reviewer.name)}</h3><p>{esc(reviewer.question)}</p>{fields}"
            f"<h4>Findings under these fields</h4>{findings_fragment(section.findings)}"
            f"<h4>Scenarios derived from these fields</h4>{scenarios}"
            f'<p><label><input type="checkbox" disabled> {esc(section.decision)}</label></p>')


def _sign_off_html(packet: ReviewPacket) -> str:
    grades = _grades_by_scenario(packet)
    return "".join(f'<section class="reviewer" id="reviewer-{index}">{_reviewer_html(section, grades)}</section>'
                   for index, section in enumerate(packet.reviewer_sections, start=1))


SECTIONS = (("flow", "One run"), ("contract", "Contract by phase"), ("ownership", "Owner and review"),
            ("findings", "Lint findings"), ("pairs", "Field pairs"), ("decisions", "Decision table"),
            ("expectations", "Reviewer expectations"), ("learned", "Learned from receipts"),
            ("simulations", "Simulations"), ("sign-off", "Reviewer sign-off"))
"""The packet's sections, by anchor, in order; ``learned`` only when findings from receipts are given."""


def packet_html(packet: ReviewPacket) -> str:
    """A built packet as one self-contained HTML document."""
    contract, findings = packet.contract, packet.findings
    decision = table(("outcome", "condition", "minimum receipt", "owner afterwards", "scenarios ending here"),
                     [(outcome_badge(cells[0], packet.provisional), *map(esc, cells[1:]))
                      for cells in map(_decision_cells, packet.decisions)])
    parts = {
        "flow": flow_html(contract),
        "contract": loop_contract_fragment(contract, findings),
        "ownership": "".join(f"<p>{esc(line)}</p>" for line in _ownership_lines(packet)),
        "findings": findings_fragment(findings),
        "pairs": _pairs_html(packet),
        "decisions": "<p>Evaluated in this order after every persisted observation; the first that holds wins.</p>"
                     + decision,
        "expectations": "<p>What the reviewers expect each scenario to end in (their review file); the simulator "
                        "states no expectation of its own.</p>" + grades_fragment(packet.grades),
        "learned": learned_findings_fragment(packet.learned),
        "simulations": _simulations_html(packet),
        "sign-off": _sign_off_html(packet),
    }
    shown = [(anchor, title) for anchor, title in SECTIONS if anchor != "learned" or packet.learned]
    nav = "<nav>" + " · ".join(f'<a href="#{anchor}">{esc(title)}</a>' for anchor, title in shown) + "</nav>"
    body = (f"<h1>Loop contract review: {esc(contract.name)}</h1>" + _summary_html(packet) + nav
            + "".join(f'<section id="{anchor}"><h2>{esc(title)}</h2>{parts[anchor]}</section>'
                      for anchor, title in shown))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>Loop contract review: {esc(contract.name)}</title>{STYLE}{PACKET_STYLE}</head>"
            f'<body><div class="alp">{body}</div></body></html>\n')


# --- Markdown --------------------------------------------------------------------------------------


def _value_markdown(value: Any, indent: str = "") -> list[str]:
    if isinstance(value, BaseModel):
        lines = []
        for name, item in value:
            inner = _value_markdown(item, indent + "  ")
            if len(inner) == 1 and not isinstance(item, (BaseModel, tuple)):
                lines.append(f"{indent}- **{md(name)}**: {inner[0].strip()}")
            else:
                lines += [f"{indent}- **{md(name)}**:", *inner]
        return lines
    if isinstance(value, tuple):
        if not value:
            return [f"{indent}- _none_"]
        return [f"{indent}- {_inline_markdown(item)}" for item in value]
    return [f"{indent}{md(value)}"]


def _inline_markdown(value: Any) -> str:
    """A field on one line: list items joined by ``;``, an agent as ``role: responsibility``."""
    if isinstance(value, BaseModel):
        return ": ".join(md(item) for _, item in value if item is not None)
    if isinstance(value, tuple):
        return "; ".join(_inline_markdown(item) for item in value) or "_none_"
    return md(value)


def _findings_markdown(findings: Sequence[Any]) -> list[str]:
    if not findings:
        return ["No findings."]
    return ["| severity | rule | path | message | fix |", "|---|---|---|---|---|"] + [
        f"| {md(finding.severity)} | {md(finding.rule)} | {md(finding.path)} | {md(finding.message)} "
        f"| {md(finding.hint)}{md(f' Looked for: {finding.looked_for}.') if finding.looked_for else ''} |"
        for finding in findings]


def packet_markdown(packet: ReviewPacket) -> str:
    """A built packet as one Markdown document."""
    contract, findings, grades = packet.contract, packet.findings, _grades_by_scenario(packet)
    lines = [f"# Loop contract review: {md(contract.name)}", "", f"**name**: {md(contract.name)}", ""]
    if packet.provisional:
        lines += [f"**Provisional**: {md(_provisional_line(packet))}", ""]
    lines.append("## Contract by phase")
    for title, parts in PHASES:
        lines += ["", f"### {title}"]
        for part in parts:
            lines += ["", f"#### {part}", "", *_value_markdown(getattr(contract, part))]
            concern = packet.findings_about(part)
            if concern:
                lines += ["", *_findings_markdown(concern)]
    lines += ["", "## Owner and review", "", *(f"- {md(line)}" for line in _ownership_lines(packet))]
    lines += ["", "## Lint findings", "", *_findings_markdown(findings), "", "## Field pairs to review together"]
    for review in packet.pairs:
        lines += ["", f"**{review.pair.name}**: {review.pair.question}", ""]
        lines += [f"- `{path}`: {_inline_markdown(value)}" for path, value in (*review.left, *review.right)]
    header = "| outcome | condition | minimum receipt | owner afterwards | scenarios ending here |"
    lines += ["", "## Decision table", "", header, "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(md(cell) for cell in _decision_cells(row)) + " |" for row in packet.decisions]
    lines += ["", "## Reviewer expectations", "", grades_markdown(packet.grades)]
    if packet.learned:
        lines += ["", "## Learned from receipts", "", learned_findings_markdown(packet.learned)]
    lines += ["", "## Simulations"]
    for simulation in packet.simulations:
        lines += ["", simulation_markdown(simulation, grades.get(simulation.scenario.name))]
    lines += ["", "## Reviewer sign-off"]
    for section in packet.reviewer_sections:
        lines += ["", *_reviewer_markdown(section, grades)]
    return "\n".join(lines) + "\n"


def _reviewer_markdown(section: ReviewerSection, grades: dict[str, Grade]) -> list[str]:
    """One reviewer's fields, the findings and derived scenarios under them, and the task-list line to tick."""
    reviewer = section.reviewer
    lines = [f"### {reviewer.name}", "", reviewer.question, ""]
    lines += [f"- `{path}`: {_inline_markdown(value)}" for path, value in section.fields]
    lines += ["", "**Findings under these fields**", "", *_findings_markdown(section.findings), "",
              "**Scenarios derived from these fields**", ""]
    lines += [f"- {md(simulation.scenario.name)} (`{simulation.scenario.derived_from}`): "
              f"**{outcome_label(simulation.outcome, simulation.provisional)}**, reviewer: "
              + md(verdict_text(grades.get(simulation.scenario.name)))
              for simulation in section.simulations] or ["None."]
    return [*lines, "", section.decision_line]
