"""A loop contract as the flow one run of it takes: trigger → intake → attempt → verify → decide → the five
outcomes, the retry leading back to the attempt, each box in the contract's own words.

A contract is twelve parts of prose; a reviewer has to see that they make one loop: what starts a run, what it
picks, what it may do, what proves it, what it may spend, and who holds the item when it ends. So each step shows
its part shortened (the contract view beside it keeps the whole text), the budget sits between the attempt and
the decision it bounds (the firing's too, when the contract's extension writes one), and the two outcomes that
hand the item over lead to its owner, the escalation destination, as in the review packet's decision table. A
contract with lint errors draws its success as provisional, not green.

Prose is cut at its clauses, one a line, never mid-phrase, so the text form (which joins a box's lines with
``;``) reads as the contract does; the SVG shortens a long line further, with an ellipsis.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from alp_nb.loops.decision import OUTCOMES, Outcome
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.loop_contract import LoopContract
from alp_nb.loops.review_packet import outcome_owner
from alp_nb.viz.models.diagram import Diagram, Edge, Node, diagram
from alp_nb.viz.pictures.diagram_picture import DiagramPicture

LINE_CHARS = 80
"""The most of one clause a line keeps (the SVG shows fewer; the text and Mermaid forms all of these)."""
ITEMS_SHOWN = 3
"""Lines of a list (allowed actions, gates, clauses) a box shows before ``+N more``."""
HANDED_OVER: tuple[Outcome, ...] = ("escalate", "stop-with-receipt")
"""The outcomes after which the item belongs to someone else: ``outcome_owner`` names them."""

STYLES: dict[Outcome, str] = {"exit-success": "success", "exit-noop": "outcome", "escalate": "failure",
                              "stop-with-receipt": "failure", "retry-with-new-evidence": "outcome"}
"""The node style of each outcome: done, nothing to do, handed to a person, or tried again."""
LEGEND = (("step", "a step of every run"), ("note", "budget and owner"), ("success", "done"),
          ("outcome", "nothing to do, or try again"), ("failure", "handed over"))
SHORT_NAMES: dict[Outcome, str] = {"exit-success": "success", "exit-noop": "noop", "escalate": "escalate",
                                   "stop-with-receipt": "stop", "retry-with-new-evidence": "retry"}
"""How the decision lists the outcomes, numbered as the arrows to their boxes are."""
_CLAUSE_END = re.compile(r"(?<=[.;!?])\s+")


def contract_flow(contract: LoopContract) -> DiagramPicture:
    """The flow of one run of ``contract``, as a picture (SVG, Mermaid, matplotlib, text).

    >>> from alp_nb.loops import LoopContract
    >>> flow = contract_flow(LoopContract.template("nightly-flaky-tests"))
    >>> flow.to_text().splitlines()[0]
    'One run of nightly-flaky-tests'
    """
    return DiagramPicture(flow_diagram(contract))


def flow_diagram(contract: LoopContract) -> Diagram:
    """The flow's model: a node per step, the budget, each outcome and the owner it hands over to, in the
    contract's shortened words."""
    trigger, budget = contract.trigger, contract.budget
    retries = _counted(budget.max_retries, "retry", "retries")
    firing = firing_budget_text(contract)
    steps = [
        Node("trigger", f"Trigger: {trigger.type}", clauses(trigger.cadence_or_event), "step"),
        Node("intake", "Intake", clauses(contract.intake.selection_rule), "step"),
        Node("attempt", "Attempt", listed(contract.workspace.allowed_actions, "may ") or ("no action allowed",),
             "step"),
        Node("verify", "Verify", listed(contract.verification.gates), "step"),
        Node("budget", "Budget", (f"at most {retries}",
                                  f"{_counted(budget.max_runtime_minutes, 'minute', 'minutes')} of runtime a run",
                                  *((line(f"a firing: {firing}"),) if firing else ())),
             "note"),
        Node("decide", "Decide: the first that holds",
             tuple(f"{number} {SHORT_NAMES[outcome]}: {_condition(contract, outcome, retries)}"
                   for number, outcome in enumerate(OUTCOMES, 1)), "step"),
    ]
    errors = len(lint_contract(contract).errors)
    outcomes = [Node(outcome, outcome, (_owner_line(contract, outcome),), STYLES[outcome]) for outcome in OUTCOMES]
    if errors:  # a draft with lint errors shows no green success, here either
        outcomes[0] = Node("exit-success", "exit-success", (_owner_line(contract, "exit-success"),
                                                            f"provisional: {errors} lint error(s)"), "outcome")
    owners = {outcome_owner(outcome, contract) for outcome in HANDED_OVER}
    owner_ids = {owner: f"owner-{index}" for index, owner in enumerate(sorted(owners))}
    hand_over = [Node(owner_id, "Handed to", (line(owner), *listed(contract.escalation.conditions, "when ")), "note")
                 for owner, owner_id in owner_ids.items()]
    edges = [
        Edge("trigger", "intake"), Edge("intake", "attempt", "an item"), Edge("attempt", "verify"),
        Edge("attempt", "budget", "spends", "dashed"), Edge("verify", "decide", "evidence"),
        Edge("budget", "decide", "what is left", "dashed"),
        *(Edge("decide", outcome, str(number)) for number, outcome in enumerate(OUTCOMES, 1)),
        *(Edge(outcome, owner_ids[outcome_owner(outcome, contract)]) for outcome in HANDED_OVER),
        Edge("retry-with-new-evidence", "attempt", "try again", "dashed"),
    ]
    return diagram(f"One run of {line(contract.name)}", [*steps, *outcomes, *hand_over], edges, legend=LEGEND)


