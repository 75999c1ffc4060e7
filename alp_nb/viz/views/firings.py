"""A simulated firing (a night) shown whole: when each item was worked and in which slot, how it ended, what the
firing made and refused across its items, its tokens and money, and each item's trace folded under it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from alp_nb.viz.html import block, esc, table
from alp_nb.viz.views.simulation import (
    md,
    outcome_badge,
    outcome_label,
    simulation_lines,
    simulation_markdown,
    trace_fragment,
)

if TYPE_CHECKING:
    from alp_nb.loops.firing import FiringSimulation

SCHEDULE_HEADERS = ("item", "slot", "minutes", "outcome", "attempts", "owner afterwards", "refused")


def _facts(night: FiringSimulation) -> list[str]:
    """What the firing did as a whole, one fact a line."""
    made = ", ".join(f"{key} ×{count}" for key, count in night.external_effects.items()) or "nothing"
    facts = [f"{len(night.runs)} item(s) run, at most {night.peak_concurrency} at once; made: {made}",
             f"refused across the items: {', '.join(night.refused) or 'nothing'}",
             f"spent: {night.tokens_used:,} tokens, ${night.cost_used:,.2f}"]
    if night.skipped:
        facts.append(f"skipped at intake (in the ledger, or delivered twice): {', '.join(night.skipped)}")
    if night.not_started:
        facts.append(f"not started, the firing's budget spent: {', '.join(night.not_started)}")
    if night.provisional:
        facts.append(f"provisional: the contract has {len(night.lint_errors)} lint error(s)")
    return facts


def _rows(night: FiringSimulation) -> list[tuple[str, str, str, str, str, str, str]]:
    slots = {slot.item: slot for slot in night.schedule}
    rows: list[tuple[str, str, str, str, str, str, str]] = []
    for run in night.runs:
        slot = slots.get(run.item or "")
        rows.append((run.item or "intake", str(slot.slot) if slot else "—",
                     f"{slot.start_minute}–{slot.end_minute}" if slot else "—", run.outcome, str(run.attempts),
                     run.owner or "the loop", ", ".join(run.refused) or "—"))
    return rows


def firing_simulation_html(night: FiringSimulation) -> str:
    rows = [(esc(item), esc(slot), esc(minutes), outcome_badge(outcome, night.provisional), esc(attempts),
             esc(owner), esc(refused)) for item, slot, minutes, outcome, attempts, owner, refused in _rows(night)]
    traces = "".join(f"<details><summary>{esc(run.scenario.name)}</summary>{trace_fragment(run)}</details>"
                     for run in night.runs)
    return block(f"<div><b>{esc(night.firing.name)}</b> on <code>{esc(night.contract_name)}</code></div>"
                 f'<div class="muted">{esc(night.firing.description)}</div>'
                 + "".join(f"<div>{esc(fact)}</div>" for fact in _facts(night))
                 + table(SCHEDULE_HEADERS, rows) + traces)


def firing_simulation_text(night: FiringSimulation) -> str:
    return "\n".join(firing_simulation_lines(night))


def firing_simulation_lines(night: FiringSimulation) -> list[str]:
    """The firing as lines of plain text: its facts, one line per item, then each item's trace."""
    lines = [f"{night.firing.name} on {night.contract_name}", *(f"  {fact}" for fact in _facts(night))]
    for item, slot, minutes, outcome, attempts, owner, refused in _rows(night):
        lines.append(f"  {item}: slot {slot}, minutes {minutes}, {outcome_label(outcome, night.provisional)} after "
                     f"{attempts} attempt(s); owner {owner}; refused {refused}")
    for run in night.runs:
        lines += ["", *simulation_lines(run)]
    return lines


def firing_simulation_markdown(night: FiringSimulation) -> str:
    header = "| " + " | ".join(SCHEDULE_HEADERS) + " |"
    rows = [f"| {md(item)} | {slot} | {minutes} | {outcome_label(outcome, night.provisional)} | {attempts} | "
            f"{md(owner)} | {md(refused)} |" for item, slot, minutes, outcome, attempts, owner, refused in _rows(night)]
    return "\n".join([f"**{md(night.firing.name)}** on {md(night.contract_name)}", "",
                      *(f"- {md(fact)}" for fact in _facts(night)), "", header,
                      "|" + "---|" * len(SCHEDULE_HEADERS), *rows,
                      *("\n" + simulation_markdown(run) for run in night.runs)])
