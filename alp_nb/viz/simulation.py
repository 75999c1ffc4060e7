"""A simulated loop run shown as its trace: attempt, evidence, decision, receipt, budget left."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

from .html import badge, block, esc, table
from .terminal import plain

if TYPE_CHECKING:
    from alp_nb.loops.simulator import Simulation, Step

OUTCOME_TONES = {
    "exit-success": "ok",
    "exit-noop": "info",
    "retry-with-new-evidence": "warn",
    "escalate": "bad",
    "stop-with-receipt": "bad",
}

TRACE_HEADERS = ("attempt", "evidence", "decision", "receipt", "budget left")


def receipt_fields(receipt: Any) -> list[tuple[str, str]]:
    """The receipt's own fields as (label, text), in the seed's order; an optional field left empty is left out."""
    return [(name.replace("_", " "), ", ".join(value) if isinstance(value, tuple) else str(value))
            for name, value in receipt if name != "outcome" and value is not None and value != ()]


def expectation(simulation: Simulation) -> str:
    """What the scenario expects: its outcome, and the refusal its last receipt must name."""
    scenario = simulation.scenario
    refusal = f", refusing `{scenario.must_refuse}`" if scenario.must_refuse is not None else ""
    return f"expected {scenario.expected}{refusal}"


def origin(simulation: Simulation) -> str:
    """Where the scenario comes from: the contract field it was derived from, or the failure injections."""
    derived = simulation.scenario.derived_from
    return f"derived from {derived}" if derived is not None else "failure injection"


def _attempt_label(step: Step) -> str:
    return "intake" if step.attempt == 0 else str(step.attempt)


def _budget_left(step: Step) -> str:
    retries = "1 retry" if step.retries_left == 1 else f"{step.retries_left} retries"
    return f"{retries}, {step.minutes_left} min"


def trace_fragment(simulation: Simulation) -> str:
    """The trace as an HTML fragment (no style block), for embedding in larger documents."""
    scenario = simulation.scenario
    rows = []
    for step in simulation.steps:
        evidence = esc(step.evidence.summary)
        if step.note:
            evidence += f'<br><span class="muted">{esc(step.note)}</span>'
        receipt = "<br>".join(f"<b>{esc(label)}</b>: {esc(value)}" for label, value in receipt_fields(step.receipt))
        rows.append((esc(_attempt_label(step)), evidence, badge(step.decision, OUTCOME_TONES[step.decision]),
                     receipt, esc(_budget_left(step))))
    verdict = badge("as expected", "ok") if simulation.as_expected else badge(expectation(simulation), "warn")
    owner = f" · owner <b>{esc(simulation.owner)}</b>" if simulation.owner else ""
    return (f"<div><b>{esc(scenario.name)}</b> on <code>{esc(simulation.contract_name)}</code>: "
            f"{badge(simulation.outcome, OUTCOME_TONES[simulation.outcome])} {verdict}{owner}</div>"
            f'<div class="muted">{esc(origin(simulation))}: {esc(scenario.description)}</div>'
            + table(TRACE_HEADERS, rows))


def simulation_html(simulation: Simulation) -> str:
    return block(trace_fragment(simulation))


def simulation_text(simulation: Simulation) -> str:
    return "\n".join(simulation_lines(simulation))


def simulation_lines(simulation: Simulation) -> list[str]:
    """The trace as lines of plain text, one value per line: a terminal printer escapes each on its own, so a
    line break inside contract text cannot forge a line."""
    scenario = simulation.scenario
    lines = [f"{scenario.name} on {simulation.contract_name}: {simulation.outcome}"
             + (f" (owner: {simulation.owner})" if simulation.owner else "")
             + ("" if simulation.as_expected else f"  [{expectation(simulation)}]"),
             f"  {origin(simulation)}: {scenario.description}"]
    for step in simulation.steps:
        lines.append(f"  {_attempt_label(step):>7}  {step.decision:<24} budget left {_budget_left(step)}")
        lines.append(f"           evidence: {step.evidence.summary}")
        if step.note:
            lines.append(f"           note: {step.note}")
        lines += [f"           {label}: {value}" for label, value in receipt_fields(step.receipt)]
    return lines


def simulation_markdown(simulation: Simulation) -> str:
    """The trace as a Markdown table; cell text is HTML-escaped and pipes are escaped."""
    scenario = simulation.scenario
    owner = f" — owner **{md(simulation.owner)}**" if simulation.owner else ""
    title = (f"**{md(scenario.name)}** on {md(simulation.contract_name)}: **{simulation.outcome}** "
             f"({md(expectation(simulation))}){owner}")
    lines = [title, "", md(f"{origin(simulation)}: {scenario.description}"), "",
             "| " + " | ".join(TRACE_HEADERS) + " |", "|" + "---|" * len(TRACE_HEADERS)]
    for step in simulation.steps:
        evidence = md(step.evidence.summary) + (f" <br>_{md(step.note)}_" if step.note else "")
        receipt = " <br>".join(f"{md(label)}: {md(value)}" for label, value in receipt_fields(step.receipt))
        lines.append(f"| {_attempt_label(step)} | {evidence} | {step.decision} | {receipt} | {_budget_left(step)} |")
    return "\n".join(lines)


_LINE_END = re.compile(r"\r\n|\r|\n")
_INLINE_MARK = re.compile(r"([\\`*_\[\]|~#])")
_LEADING_BULLET = re.compile(r"^([-+=])")
_LEADING_NUMBER = re.compile(r"^(\d{1,9})([.)])")


def md(value: object) -> str:
    """Untrusted text made inert for Markdown, on one line wherever it lands (a line start, a list item,
    a table cell): no raw HTML, no line break of any kind, no emphasis, code, link, table pipe,
    strikethrough or fence, and no heading, list, quote, setext or thematic-break marker at its start."""
    text = html.escape(plain(value), quote=False)  # also turns a quote's `>` into `&gt;`
    text = _LINE_END.sub(" ", text).strip(" \t")  # CommonMark ends lines at CR too; indentation would be code
    text = _INLINE_MARK.sub(r"\\\1", text)
    text = _LEADING_BULLET.sub(r"\\\1", text)
    return _LEADING_NUMBER.sub(r"\1\\\2", text)
