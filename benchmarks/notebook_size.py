"""What a reader downloads: each committed notebook, executed with its outputs and widget state, against the
500 KB a notebook may weigh (a page that opens at once on GitHub or nbviewer, and a diff a reviewer can read).

Run: ``python benchmarks/notebook_size.py``.
"""

from __future__ import annotations

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
TARGET_BYTES = 500_000


def main() -> None:
    print(f"{'committed notebook, executed':<40}{'KB':>8}{'of target':>11}{'target':>9}  holds")
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        size = notebook.stat().st_size
        print(f"{notebook.name:<40}{size / 1e3:>8.0f}{size / TARGET_BYTES:>10.2f}×{TARGET_BYTES / 1e3:>6.0f} KB"
              f"  {'yes' if size <= TARGET_BYTES else 'NO'}")


if __name__ == "__main__":
    main()
