"""The agents layer's exceptions: one base class, each error with a stable code."""

from __future__ import annotations

from alp_nb.coded_error import CodedError


class AgentError(CodedError):
    """An error of the agents layer; ``code`` is stable, the message is ALP's text."""


class AgentRegistryError(AgentError):
    """A definition or relation the registry refuses (ALP's ``AgentRegistryError``)."""
