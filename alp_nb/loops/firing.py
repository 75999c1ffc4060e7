"""A whole firing of the trigger (a night, for a nightly loop), simulated: several items, their attempts, and the
caps and budget they share.

A team's rules are a night's as much as an item's: "at most 3 pull requests a night" counts across every item of
the night, a token budget across every attempt of every item, and concurrency caps how many items are worked at
once. ``simulate_firing`` runs each item through the same ``ItemRun`` as ``simulate``, on one clock: items start
in intake order as a slot frees (``x_alp_nb.budget.max_concurrency`` slots, one without it), and their attempts
are played in time order, so the effect that passes a cap is the one that comes last in time. Once the firing's
tokens or money are spent, no further item starts. A firing delivers at most ``SIMULATED_ITEMS_LIMIT`` items, and
each item's run stops at ``SIMULATED_ATTEMPTS_LIMIT`` attempts, saying so, so a night costs what the simulator
plays, whatever the contract allows.
"""

from __future__ import annotations

import heapq
from collections import deque
from datetime import datetime
from types import MappingProxyType
from typing import Annotated

from pydantic import Field

from alp_nb.base.frozen_model import FrozenMapping

from .decision import LoopModel, Outcome
from .errors import LoopContractError
from .injections import firings_for
from .lint import Findings
from .loop_contract import LoopContract
from .scenario import Firing, FiringItem, Scenario
from .simulator import SIMULATION_START, ItemRun, Outside, Simulation, lint_errors_for


class Slot(LoopModel):
    """When one item was worked, and in which of the firing's slots (numbered from 1)."""

    item: str
    slot: Annotated[int, Field(ge=1)]
    start_minute: Annotated[int, Field(ge=0)]
    end_minute: Annotated[int, Field(ge=0)]


class FiringSimulation(LoopModel):
    """A finished firing: each item's run, in intake order, and what the firing as a whole did.

    ``skipped`` were delivered but already in the ledger or delivered twice; ``not_started`` were still waiting when
    the firing's budget ran out. ``external_effects`` and ``refused`` are the whole firing's, across its items.
    """

    contract_name: str
    firing: Firing
    runs: tuple[Simulation, ...]
    schedule: tuple[Slot, ...] = ()
    skipped: tuple[str, ...] = ()
    not_started: tuple[str, ...] = ()
    external_effects: FrozenMapping[int] = Field(default_factory=lambda: MappingProxyType({}))
    refused: tuple[str, ...] = ()
    tokens_used: Annotated[int, Field(ge=0)] = 0
    cost_used: Annotated[float, Field(ge=0)] = 0.0
    lint_errors: tuple[str, ...] = ()

    @property
    def provisional(self) -> bool:
        return bool(self.lint_errors)

    @property
    def outcomes(self) -> dict[str, Outcome]:
        """Each item's outcome, by the name of its run (``<firing>/<item>``)."""
        return {run.scenario.name: run.outcome for run in self.runs}

    @property
    def peak_concurrency(self) -> int:
        """The most items worked at the same minute, an item from its start up to its end; counted in one pass over
        the starts and ends in time order, so a firing of many items costs no more than sorting them."""
        changes = sorted((minute, change) for slot in self.schedule
                         for minute, change in ((slot.start_minute, 1), (slot.end_minute, -1)))
        peak = working = 0
        for _, change in changes:  # in one minute the items that end leave before those that start come
            working += change
            peak = max(peak, working)
        return peak

    def run(self, item: str) -> Simulation:
        """The run of ``item``; ``UNKNOWN_SCENARIO`` when the firing ran no such item."""
        for run in self.runs:
            if run.scenario.name == f"{self.firing.name}/{item}":
                return run
        raise LoopContractError("UNKNOWN_SCENARIO", f"firing `{self.firing.name}` ran no item `{item}`; ran: "
                                + ", ".join(run.scenario.name for run in self.runs))


