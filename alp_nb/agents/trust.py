"""Trust: the principal's approval of a project agent, pinned to its definition hash.

A record is keyed by (canonical project, agent id): two projects with a
``migrator`` are two decisions. A definition whose hash differs from the
pinned one is ``changed``, and changed is denied, never warned about. The
store is one JSON file written atomically with mode 0600; a file that cannot
be read trusts nothing, and is never overwritten until it is repaired.
"""

from __future__ import annotations

import fcntl
import json
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from alp_nb.base.atomic_file import write_atomic
from alp_nb.base.frozen import FrozenModel

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
        """Every valid record; an unreadable file trusts nothing (with a warning)."""
        records, problem = self._read()
        if problem:
            warnings.warn(problem, stacklevel=2)
        return records

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
        with self._locked_records() as records:
            kept = [old for old in records if (old.project, old.id) != (record.project, record.id)]
            self._write([*kept, record])
        return record

    def untrust(self, project: str | os.PathLike[str], agent_id: str) -> bool:
        """Remove the record; True when there was one."""
        key = (canonicalize_path(os.fspath(project)), agent_id)
        with self._locked_records() as records:
            kept = [record for record in records if (record.project, record.id) != key]
            if len(kept) == len(records):
                return False
            self._write(kept)
        return True

    @contextmanager
    def _locked_records(self) -> Iterator[list[TrustRecord]]:
        """Read-modify-write under an exclusive lock, so concurrent approvals are all kept."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_path = self.path.with_name(self.path.name + ".lock")
        with open(os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600), "r+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            records, problem = self._read()
            if problem:
                raise AgentError("CORRUPT_TRUST_STORE", f"{problem}; it was left untouched")
            yield list(records)

    def _read(self) -> tuple[tuple[TrustRecord, ...], str | None]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return (), None
        except OSError as error:
            return (), f"cannot read trusted agents file at {self.path} ({error}); nothing is trusted"
        invalid = f"invalid trusted agents file at {self.path}; nothing is trusted until it is repaired"
        try:
            document = json.loads(text)
        except ValueError:
            return (), invalid
        if not isinstance(document, dict) or document.get("version") != TRUST_FILE_VERSION \
                or not isinstance(document.get("trusted"), list):
            return (), invalid
        records = []
        for entry in document["trusted"]:
            if not isinstance(entry, dict) or not entry.get("definitionHash"):
                continue  # a record without a hash pins nothing
            try:
                records.append(TrustRecord.model_validate(entry))
            except ValidationError:
                return (), invalid
        return tuple(records), None

    def _write(self, records: list[TrustRecord]) -> None:
        document = {
            "version": TRUST_FILE_VERSION,
            "trusted": [record.model_dump(mode="json", by_alias=True) for record in records],
        }
        write_atomic(self.path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")

    def __repr__(self) -> str:
        return f"TrustStore({str(self.path)!r})"
