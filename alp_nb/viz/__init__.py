"""The rendering layer: HTML and plain-text views of every core object, and the review packet
as documents. Core classes import their renderer from here inside their ``_repr_*`` methods.

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .errors import VIZ_ERROR_CODES as VIZ_ERROR_CODES, VizError as VizError
    from .packet_documents import review_packet as review_packet, review_packet_markdown as review_packet_markdown
    from .views import mimebundle as mimebundle, render as render

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
