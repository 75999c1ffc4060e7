"""Trust (reference §7 "Trust store", §10 "Trust"): approvals pinned per (canonical project, id)
to the definition hash, diffs of authority, a store that never half-writes and never overwrites a
corrupt file, and the session registry that admits only what is trusted."""

from __future__ import annotations

import json
import multiprocessing
import os
import re
import stat
import threading
import warnings
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from custom_agent_files import skills_dir, write_agent, write_skill

from alp_nb.agents import (
    BUILTIN_AGENTS,
    AgentError,
    Authority,
    TrustStore,
    definition_hash,
    diff_authority,
    load_project_agents,
    project_registry,
)
from alp_nb.agents.trust import default_trust_path

BUILTINS = {definition.id: definition for definition in BUILTIN_AGENTS}
INVALID_STORE = "invalid trusted agents file at {path}; nothing is trusted until it is repaired"


@pytest.fixture
def store(tmp_path) -> TrustStore:
    return TrustStore(tmp_path / "home" / ".alp" / "trusted-agents.json")


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def migrator(project: Path, **overrides):
    """Write (or rewrite) the migrator agent file and load it."""
    write_agent(project, **overrides)
    result = load_project_agents(project)
    assert result.failed == (), result.failed
    return next(definition for definition in result.loaded if definition.id == "migrator")


def renamed(agent_id: str):
    return BUILTINS["search"].model_copy(update={"id": agent_id})


# --- diff_authority ------------------------------------------------------------------------------

def test_diff_search_to_worker_lists_gained_and_lost_authority():
    assert diff_authority(BUILTINS["search"], BUILTINS["worker"]) == [
        "model (claude): claude-sonnet-5 → claude-opus-5",
        "model (codex): gpt-5.6-terra → gpt-5.6-sol",
        "tools: +Write +Edit +WebSearch +WebFetch",
        "skills: +problem-solving +alp-debug +git +agent-memory +test-quality-guard -gkg -repomix",
        "memory read: +private:worker -private:search",
        "memory write: +private:worker -private:search",
        "workspace write: +.",
    ]


def test_diff_of_identical_definitions_is_empty():
    for definition in BUILTIN_AGENTS:
        assert diff_authority(definition, definition) == []


def test_diff_shows_a_model_change_per_runtime():
    before = BUILTINS["search"]
    after = before.model_copy(update={"model": before.model.model_copy(update={"claude": "claude-opus-5"})})
    assert diff_authority(before, after) == ["model (claude): claude-sonnet-5 → claude-opus-5"]


def test_diff_shows_lost_tools_and_workspace_reads():
    assert diff_authority(BUILTINS["worker"], BUILTINS["read-thread"])[2:4] == [
        "tools: -Write -Edit -Bash -WebSearch -WebFetch",
        "skills: -problem-solving -alp-debug -git -test-quality-guard",
    ]
    assert "workspace read: -." in diff_authority(BUILTINS["worker"], BUILTINS["read-thread"])


def test_diff_accepts_stored_authority():
    assert diff_authority(Authority.of(BUILTINS["search"]), BUILTINS["worker"]) == diff_authority(
        BUILTINS["search"], BUILTINS["worker"]
    )


def test_prompt_only_change_moves_the_hash_but_not_the_authority(project):
    before = migrator(project)
    after = migrator(project, instructions={"rules": ["A different rule."]})
    assert definition_hash(before) != definition_hash(after)
    assert diff_authority(before, after) == []


# --- the store -----------------------------------------------------------------------------------

def test_default_store_lives_under_home_alp(home):
    assert default_trust_path() == home / ".alp" / "trusted-agents.json"
    assert TrustStore().path == home / ".alp" / "trusted-agents.json"


def test_empty_store_trusts_nothing(store, project):
    assert store.records() == ()
    assert store.resolve(project, migrator(project)) == "untrusted"
    assert not store.path.exists()


def test_trust_pins_the_definition_hash(store, project):
    definition = migrator(project)
    record = store.trust(project, definition, source_path="/somewhere/agent.yaml")
    assert record.project == os.path.realpath(project)
    assert record.id == "migrator"
    assert record.definition_hash == definition_hash(definition)
    assert record.source_path == "/somewhere/agent.yaml"
    assert record.authority == Authority.of(definition)
    assert store.resolve(project, definition) == "trusted"
    assert store.records() == (record,)


