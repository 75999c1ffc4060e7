"""Modes: which model and reasoning effort each role runs with.

A definition's own ``model`` and ``reasoning_effort`` are only the fallback
for roles that have no seat in a mode's loadout (custom agents). The mode
never enters the definition hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from .errors import AgentError
from .runtimes import runtime_for_model

if TYPE_CHECKING:
    from .definition import AgentDefinition

MODE_IDS: tuple[str, ...] = ("low", "medium", "high", "ultra", "puck")
DEFAULT_MODE = "medium"


class Seat(NamedTuple):
    """One role's model and reasoning effort in one mode."""

    model: str
    reasoning_effort: str


FIXED_ROLES: Mapping[str, Seat] = MappingProxyType({
    "main": Seat("claude-opus-5", "high"),
    "search": Seat("gpt-5.6-terra", "low"),
    "librarian": Seat("gpt-5.6-sol", "high"),
    "read-thread": Seat("claude-haiku-4-5", "low"),
    "review": Seat("claude-opus-5", "high"),
    "compaction": Seat("claude-opus-5", "medium"),
    "titling": Seat("claude-haiku-4-5", "low"),
})

_DIAL: Mapping[str, tuple[Seat, Seat]] = {  # mode -> (worker, oracle)
    "low": (Seat("claude-sonnet-5", "high"), Seat("gpt-5.6-sol", "high")),
    "medium": (Seat("gpt-5.6-sol", "high"), Seat("claude-opus-5", "high")),
    "high": (Seat("claude-opus-5", "high"), Seat("gpt-5.6-sol", "xhigh")),
    "ultra": (Seat("claude-opus-5", "high"), Seat("gpt-6-astra", "high")),
}

_PUCK: Mapping[str, Seat] = {
    "main": Seat("gpt-5.6-sol", "xhigh"),
    "worker": Seat("gpt-5.6-sol", "xhigh"),
    "oracle": Seat("gpt-5.6-sol", "xhigh"),
    "search": Seat("gpt-5.6-terra", "low"),
    "librarian": Seat("gpt-5.6-sol", "high"),
    "read-thread": Seat("gpt-5.6-luna", "low"),
    "review": Seat("gpt-5.6-terra", "medium"),
    "compaction": Seat("gpt-5.6-sol", "medium"),
    "titling": Seat("gpt-5.6-luna", "low"),
}

MODE_PROFILES: Mapping[str, Mapping[str, Seat]] = MappingProxyType({
    **{
        mode: MappingProxyType({**FIXED_ROLES, "worker": worker, "oracle": oracle})
        for mode, (worker, oracle) in _DIAL.items()
    },
    "puck": MappingProxyType(dict(_PUCK)),
})


def parse_mode(value: object) -> str:
    """Return ``value`` if it names a mode, else refuse it with ALP's message."""
    if value in MODE_IDS:
        return value
    raise AgentError(
        "INVALID_MODE", f"mode must be one of {', '.join(MODE_IDS)}, received `{value}`"
    )


def home_runtime_for_mode(mode: str, profiles: Mapping[str, Mapping[str, Seat]] = MODE_PROFILES) -> str:
    """The runtime of the worker's seat: where roles without a seat of their own run."""
    return runtime_for_model(profiles[parse_mode(mode)]["worker"].model)


def seat_for_mode(
    definition: AgentDefinition,
    mode: str = DEFAULT_MODE,
    profiles: Mapping[str, Mapping[str, Seat]] = MODE_PROFILES,
) -> Seat:
    """The role's seat in ``mode``, or its own model and effort on the mode's home runtime."""
    seat = profiles[parse_mode(mode)].get(definition.id)
    if seat is not None:
        return seat
    home = home_runtime_for_mode(mode, profiles)
    return Seat(getattr(definition.model, home), getattr(definition.reasoning_effort, home))


def model_for_mode(
    definition: AgentDefinition,
    mode: str = DEFAULT_MODE,
    profiles: Mapping[str, Mapping[str, Seat]] = MODE_PROFILES,
) -> str:
    """The model that actually runs ``definition`` in ``mode``."""
    return seat_for_mode(definition, mode, profiles).model


def runtime_for_mode(
    definition: AgentDefinition,
    mode: str = DEFAULT_MODE,
    profiles: Mapping[str, Mapping[str, Seat]] = MODE_PROFILES,
) -> str:
    """The runtime ``definition`` runs on in ``mode``: decided by the model, nothing else."""
    return runtime_for_model(model_for_mode(definition, mode, profiles))
