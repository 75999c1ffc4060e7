"""Workspace paths: containment on path boundaries, never string prefixes."""

from __future__ import annotations

import os
from pathlib import PurePath


def is_within(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it (``/project-evil`` is not in ``/project``)."""
    path_parts, root_parts = PurePath(path).parts, PurePath(root).parts
    return path_parts[: len(root_parts)] == root_parts


def resolve_lexically(path: str, base: str) -> str:
    """``path`` joined to ``base`` and normalised without touching the disk (node's path.resolve)."""
    return os.path.normpath(os.path.join(os.path.abspath(base), path))


def canonicalize_path(path: str) -> str:
    """The real path: symlinks resolved where they exist, the rest kept as written."""
    return os.path.realpath(os.path.abspath(path))
