"""Text cut to fit: one line, at most so many characters, an ellipsis where it was cut."""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    """``text`` on one line (its runs of whitespace one space), at most ``limit`` characters, ``…`` where cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
