"""Every loader of a file someone else may have written, fed deep, huge, binary and linked inputs.

Each must either load the file or refuse it cleanly, naming the file: an ``AlpError`` whose message names
it, an issue or problem that does. Anything else (a ``RecursionError``, a ``ValueError`` about integer
digits, a ``UnicodeDecodeError``, a hang on a FIFO) is a bug.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from alp_nb.agents import TrustStore, load_project_agents
from alp_nb.base import AlpError
from alp_nb.loops import LoopContract
from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, read_journal

RUN_ID = "wf_fuzz_0123456789abcdef"
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _deep_json(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


def _deep_object(depth: int) -> bytes:
    return ('{"a": ' * depth + "1" + "}" * depth).encode()


def _deep_yaml(depth: int) -> bytes:
    return ("a:\n" + "".join("  " * level + "b:\n" for level in range(1, depth))).encode()


HOSTILE = st.one_of(
    st.integers(50, 3000).map(_deep_json),
    st.integers(50, 3000).map(_deep_object),
    st.integers(50, 400).map(_deep_yaml),
    st.integers(90, 6000).map(lambda digits: ("9" * digits).encode()),
    st.integers(90, 6000).map(lambda digits: f'{{"budget": {"9" * digits}}}'.encode()),
    st.sampled_from([b"[NaN]", b'{"a": 1, "a": 2}', b"{" * 10, b"\xff\xfe\x00", b"", b"\n\n", b"null"]),
    st.binary(max_size=300),
    st.text(max_size=200).map(str.encode),
)
"""Contents that break naive readers: nesting thousands deep, integers thousands of digits long, NaN,
repeated keys, torn and binary data, arbitrary text."""

PLANTS = st.sampled_from(["link-to-outside", "link-to-device", "fifo", "folder"])
"""Things that are not a regular file, planted where a file is read."""


@contextmanager
def scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="alp-fuzz-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def plant(path: Path, kind: str, outside: Path) -> None:
    """Put a non-regular file at ``path``: a link to a readable file elsewhere or to a device, a FIFO, a folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link-to-outside":
        path.symlink_to(outside)
    elif kind == "link-to-device":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


def outside_file(folder: Path, content: bytes) -> Path:
    outside = folder / "outside" / "secret.txt"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_bytes(content)
    return outside


def clean_refusal_or_load(load: Callable[[], object], path: Path) -> object:
    """``load()``; an ``AlpError`` is fine only when its message names ``path`` (by name at least)."""
    try:
        return load()
    except AlpError as error:
        assert path.name in error.message, error.message
        return error


# --- agent files ------------------------------------------------------------------------------


def agent_file(project: Path) -> Path:
    return project / ".alp" / "agents" / "fuzzed" / "agent.yaml"


def assert_agent_fails_alone(project: Path) -> None:
    agents = load_project_agents(project)
    assert agents.loaded == ()
    (failure,) = agents.failed
    assert failure.id == "fuzzed" and failure.source_path.endswith("agent.yaml") and failure.issues


@FUZZ
@given(content=HOSTILE)
def test_a_hostile_agent_file_fails_alone_with_its_issues(content):
    with scratch() as project:
        path = agent_file(project)
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        assert_agent_fails_alone(project)


@FUZZ
@given(kind=PLANTS)
def test_an_agent_file_that_is_not_a_regular_file_fails_alone(kind):
    with scratch() as project:
        plant(agent_file(project), kind, outside_file(project, b"schemaVersion: 1\n"))
        assert_agent_fails_alone(project)


# --- the trust file ---------------------------------------------------------------------------


@FUZZ
@given(content=HOSTILE)
def test_a_hostile_trust_file_trusts_nothing_and_names_itself(content):
    with scratch() as folder:
        path = folder / "trusted-agents.json"
        path.write_bytes(content)
        store = TrustStore(path)
        problem = store.problem()
        if problem is not None:
            assert str(path) in problem
            with pytest.warns(UserWarning):
                assert store.records() == ()
        else:
            store.records()


@FUZZ
@given(kind=st.sampled_from(["link-to-device", "fifo", "folder"]))
def test_a_trust_file_that_is_not_a_regular_file_trusts_nothing_and_names_itself(kind):
    with scratch() as folder:
        path = folder / "trusted-agents.json"
        plant(path, kind, outside_file(folder, b"{}"))
        problem = TrustStore(path).problem()
        assert problem is not None and str(path) in problem


# --- loop contracts ---------------------------------------------------------------------------


@FUZZ
@given(content=HOSTILE, suffix=st.sampled_from([".json", ".yaml"]))
def test_a_hostile_contract_is_refused_naming_it(content, suffix):
    with scratch() as folder:
        path = folder / f"contract{suffix}"
        path.write_bytes(content)
        result = clean_refusal_or_load(lambda: LoopContract.load(path), path)
        assert isinstance(result, AlpError)  # none of these is a whole contract


@FUZZ
@given(kind=PLANTS)
def test_a_contract_that_is_not_a_regular_file_is_refused_naming_it(kind):
    with scratch() as folder:
        path = folder / "contract.json"
        plant(path, kind, outside_file(folder, json.dumps({"name": "x"}).encode()))
        assert isinstance(clean_refusal_or_load(lambda: LoopContract.load(path), path), AlpError)


# --- the run store: journals, snapshots, events -----------------------------------------------


@FUZZ
@given(lines=st.lists(HOSTILE, min_size=1, max_size=3))
def test_a_hostile_journal_is_read_or_refused_naming_it(lines):
    with scratch() as folder:
        path = folder / f"{RUN_ID}.journal.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        with _any_warnings():
            clean_refusal_or_load(lambda: read_journal(path), path)


@FUZZ
@given(content=HOSTILE)
def test_a_hostile_snapshot_is_refused_naming_it(content):
    with scratch() as folder:
        store = RunStore(folder)
        store.paths(RUN_ID).snapshot.write_bytes(content)
        result = clean_refusal_or_load(lambda: load_run(RUN_ID, store=store), store.paths(RUN_ID).snapshot)
        assert isinstance(result, AlpError)


@FUZZ
@given(lines=st.lists(HOSTILE, min_size=1, max_size=3))
def test_hostile_events_are_read_or_refused_naming_the_file(lines):
    with scratch() as folder:
        store = RunStore(folder)
        path = store.paths(RUN_ID).events
        path.write_bytes(b"\n".join(lines) + b"\n")
        clean_refusal_or_load(lambda: store.read_events(RUN_ID), path)


@FUZZ
@given(kind=PLANTS, which=st.sampled_from(["snapshot", "journal", "events", "output"]))
def test_a_store_file_that_is_not_a_regular_file_is_refused_naming_it(kind, which):
    with scratch() as folder:
        store = RunStore(folder)
        paths = store.paths(RUN_ID)
        if which != "snapshot":
            paths.snapshot.write_text(json.dumps({"runId": RUN_ID, "taskId": "t", "workflowName": "fuzz",
                                                  "status": "completed"}))
        target = getattr(paths, which)
        plant(target, kind, outside_file(folder, b"{}\n"))
        result = clean_refusal_or_load(lambda: (load_run(RUN_ID, store=store), store.read_events(RUN_ID)), target)
        assert isinstance(result, AlpError)


@contextmanager
def _any_warnings() -> Iterator[None]:
    """A torn last line is dropped with a warning; any warning is fine here, only exceptions are not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield
