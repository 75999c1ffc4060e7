"""Trust (reference §7 "Trust store", §10 "Trust"): approvals pinned per (canonical project, id)
to the definition hash, diffs of authority, a store that never half-writes and never overwrites a
corrupt file, and the session registry that admits only what is trusted."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import threading
import warnings
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
    '{"version": 1, "trusted": [{"definitionHash": "abc", "id": "migrator"}]}',
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


def test_record_without_definition_hash_is_dropped(store, project):
    definition = migrator(project)
    store.trust(project, renamed("planner"))
    document = json.loads(store.path.read_text())
    hashless = dict(document["trusted"][0], id="migrator", project=os.path.realpath(project))
    del hashless["definitionHash"]
    document["trusted"].append(hashless)
    store.path.write_text(json.dumps(document))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = store.records()
    assert [record.id for record in records] == ["planner"]
    assert store.resolve(project, definition) == "untrusted"


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
