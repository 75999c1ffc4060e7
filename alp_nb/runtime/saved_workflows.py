"""The host's registry of trusted workflow scripts: a model names one, it never sends code."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alp_nb.agents.output_contract import OutputContract
from alp_nb.base.frozen import thaw

from .errors import WorkflowInputError
from .meta import WorkflowMeta, args_contract, check_declared_args, checked_fields, validate_meta
from .sample import SAMPLE_META, review_changes

WorkflowScript = Callable[[Any, dict[str, Any]], Awaitable[Any]]


@dataclass(frozen=True)
class SavedWorkflow:
    """A registered script with its checked metadata, the digest of its source (kept per run attempt) and its
    compiled args schema."""

    meta: WorkflowMeta
    fn: WorkflowScript
    digest: str
    args_contract: OutputContract | None = None

    def check_args(self, args: dict[str, Any], field: str = "args") -> dict[str, Any]:
        """``args`` (already a JSON object), or INVALID_ARGS if they break the declared args schema."""
        check_declared_args(self.args_contract, args, self.meta.name, field)
        return args


class WorkflowRegistry:
    """Saved workflows by name. Registering again under a name is refused unless it is the same function
    (same module and qualified name), so a re-run notebook cell replaces its own workflow.

    A registry may fall back on another (``WorkflowRegistry(fallback=DEFAULT_REGISTRY)``): a name it does not hold
    is looked up there, so a workflow file loaded into it may save its own workflow under a name the fallback
    already has (an edited ``review-changes``) and still reach every other workflow. Only its own workflows are
    ever registered into it; the fallback is never changed."""

    def __init__(self, fallback: WorkflowRegistry | None = None) -> None:
        if fallback is not None and not isinstance(fallback, WorkflowRegistry):
            raise WorkflowInputError("INVALID_OPTION", f"fallback must be a WorkflowRegistry, not "
                                     f"{type(fallback).__name__}")
        self._saved: dict[str, SavedWorkflow] = {}
        self._fallback = fallback

    @property
    def fallback(self) -> WorkflowRegistry | None:
        """Where a name this registry does not hold is looked up (fixed when it is made, so never a cycle)."""
        return self._fallback

    def register(self, meta: WorkflowMeta | Mapping[str, Any], fn: WorkflowScript) -> SavedWorkflow:
        meta = validate_meta(meta)
        if not inspect.iscoroutinefunction(fn):
            raise WorkflowInputError("INVALID_META", f"workflow `{meta.name}` must be an async function (ctx, args)")
        self._check_free(meta.name, fn)
        saved = self._saved[meta.name] = SavedWorkflow(meta, fn, script_digest(fn), args_contract(meta))
        return saved

    def _register_own(self, meta: Mapping[str, Any], fn: WorkflowScript) -> None:
        """One of alp_nb's own workflows, its args schema compiled when a run first checks args against it."""
        checked = checked_fields(meta)
        schema = None if checked.args is None else OutputContract.deferred(f"{checked.name} args", thaw(checked.args))
        self._saved[checked.name] = SavedWorkflow(checked, fn, script_digest(fn), schema)

    def _check_free(self, name: str, fn: WorkflowScript) -> None:
        known = self._saved.get(name)
        if known is not None and _identity(known.fn) != _identity(fn):
            raise WorkflowInputError("DUPLICATE_WORKFLOW", f"workflow `{name}` is already registered")

    def _adopt(self, staged: WorkflowRegistry) -> tuple[str, ...]:
        """Every workflow of ``staged`` saved here too, or none of them if one name is taken."""
        for saved in staged:
            self._check_free(saved.meta.name, saved.fn)
        self._saved.update(staged._saved)
        return tuple(sorted(staged._saved))

    def get(self, name: str) -> SavedWorkflow:
        """The workflow saved here under ``name``, else the fallback's; UNKNOWN_WORKFLOW if neither has it."""
        saved = self._visible().get(name) if isinstance(name, str) else None
        if saved is None:
            known = ", ".join(sorted(self._visible())) or "none"
            raise WorkflowInputError("UNKNOWN_WORKFLOW", f"unknown workflow `{name}` (saved: {known}); a script "
                                     "kept in a file is saved by loading the file: load_workflow_file(path), or "
                                     "`--script path` on the command line")
        return saved

    def list(self) -> tuple[WorkflowMeta, ...]:
        """Metadata of every workflow ``get`` finds (this registry's own and its fallback's), by name."""
        return tuple(saved.meta for saved in self)

    def _visible(self) -> dict[str, SavedWorkflow]:
        """Every workflow ``get`` finds, by name: the fallback's, with this registry's own over them."""
        return self._saved if self._fallback is None else {**self._fallback._visible(), **self._saved}

    def __contains__(self, name: object) -> bool:
        return name in self._visible()

    def __iter__(self) -> Iterator[SavedWorkflow]:
        visible = self._visible()
        return iter([visible[name] for name in sorted(visible)])

    def __len__(self) -> int:
        return len(self._visible())


