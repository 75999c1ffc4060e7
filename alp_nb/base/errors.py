"""The root of every error alp_nb raises on purpose: a stable ``code`` beside the message.

Each layer derives its own class from ``AlpError`` and publishes the codes it
raises as a constant, so a program can branch on ``code`` and a person can look
every code up in one place (README "Error codes").
"""

from __future__ import annotations

from typing import ClassVar

BASE_ERROR_CODES: tuple[str, ...] = ("REFUSED_FILE", "INVALID_JSON")
"""The codes of the base layer's two refusals of untrusted input, each a class of its own (``RefusedFile``,
``UntrustedJson``); a layer usually says them again in its own words, naming the file and line."""


class AlpError(Exception):
    """An error with a stable ``code`` (for programs) and a ``message`` (for people); it pickles
    with both, so it survives a trip through a subprocess or an executor.

    ``codes`` lists every code raised with exactly this class; each layer's class publishes its table.
    """

    codes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self) -> tuple[type[AlpError], tuple[str, str]]:
        return (type(self), (self.code, self.message))

