"""Project skills and skill overlays (reference §2 "Skills", §7 "Loader", §10 "Custom agents"):
``skills/`` entries bind as directory, one-hop symlink or one-path skillref; links land only in
``<project>/.alp/skills`` or the shipped root; any escape refuses the whole agent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from custom_agent_files import shared_skill, skills_dir, with_skill_tool, write_agent, write_skill

from alp_nb.agents import BUILTIN_AGENTS, SkillBinding, load_project_agents
from alp_nb.agents.project_skills import MAX_SKILLS_PER_AGENT, resolve_project_skills

BUILTINS = {definition.id: definition for definition in BUILTIN_AGENTS}


def real(path: Path) -> str:
    return os.path.realpath(path)


def load(project: Path, **kwargs):
    return load_project_agents(project, **kwargs)


def skilled_agent(project: Path, **overrides) -> Path:
    """A migrator holding the Skill tool, with an empty ``skills/`` beside it."""
    capabilities = {**with_skill_tool(), **overrides.pop("capabilities", {})}
    write_agent(project, capabilities=capabilities, **overrides)
    return skills_dir(project)


def loaded_agent(project: Path, **kwargs):
    result = load(project, **kwargs)
    assert result.failed == (), result.failed
    (definition,) = result.loaded
    return definition


def loaded_agent_named(project: Path, agent_id: str):
    return next(definition for definition in load(project).loaded if definition.id == agent_id)


def failed_issues(project: Path, **kwargs) -> tuple[str, ...]:
    result = load(project, **kwargs)
    assert result.loaded == ()
    (failure,) = result.failed
    return failure.issues


# --- the three ways to bind ----------------------------------------------------------------------

def test_real_directory_binds_as_directory(tmp_path):
    skill = write_skill(skilled_agent(tmp_path), "house")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skills == ("house",)
    assert capabilities.skill_bindings == (SkillBinding(name="house", kind="directory", path=real(skill)),)


def test_symlink_of_one_hop_into_project_skills_binds_as_symlink(tmp_path):
    skills = skilled_agent(tmp_path)
    target = shared_skill(tmp_path, "house-style")
    os.symlink(target, skills / "house")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skills == ("house",)
    assert capabilities.skill_bindings == (SkillBinding(name="house", kind="symlink", path=real(target)),)


def test_relative_symlink_binds_too(tmp_path):
    skills = skilled_agent(tmp_path)
    target = shared_skill(tmp_path, "house")
    os.symlink(os.path.relpath(target, skills), skills / "house")
    (binding,) = loaded_agent(tmp_path).capabilities.skill_bindings
    assert (binding.kind, binding.path) == ("symlink", real(target))


def test_skillref_with_one_relative_path_binds_as_skillref(tmp_path):
    skills = skilled_agent(tmp_path)
    target = shared_skill(tmp_path, "house")
    (skills / "house.skillref").write_text("../../../skills/house\n")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skills == ("house",)
    assert capabilities.skill_bindings == (SkillBinding(name="house", kind="skillref", path=real(target)),)


def test_skillref_ignores_blank_lines_around_its_path(tmp_path):
    skills = skilled_agent(tmp_path)
    shared_skill(tmp_path, "house")
    (skills / "house.skillref").write_text("\n   ../../../skills/house  \n\n")
    (binding,) = loaded_agent(tmp_path).capabilities.skill_bindings
    assert binding.kind == "skillref"


def test_all_three_kinds_bind_together_in_name_order(tmp_path):
    skills = skilled_agent(tmp_path)
    write_skill(skills, "local")
    os.symlink(shared_skill(tmp_path, "linked-target"), skills / "linked")
    shared_skill(tmp_path, "refd")
    (skills / "refd.skillref").write_text("../../../skills/refd")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skills == ("linked", "local", "refd")
    assert [(binding.name, binding.kind) for binding in capabilities.skill_bindings] == [
        ("linked", "symlink"), ("local", "directory"), ("refd", "skillref"),
    ]


def test_shipped_name_and_directory_skill_mix(tmp_path):
    skills = skilled_agent(tmp_path, capabilities={"skills": ["git", "code-review"]})
    write_skill(skills, "house")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skills == ("git", "code-review", "house")
    assert [binding.name for binding in capabilities.skill_bindings] == ["house"]


def test_skill_roots_hold_the_agents_own_skills_folder_first(tmp_path):
    skills = skilled_agent(tmp_path)
    write_skill(skills, "house")
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skill_roots == (real(skills),)


def test_no_skill_roots_without_project_skills(tmp_path):
    skilled_agent(tmp_path, capabilities={"skills": ["git"]})
    capabilities = loaded_agent(tmp_path).capabilities
    assert capabilities.skill_roots is None
    assert capabilities.skill_bindings is None


def test_empty_skills_folder_binds_nothing(tmp_path):
    skilled_agent(tmp_path, capabilities={"skills": ["git"]})
    assert loaded_agent(tmp_path).capabilities.skills == ("git",)


def test_project_skills_alone_satisfy_the_skill_tool(tmp_path):
    write_skill(skilled_agent(tmp_path), "house")
    assert loaded_agent(tmp_path).capabilities.tools[-1] == "Skill"


def test_project_skills_without_the_skill_tool_are_refused(tmp_path):
    write_agent(tmp_path)
    write_skill(skills_dir(tmp_path), "house")
    assert failed_issues(tmp_path) == (
        "capabilities.skills: skills are granted but the `Skill` tool to invoke them is not",
    )


def test_twenty_skills_are_accepted(tmp_path):
    skills = skilled_agent(tmp_path)
    for index in range(MAX_SKILLS_PER_AGENT):
        write_skill(skills, f"skill-{index:02d}")
    assert len(loaded_agent(tmp_path).capabilities.skills) == 20


# --- refusals ------------------------------------------------------------------------------------

def test_named_skill_not_in_the_catalog_is_refused(tmp_path):
    skilled_agent(tmp_path, capabilities={"skills": ["house"]})
    assert failed_issues(tmp_path) == (
        "capabilities.skills: skill `house` is not in the shipped catalog; a project skill belongs in "
        "`skills/`, not here",
    )


def test_same_skill_named_and_in_skills_folder_is_granted_twice(tmp_path):
    write_skill(skilled_agent(tmp_path, capabilities={"skills": ["code-review"]}), "code-review")
    assert failed_issues(tmp_path) == (
        "capabilities.skills: skill `code-review` is granted twice: named here and found in `skills/`",
    )


def test_symlink_escaping_the_project_is_refused(tmp_path):
    project = tmp_path / "project"
    outside = write_skill(tmp_path / "elsewhere", "evil")
    os.symlink(outside, skilled_agent(project) / "evil")
    (issue,) = [issue for issue in failed_issues(project) if issue.startswith("skills/evil")]
    assert issue.startswith(f"skills/evil: escapes to `{real(outside)}`; a project skill must stay inside ")
    assert real(project / ".alp" / "skills") in issue


def test_a_symlinked_skills_folder_escaping_the_project_is_refused(tmp_path):
    """A linked ``skills`` may land only where a linked skill may; the agent fails alone."""
    project = tmp_path / "project"
    write_agent(project, capabilities=with_skill_tool())
    write_agent(project, "planner")
    outside = tmp_path / "elsewhere" / "skills"
    write_skill(outside, "evil")
    skills = project / ".alp" / "agents" / "migrator" / "skills"
    os.symlink(outside, skills)
    overlay = project / ".alp" / "agents" / "review"
    overlay.mkdir()
    os.symlink(outside, overlay / "skills")
    result = load(project)
    assert [definition.id for definition in result.loaded] == ["planner"]
    assert result.overlays == ()
    shared = real(project / ".alp" / "skills")
    assert [(failure.id, failure.issues[0]) for failure in result.failed] == [
        ("migrator", f"skills: escapes to `{real(outside)}`; a project skills folder must stay inside "
                     f"`{real(skills.parent)}` or `{shared}`"),
        ("review", f"skills: escapes to `{real(outside)}`; a project skills folder must stay inside "
                   f"`{real(overlay)}` or `{shared}`"),
    ]
    shared_skill(project, "house")
    skills.unlink()
    os.symlink(project / ".alp" / "skills", skills)
    assert loaded_agent_named(project, "migrator").capabilities.skills == ("house",)


def test_symlink_into_the_project_but_outside_alp_skills_is_refused(tmp_path):
    elsewhere = write_skill(tmp_path / "docs", "house")
    os.symlink(elsewhere, skilled_agent(tmp_path) / "house")
    issues = failed_issues(tmp_path)
    assert any(issue.startswith(f"skills/house: escapes to `{real(elsewhere)}`") for issue in issues)


def test_skillref_escaping_the_project_is_refused(tmp_path):
    project = tmp_path / "project"
    skills = skilled_agent(project)
    outside = write_skill(tmp_path / "elsewhere", "evil")
    (skills / "evil.skillref").write_text(os.path.relpath(outside, skills))
    issues = failed_issues(project)
    assert any(issue.startswith(f"skills/evil.skillref: escapes to `{real(outside)}`") for issue in issues)


def test_absolute_skillref_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    target = shared_skill(tmp_path, "house")
    (skills / "house.skillref").write_text(str(target))
    issues = failed_issues(tmp_path)
    assert f"skills/house.skillref: names the absolute path `{target}`; a skillref path must be relative" in issues


def test_skillref_with_two_paths_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    shared_skill(tmp_path, "a")
    shared_skill(tmp_path, "b")
    (skills / "pair.skillref").write_text("../../../skills/a\n../../../skills/b\n")
    issues = failed_issues(tmp_path)
    assert "skills/pair.skillref: names 2 paths; a skillref holds exactly one relative path" in issues


def test_empty_skillref_is_refused(tmp_path):
    (skilled_agent(tmp_path) / "none.skillref").write_text("\n")
    issues = failed_issues(tmp_path)
    assert "skills/none.skillref: names 0 paths; a skillref holds exactly one relative path" in issues


def test_a_skillref_over_4_kib_is_refused_unread(tmp_path):
    """Every reader of a project folder reads bounded: a file is read bounded, so a huge one costs nothing."""
    (skilled_agent(tmp_path) / "huge.skillref").write_text("\n" * 4096 + "../../../skills/house\n")
    issues = failed_issues(tmp_path)
    assert "skills/huge.skillref: is 4118 bytes, over the 4096 byte limit" in issues


def test_skillref_to_a_missing_path_is_refused(tmp_path):
    (skilled_agent(tmp_path) / "gone.skillref").write_text("../../../skills/gone")
    issues = failed_issues(tmp_path)
    assert "skills/gone.skillref: points at `../../../skills/gone`, which does not exist" in issues


def test_link_of_two_hops_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    target = shared_skill(tmp_path, "house")
    hop = tmp_path / ".alp" / "skills" / "house-alias"
    os.symlink(target, hop)
    os.symlink(hop, skills / "house")
    issues = failed_issues(tmp_path)
    assert (f"skills/house: links to `{hop}`, which is itself a link; a skill link must resolve in one hop"
            in issues)


def test_skill_without_skill_md_is_refused(tmp_path):
    write_skill(skilled_agent(tmp_path), "house", manifest=False)
    assert "skills/house: has no SKILL.md" in failed_issues(tmp_path)


def test_linked_skill_without_skill_md_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    os.symlink(shared_skill(tmp_path, "house", manifest=False), skills / "house")
    assert "skills/house: has no SKILL.md" in failed_issues(tmp_path)


def test_dangling_link_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    missing = tmp_path / ".alp" / "skills" / "gone"
    os.symlink(missing, skills / "gone")
    assert f"skills/gone: is a dangling link to `{missing}`" in failed_issues(tmp_path)


def test_link_to_a_file_is_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    (tmp_path / ".alp" / "skills").mkdir(parents=True)
    note = tmp_path / ".alp" / "skills" / "note.md"
    note.write_text("x")
    os.symlink(note, skills / "note")
    assert f"skills/note: resolves to `{real(note)}`, which is not a directory" in failed_issues(tmp_path)


def test_loose_file_is_refused(tmp_path):
    (skilled_agent(tmp_path, capabilities={"skills": ["git"]}) / "notes.txt").write_text("x")
    assert failed_issues(tmp_path) == (
        "skills/notes.txt: a loose file; a project skill is a directory, a symlink or a `<name>.skillref` file",
    )


def test_twenty_one_skills_are_refused(tmp_path):
    skills = skilled_agent(tmp_path)
    for index in range(MAX_SKILLS_PER_AGENT + 1):
        write_skill(skills, f"skill-{index:02d}")
    assert failed_issues(tmp_path) == ("skills/ holds 21 skills, over the limit of 20",)


def test_one_escaping_entry_fails_the_whole_agent(tmp_path):
    project = tmp_path / "project"
    skills = skilled_agent(project)
    write_skill(skills, "fine-one")
    write_skill(skills, "fine-two")
    os.symlink(write_skill(tmp_path / "elsewhere", "evil"), skills / "evil")
    result = load(project)
    assert result.loaded == ()
    (failure,) = result.failed
    assert len(failure.issues) == 1
    assert failure.issues[0].startswith("skills/evil: escapes to ")


def test_skill_issues_and_ceiling_issues_are_reported_together(tmp_path):
    skills = skilled_agent(tmp_path, capabilities={"skills": ["git"], "subagents": ["prober"]})
    write_skill(skills, "house", manifest=False)
    assert failed_issues(tmp_path) == (
        "skills/house: has no SKILL.md",
        "capabilities.subagents: subagent `prober` is not in the subagent catalog",
    )


def test_an_escaping_skill_of_one_agent_does_not_block_another(tmp_path):
    project = tmp_path / "project"
    os.symlink(write_skill(tmp_path / "elsewhere", "evil"), skilled_agent(project) / "evil")
    write_agent(project, "planner")
    result = load(project)
    assert [definition.id for definition in result.loaded] == ["planner"]
    assert [failure.id for failure in result.failed] == ["migrator"]


# --- the shipped skills root ---------------------------------------------------------------------

def test_link_into_the_shipped_skills_root_is_allowed_when_given(tmp_path):
    project = tmp_path / "project"
    shipped = tmp_path / "alp" / "skills"
    target = write_skill(shipped, "house")
    os.symlink(target, skilled_agent(project) / "house")
    assert load(project).loaded == ()
    definition = loaded_agent(project, shipped_skills_root=shipped)
    assert definition.capabilities.skill_bindings == (
        SkillBinding(name="house", kind="symlink", path=real(target)),
    )


def test_skillref_into_the_shipped_skills_root_is_allowed_when_given(tmp_path):
    project = tmp_path / "project"
    shipped = tmp_path / "alp" / "skills"
    target = write_skill(shipped, "house")
    skills = skilled_agent(project)
    (skills / "house.skillref").write_text(os.path.relpath(target, skills))
    (binding,) = loaded_agent(project, shipped_skills_root=shipped).capabilities.skill_bindings
    assert (binding.kind, binding.path) == ("skillref", real(target))


def test_resolve_project_skills_without_a_folder_binds_nothing(tmp_path):
    assert resolve_project_skills(tmp_path / "skills", tmp_path) == ((), ())


def test_a_directory_skill_reached_through_a_linked_parent_stays_its_own(tmp_path):
    """A real directory is checked against the agent's own folder, not the link roots."""
    skills = skilled_agent(tmp_path)
    write_skill(skills, "house")
    bindings, issues = resolve_project_skills(skills, tmp_path)
    assert issues == ()
    assert bindings == (SkillBinding(name="house", kind="directory", path=real(skills / "house")),)


