"""The review packet as documents to hand out before a loop is scheduled: HTML and Markdown.

``alp_nb.loops.ReviewPacket`` decides what a packet holds (the contract by
phase with the lint findings beside the parts they concern, the five field
pairs, the decision table with this contract's owner, the trace of each
scenario, and one sign-off section per reviewer); this module only draws it.
The HTML has no script and loads nothing: its CSS is inline, so it opens the
same from a mail attachment or a file share. Every string from the contract
is escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from alp_nb.loops.lint import Finding
from alp_nb.loops.loop_contract import PHASES, LoopContract
from alp_nb.loops.review_packet import DecisionRow, ReviewerSection, ReviewPacket
from alp_nb.loops.simulator import Simulation

from .html import STYLE, badge, esc, table
from .loop_contracts import TONES, findings_fragment, loop_contract_fragment
from .simulation import OUTCOME_TONES, expectation, md, simulation_markdown, trace_fragment

PACKET_STYLE = """<style>
body{margin:2em auto;max-width:64em;padding:0 1em}
.alp{max-width:none}
.alp h1{font-size:22px}.alp h2{font-size:18px;border-bottom:1px solid #ddd;margin-top:2em}.alp h3{font-size:15px}
.alp section.part{margin:0 0 1em 1em}
.alp ul{margin:2px 0;padding-left:1.4em}
.alp section.reviewer{margin:0 0 1.5em 1em}
</style>"""


# --- HTML ------------------------------------------------------------------------------------------


def _summary_html(packet: ReviewPacket) -> str:
    lint = " ".join(badge(f"{count} {severity}", TONES[severity] if count else "ok")
                    for severity, count in packet.severity_counts().items())
    total, unexpected = len(packet.simulations), len(packet.unexpected)
    runs = badge(f"{total - unexpected} of {total} injections as expected", "warn" if unexpected else "ok")
    return f"<p>lint: {lint} · simulation: {runs}</p>"


def _inline_html(value: Any) -> str:
    """A field compactly: a list as items, an agent as ``role: responsibility``."""
    if isinstance(value, BaseModel):
        return ": ".join(esc(item) for _, item in value)
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


def _decision_cells(row: DecisionRow) -> tuple[str, str, str, str, str]:
    """(outcome, condition, minimum receipt, owner afterwards, injections ending there) as plain text."""
    return (row.outcome, row.condition, ", ".join(row.minimum_receipt).replace("_", " "), row.owner,
            ", ".join(row.ending_here) or "—")


def _simulations_html(simulations: Sequence[Simulation]) -> str:
    if not simulations:
        return '<p class="muted">no simulation was run</p>'
    rows = [(esc(simulation.scenario.name), esc(simulation.scenario.expected),
             badge(simulation.outcome, OUTCOME_TONES[simulation.outcome]), esc(simulation.attempts),
             esc(simulation.owner or "—"),
             esc(", ".join(f"{key} ×{count}" for key, count in simulation.external_effects.items()) or "—"))
            for simulation in simulations]
    summary = table(("scenario", "expected", "outcome", "attempts", "owner", "external effects"), rows)
    traces = "".join(f'<section class="trace" id="trace-{index}">{trace_fragment(simulation)}</section>'
                     for index, simulation in enumerate(simulations, start=1))
    return summary + traces


def _verdict_html(simulation: Simulation) -> str:
    return badge("as expected", "ok") if simulation.as_expected else badge(expectation(simulation), "warn")


def _reviewer_html(section: ReviewerSection) -> str:
    """One reviewer's fields, the findings and derived scenarios under them, and the box to tick."""
    reviewer = section.reviewer
    fields = table(("field", "value"), [(f"<code>{esc(path)}</code>", _inline_html(value))
                                        for path, value in section.fields])
    scenarios = table(("scenario", "derived from", "outcome", "as expected"), [
        (esc(simulation.scenario.name), f"<code>{esc(simulation.scenario.derived_from)}</code>",
         badge(simulation.outcome, OUTCOME_TONES[simulation.outcome]), _verdict_html(simulation))
        for simulation in section.simulations]) if section.simulations else '<p class="muted">none</p>'
    return (f"<h3>{esc(reviewer.name)}</h3><p>{esc(reviewer.question)}</p>{fields}"
            f"<h4>Findings under these fields</h4>{findings_fragment(section.findings)}"
            f"<h4>Scenarios derived from these fields</h4>{scenarios}"
            f'<p><label><input type="checkbox" disabled> {esc(section.decision)}</label></p>')


def _sign_off_html(packet: ReviewPacket) -> str:
    return "".join(f'<section class="reviewer" id="reviewer-{index}">{_reviewer_html(section)}</section>'
                   for index, section in enumerate(packet.reviewer_sections, start=1))


_NAV = "<nav>" + " · ".join(f'<a href="#{anchor}">{title}</a>' for anchor, title in (
    ("contract", "Contract by phase"), ("findings", "Lint findings"), ("pairs", "Field pairs"),
    ("decisions", "Decision table"), ("simulations", "Failure injections"),
    ("sign-off", "Reviewer sign-off"))) + "</nav>"


def review_packet(contract: LoopContract, simulations: Iterable[Simulation] | None = None,
                  findings: Sequence[Finding] | None = None) -> str:
    """The packet as one HTML document. ``simulations`` defaults to every failure injection,
    ``findings`` to ``lint_contract(contract)``; pass ``()`` to leave either out."""
    return packet_html(ReviewPacket.build(contract, simulations, findings))


def packet_html(packet: ReviewPacket) -> str:
    """A built packet as one self-contained HTML document."""
    contract, findings = packet.contract, packet.findings
    decision = table(("outcome", "condition", "minimum receipt", "owner afterwards", "injections ending here"),
                     [(badge(cells[0], OUTCOME_TONES[cells[0]]), *map(esc, cells[1:]))
                      for cells in map(_decision_cells, packet.decisions)])
    body = (
        f"<h1>Loop contract review: {esc(contract.name)}</h1>"
        + _summary_html(packet) + _NAV
        + f'<section id="contract"><h2>Contract by phase</h2>{loop_contract_fragment(contract, findings)}</section>'
        + f'<section id="findings"><h2>Lint findings</h2>{findings_fragment(findings)}</section>'
        + f'<section id="pairs"><h2>Field pairs to review together</h2>{_pairs_html(packet)}</section>'
        + f'<section id="decisions"><h2>Decision table</h2><p>Evaluated in this order after every persisted '
          f"observation; the first that holds wins.</p>{decision}</section>"
        + f'<section id="simulations"><h2>Failure injections</h2>{_simulations_html(packet.simulations)}</section>'
        + f'<section id="sign-off"><h2>Reviewer sign-off</h2>{_sign_off_html(packet)}</section>'
    )
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
        return ": ".join(md(item) for _, item in value)
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


def review_packet_markdown(contract: LoopContract, simulations: Iterable[Simulation] | None = None,
                           findings: Sequence[Finding] | None = None) -> str:
    """The same packet as Markdown (for a pull request or an issue); contract text is made inert."""
    return packet_markdown(ReviewPacket.build(contract, simulations, findings))


def packet_markdown(packet: ReviewPacket) -> str:
    """A built packet as one Markdown document."""
    contract, findings = packet.contract, packet.findings
    lines = [f"# Loop contract review: {md(contract.name)}", "", f"**name**: {md(contract.name)}", "",
             "## Contract by phase"]
    for title, parts in PHASES:
        lines += ["", f"### {title}"]
        for part in parts:
            lines += ["", f"#### {part}", "", *_value_markdown(getattr(contract, part))]
            concern = packet.findings_about(part)
            if concern:
                lines += ["", *_findings_markdown(concern)]
    lines += ["", "## Lint findings", "", *_findings_markdown(findings), "", "## Field pairs to review together"]
    for review in packet.pairs:
        lines += ["", f"**{review.pair.name}**: {review.pair.question}", ""]
        lines += [f"- `{path}`: {_inline_markdown(value)}" for path, value in (*review.left, *review.right)]
    header = "| outcome | condition | minimum receipt | owner afterwards | injections ending here |"
    lines += ["", "## Decision table", "", header, "|---|---|---|---|---|"]
    lines += ["| " + " | ".join(md(cell) for cell in _decision_cells(row)) + " |" for row in packet.decisions]
    lines += ["", "## Failure injections"]
    for simulation in packet.simulations:
        lines += ["", simulation_markdown(simulation)]
    lines += ["", "## Reviewer sign-off"]
    for section in packet.reviewer_sections:
        lines += ["", *_reviewer_markdown(section)]
    return "\n".join(lines) + "\n"


def _reviewer_markdown(section: ReviewerSection) -> list[str]:
    """One reviewer's fields, the findings and derived scenarios under them, and the task-list line to tick."""
    reviewer = section.reviewer
    lines = [f"### {reviewer.name}", "", reviewer.question, ""]
    lines += [f"- `{path}`: {_inline_markdown(value)}" for path, value in section.fields]
    lines += ["", "**Findings under these fields**", "", *_findings_markdown(section.findings), "",
              "**Scenarios derived from these fields**", ""]
    lines += [f"- {md(simulation.scenario.name)} (`{simulation.scenario.derived_from}`): **{simulation.outcome}**, "
              + ("as expected" if simulation.as_expected else md(expectation(simulation)))
              for simulation in section.simulations] or ["None."]
    return [*lines, "", section.decision_line]
