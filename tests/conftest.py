"""Shared fixtures: no test may read or write the real ``~/.alp``; and the picture kind only the tests register
(``gallery_fixtures``), so every test that finds pictures by registration meets it."""

import gallery_fixtures  # noqa: F401  (registers its picture kind)
import pytest

from alp_nb.runtime import RunStore


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """A fresh ``$HOME`` (where the trust store lives) for every test."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def store(tmp_path):
    """A run store of the test's own (a test that needs another kind of store names it otherwise)."""
    return RunStore(tmp_path / "runs")