def test_store_document_is_alps_camel_case_shape(store, project):
    definition = migrator(project)
    store.trust(project, definition)
    document = json.loads(store.path.read_text())
    assert document["version"] == 1
    (entry,) = document["trusted"]
    assert set(entry) >= {"project", "id", "definitionHash", "trustedAt", "authority"}
    assert entry["definitionHash"] == definition_hash(definition)
    assert set(entry["authority"]) == {
        "model", "tools", "skills", "subagents", "mcpServers", "memoryRead", "memoryWrite",
        "workspaceRead", "workspaceWrite",
    }
    assert entry["authority"]["tools"] == ["Read", "Glob", "Grep"]


def test_store_file_is_0600_and_its_directory_0700(store, project):
    store.trust(project, migrator(project))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.path.parent.stat().st_mode) == 0o700


def test_store_file_stays_0600_after_rewrites(store, project):
    definition = migrator(project)
    store.trust(project, definition)
    store.path.chmod(0o644)
    store.trust(project, renamed("other"))
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_trust_is_pinned_per_project_and_id(store, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    in_first, in_second = migrator(first), migrator(second)
    assert definition_hash(in_first) == definition_hash(in_second)
    store.trust(first, in_first)
    assert store.resolve(first, in_first) == "trusted"
    assert store.resolve(second, in_second) == "untrusted"
    store.trust(second, in_second)
    assert store.untrust(first, "migrator") is True
    assert store.resolve(first, in_first) == "untrusted"
    assert store.resolve(second, in_second) == "trusted"


def test_other_projects_record_is_untrusted_even_with_a_different_hash(store, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    store.trust(first, migrator(first))
    edited = migrator(second, capabilities={"tools": ["Read"]}, workflow=[{"id": "REPORT"}])
    assert store.resolve(second, edited) == "untrusted"


def test_project_is_keyed_by_its_real_path(store, tmp_path, project):
    link = tmp_path / "project-link"
    link.symlink_to(project)
    definition = migrator(project)
    store.trust(link, definition)
    assert store.record(project, "migrator").project == os.path.realpath(project)
    assert store.resolve(project, definition) == "trusted"
    assert store.resolve(link, definition) == "trusted"


def test_same_id_in_one_project_is_one_record_per_agent(store, project):
    store.trust(project, migrator(project))
    store.trust(project, renamed("planner"))
    assert sorted(record.id for record in store.records()) == ["migrator", "planner"]


def test_retrust_replaces_the_record(store, project):
    first = migrator(project)
    store.trust(project, first)
    second = migrator(project, instructions={"rules": ["Another rule."]})
    record = store.trust(project, second)
    assert store.records() == (record,)
    assert record.definition_hash == definition_hash(second)
    assert store.resolve(project, second) == "trusted"
    assert store.resolve(project, first) == "changed"


def test_editing_the_file_makes_a_trusted_agent_changed(store, project):
    store.trust(project, migrator(project))
    edited = migrator(project, capabilities={"tools": ["Read", "Glob", "Grep", "Bash"]})
    assert store.resolve(project, edited) == "changed"


def test_editing_the_file_back_restores_trust(store, project):
    store.trust(project, migrator(project))
    migrator(project, displayName="Migrator 2")
    assert store.resolve(project, migrator(project)) == "trusted"


def test_untrust_reports_whether_there_was_a_record(store, project):
    definition = migrator(project)
    assert store.untrust(project, "migrator") is False
    store.trust(project, definition)
    assert store.untrust(project, "migrator") is True
    assert store.untrust(project, "migrator") is False
    assert store.resolve(project, definition) == "untrusted"
    assert json.loads(store.path.read_text()) == {"version": 1, "trusted": []}


def test_untrust_keeps_the_other_records(store, project):
    store.trust(project, migrator(project))
    store.trust(project, renamed("planner"))
    store.untrust(project, "migrator")
    assert [record.id for record in store.records()] == ["planner"]


@pytest.mark.parametrize("content", [
    "{not json", "[]", '{"version": 2, "trusted": []}', '{"version": 1}', '{"version": 1, "trusted": {}}',
])
def test_corrupt_store_trusts_nothing_with_a_warning(store, project, content):
    definition = migrator(project)
    store.trust(project, definition)
    store.path.write_text(content)
    expected = INVALID_STORE.format(path=store.path)
    with pytest.warns(UserWarning, match="nothing is trusted until it is repaired") as caught:
        assert store.records() == ()
    assert str(caught[0].message) == expected
    with pytest.warns(UserWarning):
        assert store.resolve(project, definition) == "untrusted"


def test_trust_refuses_to_overwrite_a_corrupt_store(store, project):
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"{corrupt")
    with pytest.raises(AgentError) as error:
        store.trust(project, migrator(project))
    assert error.value.code == "CORRUPT_TRUST_STORE"
    assert str(store.path) in error.value.message
    assert store.path.read_bytes() == b"{corrupt"


def test_untrust_refuses_to_overwrite_a_corrupt_store(store, project):
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(b"[1, 2]")
    with pytest.raises(AgentError) as error:
        store.untrust(project, "migrator")
    assert error.value.code == "CORRUPT_TRUST_STORE"
    assert store.path.read_bytes() == b"[1, 2]"


BAD_ENTRIES = [
    {"id": "migrator", "project": "/somewhere", "trustedAt": "2025-01-01T00:00:00+00:00"},
    {"id": "migrator", "definitionHash": "", "project": "/somewhere"},
    42, "a note", None, ["a", "list"],
    {"definitionHash": "abc", "id": "migrator"},
]
"""Entries that pin nothing: no hash, an empty one, not an object, a record missing its fields."""


def test_entries_that_are_not_records_trust_nothing_and_are_kept_as_they_are(store, project):
    """Trust() and untrust() write every entry they do not replace back unchanged, in its place."""
    definition = migrator(project)
    store.trust(project, renamed("planner"))
    document = json.loads(store.path.read_text())
    planner = document["trusted"][0]
    unknown_field = dict(planner, id="auditor", note="added by a newer ALP")
    document["trusted"] = [BAD_ENTRIES[0], planner, *BAD_ENTRIES[1:], unknown_field]
    document["comment"] = "kept too"
    store.path.write_text(json.dumps(document))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [record.id for record in store.records()] == ["planner"]
        assert store.resolve(project, definition) == "untrusted"
    store.trust(project, definition)
    written = json.loads(store.path.read_text())
    assert written["comment"] == "kept too"
    assert written["trusted"][:-1] == [BAD_ENTRIES[0], planner, *BAD_ENTRIES[1:], unknown_field]
    assert written["trusted"][-1]["id"] == "migrator"
    assert store.untrust(project, "planner") is True
    assert json.loads(store.path.read_text())["trusted"] == [*BAD_ENTRIES, unknown_field, written["trusted"][-1]]
    assert store.untrust(project, "auditor") is False


def test_a_symlinked_trust_file_is_written_through_and_stays_a_link(store, project, tmp_path):
    """People keep dotfiles as links; trusting writes the file the link names, never replaces the link."""
    dotfile = tmp_path / "dotfiles" / "trusted-agents.json"
    TrustStore(dotfile).trust(project, renamed("planner"))
    store.path.parent.mkdir(parents=True, mode=0o700)
    store.path.symlink_to(dotfile)
    definition = migrator(project)
    store.trust(project, definition)
    assert store.path.is_symlink()
    assert os.readlink(store.path) == str(dotfile)
    assert [entry["id"] for entry in json.loads(dotfile.read_text())["trusted"]] == ["planner", "migrator"]
    assert stat.S_IMODE(dotfile.stat().st_mode) == 0o600
    assert store.resolve(project, definition) == "trusted"
    assert store.untrust(project, "planner") is True
    assert store.path.is_symlink()
    assert [record.id for record in TrustStore(dotfile).records()] == ["migrator"]


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666], ids=oct)
def test_a_trust_file_writable_by_group_or_others_trusts_nothing_and_is_never_written(store, project, mode):
    """As ssh treats its keys: anyone else who may write the file could have trusted anything."""
    definition = migrator(project)
    store.trust(project, definition)
    store.path.chmod(mode)
    before = store.path.read_bytes()
    problem = (f"trusted agents file at {store.path} is writable by group or others, so nothing is trusted; "
               f"run `chmod go-w {store.path}`")
    assert store.problem() == problem
    with pytest.warns(UserWarning) as caught:
        assert store.resolve(project, definition) == "untrusted"
    assert str(caught[0].message) == problem
    for change in (lambda: store.trust(project, renamed("planner")), lambda: store.untrust(project, "migrator")):
        with pytest.raises(AgentError) as error:
            change()
        assert (error.value.code, error.value.message) == ("CORRUPT_TRUST_STORE", f"{problem}; it was left untouched")
    assert store.path.read_bytes() == before
    assert stat.S_IMODE(store.path.stat().st_mode) == mode