# --- overlays ------------------------------------------------------------------------------------

def test_builtin_folder_with_skills_is_an_overlay(tmp_path):
    overlay_skills = skills_dir(tmp_path, "review")
    write_skill(overlay_skills, "house")
    result = load(tmp_path)
    assert result.loaded == ()
    assert result.failed == ()
    (overlay,) = result.overlays
    assert overlay.id == "review"
    assert overlay.source_path == str(overlay_skills.resolve())
    capabilities = overlay.definition.capabilities
    shipped = BUILTINS["review"].capabilities.skills
    assert capabilities.skills == (*shipped, "house")
    assert capabilities.skill_bindings == (
        SkillBinding(name="house", kind="directory", path=real(overlay_skills / "house")),
    )
    assert capabilities.skill_roots == (real(overlay_skills),)


def test_overlay_keeps_everything_but_the_skills_of_the_builtin(tmp_path):
    write_skill(skills_dir(tmp_path, "review"), "house")
    (overlay,) = load(tmp_path).overlays
    builtin = BUILTINS["review"]
    overlaid = overlay.definition
    assert overlaid.id == builtin.id
    assert overlaid.reports_to == builtin.reports_to
    assert overlaid.capabilities.tools == builtin.capabilities.tools
    assert overlaid.capabilities.memory == builtin.capabilities.memory
    assert overlaid.workflow == builtin.workflow
    assert overlaid.instructions == builtin.instructions


