"""Whole-file writes that never leave a half-written file behind: temp file, fsync, rename."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def write_atomic(path: str | os.PathLike[str], data: str | bytes, mode: int = 0o600, dir_mode: int = 0o700, *,
                 fsync: bool = True) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8) in one step; the file ends with permissions
    ``mode``.

    Missing parent directories are created with ``dir_mode``. A crash at any point leaves either the old file or
    the new one, never a mixture, and at worst a temporary file beside it (``temp_files`` finds those). Without
    ``fsync`` the swap still survives a process crash, not a power cut, at a fraction of the cost.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True, mode=dir_mode)
    body = data.encode() if isinstance(data, str) else data
    handle, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    try:
        try:
            while body:
                body = body[os.write(handle, body):]
            if fsync:
                os.fsync(handle)
        finally:
            os.close(handle)
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def temp_files(folder: Path, name_start: str) -> Iterator[Path]:
    """The temporary files that writes of files whose names start with ``name_start`` in ``folder`` left behind
    when killed before their rename."""
    return folder.glob(f".{name_start}*{TEMP_SUFFIX}")
