"""A simulated loop run shown as its trace: attempt, evidence, decision, receipt, budget left; beside it, what the
reviewer expected (``agree``, ``disagree``, ``not stated``: the simulator never grades itself), and, for a contract
with lint errors, ``provisional`` where its outcome would otherwise show in colour. Also the grades of many runs
as one table, disagreements first."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

from alp_nb.viz.html import badge, block, esc, table
from alp_nb.viz.terminal import plain

if TYPE_CHECKING:
    from alp_nb.loops.expectations import Grade, Grades
    from alp_nb.loops.simulator import Simulation, Step

OUTCOME_TONES = {
    "exit-success": "ok",
    "exit-noop": "info",
    "retry-with-new-evidence": "warn",
    "escalate": "bad",
    "stop-with-receipt": "bad",
}
VERDICT_TONES = {"agree": "ok", "disagree": "bad", "not stated": "info"}
PROVISIONAL_COLOUR = "#757575"
"""A provisional outcome is grey: a contract with lint errors shows no green (and no red) outcome."""

TRACE_HEADERS = ("attempt", "evidence", "decision", "receipt", "budget left")
GRADE_HEADERS = ("scenario", "outcome", "expected", "owner afterwards", "signed by", "verdict")


def receipt_fields(receipt: Any) -> list[tuple[str, str]]:
    """The receipt's own fields as (label, text), in the seed's order; an optional field left empty is left out."""
    return [(name.replace("_", " "), ", ".join(value) if isinstance(value, tuple) else str(value))
            for name, value in receipt if name != "outcome" and value is not None and value != ()]


def origin(simulation: Simulation) -> str:
    """Where the scenario comes from: the contract field it was derived from, or the failure injections."""
    derived = simulation.scenario.derived_from
    return f"derived from {derived}" if derived is not None else "failure injection"


def outcome_label(outcome: str, provisional: bool) -> str:
    return f"{outcome} (provisional)" if provisional else outcome


def outcome_badge(outcome: str, provisional: bool = False) -> str:
    """The outcome in its colour, or grey and marked provisional when the contract has lint errors."""
    if provisional:
        return badge(outcome_label(outcome, True), "provisional", PROVISIONAL_COLOUR)
    return badge(outcome, OUTCOME_TONES[outcome])


def verdict_text(grade: Grade | None) -> str:
    """``agree``, ``disagree: expected escalate, …`` or ``not stated``, with who signed the expectation."""
    if grade is None or grade.expectation is None:
        return "not stated"
    signed = f" (signed: {grade.expectation.signed_by})"
    return (f"disagree: {'; '.join(grade.differences)}" if grade.verdict == "disagree" else "agree") + signed


def verdict_badge(grade: Grade | None) -> str:
    """The verdict in its colour, and what differs when the reviewer disagrees."""
    verdict = "not stated" if grade is None else grade.verdict
    differences = grade.differences if grade is not None else ()
    detail = f' <span class="muted">{esc("; ".join(differences))}</span>' if differences else ""
    return badge(verdict, VERDICT_TONES[verdict]) + detail


def _attempt_label(step: Step) -> str:
    return "intake" if step.attempt == 0 else str(step.attempt)


def _budget_left(step: Step) -> str:
    retries = "1 retry" if step.retries_left == 1 else f"{step.retries_left} retries"
    return f"{retries}, {step.minutes_left} min"


def _provisional_line(simulation: Simulation) -> str:
    count = len(simulation.lint_errors)
    return (f"provisional: the contract has {count} lint error{'s' if count != 1 else ''}, so this outcome shows "
            "what a broken draft would do, not the design")


def trace_fragment(simulation: Simulation, grade: Grade | None = None) -> str:
    """The trace as an HTML fragment (no style block), for embedding in larger documents; ``grade`` is the
    reviewer's verdict on it (none given: ``not stated``)."""
    scenario = simulation.scenario
    rows = []
    for step in simulation.steps:
        evidence = esc(step.evidence.summary)
        if step.note:
            evidence += f'<br><span class="muted">{esc(step.note)}</span>'
        receipt = "<br>".join(f"<b>{esc(label)}</b>: {esc(value)}" for label, value in receipt_fields(step.receipt))
        rows.append((esc(_attempt_label(step)), evidence, outcome_badge(step.decision, simulation.provisional),
                     receipt, esc(_budget_left(step))))
    owner = f" · owner <b>{esc(simulation.owner)}</b>" if simulation.owner else ""
    provisional = (f'<div>{badge("provisional", "provisional", PROVISIONAL_COLOUR)} '
                   f"{esc(_provisional_line(simulation))}</div>" if simulation.provisional else "")
    return (f"<div><b>{esc(scenario.name)}</b> on <code>{esc(simulation.contract_name)}</code>: "
            f"{outcome_badge(simulation.outcome, simulation.provisional)}{owner} · reviewer: "
            f"{verdict_badge(grade)}</div>{provisional}"
            f'<div class="muted">{esc(origin(simulation))}: {esc(scenario.description)}</div>'
            + table(TRACE_HEADERS, rows))


