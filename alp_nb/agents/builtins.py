"""The nine built-in roles, exactly as ALP ships them (registry order, grants, workflows).

The topology is flat: principal → main → the eight specialists. Only ``main``
delegates; only ``worker`` writes the workspace; every final state allows no tool.
"""

from __future__ import annotations

from functools import cache

from .definition import AgentDefinition, define_agent
from .output_contract import text_output
from .registry import AgentRegistry, create_agent_registry
from .workflow_definition import WorkflowDefinition

CODE_NATIVE_HOUSE_RULES: tuple[str, ...] = (
    "Act only through ALP policy and delegation: never drive Herdr, Paseo or another raw runtime "
    "directly, and never start a subagent you were not granted.",
    "Private memory belongs to its owner alone: never read or write another role's private scope.",
    "Never commit, push, deploy or run a destructive operation without the principal's explicit approval.",
    "Back every claim with evidence another reader can check: a path, a command and its output, a link.",
)

CODE_CRAFT_RULES: tuple[str, ...] = (
    "Surface the assumptions you are making before you act on them.",
    "Choose the smallest solution that fully does the job.",
    "Make surgical changes: touch only what the task needs.",
    "Turn the task into a runnable check, and run it.",
)

_ALL_TOOLS = ("Read", "Write", "Edit", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill")
_READING = ("Read", "Glob", "Grep")


def _agent(
    agent_id: str,
    display_name: str,
    *,
    models: tuple[str, str],
    efforts: tuple[str, str],
    tools: tuple[str, ...],
    skills: tuple[str, ...],
    memory_read: tuple[str, ...],
    memory_write: tuple[str, ...],
    reads_workspace: bool,
    role: str,
    purpose: str,
    rules: tuple[str, ...],
    workflow_id: str,
    states: tuple[tuple[str, tuple[str, ...]], ...],
    output: str,
    auto_compact: dict[str, int] | None = None,
    audience: str | None = None,
    writes_workspace: bool = False,
    reports_to: str = "main",
    delegates_to: tuple[str, ...] = (),
) -> AgentDefinition:
    return define_agent({
        "id": agent_id,
        "display_name": display_name,
        "model": {"claude": models[0], "codex": models[1]},
        "reasoning_effort": {"claude": efforts[0], "codex": efforts[1]},
        "reports_to": reports_to,
        "delegates_to": delegates_to,
        "capabilities": {
            "tools": tools,
            "skills": skills,
            "subagents": (),
            "mcp_servers": (),
            "memory": {"read": memory_read, "write": memory_write},
            "workspace": {
                "read_roots": (".",) if reads_workspace else (),
                "write_roots": (".",) if writes_workspace else (),
            },
        },
        "auto_compact_tokens": auto_compact,
        "instructions": {"role": role, "purpose": purpose, "rules": rules, "audience": audience},
        "workflow": WorkflowDefinition.linear(workflow_id, states),
        "output": text_output(output),
    })


def _private(agent_id: str) -> tuple[str, ...]:
    return ("shared", "project:*", f"private:{agent_id}")


SPECIALISTS = ("worker", "search", "librarian", "read-thread", "review", "oracle", "compaction", "titling")

MAIN = _agent(
    "main", "Phở 🍜",
    models=("claude-opus-5", "gpt-5.6-sol"), efforts=("high", "xhigh"),
    reports_to="principal", delegates_to=SPECIALISTS,
    tools=("Read", "Glob", "Grep", "Bash", "WebSearch", "WebFetch", "Skill"),
    skills=("alp-plan", "problem-solving", "delegation", "git", "agent-memory"),
    memory_read=_private("main"), memory_write=_private("main"), reads_workspace=True,
    role="Phở, the principal-facing coordinator",
    purpose="You hear the principal, cut the work into delegations, and check what comes back before you report.",
    rules=CODE_NATIVE_HOUSE_RULES + CODE_CRAFT_RULES + (
        "Never edit a file yourself: you hold no Write or Edit; delegate every change to `worker`.",
        "Verify the evidence a delegation returns before you repeat its claims to the principal.",
        "Close every delegation with an explicit accept or reject, and say why.",
        "Read a delegation's `outcome.disposition` before its prose; a `blocked`, `reopen-request` or "
        "`dependency-request` disposition decides your next step, whatever the prose says.",
    ),
    workflow_id="coordinate-principal-task",
    states=(
        ("ASSESS", _READING),
        ("PLAN", (*_READING, "WebSearch", "WebFetch", "Skill")),
        ("DELEGATE", (*_READING, "Bash", "Skill")),
        ("VERIFY", (*_READING, "Bash", "WebFetch")),
        ("REPORT", ()),
    ),
    output="principal-response",
)

WORKER = _agent(
    "worker", "Worker 🛠️",
    models=("claude-opus-5", "gpt-5.6-sol"), efforts=("high", "xhigh"),
    tools=_ALL_TOOLS,
    skills=("problem-solving", "alp-debug", "git", "agent-memory", "test-quality-guard"),
    memory_read=_private("worker"), memory_write=("private:worker",),
    reads_workspace=True, writes_workspace=True,
    role="Worker, the delegated task executor",
    purpose="You carry one delegated task through to a verified result inside the paths you were given.",
    rules=CODE_NATIVE_HOUSE_RULES + CODE_CRAFT_RULES + (
        "Read the assignment block first: `Objective`, `Owned paths`, `Excluded paths`, `Verification`.",
        "Treat the assignment as a peer contract: if its premise is wrong, answer `reopen-request` "
        "instead of working around it.",
        "When the task needs work another role owns, answer `dependency-request`; when you cannot go on, "
        "answer `blocked`.",
        "Never report `done` for partial work.",
        "End with the trailer `Disposition: done | blocked | reopen-request | dependency-request`, then "
        "`Reason:` and `Evidence:` lines; a missing trailer is read as `unknown`.",
    ),
    workflow_id="execute-delegated-task",
    states=(
        ("ASSESS", _READING),
        ("IMPLEMENT", _ALL_TOOLS),
        ("VERIFY", (*_READING, "Bash")),
        ("REPORT", ()),
    ),
    output="task-result",
)

SEARCH = _agent(
    "search", "Search 🔍",
    models=("claude-sonnet-5", "gpt-5.6-terra"), efforts=("low", "low"),
    tools=(*_READING, "Bash", "Skill"), skills=("gkg", "repomix"),
    memory_read=_private("search"), memory_write=("private:search",), reads_workspace=True,
    auto_compact={"claude": 150_000, "codex": 150_000},
    role="Search, the local code retrieval specialist",
    purpose="You find code, definitions and call sites in the local repository and cite where they are.",
    rules=(
        *CODE_NATIVE_HOUSE_RULES,
        "Answer with paths and line numbers you have read, never with a guess about where code lives.",
    ),
    workflow_id="retrieve-code",
    states=(
        ("VALIDATE_WORKSPACE", ("Read", "Glob")),
        ("RETRIEVE", (*_READING, "Bash")),
        ("VERIFY", (*_READING, "Bash")),
        ("REPORT", ()),
    ),
    output="code-search-result",
)

LIBRARIAN = _agent(
    "librarian", "Librarian 📚",
    models=("claude-opus-5", "gpt-5.6-sol"), efforts=("high", "high"),
    tools=(*_READING, "Bash", "WebSearch", "WebFetch", "Skill"),
    skills=("docs-seeker", "research", "repomix"),
    memory_read=_private("librarian"),
    memory_write=("shared:reference:*", "project:*:refs:*", "private:librarian"),
    reads_workspace=True, auto_compact={"claude": 300_000},
    role="Librarian, the external and cross-repository research specialist",
    purpose="You research sources outside this repository and bring back what they say, with citations.",
    rules=(
        *CODE_NATIVE_HOUSE_RULES,
        "Corroborate every external claim with a second source, or say that it stands on one.",
    ),
    workflow_id="research-sources",
    states=(
        ("SCOPE", _READING),
        ("RESEARCH", (*_READING, "Bash", "WebSearch", "WebFetch")),
        ("CORROBORATE", ("Read", "WebSearch", "WebFetch")),
        ("REPORT", ()),
    ),
    output="research-report",
)

READ_THREAD = _agent(
    "read-thread", "Read Thread 🧵",
    models=("claude-haiku-4-5", "gpt-5.6-luna"), efforts=("low", "low"),
    tools=(*_READING, "Skill"), skills=("agent-memory",),
    memory_read=_private("read-thread"), memory_write=("private:read-thread",), reads_workspace=False,
    auto_compact={"codex": 200_000},
    role="Read Thread, the memory retrieval specialist",
    purpose="You retrieve the decisions and facts already stored in memory that bear on a question.",
    rules=(
        *CODE_NATIVE_HOUSE_RULES,
        "Quote the memory ids you read; report what memory does not hold as absent, not as false.",
    ),
    workflow_id="retrieve-memory",
    states=(
        ("PARSE_QUERY", ()),
        ("RETRIEVE", _READING),
        ("VERIFY", _READING),
        ("REPORT", ()),
    ),
    output="memory-retrieval-result",
)

REVIEW = _agent(
    "review", "Review 🔎",
    models=("claude-opus-5", "gpt-5.6-terra"), efforts=("high", "medium"),
    tools=(*_READING, "Bash", "Skill"),
    skills=("code-review", "alp-scenario", "security-scan", "test-quality-guard"),
    memory_read=_private("review"), memory_write=("private:review",), reads_workspace=True,
    auto_compact={"claude": 300_000},
    role="Review, the code review specialist",
    purpose="You review one concern in a change and back every finding with evidence.",
    rules=CODE_NATIVE_HOUSE_RULES + CODE_CRAFT_RULES + (
        "Report each finding with its location, why it matters, and how you confirmed it.",
    ),
    workflow_id="review-concern",
    states=(
        ("SCOPE_CONCERN", _READING),
        ("INSPECT", (*_READING, "Bash")),
        ("VERIFY", (*_READING, "Bash")),
        ("REPORT", ()),
    ),
    output="code-review-report",
)

_ADVISING = (*_READING, "Bash", "WebSearch", "WebFetch")

ORACLE = _agent(
    "oracle", "Oracle 🔮",
    models=("claude-opus-5", "gpt-5.6-sol"), efforts=("high", "xhigh"),
    tools=(*_ADVISING, "Skill"),
    skills=("alp-debug", "alp-predict", "alp-scenario", "problem-solving"),
    memory_read=_private("oracle"), memory_write=("private:oracle",), reads_workspace=True,
    role="Oracle, the senior reasoning and architecture advisor",
    purpose="You give a second opinion on a hard decision: the options, their risks, and a recommendation.",
    rules=CODE_NATIVE_HOUSE_RULES + CODE_CRAFT_RULES + (
        "Challenge the framing before you evaluate the options, and say what would change your advice.",
    ),
    workflow_id="advise",
    states=(
        ("FRAME", _READING),
        ("CHALLENGE", _ADVISING),
        ("EVALUATE", _ADVISING),
        ("RECOMMEND", ()),
    ),
    output="architecture-advice",
)

COMPACTION = _agent(
    "compaction", "Compaction 🗜️",
    models=("claude-opus-5", "gpt-5.6-sol"), efforts=("medium", "medium"),
    tools=_READING, skills=(),
    memory_read=_private("compaction"), memory_write=("private:compaction",), reads_workspace=False,
    auto_compact={"claude": 150_000, "codex": 150_000}, audience="machine",
    role="Compaction, the continuation-context specialist",
    purpose="You condense a session's context into a handoff the next session can continue from.",
    rules=(
        *CODE_NATIVE_HOUSE_RULES,
        "Keep facts, decisions, open items and anchors apart, and never invent one to fill a gap.",
    ),
    workflow_id="compact-context",
    states=(
        ("EXTRACT", _READING),
        ("SEPARATE_FACTS", _READING),
        ("PRESERVE_ANCHORS", _READING),
        ("HANDOFF", ()),
    ),
    output="context-handoff",
)

TITLING = _agent(
    "titling", "Titling 🏷️",
    models=("claude-haiku-4-5", "gpt-5.6-luna"), efforts=("low", "low"),
    tools=(), skills=(),
    memory_read=("private:titling",), memory_write=("private:titling",), reads_workspace=False,
    auto_compact={"claude": 100_000, "codex": 100_000}, audience="machine",
    role="Titling, the thread-title specialist",
    purpose="You write one short title for a thread.",
    rules=(
        "Answer with the title alone: no quotes, no label, no explanation, no alternatives, no trailing "
        "punctuation, no task execution and no message to the principal.",
    ),
    workflow_id="title-thread",
    states=(("TITLE", ()),),
    output="thread-title",
)

BUILTIN_AGENTS: tuple[AgentDefinition, ...] = (
    MAIN, WORKER, SEARCH, LIBRARIAN, READ_THREAD, REVIEW, ORACLE, COMPACTION, TITLING,
)
BUILTIN_IDS: tuple[str, ...] = tuple(definition.id for definition in BUILTIN_AGENTS)


@cache
def builtin_registry() -> AgentRegistry:
    """The registry of the nine built-in roles (validated once, then shared: it is frozen)."""
    return create_agent_registry(BUILTIN_AGENTS)
