"""``alp-nb --version``: ``alp-nb <version>`` (the installed distribution's), exit 0, and no layer loaded."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version


def test_version_prints_the_installed_version_and_loads_no_layer():
    script = ("import sys\nfrom alp_nb.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit as exit:\n"
              "    print(exit.code)\n"
              "print(sorted({name.split('.')[1] for name in sys.modules if name.startswith('alp_nb.')}))")
    shown = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert shown.stdout.splitlines() == [f"alp-nb {version('alp_nb')}", "0", "['base', 'cli']"]


def test_the_command_itself_answers_version():
    shown = subprocess.run([sys.executable, "-m", "alp_nb", "--version"], capture_output=True, text=True, check=False)
    assert (shown.returncode, shown.stdout, shown.stderr) == (0, f"alp-nb {version('alp_nb')}\n", "")
