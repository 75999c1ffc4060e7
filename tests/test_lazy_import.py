"""``import alp_nb`` loads no layer and no heavy dependency; every public name still resolves on first use.

The fresh-interpreter tests run ``python -c`` so that nothing this test session
already imported can hide an import.
"""

import ast
import json
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import alp_nb
from alp_nb.base.lazy import lazy_exports

PACKAGE = Path(alp_nb.__file__).parent
HEAVY = ("networkx", "jsonschema", "ruamel", "pandas", "matplotlib", "ipywidgets")
PACKAGES = sorted(".".join(path.parent.relative_to(PACKAGE.parent).parts) for path in PACKAGE.glob("**/__init__.py")
                  if len(path.parent.relative_to(PACKAGE.parent).parts) <= 2)
"""alp_nb and its layers: the packages with public names."""
FOLDERS = sorted(".".join(path.parent.relative_to(PACKAGE.parent).parts) for path in PACKAGE.glob("*/*/__init__.py"))
"""The folders inside a layer (viz's models, renderers, pictures, views): modules by path, no names of their own."""


def loaded_after(code: str, cwd: Path) -> list[str]:
    """The top-level modules in ``sys.modules`` once ``code`` ran in a fresh interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted({{name.split('.')[0] for name in sys.modules}})))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=cwd, check=True)
    return json.loads(result.stdout.splitlines()[-1])


def test_importing_alp_nb_loads_none_of_the_heavy_dependencies(tmp_path):
    loaded = loaded_after("import alp_nb", tmp_path)
    assert [name for name in HEAVY if name in loaded] == []


def test_importing_alp_nb_loads_no_layer_until_a_name_is_used(tmp_path):
    script = "import alp_nb, sys\nprint(sorted(name for name in sys.modules if name.startswith('alp_nb.')))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert result.stdout.strip() == "['alp_nb.base', 'alp_nb.base.lazy']"


def test_running_review_changes_with_the_mock_runner_loads_no_graph_table_plot_or_widget_library(tmp_path):
    code = ("import alp_nb\n"
            "run = alp_nb.run_workflow_sync('review-changes', {'changes': 'fix the typo'}, store='runs')\n"
            "assert run.status == 'completed', run.status")
    loaded = loaded_after(code, tmp_path)
    assert "alp_nb" in loaded
    assert [name for name in ("networkx", "pandas", "matplotlib", "ipywidgets") if name in loaded] == []


def test_the_built_in_registry_and_a_policy_answer_need_no_graph_or_schema_library(tmp_path):
    code = ("import alp_nb\n"
            "policy = alp_nb.PolicyEngine(alp_nb.builtin_registry())\n"
            "assert not policy.authorize({'type': 'tool', 'actor': 'main', 'tool': 'Write'}).allowed")
    loaded = loaded_after(code, tmp_path)
    assert [name for name in HEAVY if name in loaded] == []


def test_star_import_gives_every_public_name(tmp_path):
    script = "from alp_nb import *\nimport alp_nb\nprint(all(name in globals() for name in alp_nb.__all__))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert result.stdout.strip() == "True"


@pytest.mark.parametrize("name", PACKAGES)
def test_a_package_lists_every_public_name_in_all_and_dir_and_each_resolves(name):
    package = import_module(name)
    assert package.__all__, f"{name} has no __all__"
    assert set(package.__all__) <= set(dir(package))
    assert [each for each in package.__all__ if getattr(package, each, None) is None] == []


@pytest.mark.parametrize("name", PACKAGES)
def test_no_public_name_is_also_the_name_of_a_module_in_its_package(name):
    """The import system puts a submodule on its package, which would hide a public name spelled the same."""
    package = import_module(name)
    folder = Path(package.__file__).parent
    modules = {path.stem for path in folder.glob("*.py")} | {path.parent.name for path in folder.glob("*/__init__.py")}
    assert sorted(set(package.__all__) & modules) == []


@pytest.mark.parametrize("name", FOLDERS)
def test_a_folder_inside_a_layer_holds_only_its_docstring_and_its_names_are_the_layers(name):
    """A name is public through its layer (``alp_nb.viz.delegation_graph``); the folder's ``__init__`` says what
    the folder holds and imports nothing, so importing one module of it loads no other."""
    tree = ast.parse((PACKAGE.parent / name.replace(".", "/") / "__init__.py").read_text(encoding="utf-8"))
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr), f"{name}/__init__.py holds more than a docstring"


def test_alp_nb_re_exports_the_same_objects_as_the_layers():
    assert alp_nb.PolicyEngine is import_module("alp_nb.agents.policy").PolicyEngine
    assert alp_nb.run_workflow is import_module("alp_nb.runtime.run").run_workflow
    assert alp_nb.review_packet is import_module("alp_nb.viz.views.packet_documents").review_packet


def test_an_unknown_name_is_an_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="module 'alp_nb' has no attribute 'PolicyEngin'"):
        alp_nb.PolicyEngin  # noqa: B018 (the attribute access itself is what is tested)


def test_lazy_exports_read_the_names_of_the_type_checking_block_only(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nimport os\n"
                    "if TYPE_CHECKING:\n    from .a import first as first, second\n    from .b.c import third\n")
    _, listing, names = lazy_exports("somewhere", str(init))
    assert names == listing() == ["first", "second", "third"]


def test_every_package_init_but_the_command_lines_imports_nothing_at_the_top_but_its_lazy_exports():
    """An ``__init__`` that imported a layer at the top would undo the cheap import. The command line's own
    ``__init__`` is exempt: it is the ``alp-nb`` command itself, so importing it is running a command."""
    allowed = {"sys", "typing", "alp_nb.base.lazy", "os", "_signal"}  # os and _signal: loaded before any import
    for path in PACKAGE.rglob("__init__.py"):
        if path.parent.name == "cli":
            continue
        package = ".".join(path.parent.relative_to(PACKAGE.parent).parts)
        top = [node for node in ast.parse(path.read_text()).body if isinstance(node, ast.Import | ast.ImportFrom)]
        names = [alias.name for node in top if isinstance(node, ast.Import) for alias in node.names]
        names += [f"{package}.{node.module}" if node.level else node.module for node in top
                  if isinstance(node, ast.ImportFrom)]
        assert set(names) <= allowed, f"{path.relative_to(PACKAGE)} imports {sorted(set(names) - allowed)}"
