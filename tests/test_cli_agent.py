"""``alp-nb agent list|show|test|add|untrust`` (reference §7 "alp agent add flow", §9, §10 "Trust" and
"Agent-test tooling"), with alp_nb's deliberate differences: ``list`` shows built-ins, ``show`` prints
the workflow, only tier 1 exists, and messages name ``alp-nb agent add``."""

from __future__ import annotations

import builtins
import io
import json
import sys
from pathlib import Path

import pytest
from custom_agent_files import skills_dir, write_agent, write_skill

from alp_nb.agents import (
    BUILTIN_AGENTS,
    TIER1_CHECK_IDS,
    TrustStore,
    definition_hash,
    load_project_agents,
    short_hash,
)
from alp_nb.cli import main
from alp_nb.viz.views import agent_reports as views

BUILTINS = {definition.id: definition for definition in BUILTIN_AGENTS}
NEVER_TRUSTED = "never trusted — run `alp-nb agent add` to approve it"
EDITED = "edited since it was trusted — denied until `alp-nb agent add` approves it again"
WRITE_ROOT_ISSUE = ("capabilities.workspace.writeRoots: `.` is refused; workspace write is not available to a "
                    "custom agent until approval exists")


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


@pytest.fixture
def store(home) -> TrustStore:
    return TrustStore(home / ".alp" / "trusted-agents.json")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal(monkeypatch):
    """A stdin that is a terminal; ``answer(text)`` sets what the principal types, and the prompts
    asked are kept in ``prompts``."""
    prompts: list[str] = []
    answers: list[str] = []

    def fake_input(prompt: str = "") -> str:
        prompts.append(prompt)
        return answers.pop(0)

    monkeypatch.setattr(sys, "stdin", FakeTerminal())
    monkeypatch.setattr(builtins, "input", fake_input)

    class Terminal:
        def answer(self, text: str) -> None:
            answers.append(text)

    terminal = Terminal()
    terminal.prompts = prompts
    return terminal


@pytest.fixture
def no_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("yes\n"))

    def fail_input(prompt: str = "") -> str:
        raise AssertionError("the CLI must not ask without a terminal")

    monkeypatch.setattr(builtins, "input", fail_input)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def agent(capsys, project: Path, *argv: str) -> tuple[int, str, str]:
    return run(capsys, "agent", *argv, "--project", str(project))


def row(status: str, agent_id: str, detail: str) -> str:
    return f"{status:<11}{agent_id:<20}{detail}"


def current(project: Path, agent_id: str = "migrator"):
    result = load_project_agents(project)
    return next(definition for definition in (*result.loaded, *(o.definition for o in result.overlays))
                if definition.id == agent_id)


def builtin_rows() -> list[str]:
    return [row("BUILT-IN", definition.id, short_hash(definition_hash(definition))) for definition in BUILTIN_AGENTS]


# --- list ----------------------------------------------------------------------------------------

def test_list_without_agent_files_shows_builtins_and_none_and_exits_0(capsys, project):
    code, out, _ = agent(capsys, project, "list")
    assert code == 0
    assert out.splitlines() == [
        *builtin_rows(),
        f"NONE     no agent file under {project / '.alp' / 'agents'}",
    ]


def test_list_marks_an_untrusted_agent_and_exits_1(capsys, project):
    write_agent(project)
    code, out, _ = agent(capsys, project, "list")
    assert code == 1
    assert out.splitlines() == [*builtin_rows(), row("UNTRUSTED", "migrator", NEVER_TRUSTED)]


def test_list_marks_a_trusted_agent_with_its_hash_and_exits_0(capsys, project, store):
    write_agent(project)
    store.trust(project, current(project))
    code, out, _ = agent(capsys, project, "list")
    assert code == 0
    assert out.splitlines()[-1] == row("TRUSTED", "migrator", short_hash(definition_hash(current(project))))


def test_list_marks_an_edited_agent_changed_and_exits_1(capsys, project, store):
    write_agent(project)
    store.trust(project, current(project))
    write_agent(project, displayName="Migrator v2")
    code, out, _ = agent(capsys, project, "list")
    assert code == 1
    assert out.splitlines()[-1] == row("CHANGED", "migrator", EDITED)