def script_digest(fn: Callable[..., Any]) -> str:
    """SHA-256 of the script's source (its bytecode when the source is not available)."""
    try:
        basis = inspect.getsource(fn).encode()
    except (OSError, TypeError):
        basis = fn.__code__.co_code
    return hashlib.sha256(basis).hexdigest()


def _identity(fn: Callable[..., Any]) -> tuple[str, str]:
    return getattr(fn, "__module__", ""), getattr(fn, "__qualname__", "")


DEFAULT_REGISTRY = WorkflowRegistry()
DEFAULT_REGISTRY._register_own(SAMPLE_META, review_changes)


def saved_workflow(*, name: str, description: str, phases: Sequence[str] = (), args: Mapping[str, Any] | None = None,
                   registry: WorkflowRegistry | None = None) -> Callable[[WorkflowScript], WorkflowScript]:
    """Register the decorated ``async def script(ctx, args)``; ``args`` is an optional JSON Schema its args must
    match before it runs; ``registry=None`` means the one ``load_workflow_file`` is loading into, else the
    default one."""
    loading = _LOADING_INTO.get()
    target = registry if registry is not None else loading if loading is not None else DEFAULT_REGISTRY

    def register(fn: WorkflowScript) -> WorkflowScript:
        target.register({"name": name, "description": description, "phases": phases, "args": args}, fn)
        return fn

    return register


def list_workflows(registry: WorkflowRegistry | None = None) -> tuple[WorkflowMeta, ...]:
    return (DEFAULT_REGISTRY if registry is None else registry).list()


_LOADING_INTO: ContextVar[WorkflowRegistry | None] = ContextVar("alp_nb_loading_into", default=None)
"""The registry a workflow file is being loaded into, for the ``@saved_workflow`` calls that name none."""


def load_workflow_file(path: str | os.PathLike[str], registry: WorkflowRegistry | None = None) -> tuple[str, ...]:
    """Run the Python file ``path``, which saves its workflows with ``@saved_workflow``, and return the names it
    added to ``registry`` (the default one when None). A registry of your own holds an edited copy of a saved
    workflow beside the original, under the same name.

    The file's workflows are saved aside while it runs and added only once it ran to its end, so a file that fails
    part way registers nothing. INVALID_SCRIPT when the file cannot be run (with its line of the error), calls
    ``sys.exit``, or saves no workflow."""
    path = Path(path)
    target = DEFAULT_REGISTRY if registry is None else registry
    name = f"alp_nb_workflow_file_{hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None or not path.is_file():
        raise WorkflowInputError("INVALID_SCRIPT", f"cannot load workflow file {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # inspect.getsource (the script's digest) looks modules up here
    staged = WorkflowRegistry()
    loading = _LOADING_INTO.set(staged)
    try:
        spec.loader.exec_module(module)
    except WorkflowInputError:
        del sys.modules[name]
        raise
    except (Exception, SystemExit) as error:
        del sys.modules[name]
        raise WorkflowInputError("INVALID_SCRIPT", f"cannot load workflow file {path}{_line_in(path, error)}: "
                                 f"{_what_happened(error)}") from None
    finally:
        _LOADING_INTO.reset(loading)
    if not len(staged):
        raise WorkflowInputError("INVALID_SCRIPT", f"workflow file {path} saves no workflow: decorate its script "
                                 "with @saved_workflow(name=..., description=...)")
    return target._adopt(staged)


def _line_in(path: Path, error: BaseException) -> str:
    """`` line N``: the line of ``path`` where ``error`` was raised, if it was raised there."""
    line = next((frame.lineno for frame in reversed(traceback.extract_tb(error.__traceback__))
                 if Path(frame.filename) == path), None)
    return f" line {line}" if line else ""


def _what_happened(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"it called sys.exit({error.code!r}) while loading"
    return f"{type(error).__name__}: {error}"
