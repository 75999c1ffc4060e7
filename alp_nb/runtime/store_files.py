"""The run store's files on disk: never opened through a link, only if regular, every failure one clear error.

A run store can come from elsewhere (a cloned repository, a shared folder). A link planted in it must not make
a resume read or write a file outside the store, and a FIFO or a folder in a file's place must not hang it or
end it in a traceback. So every open goes through ``alp_nb.base.safe_files`` (``O_NOFOLLOW``, regular files
only), a file replaced whole is checked first (a rename would silently swap a planted link for a file), and a
refusal or an ``OSError`` becomes one ``WorkflowInputError`` naming the file. A missing file is left to the
caller (``FileNotFoundError``): for most files it only means "not yet".
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.safe_files import RefusedFile, check_not_link, open_regular, read_regular
from alp_nb.base.untrusted_json import UntrustedJson, loads_untrusted

from .errors import WorkflowInputError


@contextmanager
def store_file(path: Path, doing: str) -> Iterator[None]:
    """Run the block, turning a refusal of ``path`` into UNSAFE_STORE_FILE and an ``OSError`` into
    STORE_INACCESSIBLE (``doing`` says what failed: "read", "write", "open"); FileNotFoundError passes."""
    try:
        yield
    except FileNotFoundError:
        raise
    except RefusedFile as error:
        raise WorkflowInputError("UNSAFE_STORE_FILE", f"run store file {error.path} {error.problem}; "
                                 "it was neither read nor written") from None
    except OSError as error:
        raise inaccessible(path, doing, error) from None


def inaccessible(path: Path, doing: str, error: OSError) -> WorkflowInputError:
    """STORE_INACCESSIBLE naming the file and what the system said (``No space left on device``)."""
    return WorkflowInputError("STORE_INACCESSIBLE", f"cannot {doing} run store file {path}: {error.strerror or error}")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (a write may take only part of it)."""
    while data:
        data = data[os.write(fd, data):]


def open_store_file(path: Path, flags: int) -> int:
    """A descriptor for ``path`` (``flags`` as for ``os.open``); with ``O_CREAT``, a missing file is created 0600."""
    with store_file(path, "open"):
        return open_regular(path, flags)


def read_store_file(path: Path) -> bytes | None:
    """The bytes of ``path``, or None when it does not exist."""
    try:
        with store_file(path, "read"):
            return read_regular(path)
    except FileNotFoundError:
        return None


def write_store_file(path: Path, data: str | bytes, *, fsync: bool) -> None:
    """Replace ``path`` whole with ``data`` (temp file, rename), refusing a link or a non-regular file in its place."""
    with store_file(path, "write"):
        check_not_link(path)
        write_atomic(path, data, fsync=fsync)


def parse_store_json(data: bytes | str, where: str) -> Any:
    """The JSON document in ``data`` read strictly (``loads_untrusted``); CORRUPT_RUN naming ``where`` if it is not."""
    try:
        return loads_untrusted(data)
    except UntrustedJson as error:
        raise WorkflowInputError("CORRUPT_RUN", f"{where}: {error.message}") from None


def check_writable_folder(root: Path) -> None:
    """STORE_INACCESSIBLE unless this process may create and rename files in ``root`` (checked before a resume
    writes anything, so that a read-only store refuses the resume instead of breaking it half way)."""
    if not os.access(root, os.W_OK | os.X_OK):
        raise WorkflowInputError("STORE_INACCESSIBLE", f"cannot write to run store {root}: it is read-only "
                                 "for this user")
