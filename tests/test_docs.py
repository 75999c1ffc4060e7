"""The README and docs/design.md are in the repository, and nothing points at a file that is not."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "design.md"]
REPO_PATH = re.compile(r"(?<![\w/.-])((?:docs|benchmarks|notebooks|examples|tests|alp_nb)/[\w./*-]*[\w/*])")
"""A path inside the repository, as docs and docstrings write it (``docs/design.md``, ``notebooks/03-*``)."""


def docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    nodes = [tree, *(node for node in ast.walk(tree) if isinstance(node, ast.ClassDef | ast.FunctionDef))]
    return [text for node in nodes if (text := ast.get_docstring(node))]


def texts() -> list[tuple[str, str]]:
    sources = [(str(path.relative_to(ROOT)), path.read_text()) for path in DOCS]
    for folder in ("alp_nb", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            sources += [(str(path.relative_to(ROOT)), text) for text in docstrings(path)]
    return sources


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_the_docs_are_in_the_repository(doc):
    assert doc.is_file()


def test_every_repository_path_the_docs_and_docstrings_name_exists():
    missing = sorted({(source, path) for source, text in texts() for path in REPO_PATH.findall(text)
                      if not any(ROOT.glob(path.rstrip("/")))})
    assert missing == []


def test_every_relative_link_of_the_docs_exists():
    missing = []
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#\s]+)", doc.read_text()):
            if "://" not in target and not (doc.parent / target).exists():
                missing.append((doc.name, target))
    assert missing == []


def test_nothing_points_at_the_founding_design_outside_the_repository():
    """The founding design lives beside the repository, not in it; the living one is ``docs/design.md``."""
    founding = "DESIGN" + ".md"
    assert [source for source, text in texts() if founding in text] == []