def simulation_html(simulation: Simulation) -> str:
    return block(trace_fragment(simulation))


def simulation_text(simulation: Simulation) -> str:
    return "\n".join(simulation_lines(simulation))


def simulation_lines(simulation: Simulation, grade: Grade | None = None) -> list[str]:
    """The trace as lines of plain text, one value per line: a terminal printer escapes each on its own, so a
    line break inside contract text cannot forge a line."""
    scenario = simulation.scenario
    outcome = outcome_label(simulation.outcome, simulation.provisional)
    lines = [f"{scenario.name} on {simulation.contract_name}: {outcome}"
             + (f" (owner: {simulation.owner})" if simulation.owner else ""),
             f"  reviewer: {verdict_text(grade)}", f"  {origin(simulation)}: {scenario.description}"]
    if simulation.provisional:
        lines.append(f"  {_provisional_line(simulation)}")
    for step in simulation.steps:
        lines.append(f"  {_attempt_label(step):>7}  {step.decision:<24} budget left {_budget_left(step)}")
        lines.append(f"           evidence: {step.evidence.summary}")
        if step.note:
            lines.append(f"           note: {step.note}")
        lines += [f"           {label}: {value}" for label, value in receipt_fields(step.receipt)]
    return lines


def simulation_markdown(simulation: Simulation, grade: Grade | None = None) -> str:
    """The trace as a Markdown table; cell text is HTML-escaped and pipes are escaped."""
    scenario = simulation.scenario
    owner = f" — owner **{md(simulation.owner)}**" if simulation.owner else ""
    title = (f"**{md(scenario.name)}** on {md(simulation.contract_name)}: "
             f"**{outcome_label(simulation.outcome, simulation.provisional)}**{owner} — reviewer: "
             f"{md(verdict_text(grade))}")
    lines = [title, "", md(f"{origin(simulation)}: {scenario.description}"), ""]
    if simulation.provisional:
        lines += [md(_provisional_line(simulation)), ""]
    lines += ["| " + " | ".join(TRACE_HEADERS) + " |", "|" + "---|" * len(TRACE_HEADERS)]
    for step in simulation.steps:
        evidence = md(step.evidence.summary) + (f" <br>_{md(step.note)}_" if step.note else "")
        receipt = " <br>".join(f"{md(label)}: {md(value)}" for label, value in receipt_fields(step.receipt))
        lines.append(f"| {_attempt_label(step)} | {evidence} | "
                     f"{outcome_label(step.decision, simulation.provisional)} | {receipt} | {_budget_left(step)} |")
    return "\n".join(lines)


# --- grades ----------------------------------------------------------------------------------------------------


def _grade_cells(grade: Grade) -> tuple[str, str, str, str, str]:
    """(scenario, outcome, expected, owner afterwards, signed by) as plain text."""
    expected = grade.expectation
    return (grade.scenario, outcome_label(grade.outcome, grade.provisional),
            expected.outcome + (f", with {expected.owner}" if expected.owner else "") if expected else "not stated",
            grade.owner or "the loop", expected.signed_by if expected else "—")


def grades_fragment(grades: Grades) -> str:
    """The reviewer's verdict on each simulation as a table, disagreements first (as ``grade`` orders them)."""
    if not grades:
        return '<p class="muted">no simulation was graded</p>'
    rows = [(*map(esc, _grade_cells(grade)), verdict_badge(grade)) for grade in grades]
    return f"<div>{esc(grades.tally)}</div>" + table(GRADE_HEADERS, rows)


def grades_html(grades: Grades) -> str:
    return block(grades_fragment(grades))


def grades_lines(grades: Grades) -> list[str]:
    """One line per grade, disagreements first, after the tally."""
    lines = [grades.tally]
    for grade in grades:
        scenario, outcome, expected, _, _ = _grade_cells(grade)
        said = f"; {'; '.join(grade.differences)}" if grade.differences else f", expected {expected}"
        lines.append(f"  {grade.verdict:<10} {scenario}: {outcome}" + (said if grade.expectation else "")
                     + (f" (signed: {grade.expectation.signed_by})" if grade.expectation else ""))
    return lines


def grades_text(grades: Grades) -> str:
    return "\n".join(grades_lines(grades))


def grades_markdown(grades: Grades) -> str:
    header = "| " + " | ".join(GRADE_HEADERS) + " |"
    rows = [f"| {' | '.join(md(cell) for cell in _grade_cells(grade))} | {md(verdict_text(grade))} |"
            for grade in grades]
    return "\n".join([md(grades.tally), "", header, "|" + "---|" * len(GRADE_HEADERS), *rows])


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
