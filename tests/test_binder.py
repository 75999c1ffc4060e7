"""Binder builds a working environment from ``binder/`` alone: a fresh virtual environment made only from those
files (``requirements.txt``, then ``postBuild`` from the repository root, as repo2docker runs them) imports
alp_nb and executes every notebook top to bottom. It needs PyPI, so it skips when PyPI cannot be reached."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.binder


def _pypi_reachable() -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=3).close()
    except OSError:
        return False
    return True


def _jupyter_env(binder: Path) -> dict[str, str]:
    """Only the environment's own Jupyter paths, so no kernel installed for this user can stand in for its own."""
    home = binder.parent
    env = {**os.environ, "PATH": f"{binder / 'bin'}{os.pathsep}{os.environ['PATH']}", "JUPYTER_PLATFORM_DIRS": "1",
           "JUPYTER_DATA_DIR": str(home / "data"), "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / "ipython")}
    env.pop("JUPYTER_PATH", None)
    env.pop("PYTHONPATH", None)
    return env


@pytest.fixture(scope="module")
def binder_env(tmp_path_factory) -> Path:
    """A virtual environment built as mybinder builds one: requirements.txt, then postBuild."""
    if not _pypi_reachable():
        pytest.skip("PyPI cannot be reached: the Binder environment cannot be built here")
    env = tmp_path_factory.mktemp("binder") / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    python = env / "bin" / "python"
    build = {**_jupyter_env(env), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    subprocess.run([python, "-m", "pip", "install", "--quiet", "-r", BINDER / "requirements.txt"], check=True,
                   env=build, cwd=ROOT, timeout=900)
    subprocess.run(["bash", BINDER / "postBuild"], check=True, env=build, cwd=ROOT, timeout=900)
    return env


def test_binder_asks_for_a_python_alp_nb_supports():
    version = (BINDER / "runtime.txt").read_text().strip()
    assert version.startswith("python-3.") and int(version.split(".")[1]) >= 11


def test_binder_and_ci_install_the_colour_emoji_font_the_built_in_names_need():
    """Every built-in display name carries an emoji; without the font a browser draws empty boxes."""
    assert "fonts-noto-color-emoji" in (BINDER / "apt.txt").read_text().split()
    assert "fonts-noto-color-emoji" in (ROOT / ".ci" / "run").read_text()


def test_the_binder_environment_imports_alp_nb(binder_env):
    python = binder_env / "bin" / "python"
    shown = subprocess.run([python, "-c", "import alp_nb, jupyterlab; print(alp_nb.__file__)"], check=True,
                           capture_output=True, text=True, cwd="/", timeout=120).stdout.strip()
    assert Path(shown).resolve().is_relative_to(ROOT), "alp_nb must come from this repository (postBuild)"


def test_the_notebooks_kernel_is_the_binder_environments_own_python(binder_env):
    listed = subprocess.run([binder_env / "bin" / "jupyter", "kernelspec", "list", "--json"], check=True,
                            capture_output=True, text=True, env=_jupyter_env(binder_env), timeout=120).stdout
    spec = json.loads(listed)["kernelspecs"]["python3"]
    assert Path(spec["resource_dir"]).resolve().is_relative_to(binder_env.resolve())


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.stem)
def test_the_binder_environment_executes_every_notebook(binder_env, notebook, tmp_path):
    jupyter = binder_env / "bin" / "jupyter"
    result = subprocess.run(
        [jupyter, "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=120",
         f"--output-dir={tmp_path}", notebook],
        capture_output=True, text=True, cwd=notebook.parent, timeout=300, env=_jupyter_env(binder_env))
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / notebook.name).is_file()
