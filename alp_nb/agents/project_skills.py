"""Project skills: the ``skills/`` folder beside an ``agent.yaml`` (or of a built-in overlay).

Each entry is a real directory, a symlink of exactly one hop, or a
``<name>.skillref`` file holding one relative path. Links must land in the
project's ``.alp/skills`` or the shipped skills root, and every skill needs a
``SKILL.md``. One escaping entry is enough to refuse the whole agent.
"""

from __future__ import annotations

import os
from pathlib import Path

from .definition import SkillBinding
from .paths import is_within

MAX_SKILLS_PER_AGENT = 20
SKILLREF_SUFFIX = ".skillref"
SKILL_MANIFEST = "SKILL.md"


def resolve_project_skills(
    skills_dir: Path, project_root: Path, shipped_skills_root: Path | None = None
) -> tuple[tuple[SkillBinding, ...], tuple[str, ...]]:
    """The skills bound by ``skills_dir`` and the issues that refuse any of them."""
    if not skills_dir.is_dir():
        return (), ()
    link_roots = [os.path.realpath(project_root / ".alp" / "skills")]
    if shipped_skills_root is not None:
        link_roots.append(os.path.realpath(shipped_skills_root))
    own_root = os.path.realpath(skills_dir)
    bindings: list[SkillBinding] = []
    issues: list[str] = []
    entries = sorted(os.scandir(skills_dir), key=lambda entry: entry.name)
    for entry in entries:
        where = f"skills/{entry.name}"
        if entry.is_symlink():
            name, kind, target, problem = entry.name, "symlink", *_follow_link(entry.path)
            allowed = link_roots
        elif entry.is_dir():
            name, kind, target, problem = entry.name, "directory", os.path.realpath(entry.path), None
            allowed = [own_root]
        elif entry.name.endswith(SKILLREF_SUFFIX) and entry.is_file():
            name, kind = entry.name.removesuffix(SKILLREF_SUFFIX), "skillref"
            target, problem = _read_skillref(Path(entry.path), skills_dir)
            allowed = link_roots
        else:
            issues.append(f"{where}: a loose file; a project skill is a directory, a symlink or a "
                          f"`<name>{SKILLREF_SUFFIX}` file")
            continue
        if problem is None:
            problem = _check_target(target, allowed)
        if problem is not None:
            issues.append(f"{where}: {problem}")
        else:
            bindings.append(SkillBinding(name=name, kind=kind, path=target))
    skills = len(entries)
    if skills > MAX_SKILLS_PER_AGENT:
        issues.append(f"skills/ holds {skills} skills, over the limit of {MAX_SKILLS_PER_AGENT}")
    return tuple(bindings), tuple(issues)


def _follow_link(path: str) -> tuple[str | None, str | None]:
    """One hop only: the link's own target, which must exist and not be a link itself."""
    link = os.readlink(path)
    target = os.path.normpath(os.path.join(os.path.dirname(path), link))
    if os.path.islink(target):
        return None, f"links to `{link}`, which is itself a link; a skill link must resolve in one hop"
    if not os.path.exists(target):
        return None, f"is a dangling link to `{link}`"
    return os.path.realpath(target), None


def _read_skillref(path: Path, skills_dir: Path) -> tuple[str | None, str | None]:
    try:
        lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError) as error:
        return None, f"cannot be read: {error}"
    if len(lines) != 1:
        return None, f"names {len(lines)} paths; a skillref holds exactly one relative path"
    if os.path.isabs(lines[0]):
        return None, f"names the absolute path `{lines[0]}`; a skillref path must be relative"
    target = os.path.join(skills_dir, lines[0])
    if not os.path.exists(target):
        return None, f"points at `{lines[0]}`, which does not exist"
    return os.path.realpath(target), None


def _check_target(target: str, allowed_roots: list[str]) -> str | None:
    if not any(is_within(target, root) for root in allowed_roots):
        return (f"escapes to `{target}`; a project skill must stay inside "
                f"{' or '.join(f'`{root}`' for root in allowed_roots)}")
    if not os.path.isdir(target):
        return f"resolves to `{target}`, which is not a directory"
    if not os.path.isfile(os.path.join(target, SKILL_MANIFEST)):
        return f"has no {SKILL_MANIFEST}"
    return None
