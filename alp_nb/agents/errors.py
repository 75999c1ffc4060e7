"""The agents layer's exceptions: one base class, each error with a stable code."""

from __future__ import annotations


class AgentError(Exception):
    """An error of the agents layer; ``code`` is stable, the message is ALP's text."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self):
        return (type(self), (self.code, self.message))


class AgentRegistryError(AgentError):
    """A definition or relation the registry refuses (ALP's ``AgentRegistryError``)."""