def test_list_marks_a_broken_file_unloadable_with_its_issues(capsys, project):
    write_agent(project, "broken", capabilities={"workspace": {"writeRoots": ["."]}, "subagents": ["prober"]})
    code, out, _ = agent(capsys, project, "list")
    assert code == 1
    assert out.splitlines()[-1] == row(
        "UNLOADABLE", "broken",
        "capabilities.subagents: subagent `prober` is not in the subagent catalog; " + WRITE_ROOT_ISSUE,
    )


def test_list_shows_loaded_then_overlays_then_failures(capsys, project, store):
    write_agent(project, "planner")
    write_agent(project, "broken", schemaVersion=2)
    write_skill(skills_dir(project, "review"), "house")
    write_agent(project)
    code, out, _ = agent(capsys, project, "list")
    assert code == 1
    statuses = [(line[:11].strip(), line[11:31].strip()) for line in out.splitlines()[len(BUILTINS):]]
    assert statuses == [("UNTRUSTED", "migrator"), ("UNTRUSTED", "planner"), ("UNTRUSTED", "review"),
                        ("UNLOADABLE", "broken")]


def test_list_exits_0_when_every_project_row_is_trusted(capsys, project, store):
    write_agent(project)
    write_skill(skills_dir(project, "review"), "house")
    store.trust(project, current(project))
    assert agent(capsys, project, "list")[0] == 1
    store.trust(project, current(project, "review"))
    code, out, _ = agent(capsys, project, "list")
    assert code == 0
    assert "NONE" not in out


def test_list_json_shape(capsys, project, store):
    write_agent(project)
    write_agent(project, "broken", schemaVersion=2)
    code, out, _ = agent(capsys, project, "list", "--json")
    assert code == 1
    document = json.loads(out)
    assert document["project"] == str(project)
    rows = document["agents"]
    assert [entry["id"] for entry in rows] == [*BUILTINS, "migrator", "broken"]
    assert rows[0] == {"id": "main", "status": "built-in", "hash": definition_hash(BUILTINS["main"]),
                       "sourcePath": None}
    assert rows[-2] == {"id": "migrator", "status": "untrusted", "hash": definition_hash(current(project)),
                        "sourcePath": str(project / ".alp/agents/migrator/agent.yaml")}
    assert rows[-1]["status"] == "unloadable"
    assert rows[-1]["sourcePath"] == str(project / ".alp/agents/broken/agent.yaml")
    assert rows[-1]["issues"] == ["schemaVersion: Input should be 1"]
    assert "hash" not in rows[-1]
    assert out.startswith('{\n  "project"')


def test_list_json_without_agent_files_exits_0(capsys, project):
    code, out, _ = agent(capsys, project, "list", "--json")
    assert code == 0
    assert [entry["status"] for entry in json.loads(out)["agents"]] == ["built-in"] * 9


# --- show ----------------------------------------------------------------------------------------

def test_show_builtin_prints_its_fields_and_workflow(capsys, project):
    code, out, _ = agent(capsys, project, "show", "search")
    assert code == 0
    lines = out.splitlines()
    assert lines[:14] == [
        "AGENT    search — Search 🔍",
        "  source          built-in",
        "  reports to      main",
        "  delegates to    —",
        "  tools           Read, Glob, Grep, Bash, Skill",
        "  skills          gkg, repomix",
        "  memory read     shared, project:*, private:search",
        "  memory write    private:search",
        "  workspace       read . · write none",
        "  workflow        retrieve-code",
        "    VALIDATE_WORKSPACE  Read, Glob",
        "    RETRIEVE            Read, Glob, Grep, Bash",
        "    VERIFY              Read, Glob, Grep, Bash",
        "    REPORT              no tools  (terminal → output code-search-result)",
    ]
    assert "  trust" not in out
    assert lines[14:] == [
        "",
        "  skill resolve order (first match wins)",
        "    1. the shipped skill catalog",
        "",
        f"  identity renders to {len(_rendered(BUILTINS['search']))} chars",
    ]


def _rendered(definition) -> str:
    from alp_nb.agents import render_instructions

    return render_instructions(definition.instructions)


def test_show_memory_only_role_prints_none_and_dashes(capsys, project):
    code, out, _ = agent(capsys, project, "show", "titling")
    assert code == 0
    assert "  tools           —" in out.splitlines()
    assert "  workspace       read none · write none" in out.splitlines()


