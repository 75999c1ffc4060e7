"""The rendering layer's refusal: an object or a format nothing draws."""

from __future__ import annotations

from typing import ClassVar

from alp_nb.base.errors import AlpError

VIZ_ERROR_CODES: tuple[str, ...] = ("NO_VIEW", "UNKNOWN_FORMAT")


class VizError(AlpError):
    """``render`` was asked for a view or a format that does not exist."""

    codes: ClassVar[tuple[str, ...]] = VIZ_ERROR_CODES
