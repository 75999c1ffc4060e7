"""Project skills: the ``skills/`` folder beside an ``agent.yaml`` (or of a built-in overlay).

Each entry is a real directory, a symlink of exactly one hop, or a
``<name>.skillref`` file holding one relative path. Links must land in the
project's ``.alp/skills`` or the shipped skills root, and every skill needs a
``SKILL.md``. The folder itself may be a link only into those roots too: a
``skills`` linked elsewhere would bind whatever lies there. One escaping entry
is enough to refuse the whole agent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from alp_nb.base.safe_files import RefusedFile, read_regular

from .definition import SkillBinding
from .paths import is_within

MAX_SKILLS_PER_AGENT = 20
SKILLREF_SUFFIX = ".skillref"
SKILLREF_MAX_BYTES = 4096
"""A skillref holds one relative path; a longer file is refused unread."""
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
    try:
        _check_inside(own_root, [os.path.realpath(skills_dir.parent), *link_roots], "a project skills folder")
    except _Refused as refused:
        return (), (f"skills: {refused}",)
    bindings: list[SkillBinding] = []
    issues: list[str] = []
    entries = sorted(os.scandir(skills_dir), key=lambda entry: entry.name)
    for entry in entries:
        try:
            bindings.append(_bind_entry(entry, skills_dir, own_root, link_roots))
        except _Refused as refused:
            issues.append(f"skills/{entry.name}: {refused}")
    skills = len(entries)
    if skills > MAX_SKILLS_PER_AGENT:
        issues.append(f"skills/ holds {skills} skills, over the limit of {MAX_SKILLS_PER_AGENT}")
    return tuple(bindings), tuple(issues)


class _Refused(Exception):
    """Why one ``skills/`` entry binds nothing; always caught above and reported as an issue."""


def _bind_entry(entry: os.DirEntry[str], skills_dir: Path, own_root: str, link_roots: list[str]) -> SkillBinding:
    """The skill one ``skills/`` entry binds: each kind of entry may only land in its own allowed roots."""
    kind: Literal["directory", "symlink", "skillref"]
    name = entry.name
    if entry.is_symlink():
        kind, target, allowed = "symlink", _follow_link(entry.path), link_roots
    elif entry.is_dir():
        kind, target, allowed = "directory", os.path.realpath(entry.path), [own_root]
    elif entry.name.endswith(SKILLREF_SUFFIX) and entry.is_file():
        name = entry.name.removesuffix(SKILLREF_SUFFIX)
        kind, target, allowed = "skillref", _read_skillref(Path(entry.path), skills_dir), link_roots
    else:
        raise _Refused(f"a loose file; a project skill is a directory, a symlink or a "
                       f"`<name>{SKILLREF_SUFFIX}` file")
    _check_target(target, allowed)
    return SkillBinding(name=name, kind=kind, path=target)


def _follow_link(path: str) -> str:
    """One hop only: the link's own target, which must exist and not be a link itself."""
    link = os.readlink(path)
    target = os.path.normpath(os.path.join(os.path.dirname(path), link))
    if os.path.islink(target):
        raise _Refused(f"links to `{link}`, which is itself a link; a skill link must resolve in one hop")
    if not os.path.exists(target):
        raise _Refused(f"is a dangling link to `{link}`")
    return os.path.realpath(target)


def _read_skillref(path: Path, skills_dir: Path) -> str:
    try:
        text = read_regular(path, limit=SKILLREF_MAX_BYTES).decode("utf-8")
    except RefusedFile as refused:
        raise _Refused(refused.problem) from None
    except (OSError, UnicodeDecodeError) as error:
        raise _Refused(f"cannot be read: {error}") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        raise _Refused(f"names {len(lines)} paths; a skillref holds exactly one relative path")
    if os.path.isabs(lines[0]):
        raise _Refused(f"names the absolute path `{lines[0]}`; a skillref path must be relative")
    target = os.path.join(skills_dir, lines[0])
    if not os.path.exists(target):
        raise _Refused(f"points at `{lines[0]}`, which does not exist")
    return os.path.realpath(target)


def _check_inside(target: str, allowed_roots: list[str], what: str) -> None:
    if not any(is_within(target, root) for root in allowed_roots):
        raise _Refused(f"escapes to `{target}`; {what} must stay inside "
                       f"{' or '.join(f'`{root}`' for root in allowed_roots)}")


def _check_target(target: str, allowed_roots: list[str]) -> None:
    _check_inside(target, allowed_roots, "a project skill")
    if not os.path.isdir(target):
        raise _Refused(f"resolves to `{target}`, which is not a directory")
    if not os.path.isfile(os.path.join(target, SKILL_MANIFEST)):
        raise _Refused(f"has no {SKILL_MANIFEST}")