def test_show_project_agent_prints_its_source_and_trust(capsys, project, store):
    write_agent(project)
    digest = short_hash(definition_hash(current(project)))
    code, out, _ = agent(capsys, project, "show", "migrator")
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == [
        "AGENT    migrator — Migrator",
        "  source          .alp/agents/migrator/agent.yaml",
        f"  trust           untrusted ({digest})",
    ]
    assert "  workflow        migrator-workflow" in lines
    assert "    REPORT  no tools  (terminal → output migrator-result)" in lines
    store.trust(project, current(project))
    assert f"  trust           trusted ({digest})" in agent(capsys, project, "show", "migrator")[1]
    write_agent(project, displayName="Edited")
    edited = short_hash(definition_hash(current(project)))
    assert f"  trust           changed ({edited})" in agent(capsys, project, "show", "migrator")[1]


def test_show_overlay_prints_its_source_resolve_order_and_project_skills(capsys, project):
    overlay_skills = skills_dir(project, "review")
    write_skill(overlay_skills, "house")
    code, out, _ = agent(capsys, project, "show", "review")
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "  source          built-in + skill overlay (.alp/agents/review/skills)"
    assert lines[2].startswith("  trust           untrusted (")
    assert "  skills          code-review, alp-scenario, security-scan, test-quality-guard, house" in lines
    order = lines.index("  skill resolve order (first match wins)")
    assert lines[order + 1:order + 3] == [
        f"    1. {overlay_skills}",
        "    2. the shipped skill catalog",
    ]
    assert lines[order + 3] == "  project skills"
    assert lines[order + 4] == f"    {'house':<24}{'directory':<10}{overlay_skills / 'house'}"


def test_show_custom_agent_with_project_skills_resolves_its_own_root_first(capsys, project):
    write_agent(project, capabilities={"tools": ["Read", "Glob", "Grep", "Skill"]})
    own = skills_dir(project)
    write_skill(own, "house")
    out = agent(capsys, project, "show", "migrator")[1]
    assert f"    1. {own}\n    2. the shipped skill catalog\n  project skills\n" in out


def test_show_failed_file_prints_an_agent_file_block_and_exits_1(capsys, project):
    write_agent(project, capabilities={"workspace": {"writeRoots": ["."]}, "subagents": ["prober"]})
    code, out, _ = agent(capsys, project, "show", "migrator")
    assert code == 1
    assert out.splitlines() == [
        "AGENT-FILE migrator — .alp/agents/migrator/agent.yaml",
        "  FAIL  capabilities.subagents: subagent `prober` is not in the subagent catalog",
        f"  FAIL  {WRITE_ROOT_ISSUE}",
    ]


def test_show_unknown_id_exits_2_listing_known_ids(capsys, project):
    write_agent(project)
    code, out, err = agent(capsys, project, "show", "x")
    assert code == 2
    assert out == ""
    assert err.strip() == ("alp-nb: unknown agent `x`; known: main, worker, search, librarian, read-thread, "
                           "review, oracle, compaction, titling, migrator")


# --- test --tier 1 -------------------------------------------------------------------------------

