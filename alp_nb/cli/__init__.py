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

from alp_nb.agents import AgentError
from alp_nb.cli import agent, context, contract, workflow
from alp_nb.loops import LoopContractError
from alp_nb.runtime import WorkflowInputError
from alp_nb.workflow import WorkflowError

COMMAND_GROUPS = (agent, context, workflow, contract)
USER_ERRORS: tuple[type[Exception], ...] = (AgentError, WorkflowError, WorkflowInputError, LoopContractError)


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line_warning
        return _main(argv)


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
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
    except USER_ERRORS as error:
        print(f"alp-nb: {getattr(error, 'message', error)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader left (`alp-nb agent list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="alp-nb", description="The ALP agent model, from a terminal.")
    groups = parser.add_subparsers(title="commands")
    for group in COMMAND_GROUPS:
        group.register(groups)
    return parser
