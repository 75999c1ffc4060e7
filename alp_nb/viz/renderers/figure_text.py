"""Text as matplotlib can draw it: characters its font has no glyph for are left out.

The built-in roles' names carry emoji, which DejaVu Sans (matplotlib's default) lacks; drawn as they are, each
shows as an empty box and warns once per glyph. The SVG keeps them: a browser finds a font that has them.
"""

from __future__ import annotations

from functools import cache

EMOJI_JOINERS = frozenset("\ufe0e\ufe0f\u200d")
"""The variation selectors and joiner that shape an emoji: left out with the emoji they follow."""


def drawable(text: str) -> str:
    """``text`` without the characters matplotlib's default font cannot draw, and the spaces they leave."""
    glyphs = _font_glyphs()
    kept, dropping = [], False
    for char in text:
        dropping = not (char.isspace() or ord(char) in glyphs) or (dropping and char in EMOJI_JOINERS)
        if not dropping:
            kept.append(char)
    return " ".join("".join(kept).split()) if len(kept) != len(text) else text


@cache
def _font_glyphs() -> frozenset[int]:
    from matplotlib import font_manager
    from matplotlib.ft2font import FT2Font

    return frozenset(FT2Font(font_manager.findfont(font_manager.FontProperties())).get_charmap())
