"""A run store that someone else prepared: links, FIFOs, folders, unreadable files and hostile JSON in it are
refused with one line naming the file, and nothing inside or outside the store is read through a link or written.

The sandbox runs the tests as root, where ``chmod 000`` does not stop a read. So a file "we may not open" is made
so by patching ``os.open`` to raise PermissionError for that one path (what the kernel does for another user), and
a read-only folder by patching ``os.access`` (what the run store asks before a resume writes); as another user the
same tests hold with real permissions.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import re
from pathlib import Path

import pytest
from runtime_support import interrupted_review, launch

from alp_nb.cli import main
from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, WorkflowInputError, run_workflow

CHANGES = {"changes": "rename parse() to load()"}
REAL_OPEN = os.open


def tree(folder: Path) -> dict[str, tuple]:
    """Everything under ``folder`` as it is on disk, links not followed: what a refusal must leave unchanged."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            found[str(path)] = ("link", os.readlink(path))
        elif path.is_file():
            found[str(path)] = ("file", path.read_bytes(), info.st_mtime_ns, info.st_mode)
        else:
            found[str(path)] = ("other", info.st_mode)
    return found


@pytest.fixture
def review(tmp_path) -> tuple[RunStore, str]:
    """A completed review-changes run (a workflow the command line knows), with a folder outside its store."""
    store = RunStore(tmp_path / "runs")
    (tmp_path / "outside").mkdir()
    return store, asyncio.run(run_workflow("review-changes", CHANGES, store=store)).run_id


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(["workflow", *argv])
    return code, capsys.readouterr().err


