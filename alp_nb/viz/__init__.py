"""The rendering layer: the views of every core object (HTML, text, Markdown), the pictures (delegation,
state machines, capabilities, a contract's flow, a run's timeline) with their SVG, Mermaid, matplotlib and text
renderers, and the review packet as documents. Core classes hold no display code: ``views.VIEWS`` names each
class's view, and ``display`` registers them with IPython.

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .errors import VIZ_ERROR_CODES as VIZ_ERROR_CODES, VizError as VizError
    from .models.diagram import Diagram as Diagram, Edge as Edge, Node as Node
    from .pictures.capabilities import capability_matrix as capability_matrix
    from .pictures.contract_picture import contract_flow as contract_flow
    from .pictures.delegation import delegation_graph as delegation_graph
    from .pictures.matrix_picture import MatrixPicture as MatrixPicture
    from .pictures.picture import Picture as Picture
    from .pictures.state_machines import state_machine as state_machine, status_lifecycle as status_lifecycle
    from .pictures.timeline_picture import RunTimeline as RunTimeline, run_timeline as run_timeline
    from .rendering import mimebundle as mimebundle, render as render
    from .views.packet_documents import review_packet as review_packet, review_packet_markdown as review_packet_markdown
    from .views.run_page import export_run as export_run

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