@pytest.mark.parametrize("mode", [0o770, 0o777, 0o1777], ids=oct)
def test_a_trust_folder_writable_by_group_or_others_trusts_nothing_and_gets_no_file(store, project, mode):
    """Whoever may write the folder may swap the file; nothing is created in it, not even the lock."""
    folder = store.path.parent
    folder.mkdir(parents=True)
    folder.chmod(mode)
    problem = (f"the folder {folder} of trusted agents file {store.path} is writable by group or others, "
               f"so nothing is trusted; run `chmod go-w {folder}`")
    assert store.problem() == problem
    with pytest.raises(AgentError, match=re.escape(problem)) as error:
        store.trust(project, migrator(project))
    assert error.value.code == "CORRUPT_TRUST_STORE"
    assert list(folder.iterdir()) == []


def test_a_trust_file_linked_from_a_folder_others_may_write_trusts_nothing(store, project, tmp_path):
    """The folder holding the link counts too, since whoever writes it may point the link anywhere."""
    dotfile = tmp_path / "dotfiles" / "trusted-agents.json"
    TrustStore(dotfile).trust(project, migrator(project))
    store.path.parent.mkdir(parents=True)
    store.path.symlink_to(dotfile)
    store.path.parent.chmod(0o777)
    assert store.problem().startswith(f"the folder {store.path.parent} of trusted agents file {store.path} is ")


