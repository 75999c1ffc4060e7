"""The lint and type gate stays as strong as the project agreed, and every suppression says why."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())
SUPPRESSION = re.compile(r"(?<!`)#\s*(type:\s*ignore(?:\[[\w, -]+\])?|noqa(?::\s*[A-Z]+\d+(?:,\s*[A-Z]+\d+)*)?)(.*)")
"""A suppression comment: its code part, then whatever follows it on the line."""


def test_ruff_checks_the_agreed_rule_sets_at_120_columns_with_no_blanket_ignore():
    ruff = CONFIG["tool"]["ruff"]
    assert ruff["line-length"] == 120
    assert {"E", "F", "I", "UP", "B", "SIM", "RUF"} <= set(ruff["lint"]["select"])
    assert "ignore" not in ruff["lint"] and "per-file-ignores" not in ruff["lint"]


def test_mypy_uses_the_pydantic_plugin_and_refuses_untyped_functions_in_alp_nb():
    mypy = CONFIG["tool"]["mypy"]
    assert "pydantic.mypy" in mypy["plugins"]
    assert mypy["disallow_untyped_defs"] is True
    assert mypy["files"] == ["alp_nb"]


def test_every_type_ignore_and_noqa_names_its_code_and_gives_a_reason_on_the_same_line():
    unexplained = []
    for path in sorted([*ROOT.glob("alp_nb/**/*.py"), *ROOT.glob("tests/*.py"), *ROOT.glob("benchmarks/*.py")]):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = SUPPRESSION.search(line)
            if match is None or path.name == "test_lint_config.py":
                continue
            code, reason = match.groups()
            if ("[" not in code and ":" not in code) or not reason.strip(" #()"):
                unexplained.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert unexplained == []
