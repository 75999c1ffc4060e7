"""Small HTML building blocks shared by every renderer; all text passes through ``esc``."""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable

from alp_nb.viz.terminal import plain

STYLE = """<style>
.alp{font-family:system-ui,-apple-system,sans-serif;font-size:13px;line-height:1.4;max-width:60em}
.alp table{border-collapse:collapse;margin:4px 0}
.alp th,.alp td{border:1px solid #ddd;padding:2px 8px;vertical-align:top}
.alp.alp th,.alp.alp td{text-align:left}
.alp th{background:#f4f4f4}
.alp code{font-size:12px}
.alp pre,.alp code{word-break:normal;overflow-wrap:anywhere}
.alp .muted{color:#777}
</style>"""
"""The views' one style sheet. ``.alp.alp`` outranks JupyterLab's rule that right-aligns every cell of an output
table (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``): text reads from the left."""


WRAPPED = "white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere"
"""Text that keeps its own line breaks and wraps at word boundaries, a word longer than the line (a URL, a hash)
only where it must: JupyterLab breaks an output's ``<pre>`` anywhere (``word-break:break-all``), mid-word. Inline,
for the same reason as ``BADGE_STYLE``."""


def esc(value: object) -> str:
    """HTML-escape anything: untrusted text never reaches the page as markup, and its control and invisible
    direction or width characters show as ``\\xNN``/``\\uNNNN`` (``terminal.plain``), so that it cannot read on
    the page as another text."""
    return html.escape(plain(value), quote=True)


def block(inner: str) -> str:
    """A styled, self-contained fragment."""
    return f'{STYLE}<div class="alp">{inner}</div>'


BADGE_STYLE = "display:inline-block;padding:0 8px;border-radius:9px;color:#fff;font-weight:600"
TONE_COLOURS = {"ok": "#2e7d32", "bad": "#c62828", "warn": "#ef6c00", "info": "#1565c0"}
"""A badge is styled inline, not by the style sheet: JupyterLab drops ``<style>`` from a notebook opened with its
saved outputs but keeps ``style`` attributes, so a badge keeps its colour there."""


def badge(text: str, tone: str, colour: str | None = None) -> str:
    """``text`` on the colour of ``tone`` (``ok``, ``bad``, ``warn``, ``info``), or on ``colour`` when given."""
    background = colour or TONE_COLOURS.get(tone)
    style = BADGE_STYLE + (f";background:{background}" if background else "")
    return f'<span class="badge {esc(tone)}" style="{style}">{esc(text)}</span>'


STATUS_TONES = {
    "prepared": "info", "running": "info", "awaiting-output": "info", "repairing": "warn", "completed": "ok",
    "failed": "bad", "cancelled": "warn", "interrupted": "warn",
}
"""Badge colours of every status an execution or a run can have."""


def status_badge(status: str) -> str:
    return badge(status, STATUS_TONES.get(status, "info"))


def names(items: Iterable[str], empty: str = "—") -> str:
    items = list(items)
    if not items:
        return f'<span class="muted">{esc(empty)}</span>'
    return ", ".join(f"<code>{esc(item)}</code>" for item in items)


def table(headers: Iterable[str], rows: Iterable[Iterable[str]]) -> str:
    """A table whose header cells are escaped here and whose body cells are already HTML."""
    head = "".join(f"<th>{esc(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_INLINE_SVG = re.compile(r"<svg\b[^>]*>.*?</svg>", re.DOTALL)
_ARIA_LABEL = re.compile(r'aria-label="([^"]*)"')


def svg_as_images(fragment: str) -> str:
    """Every inline ``<svg>`` of ``fragment`` as an ``<img>`` that holds it (a ``data:`` URI), for a notebook's
    output. JupyterLab sanitizes the HTML of outputs it did not make itself (a notebook opened with its saved
    outputs, on Binder or from a clone) and drops ``<svg>`` there, leaving the picture's words in a heap; an
    image survives and draws the same. Widgets and the review packet keep the inline SVG and its tooltips."""
    def image(match: re.Match[str]) -> str:
        svg = match.group(0)
        label = _ARIA_LABEL.search(svg)
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        return f'<img alt="{label.group(1) if label else "a picture"}" src="data:image/svg+xml;base64,{data}">'

    return _INLINE_SVG.sub(image, fragment)