def test_project_skill_named_like_a_shipped_one_shadows_it_once(tmp_path):
    overlay_skills = skills_dir(tmp_path, "review")
    write_skill(overlay_skills, "code-review")
    (overlay,) = load(tmp_path).overlays
    capabilities = overlay.definition.capabilities
    assert capabilities.skills == BUILTINS["review"].capabilities.skills
    assert capabilities.skills.count("code-review") == 1
    assert capabilities.skill_bindings == (
        SkillBinding(name="code-review", kind="directory", path=real(overlay_skills / "code-review")),
    )
    assert capabilities.skill_roots == (real(overlay_skills),)


def test_shadowing_applies_to_that_role_only(tmp_path):
    write_skill(skills_dir(tmp_path, "review"), "code-review")
    (overlay,) = load(tmp_path).overlays
    assert overlay.id == "review"
    assert BUILTINS["review"].capabilities.skill_bindings is None


def test_overlay_for_a_role_without_the_skill_tool_is_refused(tmp_path):
    write_skill(skills_dir(tmp_path, "titling"), "house")
    result = load(tmp_path)
    assert result.overlays == ()
    (failure,) = result.failed
    assert failure.id == "titling"
    assert failure.issues == ("`titling` holds no `Skill` tool; an overlay cannot grant one",)