def deny_open(monkeypatch, denied: Path) -> None:
    """``os.open`` of ``denied`` fails as it would for a user without permission on it."""
    def guarded_open(path, flags, mode=0o777, *, dir_fd=None):
        if os.fspath(path) == str(denied):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return REAL_OPEN(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", guarded_open)


# --- item 1: links and other non-regular files -------------------------------------------------------


def test_a_resume_through_planted_links_is_refused_and_nothing_outside_the_store_is_touched(review, capsys):
    store, run_id = review
    outside = store.root.parent / "outside"
    (outside / "id_rsa").write_text("a key\n")
    (outside / "profile").write_text("a profile\n")
    paths = store.paths(run_id)
    for path, target in ((paths.journal, outside / "id_rsa"), (paths.events, outside / "profile"),
                         (paths.lock, outside / "made-by-the-lock")):
        path.unlink()
        path.symlink_to(target)
    before = tree(store.root.parent)
    code, err = cli(capsys, "resume", run_id, "--store", str(store.root))
    assert code == 2 and err.count("\n") == 1
    assert err == f"alp-nb: run store file {paths.journal} is a symbolic link, which alp_nb does not follow; " \
                  "it was neither read nor written\n"
    assert tree(store.root.parent) == before and not (outside / "made-by-the-lock").exists()


@pytest.mark.parametrize("name", ["snapshot", "journal", "events", "output", "lock", "last_run"])
def test_a_resume_refuses_any_run_file_that_is_a_link_naming_it_and_writes_nothing(tmp_path, name):
    store = RunStore(tmp_path / "runs")
    first = launch("sequence", store)
    path = store.root / "last_run.txt" if name == "last_run" else getattr(store.paths(first.run_id), name)
    target = tmp_path / "outside.txt"
    target.write_text(path.read_text())  # the same content: only the link makes it unsafe
    path.unlink()
    path.symlink_to(target)
    before = tree(tmp_path)
    with pytest.raises(WorkflowInputError) as refused:
        launch("sequence", store, resume=first.run_id)
    assert refused.value.code == "UNSAFE_STORE_FILE" and str(path) in refused.value.message
    assert "symbolic link" in refused.value.message and tree(tmp_path) == before


@pytest.mark.parametrize("name", ["snapshot", "journal", "output"])
def test_show_refuses_a_linked_snapshot_journal_or_output_naming_it(review, capsys, name):
    store, run_id = review
    path = getattr(store.paths(run_id), name)
    target = store.root.parent / "outside" / "elsewhere.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    code, err = cli(capsys, "show", run_id, "--store", str(store.root))
    assert code == 2 and err.count("\n") == 1 and f"{path} is a symbolic link" in err


@pytest.mark.parametrize("name", ["journal", "events"])
def test_a_fifo_in_place_of_a_run_file_is_refused_at_once_not_waited_on(review, capsys, name):
    store, run_id = review
    path = getattr(store.paths(run_id), name)
    path.unlink()
    os.mkfifo(path)
    before = tree(store.root)
    code, err = cli(capsys, "resume", run_id, "--store", str(store.root))
    assert code == 2 and err == f"alp-nb: run store file {path} is not a regular file; it was neither read nor " \
                                "written\n"
    assert tree(store.root) == before


@pytest.mark.parametrize("name", ["snapshot", "output", "last_run"])
def test_a_file_replaced_whole_refuses_a_planted_link_instead_of_swapping_it(tmp_path, name):
    store = RunStore(tmp_path / "runs")
    first = launch("sequence", store)
    path = store.root / "last_run.txt" if name == "last_run" else getattr(store.paths(first.run_id), name)
    target = tmp_path / "elsewhere"
    target.write_text("kept")
    snapshot = store.read_snapshot(first.run_id)
    path.unlink()
    path.symlink_to(target)
    write = {"snapshot": lambda: store.write_snapshot(snapshot),
             "output": lambda: store.write_output(first.run_id, {"result": 1}),
             "last_run": lambda: store.set_last_run(first.run_id)}[name]
    with pytest.raises(WorkflowInputError) as refused:
        write()
    assert refused.value.code == "UNSAFE_STORE_FILE" and str(path) in refused.value.message
    assert path.is_symlink() and target.read_text() == "kept"


# --- item 10: what used to end in a traceback ----------------------------------------------------------


@pytest.mark.parametrize(("args", "problem"), [
    ('{"changes": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested more than 100 levels deep"),
    ('{"changes": ' + "[" * 150 + "]" * 150 + "}", "nested more than 100 levels deep"),
    ('{"changes": "x", "n": ' + "9" * 200 + "}", "an integer of 200 digits, over the limit of 100"),
    ('{"changes": NaN}', "NaN is not a JSON number"),
    ('{"changes": "x", "changes": "y"}', 'repeated key "changes"'),
], ids=["100000 deep", "150 deep", "200 digits", "NaN", "repeated key"])
def test_cli_run_refuses_hostile_args_in_one_line_and_writes_nothing(tmp_path, capsys, args, problem):
    code, err = cli(capsys, "run", "review-changes", "--args", args, "--store", str(tmp_path / "runs"))
    assert (code, err) == (2, f"alp-nb: --args is not valid JSON: {problem}\n")
    assert not (tmp_path / "runs").exists()


def nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(("value", "problem"), [
    (nested(150), "nested more than 100 levels deep"),
    (nested(100_000), "nested too deeply"),
    (10**200, "an integer of 201 digits"),
    (10**5000, "must hold only JSON values"),
], ids=["150 deep", "100000 deep", "201 digits", "5001 digits"])
def test_args_given_from_python_that_no_run_could_store_are_refused(tmp_path, value, problem):
    with pytest.raises(WorkflowInputError) as refused:
        launch("sequence", RunStore(tmp_path / "runs"), args={"deep": value})
    assert refused.value.code == "INVALID_ARGS" and problem in refused.value.message
    assert not (tmp_path / "runs").exists()


SHOW_AND_RESUME = [("show", "journal"), ("show", "lock"), ("resume", "journal"), ("resume", "events"),
                   ("resume", "lock")]


@pytest.mark.parametrize(("command", "name"), SHOW_AND_RESUME)
def test_a_run_file_we_may_not_open_is_named_in_one_line_and_nothing_is_written(tmp_path, capsys, monkeypatch,
                                                                              command, name):
    """The run died mid-way (its snapshot says running), so ``show`` opens the lock too. ``os.open`` of the file is
    refused as ``chmod 000`` would refuse it for another user (see the module docstring)."""
    store = interrupted_review(tmp_path / "runs")
    run_id = store.last_run()
    path = getattr(store.paths(run_id), name)
    before = tree(tmp_path)
    deny_open(monkeypatch, path)
    code, err = cli(capsys, command, run_id, "--store", str(store.root))
    assert code == 2 and err.count("\n") == 1
    assert re.fullmatch(f"alp-nb: cannot (open|read) run store file {re.escape(str(path))}: Permission denied\n", err)
    assert tree(tmp_path) == before


@pytest.mark.parametrize(("command", "name"), SHOW_AND_RESUME)
def test_a_folder_in_place_of_a_run_file_is_named_in_one_line_and_nothing_is_written(tmp_path, capsys, command,
                                                                                    name):
    store = interrupted_review(tmp_path / "runs")
    run_id = store.last_run()
    path = getattr(store.paths(run_id), name)
    path.unlink()
    path.mkdir()
    before = tree(tmp_path)
    code, err = cli(capsys, command, run_id, "--store", str(store.root))
    assert (code, err) == (2, f"alp-nb: run store file {path} is not a regular file; it was neither read nor "
                              "written\n")
    assert tree(tmp_path) == before


def test_a_resume_in_a_read_only_store_is_refused_before_it_writes_anything(tmp_path, capsys, monkeypatch):
    """As another user the folder is made read-only for real; as root (who may write anyway) ``os.access``, which
    the store asks before a resume writes, is made to answer as it would for another user."""
    store = interrupted_review(tmp_path / "runs")
    run_id = store.last_run()
    before = tree(tmp_path)
    if os.geteuid() == 0:
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode, **kw: (
            not mode & os.W_OK if os.fspath(path) == str(store.root) else real_access(path, mode, **kw)))
    else:
        store.root.chmod(0o555)
    try:
        code, err = cli(capsys, "resume", run_id, "--store", str(store.root))
        shown, _ = cli(capsys, "show", run_id, "--store", str(store.root))  # reading needs no write
    finally:
        store.root.chmod(0o700)
    assert (code, err) == (2, f"alp-nb: cannot write to run store {store.root}: it is read-only for this user\n")
    assert shown == 0 and tree(tmp_path) == before


HOSTILE_VALUES = {"deep": "[" * 150 + "]" * 150, "huge int": "9" * 200, "NaN": "NaN"}
PROBLEMS = {"deep": "nested more than 100 levels deep", "huge int": "an integer of 200 digits",
            "NaN": "NaN is not a JSON number", "binary": "not UTF-8 text"}


def hostile(template: str, kind: str) -> bytes:
    """``template`` (JSON) with its ``"HOSTILE"`` string replaced by the hostile value; or binary junk."""
    return b"\xff\xfe\x00junk" if kind == "binary" else template.replace('"HOSTILE"', HOSTILE_VALUES[kind]).encode()


@pytest.mark.parametrize("kind", ["deep", "huge int", "NaN", "binary"])
def test_a_hostile_snapshot_is_corrupt_run_naming_the_file(tmp_path, kind):
    """The hostile value sits in ``args``, which takes any JSON, so only the reader can refuse it."""
    store = RunStore(tmp_path / "runs")
    first = launch("sequence", store)
    path = store.paths(first.run_id).snapshot
    snapshot = json.loads(path.read_text())
    path.write_bytes(hostile(json.dumps({**snapshot, "args": {"x": "HOSTILE"}}), kind))
    with pytest.raises(WorkflowInputError) as refused:
        load_run(first.run_id, store=store)
    assert refused.value.code == "CORRUPT_RUN" and refused.value.message.startswith(f"{path.name}: {PROBLEMS[kind]}")


@pytest.mark.parametrize("kind", ["deep", "huge int", "NaN", "binary"])
def test_a_hostile_output_is_corrupt_run_naming_the_file(tmp_path, kind):
    store = RunStore(tmp_path / "runs")
    first = launch("sequence", store)
    path = store.paths(first.run_id).output
    path.write_bytes(hostile('{"result": "HOSTILE"}', kind))
    with pytest.raises(WorkflowInputError) as refused:
        store.read_output(first.run_id)
    assert refused.value.code == "CORRUPT_RUN" and refused.value.message.startswith(f"{path.name}: {PROBLEMS[kind]}")


@pytest.mark.parametrize("kind", ["deep", "huge int", "NaN", "binary"])
def test_a_hostile_event_line_in_the_middle_is_corrupt_run_naming_the_line(tmp_path, kind):
    store = RunStore(tmp_path / "runs")
    first = launch("sequence", store)
    path = store.paths(first.run_id).events
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = hostile(lines[1].decode().rstrip().removesuffix("}") + ', "x": "HOSTILE"}', kind) + b"\n"
    path.write_bytes(b"".join(lines))
    with pytest.raises(WorkflowInputError) as refused:
        store.read_events(first.run_id)
    assert refused.value.code == "CORRUPT_RUN"
    assert refused.value.message.startswith(f"{path.name} line 2: {PROBLEMS[kind]}")