def test_test_builtin_prints_fourteen_pass_lines_and_exits_0(capsys, project):
    code, out, _ = agent(capsys, project, "test", "search", "--tier", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[:3] == ["AGENT    search — Search 🔍 · mode medium", "", "TIER 1   static"]
    checks = lines[3:17]
    assert [line[8:36].rstrip() for line in checks] == list(TIER1_CHECK_IDS)
    assert all(line.startswith("  PASS  ") for line in checks)
    assert checks[1] == f"  {'PASS':<6}{'model-runtime':<28}claude=claude-sonnet-5, codex=gpt-5.6-terra"
    assert lines[17:] == ["", "RESULT   14 checks passed"]


def test_test_runs_tier_1_by_default_and_accepts_a_mode(capsys, project):
    code, out, _ = agent(capsys, project, "test", "worker", "--mode", "ultra")
    assert code == 0
    assert out.splitlines()[0] == "AGENT    worker — Worker 🛠️ · mode ultra"


def test_test_tier_2_is_refused_with_exit_2(capsys, project):
    code, out, err = agent(capsys, project, "test", "search", "--tier", "2")
    assert code == 2
    assert out == ""
    assert "only tier 1" in err


def test_test_tier_1_and_3_together_is_refused(capsys, project):
    assert agent(capsys, project, "test", "search", "--tier", "1", "--tier", "3")[0] == 2


def test_test_needs_one_role_or_all(capsys, project):
    assert agent(capsys, project, "test")[0] == 2
    assert agent(capsys, project, "test", "search", "--all")[0] == 2


def test_test_unknown_role_exits_2_listing_known_ids(capsys, project):
    code, _, err = agent(capsys, project, "test", "nobody")
    assert code == 2
    assert "unknown agent `nobody`; known: main, worker, search" in err


def test_test_candidate_gets_a_note_line(capsys, project):
    write_agent(project)
    code, out, _ = agent(capsys, project, "test", "migrator", "--tier", "1")
    assert code == 0
    lines = out.splitlines()
    assert "RESULT   14 checks passed" in lines
    assert lines[-1] == ("NOTE     `migrator` is a candidate: it is not trusted in this project, "
                         "so no session gets it yet")


def test_test_trusted_agent_gets_no_note(capsys, project, store):
    write_agent(project)
    store.trust(project, current(project))
    code, out, _ = agent(capsys, project, "test", "migrator")
    assert code == 0
    assert "NOTE" not in out


def test_test_failing_candidate_prints_result_and_fail_lines_and_exits_1(capsys, project):
    write_agent(project, model={"claude": "gpt-5.6-sol", "codex": "claude-opus-5"})
    code, out, _ = agent(capsys, project, "test", "migrator", "--tier", "1")
    assert code == 1
    lines = out.splitlines()
    assert "  FAIL  model-runtime               claude model `gpt-5.6-sol` runs on codex, not claude" in lines
    result = lines.index("RESULT   1 of 14 checks failed")
    assert lines[result + 1] == "  FAIL  tier 1 model-runtime: claude model `gpt-5.6-sol` runs on codex, not claude"


def test_test_refused_file_is_not_tested_and_exits_1(capsys, project):
    write_agent(project, capabilities={"workspace": {"writeRoots": ["."]}})
    code, out, _ = agent(capsys, project, "test", "migrator", "--tier", "1")
    assert code == 1
    assert out.splitlines() == [
        "AGENT-FILE migrator — .alp/agents/migrator/agent.yaml",
        f"  FAIL  {WRITE_ROOT_ISSUE}",
    ]
    assert "TIER 1" not in out


def test_test_unrelated_broken_file_does_not_change_the_exit_code(capsys, project):
    write_agent(project)
    write_agent(project, "broken", schemaVersion=2)
    code, out, _ = agent(capsys, project, "test", "migrator")
    assert code == 0
    assert "RESULT   14 checks passed" in out
    assert out.splitlines()[0] == "AGENT-FILE broken — .alp/agents/broken/agent.yaml"
    assert agent(capsys, project, "test", "search")[0] == 0


def test_test_json_for_one_role_is_a_single_report_object(capsys, project):
    write_agent(project)
    write_agent(project, "broken", schemaVersion=2)
    code, out, _ = agent(capsys, project, "test", "migrator", "--json")
    assert code == 0
    document = json.loads(out)
    assert set(document) == {"project", "candidates", "failedToLoad", "reports"}
    assert document["project"] == str(project)
    assert document["candidates"] == ["migrator"]
    assert document["failedToLoad"] == [{
        "id": "broken", "sourcePath": str(project / ".alp/agents/broken/agent.yaml"),
        "issues": ["schemaVersion: Input should be 1"],
    }]
    report = document["reports"]
    assert isinstance(report, dict)
    assert set(report) == {"role", "displayName", "mode", "checks", "disclosure", "stoppedAt", "ok"}
    assert (report["role"], report["displayName"], report["mode"]) == ("migrator", "Migrator", "medium")
    assert report["disclosure"] is None
    assert report["stoppedAt"] is None
    assert report["ok"] is True
    assert [entry["id"] for entry in report["checks"]] == list(TIER1_CHECK_IDS)
    assert set(report["checks"][0]) == {"tier", "id", "status", "detail"}
    assert {entry["status"] for entry in report["checks"]} == {"PASS"}


def test_test_json_failing_report_records_where_it_stopped(capsys, project):
    write_agent(project, model={"claude": "gpt-5.6-sol", "codex": "claude-opus-5"})
    code, out, _ = agent(capsys, project, "test", "migrator", "--json")
    assert code == 1
    report = json.loads(out)["reports"]
    assert report["ok"] is False
    assert report["stoppedAt"] == 1
    assert [entry["id"] for entry in report["checks"] if entry["status"] == "FAIL"] == ["model-runtime"]


def test_test_json_for_a_refused_file_has_no_report(capsys, project):
    write_agent(project, schemaVersion=2)
    code, out, _ = agent(capsys, project, "test", "migrator", "--json")
    assert code == 1
    document = json.loads(out)
    assert document["reports"] is None
    assert [failure["id"] for failure in document["failedToLoad"]] == ["migrator"]


def test_test_json_all_is_an_array_of_reports(capsys, project):
    write_agent(project)
    code, out, _ = agent(capsys, project, "test", "--all", "--json")
    assert code == 0
    document = json.loads(out)
    assert isinstance(document["reports"], list)
    assert [report["role"] for report in document["reports"]] == [*BUILTINS, "migrator"]
    assert document["candidates"] == ["migrator"]


def test_test_all_prints_every_role_and_an_all_summary(capsys, project):
    code, out, _ = agent(capsys, project, "test", "--all")
    assert code == 0
    lines = out.splitlines()
    assert [line.split(" — ")[0] for line in lines if line.startswith("AGENT    ")] == [
        f"AGENT    {role}" for role in BUILTINS
    ]
    assert lines.count("RESULT   14 checks passed") == 9
    assert lines[-2:] == ["", "ALL      9 of 9 roles passed"]


def test_test_all_counts_failing_roles_and_exits_1(capsys, project):
    write_agent(project, model={"claude": "gpt-5.6-sol", "codex": "claude-opus-5"})
    code, out, _ = agent(capsys, project, "test", "--all")
    assert code == 1
    assert out.splitlines()[-1] == "ALL      9 of 10 roles passed"


def test_test_all_with_a_broken_file_exits_1(capsys, project):
    write_agent(project, "broken", schemaVersion=2)
    code, out, _ = agent(capsys, project, "test", "--all")
    assert code == 1
    assert out.splitlines()[0] == "AGENT-FILE broken — .alp/agents/broken/agent.yaml"
    assert out.splitlines()[-1] == "ALL      9 of 9 roles passed; 1 agent file(s) do not load"


def test_test_overlay_candidate_is_tested_with_its_project_skills(capsys, project):
    write_skill(skills_dir(project, "review"), "house")
    code, out, _ = agent(capsys, project, "test", "review")
    assert code == 0
    assert "code-review, alp-scenario, security-scan, test-quality-guard, house (1 from the project)" in out
    assert "NOTE     `review` is a candidate" in out


# --- add -----------------------------------------------------------------------------------------

def test_add_without_a_terminal_is_refused_and_writes_nothing(capsys, project, store, no_terminal):
    write_agent(project)
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 1
    lines = out.splitlines()
    assert "RESULT   14 checks passed" in lines
    assert f"HASH     {definition_hash(current(project))}" in lines
    assert lines[-1] == "REFUSED  trust needs a terminal; there is no `--yes` for this command"
    assert not store.path.exists()
    assert not store.path.parent.exists()


def test_add_with_yes_on_a_terminal_trusts_the_agent(capsys, project, store, terminal):
    write_agent(project)
    digest = definition_hash(current(project))
    terminal.answer("yes")
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 0
    assert terminal.prompts == ["Trust `migrator` with the authority above? Type yes to confirm: "]
    lines = out.splitlines()
    assert lines[0] == "AGENT    migrator — Migrator · mode medium"
    assert f"HASH     {digest}" in lines
    assert "RETRUST" not in out
    assert lines[-3:] == [
        f"TRUSTED  `migrator` at {short_hash(digest)}",
        f"`main` may now delegate to it in {project}",
        "editing the file revokes this: a different hash is denied, not warned about",
    ]
    record = store.record(project, "migrator")
    assert record.definition_hash == digest
    assert record.source_path == str(project / ".alp/agents/migrator/agent.yaml")
    assert store.resolve(project, current(project)) == "trusted"
    assert agent(capsys, project, "list")[0] == 0


@pytest.mark.parametrize("typed", ["  YES  ", "Yes"])
def test_add_accepts_yes_in_any_case_and_spacing(capsys, project, store, terminal, typed):
    write_agent(project)
    terminal.answer(typed)
    assert agent(capsys, project, "add", "migrator")[0] == 0
    assert store.record(project, "migrator") is not None


@pytest.mark.parametrize("typed", ["y", "no", "", "yes please"])
def test_add_anything_but_yes_is_refused(capsys, project, store, terminal, typed):
    write_agent(project)
    terminal.answer(typed)
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 1
    assert out.splitlines()[-1] == "REFUSED  `migrator` was not trusted"
    assert not store.path.exists()


def test_add_already_trusted_says_so_without_asking(capsys, project, store, terminal):
    write_agent(project)
    record = store.trust(project, current(project))
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 0
    assert terminal.prompts == []
    assert out.splitlines()[-1] == (
        f"TRUSTED  `migrator` is already trusted at {short_hash(record.definition_hash)} since {record.trusted_at}"
    )
    assert "HASH" not in out


def test_add_after_editing_tools_prints_retrust_and_the_authority_diff(capsys, project, store, terminal):
    write_agent(project)
    old = store.trust(project, current(project))
    write_agent(project, capabilities={"tools": ["Read", "Glob"]},
                workflow=[{"id": "SCOPE", "allowedTools": ["Read", "Glob"]}, {"id": "REPORT"}])
    new = definition_hash(current(project))
    terminal.answer("yes")
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 0
    lines = out.splitlines()
    start = lines.index(f"HASH     {new}")
    assert lines[start + 1:start + 4] == [
        f"RETRUST  previously trusted at {short_hash(old.definition_hash)} on {old.trusted_at}",
        "  authority changed:",
        "    tools: -Grep",
    ]
    assert store.record(project, "migrator").definition_hash == new


def test_add_after_a_prompt_only_change_says_authority_is_unchanged(capsys, project, store, terminal):
    write_agent(project)
    store.trust(project, current(project))
    write_agent(project, instructions={"rules": ["Say which migrations are irreversible."]})
    terminal.answer("yes")
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 0
    lines = out.splitlines()
    retrust = next(index for index, line in enumerate(lines) if line.startswith("RETRUST  previously trusted at "))
    assert lines[retrust + 1] == "  authority unchanged; the prompt or workflow moved"


def test_add_retrust_refused_keeps_the_old_record(capsys, project, store, terminal):
    write_agent(project)
    old = store.trust(project, current(project))
    write_agent(project, displayName="Edited")
    terminal.answer("y")
    assert agent(capsys, project, "add", "migrator")[0] == 1
    assert store.record(project, "migrator") == old


def test_add_unloadable_file_is_refused(capsys, project, store, terminal):
    write_agent(project, capabilities={"workspace": {"writeRoots": ["."]}})
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 1
    assert out.splitlines() == [
        "AGENT-FILE migrator — .alp/agents/migrator/agent.yaml",
        f"  FAIL  {WRITE_ROOT_ISSUE}",
        "REFUSED  `migrator` does not load; there is nothing to trust yet",
    ]
    assert terminal.prompts == []
    assert not store.path.exists()


def test_add_with_findings_is_refused_before_asking(capsys, project, store, terminal):
    write_agent(project, model={"claude": "gpt-5.6-sol", "codex": "claude-opus-5"})
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 1
    assert out.splitlines()[-1] == "REFUSED  `migrator` has findings; fix them before trusting it"
    assert "HASH" not in out
    assert terminal.prompts == []
    assert not store.path.exists()


def test_add_overlay_trusts_it_for_the_session(capsys, project, store, terminal):
    write_skill(skills_dir(project, "review"), "house")
    terminal.answer("yes")
    assert agent(capsys, project, "add", "review")[0] == 0
    assert store.resolve(project, current(project, "review")) == "trusted"
    assert store.record(project, "review").source_path == str(project / ".alp/agents/review/skills")


def test_add_builtin_without_project_file_is_an_error(capsys, project, terminal):
    code, _, err = agent(capsys, project, "add", "search")
    assert code == 2
    assert "`search` is a built-in role with no project file; there is nothing to trust" in err


def test_add_unknown_id_is_an_error(capsys, project, terminal):
    code, _, err = agent(capsys, project, "add", "ghost")
    assert code == 2
    assert "unknown agent `ghost`" in err


def test_add_with_a_corrupt_store_is_refused_before_asking_and_leaves_it(capsys, project, store, terminal):
    write_agent(project)
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{broken")
    terminal.answer("yes")
    code, out, err = agent(capsys, project, "add", "migrator")
    assert code == 1
    assert out.splitlines()[-1] == (f"REFUSED  invalid trusted agents file at {store.path}; nothing is trusted until "
                                    "it is repaired; repair or remove it before trusting anything")
    assert terminal.prompts == []
    assert err == ""
    assert store.path.read_text() == "{broken"


# --- untrust -------------------------------------------------------------------------------------

def test_untrust_removes_a_record_and_exits_0(capsys, project, store):
    write_agent(project)
    store.trust(project, current(project))
    code, out, _ = agent(capsys, project, "untrust", "migrator")
    assert code == 0
    assert out.startswith("REMOVED  ")
    assert "`migrator`" in out
    assert store.record(project, "migrator") is None
    assert agent(capsys, project, "list")[1].splitlines()[-1] == row("UNTRUSTED", "migrator", NEVER_TRUSTED)


def test_untrust_without_a_record_prints_none_and_exits_1(capsys, project):
    code, out, _ = agent(capsys, project, "untrust", "migrator")
    assert code == 1
    assert out.strip() == f"NONE     `migrator` was not trusted in {project}"


def test_untrust_is_per_project(capsys, tmp_path, store):
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        write_agent(folder)
        store.trust(folder, current(folder))
    assert agent(capsys, first, "untrust", "migrator")[0] == 0
    assert store.record(first, "migrator") is None
    assert store.record(second, "migrator") is not None


def test_no_command_prints_help_and_exits_2(capsys):
    code, out, _ = run(capsys)
    assert code == 2
    assert "usage: alp-nb" in out


def test_closed_output_pipe_ends_quietly_without_a_traceback(project, home):
    """``alp-nb agent list | head`` must not print a BrokenPipeError traceback."""
    import os
    import subprocess

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    try:
        finished = subprocess.run(
            [sys.executable, "-m", "alp_nb", "agent", "test", "--all", "--project", str(project)],
            stdout=write_end, stderr=subprocess.PIPE, env={**os.environ, "HOME": str(home)}, check=False,
        )
    finally:
        os.close(write_end)
    assert finished.returncode == 1
    assert b"Traceback" not in finished.stderr
    assert finished.stderr == b""


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, EOFError], ids=["ctrl-c", "ctrl-d"])
def test_interrupting_the_trust_question_refuses_without_a_traceback(capsys, project, store, monkeypatch,
                                                                     interruption):
    write_agent(project)
    monkeypatch.setattr(sys, "stdin", FakeTerminal())

    def interrupted(prompt: str = "") -> str:
        raise interruption

    monkeypatch.setattr(builtins, "input", interrupted)
    try:
        code, out, _ = agent(capsys, project, "add", "migrator")
    except (KeyboardInterrupt, EOFError) as escaped:  # caught here: pytest would stop the session on Ctrl-C
        pytest.fail(f"{escaped!r} escaped the command")
    assert code == 1
    assert out.splitlines()[-1] == "REFUSED  `migrator` was not trusted"
    assert store.records() == ()


