"""The type of a number flag, held to a range at the flag: argparse refuses what falls outside (exit 2, with the
command's usage), naming the range, before any of the command runs.

argparse's own ``type=float`` takes ``nan``, ``inf`` and ``1e308``, and ``type=int`` any size: a sleep of ``inf``
ends in an OverflowError, ``nan`` passes a ``> 0`` check, and a number beyond 64 bits is written where no reader
takes it back.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeVar

Number = TypeVar("Number", int, float)


def number_flag(kind: Callable[[str], Number], what: str, lowest: Number, highest: Number) -> Callable[[str], Number]:
    """``type=`` for a flag whose value is ``kind`` (``int`` or ``float``) from ``lowest`` to ``highest``;
    ``what`` says what it is (``a number of seconds``). ``nan`` is outside every range: it compares false."""
    refusal = f"must be {what} from {lowest:,} to {highest:,}"

    def parsed(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{refusal}, not {text!r}") from None
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"{refusal}, not {text!r}")
        return value

    return parsed