def test_compaction_overlay_is_refused_too(tmp_path):
    write_skill(skills_dir(tmp_path, "compaction"), "house")
    (failure,) = load(tmp_path).failed
    assert failure.issues == ("`compaction` holds no `Skill` tool; an overlay cannot grant one",)


def test_overlay_with_an_escaping_skill_is_refused(tmp_path):
    project = tmp_path / "project"
    os.symlink(write_skill(tmp_path / "elsewhere", "evil"), skills_dir(project, "review") / "evil")
    result = load(project)
    assert result.overlays == ()
    (failure,) = result.failed
    assert failure.id == "review"
    assert failure.issues[0].startswith("skills/evil: escapes to ")


def test_builtin_folder_without_skills_is_ignored(tmp_path):
    (tmp_path / ".alp" / "agents" / "review").mkdir(parents=True)
    result = load(tmp_path)
    assert (result.loaded, result.failed, result.overlays) == ((), (), ())


@pytest.mark.parametrize("role", ["main", "search", "oracle"])
def test_any_role_holding_skill_can_be_overlaid(tmp_path, role):
    write_skill(skills_dir(tmp_path, role), "house")
    (overlay,) = load(tmp_path).overlays
    assert overlay.id == role
    assert overlay.definition.capabilities.skills[-1] == "house"


def test_overlays_and_custom_agents_load_side_by_side(tmp_path):
    write_skill(skills_dir(tmp_path, "review"), "house")
    write_agent(tmp_path)
    result = load(tmp_path)
    assert [overlay.id for overlay in result.overlays] == ["review"]
    assert [definition.id for definition in result.loaded] == ["migrator"]