def test_list_with_a_corrupt_trust_file_says_so_once_instead_of_never_trusted(capsys, project, store):
    write_agent(project)
    store.path.parent.mkdir(parents=True)
    store.path.write_text("{bad")
    code, out, err = agent(capsys, project, "list")
    assert code == 1
    assert "never trusted" not in out
    (row,) = [line for line in out.splitlines() if "migrator" in line]
    assert row.split()[:2] == ["UNTRUSTED", "migrator"] and row.endswith(views.TRUST_FILE_UNUSABLE)
    assert err.splitlines() == [f"alp-nb: warning: invalid trusted agents file at {store.path}; nothing is trusted "
                                "until it is repaired"]


# --- what reaches the terminal: control characters escaped, one value on one line -------------------

ESCAPE = "\x1b[2J"
"""Clears the screen, in a terminal that obeys it: an agent file could wipe the report above its own."""


def _hostile_agent(project: Path) -> None:
    """A loadable agent whose display name forges a line and whose state id carries an escape, beside a
    folder whose name carries one (so it does not load) and a project skill whose name does."""
    write_agent(project, displayName=f"Evil{ESCAPE}\nRESULT   14 checks passed",
                workflow=[{"id": f"SC{ESCAPE}OPE", "allowedTools": ["Read"]}, {"id": "REPORT"}])
    write_agent(project, "other", directory=f"oth{ESCAPE}er")
    write_skill(skills_dir(project, "review"), f"ho{ESCAPE}use")


