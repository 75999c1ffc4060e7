"""Opening files that someone else may have planted: never through a symbolic link, only regular files.

A run store or a project folder can come from a cloned repository. A link in
it must not make alp_nb read or write a file elsewhere (a key file, a shell
profile), and a FIFO or a device must not make it wait or read forever. So
every such file is opened with ``O_NOFOLLOW`` (a link is refused, not
followed) and ``O_NONBLOCK`` (a FIFO cannot block the open), then checked to
be a regular file before a byte moves.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import ClassVar

from .errors import AlpError


class RefusedFile(AlpError):
    """A file alp_nb will not open: a symbolic link, not a regular file (a FIFO, a device, a folder), or too big.

    ``problem`` says which as a phrase (``is a symbolic link, ...``), so that a layer can say
    ``f"{path} {error.problem}"`` in its own words; ``message`` is that sentence already.
    """

    codes: ClassVar[tuple[str, ...]] = ("REFUSED_FILE",)

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        super().__init__("REFUSED_FILE", f"{self.path} {problem}")

    def __reduce__(self) -> tuple[type[RefusedFile], tuple[str, str]]:  # path and problem, not code and message
        return (type(self), (self.path, self.problem))


SYMLINK_REFUSED = "is a symbolic link, which alp_nb does not follow"
NOT_REGULAR = "is not a regular file"


def open_regular(path: str | os.PathLike[str], flags: int, mode: int = 0o600) -> int:
    """A descriptor for ``path`` opened with ``flags``: ``RefusedFile`` if it is a link or not a regular file.

    With ``O_CREAT``, a missing file is created with ``mode``; a link at ``path`` is still refused, never
    followed to create its target.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise RefusedFile(path, SYMLINK_REFUSED) from None
        if error.errno in (errno.ENXIO, errno.EISDIR):  # a FIFO with no reader, a folder opened to write
            raise RefusedFile(path, NOT_REGULAR) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RefusedFile(path, NOT_REGULAR)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of a regular file that is not a link; with ``limit``, ``RefusedFile`` for a larger one,
    refused before it is read."""
    with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
        if limit is None:
            return handle.read()
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise RefusedFile(path, f"is {size} bytes, over the {limit} byte limit")
        data = handle.read(limit + 1)  # a file may say it is small (some in /proc say 0) and hold more
        if len(data) > limit:
            raise RefusedFile(path, f"is over the {limit} byte limit")
        return data


def check_not_link(path: str | os.PathLike[str]) -> None:
    """``RefusedFile`` when ``path`` exists and is a link or not a regular file; nothing when it is missing.

    For files replaced whole by a rename (which never writes through a link), so that a planted link is
    reported instead of silently swapped for a regular file.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise RefusedFile(path, SYMLINK_REFUSED)
    if not stat.S_ISREG(info.st_mode):
        raise RefusedFile(path, NOT_REGULAR)
