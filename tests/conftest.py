"""Shared fixtures: no test may read or write the real ``~/.alp``."""

import pytest


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """A fresh ``$HOME`` (where the trust store lives) for every test."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder
