"""A picture kind that only the tests register: tokens by phase as bars. It stands for the next picture someone
adds, so the tests that find every picture by registration (hostile input, the browser's gallery) are seen to pick
up one they were never told of. ``conftest.py`` imports this module; a kernel the browser test starts imports it
because the registration names it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from alp_nb.base.text import clip
from alp_nb.replay.timeline import Timeline
from alp_nb.viz.pictures.gallery import register_picture, sample_timeline
from alp_nb.viz.pictures.picture import Picture
from alp_nb.viz.renderers.svg import FONT, xml_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FIXTURE_KIND = "tokens by phase (a test fixture)"
BAR_HEIGHT, BAR_GAP, PLOT_WIDTH, LABEL_WIDTH = 18, 6, 400, 160


@dataclass(frozen=True)
class TokensByPhase(Picture):
    """Each phase's tokens of a run's last attempt, a bar per phase."""

    timeline: Timeline

    def to_svg(self) -> str:
        rows = self.timeline.tokens
        most = max((row.attempt for row in rows), default=0) or 1
        height = 40 + len(rows) * (BAR_HEIGHT + BAR_GAP)
        bars = "".join(
            f'<text x="10" y="{44 + index * (BAR_HEIGHT + BAR_GAP)}" font-size="11">{xml_text(clip(row.phase, 24))}'
            f'</text><rect x="{LABEL_WIDTH}" y="{30 + index * (BAR_HEIGHT + BAR_GAP)}" height="{BAR_HEIGHT}" '
            f'width="{round(PLOT_WIDTH * row.attempt / most, 1)}" fill="#3949ab"/>'
            for index, row in enumerate(rows))
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{LABEL_WIDTH + PLOT_WIDTH + 20}" height="{height}" '
                f'font-family="{FONT}" role="img" aria-label="tokens by phase"><text x="10" y="18" font-size="13" '
                f'font-weight="600">{xml_text(clip(self.timeline.title, 60))}</text>{bars}</svg>')

    def to_text(self) -> str:
        return "\n".join([self.timeline.title, *(f"  {row.phase}: {row.attempt:,}" for row in self.timeline.tokens)])

    def draw(self, ax: Axes | None = None) -> Axes:
        import matplotlib.pyplot as plt

        ax = ax or plt.figure().add_subplot()
        rows = self.timeline.tokens
        ax.barh(range(len(rows)), [row.attempt for row in rows])
        ax.set_yticks(range(len(rows)), [clip(row.phase, 24) for row in rows])
        return ax


@register_picture(FIXTURE_KIND)
def tokens_by_phase(text: str) -> Picture:
    return TokensByPhase(sample_timeline(text))