TRUST_DOCUMENT = '{"version": 1, "trusted": [%s]}'
ONLY_ALP_NB_REFUSES = {
    "deep": (TRUST_DOCUMENT % ("[" * 5000 + "]" * 5000), "nested more than 100 levels deep"),
    "binary": (b'{"version": 1, "trusted": ["\xff"]}', "not UTF-8 text (byte 28)"),
    "huge int": (TRUST_DOCUMENT % ("9" * 5000), "an integer of 5000 digits, over the limit of 100"),
    "nan": (TRUST_DOCUMENT % "NaN", "NaN is not a JSON number"),
    "repeated key": ('{"version": 1, "trusted": [], "trusted": []}', 'repeated key "trusted"'),
}


@pytest.mark.parametrize(("content", "why"), ONLY_ALP_NB_REFUSES.values(), ids=ONLY_ALP_NB_REFUSES.keys())
def test_a_trust_file_only_alp_nb_refuses_trusts_nothing_naming_the_file_and_why(store, project, content, why):
    """The file is neither a traceback nor read as trust; problem() says which file and why."""
    store.path.parent.mkdir(parents=True, mode=0o700)
    if isinstance(content, bytes):
        store.path.write_bytes(content)
    else:
        store.path.write_text(content)
    before = store.path.read_bytes()
    problem = f"invalid trusted agents file at {store.path}: {why}; nothing is trusted until it is repaired"
    assert store.problem() == problem
    with pytest.warns(UserWarning, match=re.escape(problem)):
        assert store.records() == ()
    with pytest.raises(AgentError, match=re.escape(f"{problem}; it was left untouched")):
        store.trust(project, migrator(project))
    assert store.path.read_bytes() == before


@contextmanager
def fed_fifo(path: Path, text: str):
    """A FIFO at ``path`` that a thread fills with ``text`` once someone opens it to read (so code that reads
    it through gets the text instead of hanging); the thread is released and joined on exit."""
    os.mkfifo(path)

    def feed() -> None:
        with suppress(BrokenPipeError), open(path, "w") as fifo:  # a reader that refuses the FIFO leaves at once
            fifo.write(text)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        yield
    finally:
        release = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        feeder.join(timeout=5)
        os.close(release)


NOT_REGULAR = "cannot read trusted agents file at {path} (it is not a regular file); nothing is trusted"


@pytest.mark.parametrize("plant", [Path.mkdir, lambda path: path.symlink_to("/dev/null")], ids=["folder", "device"])
def test_a_trust_path_that_is_a_folder_or_a_device_trusts_nothing_naming_the_file(store, project, plant):
    """Read with read_regular, so what is not a regular file (a link is followed to it) is refused."""
    store.path.parent.mkdir(parents=True, mode=0o700)
    plant(store.path)
    problem = NOT_REGULAR.format(path=store.path)
    assert store.problem() == problem
    with pytest.raises(AgentError, match=re.escape(problem)):
        store.trust(project, migrator(project))