def simulate_firing(contract: LoopContract, firing: Firing | str, start: datetime = SIMULATION_START, *,
                    allow_lint_errors: bool = False, findings: Findings | None = None) -> FiringSimulation:
    """Run every item ``firing`` delivers against ``contract``, sharing its caps and its firing budget: a
    ``Firing``, or the name of one of ``firings_for(contract)``. A contract with lint errors is refused unless
    ``allow_lint_errors``; its outcomes are then marked provisional. ``findings``: the contract's lint today, when
    the caller has it."""
    lint_errors = lint_errors_for(contract, allow_lint_errors, findings)
    firing = _firing(contract, firing)
    outside = Outside(contract, start, lint_errors)
    seen, qualifying, skipped = set(firing.ledger), list[FiringItem](), list[FiringItem]()
    for entry in firing.items:
        (skipped if entry.item in seen else qualifying).append(entry)
        seen.add(entry.item)
    skipped_items = tuple(entry.item for entry in skipped)
    if not qualifying:
        intake = Scenario(name=f"{firing.name}/intake", description=firing.description,
                          delivered=tuple(entry.item for entry in firing.items), ledger=firing.ledger,
                          derived_from=firing.derived_from)
        return FiringSimulation(contract_name=contract.name, firing=firing, skipped=skipped_items,
                                runs=(outside.intake_found_nothing(intake, skipped_items),), lint_errors=lint_errors)
    runs, schedule, waiting = _play(outside, firing, qualifying)
    return FiringSimulation(
        contract_name=contract.name, firing=firing, runs=runs, schedule=schedule,
        skipped=skipped_items, not_started=tuple(entry.item for entry in waiting),
        external_effects=dict(outside.world), refused=tuple(outside.refused), tokens_used=outside.tokens,
        cost_used=outside.cost, lint_errors=lint_errors)


class _SlotPool:
    """A firing's concurrency slots, the lowest free one taken first. A slot is made the first time it is taken, so
    the firing holds as many as it ever worked at once, not the ``max_concurrency`` it may use."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.made = 0
        self.returned: list[int] = []  # a heap of the slots given back, each lower than any not yet made

    @property
    def free(self) -> bool:
        return bool(self.returned) or self.made < self.cap

    def take(self) -> int:
        if self.returned:
            return heapq.heappop(self.returned)
        self.made += 1
        return self.made

    def give_back(self, slot: int) -> None:
        heapq.heappush(self.returned, slot)


def _play(outside: Outside, firing: Firing, qualifying: list[FiringItem]
          ) -> tuple[tuple[Simulation, ...], tuple[Slot, ...], deque[FiringItem]]:
    """Every qualifying item's run on one clock: the runs in intake order, when each was worked, and the items
    still waiting when the firing's budget ran out."""
    extension = outside.contract.x_alp_nb
    budget = extension.budget if extension is not None else None
    slots = _SlotPool((budget.max_concurrency if budget is not None else None) or 1)
    waiting = deque(qualifying)
    active: list[tuple[int, int, int, ItemRun]] = []  # (next minute, intake order, slot, run): the earliest first
    finished: dict[int, tuple[Simulation, Slot]] = {}
    order = iter(range(len(qualifying)))

    def start_waiting(minute: int) -> None:
        while waiting and slots.free and not outside.spent:
            entry, slot = waiting.popleft(), slots.take()
            run = ItemRun(outside, _item_scenario(firing, entry), entry.item, start_minute=minute)
            heapq.heappush(active, (minute, next(order), slot, run))

    start_waiting(0)
    while active:
        _, number, slot, run = heapq.heappop(active)
        if run.advance():
            heapq.heappush(active, (run.minute, number, slot, run))
            continue
        finished[number] = (run.finish(), Slot(item=run.item, slot=slot, start_minute=run.start_minute,
                                               end_minute=run.minute))
        slots.give_back(slot)
        start_waiting(run.minute)
    done = [finished[number] for number in sorted(finished)]
    return tuple(run for run, _ in done), tuple(slot for _, slot in done), waiting


def _item_scenario(firing: Firing, entry: FiringItem) -> Scenario:
    return Scenario(name=f"{firing.name}/{entry.item}", description=firing.description, delivered=(entry.item,),
                    attempts=entry.attempts, input_version=entry.input_version, owner_answer=entry.owner_answer,
                    derived_from=firing.derived_from)


def _firing(contract: LoopContract, firing: Firing | str) -> Firing:
    if isinstance(firing, Firing):
        return firing
    known = {each.name: each for each in firings_for(contract)}
    if not isinstance(firing, str) or firing not in known:
        raise LoopContractError("UNKNOWN_SCENARIO", f"unknown firing `{firing}`; a Firing, or one derived from the "
                                f"contract: {', '.join(known) or 'none (it writes no cap)'}")
    return known[firing]
