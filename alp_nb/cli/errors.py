"""The command line's own refusals: a command used the wrong way."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

CLI_ERROR_CODES: tuple[str, ...] = ("USAGE", "UNKNOWN_TIER")
INTERRUPTED = 130
"""The shell's exit code for a command stopped by Ctrl-C (128 + SIGINT)."""


class UsageError(AlpError):
    """A command given the wrong arguments (exit 2, one line on stderr)."""

    codes: ClassVar[tuple[str, ...]] = CLI_ERROR_CODES