def firing_budget_text(contract: LoopContract) -> str:
    """The extension's firing budget in words: ``200,000 tokens, 2 items at once``; empty when none."""
    budget = contract.x_alp_nb.budget if contract.x_alp_nb is not None else None
    if budget is None:
        return ""
    parts = [f"{budget.max_tokens:,} tokens" if budget.max_tokens is not None else "",
             f"${budget.max_cost_usd:,.2f}" if budget.max_cost_usd is not None else "",
             f"{budget.max_concurrency} item(s) at once" if budget.max_concurrency is not None else "",
             f"stop when one failure is seen {budget.repeated_evidence_stop} times"
             if budget.repeated_evidence_stop is not None else ""]
    return ", ".join(part for part in parts if part)


def _condition(contract: LoopContract, outcome: Outcome, retries: str) -> str:
    """When ``outcome`` is decided, in the contract's words where it has some."""
    if outcome == "exit-success":
        return line(contract.exit.success)
    if outcome == "exit-noop":
        return "intake finds no qualifying item"
    if outcome == "escalate":
        return "one of the conditions below"
    if outcome == "stop-with-receipt":
        return line(contract.exit.stop_without_success)
    return f"a new failure, within {retries}"


def _owner_line(contract: LoopContract, outcome: Outcome) -> str:
    return "to the owner below" if outcome in HANDED_OVER else outcome_owner(outcome, contract)


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def line(text: str) -> str:
    """``text`` on one line of at most ``LINE_CHARS`` characters, an ellipsis where it was cut; only its start is
    read, so a huge text costs no more than a short one."""
    words = " ".join(text[: LINE_CHARS * 4].split())
    return words if len(words) <= LINE_CHARS else words[: LINE_CHARS - 1] + "…"


def clauses(text: str) -> tuple[str, ...]:
    """Prose one clause a line (cut after ``.``, ``;``, ``!`` or ``?``; a ``;`` ending a line is dropped, since
    the text form puts its own between lines), at most ``ITEMS_SHOWN`` lines."""
    return listed([clause.removesuffix(";") for clause in _CLAUSE_END.split(text.strip())]) or ("",)


def listed(items: Sequence[str], prefix: str = "") -> tuple[str, ...]:
    """One line per item (the first ``ITEMS_SHOWN``), then how many more there are."""
    lines = [line(prefix + item) for item in items[:ITEMS_SHOWN]]
    if len(items) > ITEMS_SHOWN:
        lines.append(f"+{len(items) - ITEMS_SHOWN} more")
    return tuple(lines)
