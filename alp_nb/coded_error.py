"""The shape every layer's exception shares: a stable ``code`` beside the message."""

from __future__ import annotations


class CodedError(Exception):
    """An error with a stable ``code`` (for programs) and a ``message`` (for people); it pickles
    with both, so it survives a trip through a subprocess or an executor."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __reduce__(self):
        return (type(self), (self.code, self.message))
