"""The ``alp-nb`` command line: parse, call the library, print.

Exit codes: 0 ok, 1 refused or failing checks, 2 bad usage or input, 130 interrupted. Each command group lives
in its own module with a ``register(group)`` function that adds its commands; only the group named on the
command line is imported, so a command pays for the layers it uses and ``alp-nb --help`` for none. Every
``AlpError`` is printed as one line (a contract error adds one line per issue), never a traceback, and so is
a Ctrl-C. ``datetime`` is imported here, before any command's pydantic: pydantic_core's start (Rust) imports it
and panics if a Ctrl-C lands in that import (a Rust message on stderr, then a PanicException, no KeyboardInterrupt).
"""

from __future__ import annotations

import argparse
import datetime  # noqa: F401 (for a Ctrl-C: see above)
import importlib
import os
import signal
import sys
import warnings
from typing import TextIO

from alp_nb.base.errors import AlpError

from .errors import CLI_ERROR_CODES, INTERRUPTED, UsageError

__all__ = ["CLI_ERROR_CODES", "UsageError", "main"]

COMMAND_GROUPS = {
    "agent": "list, show, test and trust roles",
    "context": "inspect an execution",
    "workflow": "list, run, fork, plan, resume and show saved workflows",
    "runs": "list, show, compare and export the runs of a store, read after the fact",
    "contract": "lint, simulate, review and draft loop contracts",
    "policy": "ask the policy engine what-if questions",
}
"""Each group's one-line help; its commands live in ``alp_nb.cli.<group>``."""


def main(argv: list[str] | None = None) -> int:
    """Run one command. A Ctrl-C anywhere in it (parsing, importing its group, running) prints
    ``alp-nb: interrupted`` and exits 130; ``workflow run`` catches its own first, to say how to resume.

    A Ctrl-C while this module and its imports load is answered the same way by ``alp_nb``'s own start (see
    ``alp_nb.__init__``); ``main`` then gives Python its handler back, so a Ctrl-C is a KeyboardInterrupt again.
    """
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.simplefilter("ignore", ResourceWarning)  # a file a Ctrl-C left for the collector to close
            warnings.showwarning = _one_line_warning
            return _main(argv)
    except KeyboardInterrupt:
        print("alp-nb: interrupted", file=sys.stderr)
        return INTERRUPTED
    except Exception as error:
        if not isinstance(error.__cause__, KeyboardInterrupt):
            raise
        # a Ctrl-C a library wrapped in its own error (pydantic does, in a serializer's callback) is still one
        print("alp-nb: interrupted", file=sys.stderr)
        return INTERRUPTED


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      file: TextIO | None = None, line: str | None = None) -> None:
    """A warning on the terminal is one line about the user's files, not a Python source location."""
    _to_stderr(f"alp-nb: warning: {message}")


def _main(argv: list[str] | None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    parser = _parser(next((argument for argument in arguments if not argument.startswith("-")), None))
    args = parser.parse_args(arguments)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except AlpError as error:
        _to_stderr(*_error_lines(error))
        return 2
    except BrokenPipeError:  # the reader left (`alp-nb agent list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _error_lines(error: AlpError) -> list[str]:
    """``alp-nb: <message>``; a contract error's message is its headline, then one line per issue."""
    from alp_nb.loops.errors import LoopContractError  # the one error of several lines (loops' package is lazy)

    if isinstance(error, LoopContractError):
        return [f"alp-nb: {error.headline}", *(f"  {issue}" for issue in error.issues)]
    return [f"alp-nb: {error.message}"]


def _to_stderr(*lines: str) -> None:
    """Print on stderr through ``viz.terminal``: a message may quote a file's text, whose control characters
    must not reach the terminal. Imported here, where it is used, so ``alp-nb --help`` loads no layer."""
    from alp_nb.viz.terminal import print_lines

    print_lines(*lines, file=sys.stderr)


def _parser(chosen: str | None) -> argparse.ArgumentParser:
    """Every group, with the commands of the ``chosen`` one (the others are only named, with their help)."""
    parser = argparse.ArgumentParser(prog="alp-nb", description="The ALP agent model, from a terminal.")
    parser.add_argument("--version", action=_Version, help="print alp-nb's version and exit")
    groups = parser.add_subparsers(title="commands")
    for name, help_text in COMMAND_GROUPS.items():
        group = groups.add_parser(name, help=help_text)
        if name == chosen:
            importlib.import_module(f"{__name__}.{name}").register(group)
    return parser


class _Version(argparse.Action):
    """``--version``: ``alp-nb <version>``, the installed distribution's, else the package's own ``__version__``.
    Worked out only when asked (``importlib.metadata`` takes milliseconds to load), and it loads no layer."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("alp_nb")
        except PackageNotFoundError:  # run from a source tree: the package (always loaded before its cli) says
            number = sys.modules["alp_nb"].__version__
        print(f"alp-nb {number}")
        parser.exit()