def test_a_trust_file_that_is_a_fifo_is_refused_at_once_not_read(store, project):
    """The FIFO is refused unread, though a writer stands ready to feed it a valid document."""
    store.path.parent.mkdir(parents=True, mode=0o700)
    problem = NOT_REGULAR.format(path=store.path)
    with fed_fifo(store.path, '{"version": 1, "trusted": []}'):
        assert store.problem() == problem
        with pytest.raises(AgentError, match=re.escape(problem)):
            store.trust(project, migrator(project))
    assert stat.S_ISFIFO(store.path.lstat().st_mode)


def _trust_many(path: str, project: str, prefix: str, count: int) -> None:
    store = TrustStore(path)
    for index in range(count):
        store.trust(project, renamed(f"{prefix}-{index}"))


def test_concurrent_threads_trusting_different_agents_are_all_kept(store, project):
    threads = [
        threading.Thread(target=_trust_many, args=(str(store.path), str(project), prefix, 12))
        for prefix in ("alpha", "beta", "gamma")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ids = {record.id for record in store.records()}
    assert ids == {f"{prefix}-{index}" for prefix in ("alpha", "beta", "gamma") for index in range(12)}


def test_concurrent_processes_trusting_different_agents_are_all_kept(store, project):
    context = multiprocessing.get_context("fork")
    processes = [
        context.Process(target=_trust_many, args=(str(store.path), str(project), prefix, 10))
        for prefix in ("left", "right")
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join()
    assert [process.exitcode for process in processes] == [0, 0]
    ids = {record.id for record in store.records()}
    assert ids == {f"{prefix}-{index}" for prefix in ("left", "right") for index in range(10)}


def test_no_temporary_files_are_left_behind(store, project):
    _trust_many(str(store.path), str(project), "agent", 5)
    store.untrust(project, "agent-0")
    names = sorted(path.name for path in store.path.parent.iterdir())
    assert not [name for name in names if name.endswith(".tmp")]
    assert set(names) <= {"trusted-agents.json", "trusted-agents.json.lock"}


# --- the session registry ------------------------------------------------------------------------

def test_without_project_agents_the_registry_is_the_builtins(store, project):
    session = project_registry(project, store)
    assert session.registry.ids() == tuple(BUILTINS)
    assert session.notices == ()
    assert definition_hash(session.registry.get("main")) == definition_hash(BUILTINS["main"])


def test_untrusted_agent_is_excluded_with_an_untrusted_notice(store, project):
    migrator(project)
    session = project_registry(project, store)
    assert not session.registry.has("migrator")
    assert "migrator" not in session.registry.get("main").delegates_to
    assert session.notices == (
        "UNTRUSTED  migrator is not approved (.alp/agents/migrator/agent.yaml); "
        "run `alp-nb agent add migrator` to approve it",
    )


def test_trusted_agent_is_included_and_main_may_delegate_to_it(store, project):
    store.trust(project, migrator(project))
    session = project_registry(project, store)
    assert session.notices == ()
    assert session.registry.ids() == (*BUILTINS, "migrator")
    main = session.registry.get("main")
    assert main.delegates_to == (*BUILTINS["main"].delegates_to, "migrator")
    assert definition_hash(main) != definition_hash(BUILTINS["main"])
    assert session.registry.get("migrator").reports_to == "main"


def test_changed_agent_is_denied_with_a_notice(store, project):
    store.trust(project, migrator(project))
    migrator(project, displayName="Migrator, edited")
    session = project_registry(project, store)
    assert not session.registry.has("migrator")
    assert session.registry.get("main").delegates_to == BUILTINS["main"].delegates_to
    assert session.notices == (
        "DENIED     migrator changed after it was trusted (.alp/agents/migrator/agent.yaml); "
        "run `alp-nb agent add migrator` after reading the diff",
    )


def test_failed_file_gives_an_agent_file_notice(store, project):
    write_agent(project, "broken", capabilities={"subagents": ["prober"], "mcpServers": ["docs"]})
    session = project_registry(project, store)
    assert not session.registry.has("broken")
    assert session.notices == (
        "AGENT-FILE broken did not load (.alp/agents/broken/agent.yaml): "
        "capabilities.subagents: subagent `prober` is not in the subagent catalog; "
        "capabilities.mcpServers: mcp server `docs` is not trusted on this machine",
    )


def test_only_trusted_agents_enter_among_several(store, project):
    store.trust(project, migrator(project))
    write_agent(project, "planner")
    write_agent(project, "auditor")
    session = project_registry(project, store)
    assert session.registry.ids()[len(BUILTINS):] == ("migrator",)
    assert [notice.split()[0:2] for notice in session.notices] == [["UNTRUSTED", "auditor"],
                                                                   ["UNTRUSTED", "planner"]]


def test_the_session_registry_says_whether_each_project_agent_is_trusted_untrusted_or_changed(store, project):
    store.trust(project, migrator(project))
    store.trust(project, write_and_load(project, "auditor"))
    write_agent(project, "auditor", displayName="Auditor, edited")
    write_agent(project, "planner")
    session = project_registry(project, store)
    assert dict(session.statuses) == {"auditor": "changed", "migrator": "trusted", "planner": "untrusted"}
    assert project_registry(project, store, candidates=True).statuses == {}


def write_and_load(project: Path, agent_id: str):
    write_agent(project, agent_id)
    return next(definition for definition in load_project_agents(project).loaded if definition.id == agent_id)


def test_candidate_registry_includes_every_loaded_agent(store, project):
    migrator(project)
    write_agent(project, "planner")
    write_skill(skills_dir(project, "review"), "house")
    session = project_registry(project, store, candidates=True)
    assert session.notices == ()
    assert session.registry.ids() == (*BUILTINS, "migrator", "planner")
    assert session.registry.get("main").delegates_to[-2:] == ("migrator", "planner")
    assert "house" in session.registry.get("review").capabilities.skills
    assert not project_registry(project, store).registry.has("migrator")


def test_trusted_overlay_substitutes_the_builtin(store, project):
    write_skill(skills_dir(project, "review"), "house")
    (overlay,) = load_project_agents(project).overlays
    store.trust(project, overlay.definition)
    session = project_registry(project, store)
    assert session.notices == ()
    review = session.registry.get("review")
    assert review.capabilities.skills == (*BUILTINS["review"].capabilities.skills, "house")
    assert definition_hash(review) == definition_hash(overlay.definition)
    assert session.registry.get("main").delegates_to == BUILTINS["main"].delegates_to


def test_untrusted_overlay_leaves_the_shipped_skills(store, project):
    write_skill(skills_dir(project, "review"), "house")
    session = project_registry(project, store)
    review = session.registry.get("review")
    assert review.capabilities.skills == BUILTINS["review"].capabilities.skills
    assert definition_hash(review) == definition_hash(BUILTINS["review"])
    assert session.notices == (
        "UNTRUSTED  review is not approved (.alp/agents/review/skills); run `alp-nb agent add review` to approve it",
    )


def test_overlay_needs_its_own_trust(store, project):
    write_skill(skills_dir(project, "review"), "house")
    store.trust(project, migrator(project))
    session = project_registry(project, store)
    assert session.registry.has("migrator")
    assert "house" not in session.registry.get("review").capabilities.skills


def test_changed_overlay_is_denied(store, project):
    overlay_skills = skills_dir(project, "review")
    write_skill(overlay_skills, "house")
    store.trust(project, load_project_agents(project).overlays[0].definition)
    write_skill(overlay_skills, "style")
    session = project_registry(project, store)
    assert "house" not in session.registry.get("review").capabilities.skills
    assert session.notices[0].startswith("DENIED     review changed after it was trusted (.alp/agents/review/skills)")


def test_untrust_removes_the_agent_from_the_registry(store, project):
    store.trust(project, migrator(project))
    assert project_registry(project, store).registry.has("migrator")
    store.untrust(project, "migrator")
    session = project_registry(project, store)
    assert not session.registry.has("migrator")
    assert definition_hash(session.registry.get("main")) == definition_hash(BUILTINS["main"])


def test_project_registry_defaults_to_the_home_store(home, project):
    definition = migrator(project)
    TrustStore().trust(project, definition)
    assert project_registry(project).registry.has("migrator")


def test_corrupt_store_admits_no_custom_agent(store, project):
    store.trust(project, migrator(project))
    store.path.write_text("{")
    with pytest.warns(UserWarning, match="nothing is trusted"):
        session = project_registry(project, store)
    assert not session.registry.has("migrator")
