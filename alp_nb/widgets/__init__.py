"""The widgets layer: ipywidgets composites a notebook user clicks, each driving its model through public
controls; the only package that imports ipywidgets.

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``).
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .contract_editor import ContractEditor as ContractEditor
    from .registry_explorer import RegistryExplorer as RegistryExplorer
    from .run_progress import RunProgress as RunProgress
    from .run_viewer import RunViewer as RunViewer
    from .workflow_stepper import WorkflowStepper as WorkflowStepper

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
