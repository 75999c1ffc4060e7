"""How wide a line of text draws, worked out without a font: so a box is sized to its label before any browser
sees it.

The widths are DejaVu Sans's (regular and bold), in thousandths of an em, for printable ASCII: DejaVu is what a
Linux browser falls back to for ``system-ui`` and is wider than the common desktop fonts (Segoe UI, San
Francisco, Helvetica), so a box sized for it holds its label in all of them. Other characters are taken at the
width of a wide letter, an emoji (or any East Asian wide character) at 1.3 em as colour-emoji fonts draw them, and
combining marks, variation selectors and format characters at nothing.
"""

from __future__ import annotations

import unicodedata

# fmt: off
REGULAR = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636,
    636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656,
    557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613,
    635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818,
    592, 592, 525, 636, 337, 636, 838,
)
BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696,
    696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775,
    637, 995, 837, 850, 733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675,
    716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924,
    645, 652, 582, 712, 365, 712, 838,
)
# fmt: on
"""Advance widths of the characters from space (32) to tilde (126), in thousandths of an em."""
OTHER, WIDE, NOTHING = 850, 1300, 0
"""Thousandths of an em for a character outside ASCII, an emoji or wide character, and a mark drawn on another."""
_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf"})


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """The width in pixels of ``text`` in a ``size``-pixel font."""
    table = BOLD if bold else REGULAR
    total = 0
    for char in text:
        code = ord(char)
        total += table[code - 32] if 32 <= code < 127 else _width(char)
    return total * size / 1000


def _width(char: str) -> int:
    if unicodedata.category(char) in _ZERO_WIDTH:
        return NOTHING
    if ord(char) >= 0x1F000 or unicodedata.east_asian_width(char) in ("W", "F"):
        return WIDE
    return OTHER
