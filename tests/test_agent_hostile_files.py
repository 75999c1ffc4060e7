"""A project folder read as hostile: whatever one agent's files throw at the reader (a link to
``/proc/self/mem``, a FIFO, no permission, a document nested a thousand deep or holding a 5,000-digit integer)
fails that agent alone, with an issue naming the file; the other agents load, and the command line lists them.

The sandbox may run as root, where ``chmod 000`` stops no read, so "unreadable" is made to hold for root too:
each such test also patches the ``os`` calls that reach the path to raise ``PermissionError``, as they would
for anyone else.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from custom_agent_files import skills_dir, with_skill_tool, write_agent, write_skill

from alp_nb.agents import AgentError, builtin_registry, load_project_agents
from alp_nb.cli import main
from alp_nb.workflow import ExecutionStore

DENIED_CALLS = ("open", "stat", "lstat", "scandir", "listdir")


@contextmanager
def unreadable(path: Path, *, inside: bool) -> Iterator[None]:
    """``path`` made unreadable: ``chmod 000``, and, for root, the ``os`` calls it stops for anyone else raise
    ``PermissionError``: opening a file; listing a folder or reaching anything below it (``inside``)."""
    denied = os.fspath(path)

    def blocked(name: str, where: str) -> bool:
        if inside:
            return (name in ("scandir", "listdir") and where == denied) or where.startswith(denied + os.sep)
        return name == "open" and where == denied

    def guard(call: Callable[..., object], name: str) -> Callable[..., object]:
        def checked(target: object = ".", *args: object, **kwargs: object) -> object:
            if isinstance(target, str | os.PathLike) and blocked(name, os.fspath(target)):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), target)
            return call(target, *args, **kwargs)

        return checked

    mode = path.stat().st_mode
    with pytest.MonkeyPatch.context() as patch:
        for name in DENIED_CALLS:
            patch.setattr(os, name, guard(getattr(os, name), name))
        os.chmod(denied, 0)
        try:
            yield
        finally:
            os.chmod(denied, mode)


def only_failure(project: Path) -> tuple[str, tuple[str, ...]]:
    """Load ``project``, which holds a valid ``migrator`` beside one hostile agent; that agent's failure."""
    result = load_project_agents(project)
    assert [definition.id for definition in result.loaded] == ["migrator"]
    (failure,) = result.failed
    return failure.id, failure.issues


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project holding the valid agent ``migrator``."""
    root = tmp_path / "project"
    write_agent(root, "migrator")
    return root.resolve()


def test_an_agent_yaml_linked_to_proc_self_mem_fails_alone(project):
    folder = project / ".alp" / "agents" / "evil"
    folder.mkdir()
    (folder / "agent.yaml").symlink_to("/proc/self/mem")
    assert only_failure(project) == ("evil", ("agent.yaml is a symbolic link, which alp_nb does not follow",))


def test_an_agent_yaml_that_is_a_fifo_fails_alone_at_once(project):
    folder = project / ".alp" / "agents" / "piped"
    folder.mkdir()
    os.mkfifo(folder / "agent.yaml")
    assert only_failure(project) == ("piped", ("agent.yaml is not a regular file",))


def test_an_unreadable_agent_yaml_fails_alone(project):
    """Unreadable as root too: ``os.open`` of the file raises ``PermissionError``."""
    path = write_agent(project, "locked")
    with unreadable(path, inside=False):
        assert only_failure(project) == ("locked", ("agent.yaml cannot be read: Permission denied",))


def test_an_unreadable_agent_folder_fails_alone(project):
    """Unreadable as root too: every ``os`` call into the folder raises ``PermissionError``."""
    folder = write_agent(project, "locked").parent
    with unreadable(folder, inside=True):
        assert only_failure(project) == ("locked", ("agent.yaml cannot be read: Permission denied",))


def test_an_unreadable_skills_folder_fails_alone(project):
    """Unreadable as root too: listing the folder raises ``PermissionError``."""
    write_agent(project, "skilled", capabilities=with_skill_tool())
    skills = skills_dir(project, "skilled")
    write_skill(skills, "house")
    with unreadable(skills, inside=True):
        assert only_failure(project) == ("skilled", ("skills cannot be read: Permission denied",))


def test_an_unreadable_agents_folder_is_one_clear_error(project):
    """Unreadable as root too: listing ``.alp/agents`` raises ``PermissionError``."""
    agents = project / ".alp" / "agents"
    with unreadable(agents, inside=True), pytest.raises(AgentError) as error:
        load_project_agents(project)
    assert error.value.code == "UNREADABLE_AGENTS_DIRECTORY"
    assert error.value.message == f"cannot read the agents folder {agents}: Permission denied"


def write_hostile_siblings(project: Path) -> dict[str, str]:
    """Every hostile agent file at once beside ``migrator``; the issue each must fail with."""
    write_agent(project, "deep", text="schemaVersion: " + "[" * 1000 + "]" * 1000 + "\n")
    write_agent(project, "huge", text="schemaVersion: " + "9" * 5000 + "\n")
    linked, piped = project / ".alp" / "agents" / "linked", project / ".alp" / "agents" / "piped"
    linked.mkdir()
    (linked / "agent.yaml").symlink_to("/proc/self/mem")
    piped.mkdir()
    os.mkfifo(piped / "agent.yaml")
    return {
        "deep": "yaml: nested more than 100 levels deep",
        "huge": "yaml: an integer of 5000 digits, over the limit of 100 (line 1, column 16)",
        "linked": "agent.yaml is a symbolic link, which alp_nb does not follow",
        "piped": "agent.yaml is not a regular file",
    }


def test_hostile_agent_files_each_fail_alone_and_the_rest_load(project):
    expected = write_hostile_siblings(project)
    result = load_project_agents(project)
    assert [definition.id for definition in result.loaded] == ["migrator"]
    assert {failure.id: failure.issues for failure in result.failed} == {
        agent_id: (issue,) for agent_id, issue in expected.items()
    }


@pytest.mark.parametrize("command", [["agent", "list"], ["agent", "show", "migrator"], ["agent", "test", "--all"]])
def test_agent_commands_beside_hostile_agent_files_answer_for_the_rest(project, capsys, command):
    write_hostile_siblings(project)
    code = main([*command, "--project", str(project)])
    out, err = capsys.readouterr()
    assert code in (0, 1)
    assert err == ""
    assert "migrator" in out


def test_context_status_beside_hostile_agent_files_reads_the_execution(project, tmp_path, capsys):
    write_hostile_siblings(project)
    root = tmp_path / "executions"
    ExecutionStore(root).prepare(builtin_registry(), "search", workspace=project, execution_id="exec_one")
    code = main(["context", "status", "exec_one", "--root", str(root), "--project", str(project)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "exec_one" in out
