"""The ``alp-nb`` command line: parse, call the library, print.

Exit codes: 0 ok, 1 refused or failing checks, 2 bad usage or input. Each
command group lives in its own module with a ``register(groups)`` function;
a group's user-facing errors are printed as one line, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import TextIO

from alp_nb.base.errors import AlpError

from .errors import CLI_ERROR_CODES, UsageError

__all__ = ["CLI_ERROR_CODES", "UsageError", "main"]


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line_warning
        return _main(argv)


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: TextIO | None = None, line: str | None = None) -> None:
    """A warning on the terminal is one line about the user's files, not a Python source location."""
    print(f"alp-nb: warning: {message}", file=sys.stderr)


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except AlpError as error:
        print(f"alp-nb: {error.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (`alp-nb agent list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _parser() -> argparse.ArgumentParser:
    from . import agent, context, contract, workflow  # here, so that `alp_nb.cli.errors` stays cheap to import

    parser = argparse.ArgumentParser(prog="alp-nb", description="The ALP agent model, from a terminal.")
    groups = parser.add_subparsers(title="commands")
    for group in (agent, context, workflow, contract):
        group.register(groups)
    return parser