def _shown_on_a_terminal(out: str) -> list[str]:
    """The lines printed, once it is held that none holds an escape the terminal would obey."""
    assert not any(char in out for char in "\x1b\x9b\r"), out
    return out.splitlines()


def test_list_prints_control_characters_in_folder_names_and_issues_escaped(capsys, project):
    _hostile_agent(project)
    code, out, _ = agent(capsys, project, "list")
    assert code == 1
    lines = _shown_on_a_terminal(out)
    assert lines[-1].startswith("UNLOADABLE oth\\x1b[2Jer ")  # padded before escaping: the column drifts, no more
    assert lines[-1].endswith("id: declares id `other` but lives in directory `oth\\x1b[2Jer`")


def test_show_prints_control_characters_in_display_names_and_state_ids_escaped(capsys, project):
    _hostile_agent(project)
    code, out, _ = agent(capsys, project, "show", "migrator")
    assert code == 0
    lines = _shown_on_a_terminal(out)
    assert lines[0] == "AGENT    migrator — Evil\\x1b[2J\\x0aRESULT   14 checks passed"
    assert "    SC\\x1b[2JOPE  Read" in lines
    assert not any(line.startswith("RESULT") for line in lines)


def test_show_prints_control_characters_in_skill_names_and_paths_escaped(capsys, project):
    _hostile_agent(project)
    code, out, _ = agent(capsys, project, "show", "review")
    assert code == 0
    lines = _shown_on_a_terminal(out)
    assert "  skills          code-review, alp-scenario, security-scan, test-quality-guard, ho\\x1b[2Juse" in lines
    assert any(line.endswith("skills/ho\\x1b[2Juse") for line in lines)


