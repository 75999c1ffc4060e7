"""The rendering layer's refusals: an object or a format nothing draws, and a page ``export_run`` will not write."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

VIZ_ERROR_CODES: tuple[str, ...] = ("NO_VIEW", "UNKNOWN_FORMAT", "EXPORT_EXISTS", "EXPORT_INTO_STORE",
                                    "EXPORT_UNWRITABLE")
"""NO_VIEW, UNKNOWN_FORMAT: ``render`` asked for a view or a format that does not exist. EXPORT_EXISTS: the page's
path is taken (and ``force`` was not given); EXPORT_INTO_STORE: the path is in the run's store; EXPORT_UNWRITABLE:
the page cannot be written there."""


class VizError(AlpError):
    """``render`` was asked for a view or a format that does not exist, or ``export_run`` refused a path."""

    codes: ClassVar[tuple[str, ...]] = VIZ_ERROR_CODES
