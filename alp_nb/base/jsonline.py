"""One-line JSON encoders for hot paths (journal lines, events, call keys, definition hashes): the standard
library's C encoder, built once instead of per call.

``json.dumps`` rebuilds its encoder on every call, which costs more than
encoding a journal line or an event. The output is exactly what
``json.dumps`` gives with the same options (a test holds this).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _stdlib
from typing import Any


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def line_encoder(*, sort_keys: bool = False, compact: bool = False, allow_nan: bool = True,
                 default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """A function ``value -> str`` equal to ``json.dumps(value, ensure_ascii=False, ...)`` with these options.

    Circular structures raise ValueError (as ``json.dumps`` does) only through the fallback; the fast path
    raises RecursionError, which callers treat as bad input.
    """
    item_separator, key_separator = (",", ":") if compact else (", ", ": ")
    make = getattr(_stdlib, "c_make_encoder", None)  # private to the json package, so typeshed leaves it out
    if make is None:  # an interpreter without the C accelerator
        return json.JSONEncoder(sort_keys=sort_keys, separators=(item_separator, key_separator),
                                ensure_ascii=False, allow_nan=allow_nan, default=default).encode
    encode = make(None, default or _refuse, _stdlib.encode_basestring, None, key_separator, item_separator,
                  sort_keys, False, allow_nan)

    def dumps(value: Any) -> str:
        return "".join(encode(value, 0))

    return dumps