def test_test_prints_control_characters_escaped_so_a_display_name_cannot_forge_a_result_line(capsys, project):
    _hostile_agent(project)
    code, out, _ = agent(capsys, project, "test", "migrator")
    assert code == 0
    lines = _shown_on_a_terminal(out)
    assert lines[0] == "AGENT-FILE oth\\x1b[2Jer — .alp/agents/oth\\x1b[2Jer/agent.yaml"
    assert "AGENT    migrator — Evil\\x1b[2J\\x0aRESULT   14 checks passed · mode medium" in lines
    assert lines.count("RESULT   14 checks passed") == 1


def test_add_prints_control_characters_escaped_before_the_trust_question(capsys, project, store, terminal):
    _hostile_agent(project)
    terminal.answer("no")
    code, out, _ = agent(capsys, project, "add", "migrator")
    assert code == 1
    lines = _shown_on_a_terminal(out)
    assert "AGENT    migrator — Evil\\x1b[2J\\x0aRESULT   14 checks passed · mode medium" in lines


def test_add_and_untrust_print_an_id_given_on_the_command_line_escaped(capsys, project, store, terminal):
    terminal.answer("no")
    code, _, err = agent(capsys, project, "add", f"mi{ESCAPE}g")
    assert code == 2 and "\x1b" not in err and "unknown agent `mi\\x1b[2Jg`" in err
    code, out, _ = agent(capsys, project, "untrust", f"mi{ESCAPE}g")
    assert code == 1
    assert out == f"NONE     `mi\\x1b[2Jg` was not trusted in {project}\n"


def test_json_output_keeps_the_text_and_escapes_the_c1_controls(capsys, project):
    write_agent(project, displayName="Evil\x9b2J")
    code, out, _ = agent(capsys, project, "test", "migrator", "--json")
    assert code == 0
    assert "\x9b" not in out and '"displayName": "Evil\\u009b2J"' in out
    assert json.loads(out)["reports"]["displayName"] == "Evil\x9b2J"
