"""Lower layers never import higher ones (docs/design.md "Layers"), not even inside a function.

``base`` is the floor: it imports nothing else of alp_nb. Every module lives in
a layer; only the package's own ``__init__`` and ``__main__`` sit above them all.
A core object is shown by the views ``alp_nb.viz`` registers by name, so no core
module imports viz. Only ``widgets`` imports ipywidgets, and only ``viz`` and
``widgets`` import matplotlib.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "alp_nb"
LAYERS = ("base", "agents", "workflow", "runtime", "loops", "replay", "viz", "widgets", "cli")
TOP = len(LAYERS)
"""The layer of the package itself (``import alp_nb`` re-exports every layer): above all of them."""


def _layer(module: str) -> int | None:
    """The layer of ``alp_nb.<layer>...``; ``TOP`` for the package itself; None outside alp_nb."""
    parts = module.split(".")
    if parts[0] != "alp_nb":
        return None
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else TOP


def _imports(tree: ast.AST, package: str):
    """Every module a module imports, wherever the import stands (top, function or method)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                yield ".".join(base + ([node.module] if node.module else []))
            else:
                yield node.module


def _module_name(path: Path) -> tuple[str, str]:
    """(module, the package its relative imports start from)."""
    module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return module, module if path.name == "__init__.py" else module.rsplit(".", 1)[0]


MODULES = sorted(path for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_module_imports_only_its_own_layer_or_lower(path):
    module, package = _module_name(path)
    own = _layer(module)
    upward = [imported for imported in _imports(ast.parse(path.read_text()), package)
              if (layer := _layer(imported)) is not None and layer > own]
    assert upward == [], f"{module} imports a higher layer"


@pytest.mark.parametrize(("library", "allowed"), [("ipywidgets", ("widgets",)), ("matplotlib", ("viz", "widgets"))])
def test_only_the_drawing_layers_import_the_drawing_libraries(library, allowed):
    offenders = []
    for path in MODULES:
        module, package = _module_name(path)
        imported = {name.split(".")[0] for name in _imports(ast.parse(path.read_text()), package)}
        if library in imported and module.split(".")[1] not in allowed:
            offenders.append(module)
    assert offenders == []


def test_every_module_belongs_to_a_layer():
    loose = [path.name for path in PACKAGE.glob("*.py") if path.name not in ("__init__.py", "__main__.py")]
    outside = [str(path.relative_to(PACKAGE)) for path in MODULES if path.relative_to(PACKAGE).parts[0] not in LAYERS]
    assert loose == [] and outside == []


def test_base_is_the_floor_and_imports_no_other_part_of_alp_nb():
    for path in sorted((PACKAGE / "base").rglob("*.py")):
        module, package = _module_name(path)
        imported = [name for name in _imports(ast.parse(path.read_text()), package) if _layer(name) is not None]
        assert all(name.startswith("alp_nb.base") for name in imported), f"{module} imports {imported}"


def test_layer_check_sees_an_upward_import():
    tree = ast.parse("from alp_nb.viz.views.agents import agent_card_html\n")
    imported = list(_imports(tree, "alp_nb.agents"))
    assert _layer(imported[0]) > _layer("alp_nb.agents.registry")


def test_layer_check_sees_an_upward_import_inside_a_method():
    tree = ast.parse("class A:\n    def _repr_html_(self):\n        from alp_nb.viz.views.agents import card\n")
    assert _layer(next(_imports(tree, "alp_nb.agents"))) > _layer("alp_nb.agents.registry")


def test_importing_the_package_itself_from_a_layer_counts_as_upward():
    imported = list(_imports(ast.parse("import alp_nb\n"), "alp_nb.loops"))
    assert _layer(imported[0]) > _layer("alp_nb.cli.agent")


STORE_READERS = ("alp_nb.runtime.store", "alp_nb.runtime.store_files", "alp_nb.runtime.journal",
                 "alp_nb.runtime.stored_events", "alp_nb.base.safe_files")
"""The modules that open a run store's files: only ``replay`` (and the runtime itself) may read a run."""


@pytest.mark.parametrize("path", [path for path in MODULES if path.relative_to(PACKAGE).parts[0] in ("viz", "widgets")],
                         ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_picture_or_widget_reads_a_run_store_file_itself(path):
    """A run reaches viz and widgets as replay's one read model (``RunRecord``, made by ``record_of``), so a run
    has one read path, the journal first; none of them opens a store file or names the readers that do."""
    module, package = _module_name(path)
    readers = [imported for imported in _imports(ast.parse(path.read_text()), package)
               if imported in STORE_READERS]
    source = path.read_text()
    calls = [name for name in ("read_journal(", "read_events(", "read_snapshot(", ".snapshot(run_id")
             if name in source]
    assert readers == [] and calls == [], f"{module} reads a run store itself"


VIZ_FOLDERS = ("", "models", "renderers", "pictures", "views")
"""viz's root helpers, then its folders (docs/design.md "viz, folder by folder"): each imports only those before it."""


def _viz_folder(module: str) -> int | None:
    parts = module.split(".")
    if parts[:2] != ["alp_nb", "viz"] or len(parts) < 3:
        return None
    return VIZ_FOLDERS.index(parts[2]) if parts[2] in VIZ_FOLDERS else 0


@pytest.mark.parametrize("path", [path for path in MODULES if path.relative_to(PACKAGE).parts[0] == "viz"],
                         ids=lambda path: str(path.relative_to(PACKAGE)))
def test_a_viz_module_imports_only_its_own_folder_or_those_before_it(path):
    module, package = _module_name(path)
    own = _viz_folder(module)
    later = [imported for imported in _imports(ast.parse(path.read_text()), package)
             if (folder := _viz_folder(imported)) is not None and own is not None and folder > own]
    assert later == [], f"{module} imports a viz folder after its own"
