"""Lower layers never import higher ones (DESIGN.md "Layers").

The one allowance: a core class may import its renderer from ``alp_nb.viz``
inside a ``_repr_*`` method.
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "alp_nb"
LAYERS = ("agents", "workflow", "runtime", "loops", "replay", "viz", "widgets", "cli")


def _layer(module: str) -> int | None:
    """The layer of ``alp_nb.<part>...``; None for package-level helpers below every layer."""
    parts = module.split(".")
    if parts[0] != "alp_nb" or len(parts) < 2:
        return None
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else None


def _imports(tree: ast.AST, package: str):
    """(imported module, inside a _repr_ method) for every import in a module."""
    def visit(node, in_repr):
        for child in ast.iter_child_nodes(node):
            child_in_repr = in_repr or (isinstance(child, ast.FunctionDef) and child.name.startswith("_repr_"))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, child_in_repr
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - child.level + 1]
                    yield ".".join(base + ([child.module] if child.module else [])), child_in_repr
                else:
                    yield child.module, child_in_repr
            yield from visit(child, child_in_repr)
    yield from visit(tree, False)


MODULES = sorted(path for path in PACKAGE.rglob("*.py") if path.parent != PACKAGE)


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_module_imports_only_its_own_layer_or_lower(path):
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    module = ".".join(relative.parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    own = _layer(module)
    for imported, in_repr in _imports(ast.parse(path.read_text()), package):
        layer = _layer(imported)
        if layer is None or layer <= own:
            continue
        assert in_repr and imported.startswith("alp_nb.viz"), f"{module} imports higher layer {imported}"


def test_layer_check_sees_an_upward_import():
    tree = ast.parse("from alp_nb.viz.agents import agent_card_html\n")
    imported = [module for module, _ in _imports(tree, "alp_nb.agents")]
    assert _layer(imported[0]) > _layer("alp_nb.agents.registry")
