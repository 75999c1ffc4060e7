"""Trust: the principal's approval of a project agent, pinned to its definition hash.

A record is keyed by (canonical project, agent id): two projects with a
``migrator`` are two decisions. A definition whose hash differs from the
pinned one is ``changed``, and changed is denied, never warned about. The
store is one JSON file written atomically with mode 0600; a file that cannot
be read trusts nothing, and is never overwritten until it is repaired. Nor does
one that group or others may write (ssh's rule for keys). A trust file that is
a link is read and written through it. An entry that is not a valid record
trusts nothing but is kept as it is: nothing recorded is ever dropped.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.frozen_model import FrozenModel
from alp_nb.base.safe_files import RefusedFile, read_regular
from alp_nb.base.untrusted_json import MalformedJson, UntrustedJson, loads_untrusted

from .catalog import RUNTIME_IDS
from .definition import AgentDefinition, RuntimeModelMap
from .errors import AgentError
from .hashing import definition_hash
from .paths import canonicalize_path

TRUST_FILE_VERSION = 1
TrustStatus = Literal["trusted", "untrusted", "changed"]


class Authority(FrozenModel):
    """What a definition may do, flattened so two versions can be diffed."""

    model: RuntimeModelMap
    tools: tuple[str, ...]
    skills: tuple[str, ...]
    subagents: tuple[str, ...]
    mcp_servers: tuple[str, ...]
    memory_read: tuple[str, ...]
    memory_write: tuple[str, ...]
    workspace_read: tuple[str, ...]
    workspace_write: tuple[str, ...]

    @classmethod
    def of(cls, definition: AgentDefinition) -> Authority:
        capabilities = definition.capabilities
        return cls(
            model=definition.model,
            tools=capabilities.tools,
            skills=capabilities.skills,
            subagents=capabilities.subagents,
            mcp_servers=capabilities.mcp_servers,
            memory_read=capabilities.memory.read,
            memory_write=capabilities.memory.write,
            workspace_read=capabilities.workspace.read_roots,
            workspace_write=capabilities.workspace.write_roots,
        )


class TrustRecord(FrozenModel):
    project: str
    id: str
    definition_hash: str
    trusted_at: str
    source_path: str | None = None
    authority: Authority


_DIFF_LABELS = (
    ("tools", "tools"), ("skills", "skills"), ("subagents", "subagents"), ("mcp_servers", "mcp servers"),
    ("memory_read", "memory read"), ("memory_write", "memory write"),
    ("workspace_read", "workspace read"), ("workspace_write", "workspace write"),
)


def diff_authority(before: AgentDefinition | Authority, after: AgentDefinition | Authority) -> list[str]:
    """``model (<runtime>): A → B`` and ``<label>: +gained -lost`` lines; [] when equal."""
    old = before if isinstance(before, Authority) else Authority.of(before)
    new = after if isinstance(after, Authority) else Authority.of(after)
    lines = [
        f"model ({runtime}): {getattr(old.model, runtime)} → {getattr(new.model, runtime)}"
        for runtime in RUNTIME_IDS
        if getattr(old.model, runtime) != getattr(new.model, runtime)
    ]
    for field, label in _DIFF_LABELS:
        was, now = getattr(old, field), getattr(new, field)
        changes = [f"+{item}" for item in now if item not in was] + [f"-{item}" for item in was if item not in now]
        if changes:
            lines.append(f"{label}: {' '.join(changes)}")
    return lines


def default_trust_path() -> Path:
    """``$HOME/.alp/trusted-agents.json``, as ALP keeps it."""
    return Path.home() / ".alp" / "trusted-agents.json"


class TrustStore:
    """The principal's trust records, in one file."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_trust_path()

    def records(self) -> tuple[TrustRecord, ...]:
        """Every valid record; an unusable file trusts nothing (with a warning)."""
        document, problem = self._read()
        if problem:
            warnings.warn(problem, stacklevel=2)
        return tuple(record for entry in document["trusted"] if (record := _record(entry)) is not None)

    def problem(self) -> str | None:
        """Why the trust file cannot be used (then nothing is trusted), or None when it can."""
        return self._read()[1]

    def record(self, project: str | os.PathLike[str], agent_id: str) -> TrustRecord | None:
        key = (canonicalize_path(os.fspath(project)), agent_id)
        return next((record for record in self.records() if (record.project, record.id) == key), None)

    def resolve(self, project: str | os.PathLike[str], definition: AgentDefinition) -> TrustStatus:
        """``trusted`` (same hash), ``untrusted`` (no record) or ``changed`` (hash moved: denied)."""
        record = self.record(project, definition.id)
        if record is None:
            return "untrusted"
        return "trusted" if record.definition_hash == definition_hash(definition) else "changed"

    def trust(
        self, project: str | os.PathLike[str], definition: AgentDefinition, source_path: str | None = None
    ) -> TrustRecord:
        """Pin ``definition``'s hash for this project, replacing any earlier record for its id."""
        record = TrustRecord(
            project=canonicalize_path(os.fspath(project)),
            id=definition.id,
            definition_hash=definition_hash(definition),
            trusted_at=datetime.now(UTC).isoformat(timespec="seconds"),
            source_path=source_path,
            authority=Authority.of(definition),
        )
        key = (record.project, record.id)
        with self._locked_document() as document:
            kept = [entry for entry in document["trusted"] if not _pins(entry, key)]
            self._write({**document, "trusted": [*kept, record.model_dump(mode="json", by_alias=True)]})
        return record

    def untrust(self, project: str | os.PathLike[str], agent_id: str) -> bool:
        """Remove the record; True when there was one."""
        key = (canonicalize_path(os.fspath(project)), agent_id)
        with self._locked_document() as document:
            kept = [entry for entry in document["trusted"] if not _pins(entry, key)]
            if len(kept) == len(document["trusted"]):
                return False
            self._write({**document, "trusted": kept})
        return True

    def _target(self) -> Path:
        """The file itself: a link (people keep dotfiles as links) is read and written through, never replaced."""
        return Path(os.path.realpath(self.path))

    @contextmanager
    def _locked_document(self) -> Iterator[dict[str, Any]]:
        """Read-modify-write under an exclusive lock, so concurrent approvals are all kept. An unusable
        file is refused before anything (a folder, the lock) is created beside it, and again under the lock."""
        self._usable_document()
        target = self._target()
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_path = target.with_name(target.name + ".lock")
        with open(os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600), "r+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield self._usable_document()

    def _usable_document(self) -> dict[str, Any]:
        document, problem = self._read()
        if problem:
            raise AgentError("CORRUPT_TRUST_STORE", f"{problem}; it was left untouched")
        return document

    def _read(self) -> tuple[dict[str, Any], str | None]:
        """The document as written (an empty one when there is no file), or an empty one and why the
        file cannot be used."""
        empty: dict[str, Any] = {"version": TRUST_FILE_VERSION, "trusted": []}
        target = self._target()
        problem = self._writable_folder(target)
        if problem:
            return empty, problem
        try:
            raw = read_regular(target)
        except FileNotFoundError:
            return empty, None
        except RefusedFile as refused:
            return empty, self._unreadable(f"it {refused.problem}")
        except OSError as error:
            return empty, self._unreadable(error.strerror or str(error))
        if _others_may_write(target):
            return empty, (f"trusted agents file at {self.path} is writable by group or others, so nothing is "
                           f"trusted; run `chmod go-w {self.path}`")
        try:
            document = loads_untrusted(raw)
        except MalformedJson:  # broken JSON, which ALP refuses too: in ALP's words
            return empty, self._invalid()
        except UntrustedJson as error:  # JSON only alp_nb refuses (too deep, NaN, a repeated key): say why
            return empty, self._invalid(error.message)
        if not isinstance(document, dict) or document.get("version") != TRUST_FILE_VERSION \
                or not isinstance(document.get("trusted"), list):
            return empty, self._invalid()
        return document, None

    def _unreadable(self, why: str) -> str:
        return f"cannot read trusted agents file at {self.path} ({why}); nothing is trusted"

    def _invalid(self, why: str | None = None) -> str:
        return f"invalid trusted agents file at {self.path}{f': {why}' if why else ''}; " \
            "nothing is trusted until it is repaired"

    def _writable_folder(self, target: Path) -> str | None:
        """As ssh treats its keys, a trust file someone else may write (``_read`` checks it once it is known to
        be a regular file) or replace could say anything, so it trusts nothing. The folder holding the link
        counts as well as the folder holding the file."""
        for folder in dict.fromkeys((Path(os.path.realpath(self.path.parent)), target.parent)):
            if _others_may_write(folder):
                return (f"the folder {folder} of trusted agents file {self.path} is writable by group or others, "
                        f"so nothing is trusted; run `chmod go-w {folder}`")
        return None

    def _write(self, document: dict[str, Any]) -> None:
        write_atomic(self._target(), json.dumps(document, indent=2, ensure_ascii=False) + "\n")

    def __repr__(self) -> str:
        return f"TrustStore({str(self.path)!r})"


def _record(entry: object) -> TrustRecord | None:
    """The record ``entry`` holds, or None: an entry with no hash, not an object, or with a field unknown or
    malformed pins nothing, and is written back exactly as it was, never dropped."""
    if not isinstance(entry, dict) or not entry.get("definitionHash"):
        return None
    try:
        return TrustRecord.model_validate(entry)
    except ValidationError:
        return None


def _pins(entry: object, key: tuple[str, str]) -> bool:
    """Whether ``entry`` is the valid record for ``key`` (canonical project, agent id)."""
    record = _record(entry)
    return record is not None and (record.project, record.id) == key


def _others_may_write(path: Path) -> bool:
    """Whether group or others may write ``path``; a path that cannot be looked at is left to the reader."""
    try:
        return bool(os.stat(path).st_mode & (stat.S_IWGRP | stat.S_IWOTH))
    except OSError:
        return False
