"""What the contract linter checks: one function per rule, its id, severity, rationale and fix hint.

Ids and severities are those of the reference (``reference/loop-contracts.md`` §9):
LC001–LC018 are structural (no text matching), LC100–LC113 keyword heuristics
(noisy, so ``info`` or ``warning``). LC004 is ours: an unanswered ``TODO:`` question
left by ``LoopContract.template``, an error so that a draft cannot pass unnoticed.
LC019 is ours: a contract whose last review (``x_alp_nb.review``) is older than its
cadence. LC114–LC116 are ours too, heuristics from the seed's review checklist: a
state update that names no commit point, external effects with no cap, and a
manual-bootstrap trigger whose words read as a schedule or an event.

A heuristic reads prose as people write it (``words.py``: hyphenated and negated
forms, the verb of an action apart from the nouns it acts on), keeps its words in
``Words`` families, and its findings say which words it looked for: the author can
then satisfy it, or ``ignore`` it. ``tests/lint_judgments.py`` holds the corpus its
precision and recall are measured on.

A check yields ``(json path, message)`` for each place the rule fires. Document
rules (LC001, LC002) read the JSON as written, before it becomes a model; dated
rules (LC019) read a ``LoopContract`` and the day lint runs on; the others read a
``LoopContract``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

from alp_nb.base.json_schema import jsonschema_module
from alp_nb.base.schema_errors import error_location

from .effects import (
    CAP_PHRASES,
    EFFECT_NOUNS,
    EXTERNAL_EFFECT,
    EXTERNAL_EFFECT_WORDS,
    action_kind,
    effect_caps,
    external_effects,
)
from .extension import EXTENSION_KEY, extended_json_schema
from .loop_contract import TEMPLATE_MARK, LoopContract, json_path, normalized
from .scenario import SIMULATED_ATTEMPTS_LIMIT, attempts_possible
from .words import NEGATIONS, Words, verb_phrases

if TYPE_CHECKING:
    import jsonschema

Severity = Literal["error", "warning", "info"]
Reads = Literal["contract", "document", "dated"]
Hit = tuple[str, str]
Check = Callable[..., Iterable[Hit]]

RETRIES_ADVISORY = 5
RUNTIME_MINUTES_ADVISORY = 480
"""LC018's thresholds: caps above these approach the Infinite Retry anti-pattern."""


@dataclass(frozen=True)
class LintRule:
    """One check: ``summary`` says what it flags, ``rationale`` why it matters, ``hint`` how to fix it."""

    id: str
    severity: Severity
    summary: str
    rationale: str
    hint: str
    check: Check = field(repr=False, compare=False)
    reads: Reads = "contract"
    pair: str = ""
    """The field pair a review walks together (trigger ↔ intake ...), when the rule checks one."""
    looked_for: str = ""
    """For a heuristic, the words it reads, as its findings name them."""


_RULES: list[LintRule] = []


def _rule(rule_id: str, severity: Severity, summary: str, rationale: str, hint: str, *,
          reads: Reads = "contract", pair: str = "",
          looked_for: str = "") -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        _RULES.append(LintRule(rule_id, severity, summary, rationale, hint, check, reads, pair, looked_for))
        return check
    return register


def _strings(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str, str]]:
    """Every string of a contract document with its JSON path."""
    if isinstance(value, str):
        yield json_path(path), value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, (*path, index))


READ_ONLY = Words("read-only", "read access", not_after=NEGATIONS)
WRITE_ACCESS = Words("write access", "write to", "writes to", "read-write", not_after=NEGATIONS)


def _read_only(contract: LoopContract) -> bool:
    """Whether the workspace is read-only: it says so (``read-only``, ``read access``) and grants no write."""
    isolation = contract.workspace.isolation
    return bool(READ_ONLY.search(isolation)) and not WRITE_ACCESS.search(isolation)


STRING_ARRAYS = (
    ("intake", "sources"), ("workspace", "allowed_actions"), ("workspace", "disallowed_actions"),
    ("context", "required_files"), ("context", "runtime_sources"), ("verification", "gates"),
    ("verification", "receipts"), ("state", "artifacts"), ("escalation", "conditions"),
)


# --- 9.1 structural rules -------------------------------------------------------------------------


@cache
def _schema_validator() -> jsonschema.Draft202012Validator:
    """The schema alp_nb ships: the public one, plus the optional ``x_alp_nb`` key (a public contract is judged
    exactly as the public schema judges it). Dates are checked as dates. jsonschema is imported here, the first
    time a document is linted: a contract already loaded never needs it."""
    validator = jsonschema_module().Draft202012Validator
    return validator(extended_json_schema(), format_checker=validator.FORMAT_CHECKER)


@_rule("LC001", "error", "The document fails Draft 2020-12 validation against the contract schema "
       "(the public one, plus alp_nb's optional x_alp_nb).",
       "Upstream CI validates every contract; nothing else can be checked on one it rejects.",
       "Add the missing field, remove the unknown key or fix the type the message names.", reads="document")
def schema_violations(document: Any) -> Iterator[Hit]:
    located = (hit for error in _schema_validator().iter_errors(document) for hit in _at_own_path(error))
    for location, message in sorted(located, key=lambda hit: list(map(str, hit[0]))):
        yield json_path(location), message


def _at_own_path(error: jsonschema.ValidationError) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """The error at the key it concerns: jsonschema puts a missing or unexpected key at the object
    holding it (``agents[0]``), while loading names the key itself (``agents[0].role``)."""
    instance, schema = error.instance, error.schema
    unexpected = error.validator == "additionalProperties" and error.validator_value is False
    if unexpected and isinstance(instance, Mapping) and isinstance(schema, Mapping):
        known = schema.get("properties", {})
        for key in (key for key in instance if key not in known):
            yield (*error.absolute_path, key), f"Additional properties are not allowed ({key!r} was unexpected)"
    else:
        yield error_location(error), error.message


@_rule("LC002", "warning", "A budget integer is written as a float (3.0).",
       "Draft 2020-12 accepts 3.0 but upstream's Python checker rejects it; keep contracts portable.",
       "Write the number without a decimal point.", reads="document")
def float_budget(document: Any) -> Iterator[Hit]:
    budget = document.get("budget") if isinstance(document, dict) else None
    if not isinstance(budget, dict):
        return
    for key, value in budget.items():
        if isinstance(value, float) and value.is_integer():
            yield f"budget.{key}", f"{value!r} is written as a float; write {int(value)}"


PLACEHOLDERS = frozenset({"tbd", "tba", "todo", "fixme", "xxx", "n/a", "na", "none", "-", "--", "…", "?",
                          "placeholder"})


@_rule("LC003", "warning", "A required string is a placeholder (TBD, TODO, n/a, none, -, ...).",
       "It satisfies minLength 1 but leaves the decision a hidden default.",
       "Write the actual decision, or the reason the part does not apply.")
def placeholders(contract: LoopContract) -> Iterator[Hit]:
    for path, text in _strings(contract.to_document()):
        if normalized(text) in PLACEHOLDERS or not normalized(text):
            yield path, f"{text!r} is a placeholder"


@_rule("LC004", "error", f"A string still holds an unanswered template question ({TEMPLATE_MARK} ...).",
       "A drafted contract is not a reviewed one: every question of the template needs an answer.",
       f"Replace the {TEMPLATE_MARK} text with this contract's answer.")
def unanswered_template(contract: LoopContract) -> Iterator[Hit]:
    for path, text in _strings(contract.to_document()):
        if text.lstrip().startswith(TEMPLATE_MARK):
            yield path, f"unanswered: {text.strip()[len(TEMPLATE_MARK):].strip()}"
    if contract.trigger.type == "manual-bootstrap" and contract.trigger.cadence_or_event.lstrip().startswith(
            TEMPLATE_MARK):  # the schema's enum cannot hold a question, so the template's default asks it here
        yield "trigger.type", ("unanswered: which kind of trigger starts a run: scheduled, event, goal or "
                               "manual-bootstrap? (the template's manual-bootstrap is a default, not a choice)")


@_rule("LC010", "error", "The same action is both allowed and disallowed.",
       "The permission boundary becomes undefined.",
       "Keep the action in one list only.")
def allowed_and_disallowed(contract: LoopContract) -> Iterator[Hit]:
    allowed = {normalized(action) for action in contract.workspace.allowed_actions}
    for index, action in enumerate(contract.workspace.disallowed_actions):
        if normalized(action) in allowed:
            yield f"workspace.disallowed_actions[{index}]", f"{action!r} is also an allowed action"


@_rule("LC011", "warning", "workspace.allowed_actions is empty.",
       "Bounded autonomy needs explicit allowed actions; an empty list leaves the agent's scope implicit.",
       "List the few actions the objective needs (inspect, test, narrow patch ...).")
def no_allowed_actions(contract: LoopContract) -> Iterator[Hit]:
    if not contract.workspace.allowed_actions:
        yield "workspace.allowed_actions", "no action is explicitly allowed"


@_rule("LC012", "warning", "workspace.disallowed_actions is empty.",
       "Disallowed actions name the boundary (anti-pattern Unsafe Production Autonomy).",
       "Name the actions that must never happen (force push, production change, weaken tests ...).")
def no_disallowed_actions(contract: LoopContract) -> Iterator[Hit]:
    if not contract.workspace.disallowed_actions:
        yield "workspace.disallowed_actions", "no action is explicitly disallowed"


@_rule("LC013", "error", "exit.success equals exit.stop_without_success.",
       "The two exits must be distinguishable or every stop reads as success.",
       "Phrase success as gate evidence and stop as budget spent, repeated failure or blocked.",
       pair="success ↔ stop-without-success")
def identical_exits(contract: LoopContract) -> Iterator[Hit]:
    if normalized(contract.exit.success) == normalized(contract.exit.stop_without_success):
        yield "exit.stop_without_success", "the stop condition is the success condition"


GENERIC_DESTINATIONS = frozenset({"human", "a human", "the human", "humans", "team", "the team", "a team", "someone",
                                  "somebody", "anyone", "user", "the user", "owner", "an owner", "people", "admin"})
NAMED_DESTINATION = Words("owner*", "channel*", "issue*", "queue*", "pager*", "page*", "on-call*", "ticket*",
                          "comment*", "pr", "prs", "pull request*", "email*", "e-mail*", "slack*", "maintainer*",
                          "lead*", "reviewer*", "manager*", "assignee*", "rotation*")


@_rule("LC014", "warning",
       "escalation.destination is a bare generic or names no owner, channel, issue, queue or pager.",
       "Escalation must reach a named human owner or review channel.",
       "Name the owner and the channel: 'issue assigned to the repo owner', 'on-call via pager'.",
       pair="budget ↔ escalation",
       looked_for=f"{NAMED_DESTINATION}, a #channel, an @handle")
def vague_destination(contract: LoopContract) -> Iterator[Hit]:
    destination = contract.escalation.destination
    if normalized(destination) in GENERIC_DESTINATIONS:
        yield "escalation.destination", f"{destination!r} names nobody in particular"
    elif not NAMED_DESTINATION.search(destination) and "#" not in destination and "@" not in destination:
        yield "escalation.destination", f"{destination!r} names no owner, channel, issue, queue or pager"


@_rule("LC015", "warning", "Two agents share a role name.",
       "Delegation must say who explores, who acts and who checks.",
       "Give each agent a distinct role, or merge the two.")
def shared_roles(contract: LoopContract) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    for index, agent in enumerate(contract.agents):
        role = normalized(agent.role)
        if role in seen:
            yield f"agents[{index}].role", f"role {agent.role!r} is also agents[{seen[role]}]"
        seen.setdefault(role, index)


@_rule("LC016", "info", "An array repeats an entry.",
       "The schema has no uniqueItems; repeated gates, receipts or conditions hide intent.",
       "Remove the repeated entry.")
def repeated_entries(contract: LoopContract) -> Iterator[Hit]:
    for part, key in STRING_ARRAYS:
        seen: dict[str, int] = {}
        for index, text in enumerate(getattr(getattr(contract, part), key)):
            if normalized(text) in seen:
                yield f"{part}.{key}[{index}]", f"{text!r} repeats {part}.{key}[{seen[normalized(text)]}]"
            seen.setdefault(normalized(text), index)


@_rule("LC017", "warning", "context.required_files and context.runtime_sources are both empty.",
       "The Context part says what is loaded fresh each run (see the Context Dump anti-pattern).",
       "Name the instructions and the current evidence each run reads.")
def no_context(contract: LoopContract) -> Iterator[Hit]:
    if not contract.context.required_files and not contract.context.runtime_sources:
        yield "context", "nothing is loaded fresh for a run"


@_rule("LC018", "info",
       f"budget.max_retries > {RETRIES_ADVISORY} or max_runtime_minutes > {RUNTIME_MINUTES_ADVISORY}.",
       "Large caps approach the Infinite Retry anti-pattern; autonomy should be budgeted.",
       "Lower the cap, or escalate earlier with evidence.")
def large_budget(contract: LoopContract) -> Iterator[Hit]:
    """Also says when a run would make more attempts than the simulator plays, so lint warns that its scenarios stop
    there before a reviewer reads their traces."""
    budget = contract.budget
    if budget.max_retries > RETRIES_ADVISORY:
        played = ("" if attempts_possible(budget) <= SIMULATED_ATTEMPTS_LIMIT else
                  f"; the simulator plays at most {SIMULATED_ATTEMPTS_LIMIT:,} attempts of an item, so a run it "
                  "simulates stops there and says so")
        yield "budget.max_retries", f"{budget.max_retries} retries is above {RETRIES_ADVISORY}{played}"
    if budget.max_runtime_minutes > RUNTIME_MINUTES_ADVISORY:
        yield "budget.max_runtime_minutes", f"{budget.max_runtime_minutes} minutes is above {RUNTIME_MINUTES_ADVISORY}"


@_rule("LC019", "warning", "The contract's last review is older than its review cadence, or so late that the next "
       "one never comes due (x_alp_nb.review).",
       "Seed 004: a contract needs an owner and a review cadence, like code; a changed test suite, credential model "
       "or escalation team can make an unchanged contract wrong.",
       "Review the contract with its reviewers, then set x_alp_nb.review.last_reviewed to the day of the review.",
       reads="dated")
def review_overdue(contract: LoopContract, today: date) -> Iterator[Hit]:
    review = contract.x_alp_nb.review if contract.x_alp_nb is not None else None
    if review is None:
        return
    cadence = f"last reviewed {review.last_reviewed.isoformat()}, due every {review.every_days} days"
    if review.due is None:  # a cadence that never comes due is not kept either
        yield (f"{EXTENSION_KEY}.review.last_reviewed", f"{cadence}: the next review would fall after "
               f"{date.max.isoformat()}, the last day a date can hold, so it never comes due")
    elif review.overdue(today):
        yield f"{EXTENSION_KEY}.review.last_reviewed", f"{cadence}: overdue since {review.due.isoformat()}"


# --- 9.2 keyword heuristics -----------------------------------------------------------------------

CADENCE = Words("hourly", "daily", "weekly", "nightly", "monthly", "quarterly", "yearly", "annually", "every*",
                "cron*", "window*", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays",
                "sundays", "weekdays", "weekends", "business days", "twice a*", "once a*")
"""A cadence as written: a frequency word, ``every …``, a plural day (``Mondays at 07:00``), or a cron line."""
CRON_EXPRESSION = re.compile(r"(?:^|\s)(?:[\d*/,-]+\s+){4}[\d*/,-]+(?:\s|$)")


@_rule("LC100", "warning", "A scheduled trigger's cadence_or_event names no cadence (daily, every ..., cron, window).",
       "A schedule that cannot be read runs at the wrong time.",
       "State the cadence: 'weekly on Monday 06:00 UTC', 'every 2 hours', a cron expression.",
       pair="trigger ↔ intake", looked_for=f"{CADENCE}, a cron expression")
def scheduled_without_cadence(contract: LoopContract) -> Iterator[Hit]:
    text = contract.trigger.cadence_or_event
    if contract.trigger.type == "scheduled" and not CADENCE.search(text) and not CRON_EXPRESSION.search(text):
        yield "trigger.cadence_or_event", f"scheduled, but {text!r} names no cadence"


STOPWORDS = frozenset({"that", "this", "with", "from", "into", "only", "when", "then", "than", "have", "been", "were",
                       "will", "must", "each", "every", "more", "less", "some", "none", "their", "there", "which",
                       "what", "while", "your", "also", "does", "done", "just", "over", "under"})


def _terms(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z0-9]+", text.casefold()) if len(word) >= 4 and word not in STOPWORDS}


@_rule("LC101", "info", "A goal trigger's exit.success shares no term with any verification gate.",
       "A goal-driven loop runs until a verifiable goal is met; the goal should be what a gate checks.",
       "Word exit.success in terms of the gate that proves it.", pair="success ↔ stop-without-success",
       looked_for="a word of four letters or more in both exit.success and a gate")
def goal_not_gated(contract: LoopContract) -> Iterator[Hit]:
    if contract.trigger.type != "goal":
        return
    gate_terms = set().union(*(_terms(gate) for gate in contract.verification.gates))
    if not _terms(contract.exit.success) & gate_terms:
        yield "exit.success", "success shares no term with any gate"


ISOLATION = Words("worktree*", "work tree*", "branch*", "sandbox*", "container*", "docker*", "read-only",
                  "read access", "separate*", "staging*", "isolat*", "dedicated", "ephemeral", "throwaway",
                  "scratch", "temporary", "vm", "vms", "virtual machine*", "clone*", "fork*", "replica*", "scoped*",
                  "restricted to", "limited to", "confined to", "least privilege", "least-privilege", "draft pr",
                  "draft prs", "draft pull request*", "dry-run", "disposable", "torn down", "own account",
                  "separate account",
                  not_after=(*NEGATIONS, "main", "master", "trunk", "default", "shared", "production"))
SCOPED_ACCESS = re.compile(r"\b(?:access|permissions?|rights?)\s+(?:to|on)\b[^.;]*?\bonly\b|\bonly\s+(?:read|write)s?\b"
                           r"|\b(?:cannot|can't|can not)\s+(?:touch|write|reach|access|change|modify)\b", re.IGNORECASE)
"""Where an agent acts apart from what others use: a worktree, a sandbox, read access, a disposable cluster, a
credential scoped to the job (``access to the renewal API only``, ``it cannot touch …``), a draft PR only. A branch
that is the main one (``on the main branch``) or a shared one is no isolation."""


@_rule("LC102", "warning",
       "workspace.isolation names no isolation mechanism (worktree, branch, sandbox, read-only ...).",
       "Loop Design Checklist: isolate execution.",
       "Say where the agent acts: a clean worktree, a sandbox, a container, read-only access.",
       looked_for=f"{ISOLATION}; access to … only, only reads (writes), cannot touch (write, reach …)")
def no_isolation(contract: LoopContract) -> Iterator[Hit]:
    if not ISOLATION.search(contract.workspace.isolation) and not SCOPED_ACCESS.search(contract.workspace.isolation):
        yield "workspace.isolation", f"{contract.workspace.isolation!r} names no isolation mechanism"


CHECKING_ROLES = Words("checker*", "verifier*", "verification", "reviewer*", "review", "auditor*", "audit",
                       "inspector*", "validator*", "validation", "tester*", "qa", "judge*", "evaluator*", "critic*",
                       "approver*", "gatekeeper*")
CHECKING_VERBS = Words("check", "checks", "inspect", "inspects", "test", "tests", "validate", "validates", "verify",
                       "verifies", "audit", "audits", "review", "reviews", "compare", "compares", "judge", "judges",
                       "evaluate", "evaluates", "rerun", "reruns", "re-run", "re-runs", "reproduce", "reproduces",
                       "confirm", "confirms", opening=True)
"""A checking agent is named as one (a Checker, a Test reviewer) or its responsibility opens with checking:
"Check the diff", "Run the build, then verify …". A checking word inside an actor's sentence ("quarantine the
flaky tests") is what it acts on, not what it does."""


def _checks(agent: Any) -> bool:
    return bool(CHECKING_ROLES.search(agent.role) or CHECKING_VERBS.search(agent.responsibility))


@_rule("LC103", "warning", "No agent checks (a checker, verifier or reviewer role, or a responsibility that opens "
       "with check, verify, test, review ...) and the workspace is not read-only.",
       "Separate maker from checker (anti-pattern Model Self-Approval); deterministic gates may substitute.",
       "Add a verifier or reviewer role that does not act.", pair="action ↔ verifier",
       looked_for=f"roles named {CHECKING_ROLES}; responsibilities opening with {CHECKING_VERBS}")
def no_checker(contract: LoopContract) -> Iterator[Hit]:
    if _read_only(contract):
        return
    if not any(_checks(agent) for agent in contract.agents):
        yield "agents", "no agent's role or responsibility is checking"


RECORDS = Words("receipt*", "record*", "log", "logs", "ledger*", "note", "notes", "comment*", "report*", "summar*",
                "status", "result*", "row", "rows", "entry", "entries", "incident*", "ticket*", "label*", "digest*",
                "message*", "checkpoint*", "journal*", "timeline*", "score*", "metric*", "annotation*")
"""What an action may write without changing the workspace: records of what happened (a receipt, a log entry,
a comment, a label, a report)."""

HIGH_IMPACT_VERBS = Words("deploy*", "roll back*", "rolls back", "restart*", "rotat*", "delet*", "drop*",
                          "force-push*", "merg*", "publish*", "migrat*", opening=True, not_after=NEGATIONS)
HIGH_IMPACT_PLACES = Words("production*", "prod", "secret*", "credential*", "merge queue*", not_after=NEGATIONS)
READING = Words("read*", "inspect*", "query*", "queries", "view*", "list*", "search*", "analy*", "fetch*", "tail*",
                "watch*", "monitor*", "observe*", "look*", "scan*", "summari*", opening=True)
"""LC104 reads what an action does: a high-impact verb (``deploy``, ``merge``), or any action on production, a
secret or the merge queue (which merges), unless the action only reads (``read production error logs``)."""


PUBLISHING = Words("publish*")


def _high_impact(action: str) -> str | None:
    """The high-impact word of ``action``, or None. Publishing a report, a summary or notes informs people; it
    releases nothing they run."""
    for phrase in verb_phrases(action):
        said = f"{phrase.verb} {phrase.object}"
        if HIGH_IMPACT_VERBS.regex.match(said) and not (
                PUBLISHING.regex.fullmatch(phrase.verb) and RECORDS.search(phrase.object)):
            words = said.lower().split()
            return " ".join(words[:2]) if words[1:2] == ["back"] else words[0]
    if (match := HIGH_IMPACT_PLACES.search(action)) and not READING.regex.match(action.strip()):
        return match.group(0).lower()
    return None


@_rule("LC104", "info", "An allowed action is high-impact (deploy, roll back, delete, merge, production, secret ...).",
       "Anti-pattern Unsafe Production Autonomy: such actions need an approval boundary.",
       "Move it to disallowed_actions, or gate it behind an escalation condition.",
       looked_for=f"verbs opening an action: {HIGH_IMPACT_VERBS}; acting on: {HIGH_IMPACT_PLACES} (unless the action "
                  f"only reads: {READING})")
def high_impact_actions(contract: LoopContract) -> Iterator[Hit]:
    for index, action in enumerate(contract.workspace.allowed_actions):
        if word := _high_impact(action):
            yield f"workspace.allowed_actions[{index}]", f"{action!r} is high-impact ({word})"


ACTORS = ("agent", "model", "actor", "implementer", "loop")
SELF_ASSESSMENT = Words("looks good", "looks right", "looks correct", "looks fine", "lgtm", "seems", "i think",
                        "self-review*", "self-assess*", "self-certif*",
                        *(f"{actor} {verb}" for actor in ACTORS for verb in (
                            "confirm*", "say*", "believe*", "think*", "agree*", "report*", "state*", "declare*",
                            "claim*", "is confident", "is satisfied")))
OBSERVABLE = Words(
    # what a third party can read
    "test*", "log", "logs", "logged", "trace*", "metric*", "diff*", "link*", "url*", "http*", "report*",
    "record*", "output*", "exit*", "checksum*", "hash*", "digest*", "signature*", "dashboard*", "label*", "tag*",
    "file*", "build*", "scan*", "audit*", "lint*", "check*", "ci", "benchmark*", "score*", "count*", "sample*",
    "schema*", "screenshot*", "directory", "registry", "ledger*", "receipt*", "changelog*", "release notes",
    "evidence", "eval*", "activity", "timestamp*",
    # a comparison with a reference
    "pass*", "fail*", "match*", "within", "threshold*", "baseline*", "below", "above", "exceed*", "at least",
    "at most", "no more than", "fewer", "less than", "greater than", "more than", "equal*", "identical",
    "unchanged", "intact", "consistent", "before/after", "compar*", "zero", "exactly", "verif*", "valid*",
    "resolv*", "reproduc*", "rerun*", "measur*", "limit*", "scope*", "only",
    # present or absent
    "absent", "present", "missing", "exist*", "include*", "list*", "named", "cite*", "cites", "explicit*",
    "called out", "documented", "contain*", "carr*", "appear*", "empty", "non-empty", "none", "no",
    # someone else's decision
    "approv*", "review*", "sign-off", "signed off", "accept*", "reject*")
"""What anchors a gate in something a third party can observe: an artifact it can read, a comparison with a
reference (a baseline, a threshold, ``within 2%``, before and after), something present or absent, or the decision
of someone other than the actor."""
OPINION = Words("good", "great", "fine", "ok", "okay", "happy", "satisf*", "make sense", "makes sense", "sensible",
                "reasonable", "appropriate", "acceptable", "clean", "nice", "better", "improved", "high quality",
                "high-quality", "correct", "correctly", "accurate", "right", "well", "helpful", "useful", "clear",
                "readable", "robust", "safe", "complete", "done", "ready", "fixed", "works", "working", "polished",
                "confident", "sound", "solid", not_after=NEGATIONS)
"""The words of a judgment, where a gate asks for an opinion: ``the numbers make sense``, ``customers are happy``.
A gate is read as unobservable only when it judges and names no anchor; a gate in a domain's own terms (``the
certificate chains to the internal root``) is taken as the check it names."""


@_rule("LC105", "info", "A gate reads as self-assessment, or asks for a judgment (good, happy, makes sense, correct "
       "...) with no observable anchor (pass, exit, link, metric, baseline, threshold, absent ...).",
       "Prefer exit codes, links, trace ids and reviewer decisions to 'the model says it looks good'.",
       "Rephrase the gate as something a third party can observe.", pair="action ↔ verifier",
       looked_for=f"self-assessment: {SELF_ASSESSMENT}; judgments: {OPINION}; anchors: {OBSERVABLE}")
def unobservable_gates(contract: LoopContract) -> Iterator[Hit]:
    for index, gate in enumerate(contract.verification.gates):
        if SELF_ASSESSMENT.search(gate):
            yield f"verification.gates[{index}]", f"{gate!r} reads as self-assessment"
        elif OPINION.search(gate) and not OBSERVABLE.search(gate):
            yield f"verification.gates[{index}]", f"{gate!r} asks for a judgment and names nothing observable"


@_rule("LC106", "info", "Fewer than two verification.receipts.",
       "Anti-pattern No Receipts: what it saw, changed, ran, what passed and why it stopped.",
       "List the commands run, their output and the changed files or links.")
def few_receipts(contract: LoopContract) -> Iterator[Hit]:
    if len(contract.verification.receipts) < 2:
        yield "verification.receipts", "only one receipt is kept"


WHEN = Words("after", "before", "each", "every", "per", "when*", "upon", "once", "until", "interval*", "immediately",
             "as soon as", "as it is", "as they are", "at the end", "at the start", "hourly", "daily", "nightly",
             "weekly")


@_rule("LC107", "info", "state.update_rule never says when it runs (after, before, each, every, per ...).",
       "State must say when it is written; 'after every attempt' is vaguer than a commit point.",
       "Say when: 'before each external write and after every attempt'.", pair="side effect ↔ checkpoint",
       looked_for=str(WHEN))
def update_rule_without_when(contract: LoopContract) -> Iterator[Hit]:
    if not WHEN.search(contract.state.update_rule):
        yield "state.update_rule", "the rule does not say when state is written"


IN_MODEL = Words("conversation*", "chat", "chats", "chat history", "context window*", "in-context", "prompt*",
                 "model memory", "agent memory")


@_rule("LC108", "warning", "Every state artifact lives inside the model (conversation, chat, context window).",
       "Anti-pattern Hidden State: memory in the conversation does not survive a cold run.",
       "Persist to files, issues, comments, checkpoints or workflow state.", looked_for=str(IN_MODEL))
def hidden_state(contract: LoopContract) -> Iterator[Hit]:
    if all(IN_MODEL.search(artifact) for artifact in contract.state.artifacts):
        yield "state.artifacts", "no artifact survives outside the model"


EXHAUSTION = Words("budget*", "retry", "retries", "exhaust*", "time out*", "timed out", "timeout*", "time limit*",
                   "runtime*", "deadline*", "repeat*", "again", "same failure*", "attempts", "max*", "twice",
                   "in a row", "consecutive*", "no progress", "spent", "runs out", "run out")


@_rule("LC109", "info", "Neither escalation.conditions nor exit.stop_without_success mentions budget exhaustion "
       "or repeated failure.",
       "Anti-pattern Infinite Retry: when the budget runs out someone must learn of it, with evidence.",
       "Add 'retry budget exhausted' or 'same failure repeats' as a condition or stop reason.",
       pair="budget ↔ escalation", looked_for=str(EXHAUSTION))
def exhaustion_unowned(contract: LoopContract) -> Iterator[Hit]:
    texts = (*contract.escalation.conditions, contract.exit.stop_without_success)
    if not any(EXHAUSTION.search(text) for text in texts):
        yield "escalation.conditions", "budget exhaustion and repeated failure are not named"


DEDUPE = Words("processed*", "ledger*", "already", "skip*", "last-checked", "last checked", "dedup*", "de-dup*",
               "duplicate*", "non-duplicate*", "unique*", "idempot*", "seen", "unseen", "since last", "since the",
               "since its", "new since", "not yet", "unprocessed*", "checksum*", "hash*", "digest*", "fingerprint*",
               "identified by", "keyed by", "by its version", "by version", "changed since", "first seen")
PROCESSED_RECORD = Words("processed*", "seen", "dedup*", "de-dup*", "handled", "notified", "sent", "done", "visited")
"""De-duplication as reviewers write it: a ledger or processed ids, ``non-duplicate``, an item ``whose checksum
changed``, one ``identified by its version``; or a state artifact that lists processed items."""


@_rule("LC110", "info", "Neither intake.selection_rule nor state.update_rule mentions de-duplication "
       "(processed ids, ledger, already, skip, checksum, identified by ...), and no state artifact lists processed "
       "items.",
       "Without it a loop reprocesses the same item.",
       "Say how a processed item is recognised: 'skip ids already in the ledger'.", pair="trigger ↔ intake",
       looked_for=f"{DEDUPE}; artifacts: {PROCESSED_RECORD}")
def no_dedupe(contract: LoopContract) -> Iterator[Hit]:
    rules = (contract.intake.selection_rule, contract.state.update_rule)
    if not any(DEDUPE.search(rule) for rule in rules) and not any(
            PROCESSED_RECORD.search(artifact) for artifact in contract.state.artifacts):
        yield "intake.selection_rule", "no de-duplication mechanism is named"


MUTATES = Words("apply", "applies", "edit", "edits", "patch", "patches", "fix", "fixes", "update", "updates",
                "write", "writes", "change", "changes", "modify", "modifies", "add", "adds", "remove", "removes",
                "delete", "deletes", "commit", "commits", "refactor", "refactors", "rename", "renames", "upgrade",
                "upgrades", "bump", "bumps", "rewrite", "rewrites", "replace", "replaces")
SCOPE_OR_TEST = Words("diff*", "scope*", "limit*", "pass*", "test*", "check*", "touch*", "only", "build*", "lint*",
                      "compil*", "typecheck*", "valid*", "equal*", "match*", "count*")
"""A change is an action whose verb changes something (``apply``, ``edit``, ``commit``…) and whose object is no
record (``RECORDS``): writing a receipt, updating an incident record or adding a label records what happened; the
workspace is unchanged."""


def _changes(action: str) -> bool:
    return any(MUTATES.regex.fullmatch(phrase.verb) and not RECORDS.search(phrase.object)
               for phrase in verb_phrases(action))


@_rule("LC111", "info", "An allowed action changes the workspace but no gate constrains scope or tests (diff, scope, "
       "pass, test).",
       "Independent verification: every write-capable action needs a gate that would catch its misuse.",
       "Add a gate such as 'diff is limited to ...' or 'the original command passes'.", pair="action ↔ verifier",
       looked_for=f"an action opening with {MUTATES}, acting on no record ({RECORDS}); gates: {SCOPE_OR_TEST}")
def mutation_ungated(contract: LoopContract) -> Iterator[Hit]:
    if any(SCOPE_OR_TEST.search(gate) for gate in contract.verification.gates):
        return
    for index, action in enumerate(contract.workspace.allowed_actions):
        if _changes(action):
            yield f"workspace.allowed_actions[{index}]", f"{action!r} changes things, and no gate checks scope or tests"
            return


CHECKPOINT = Words("id", "ids", "identifier*", "ledger*", "sha", "shas", "log*", "record*", "timeline*", "journal*",
                   "checkpoint*", "url*", "link*", "receipt*")


@_rule("LC112", "info", "An allowed action has an external effect (comment, post, open issue or PR, page, push ...) "
       "but state records no id, ledger, SHA or log.",
       "A retry or restart must not repeat a side effect it cannot see.",
       "Record each effect's id (comment id, PR number, SHA) in state before moving on.",
       pair="side effect ↔ checkpoint", looked_for=f"effects: {EXTERNAL_EFFECT_WORDS}; records: {CHECKPOINT}")
def side_effect_unrecorded(contract: LoopContract) -> Iterator[Hit]:
    if any(CHECKPOINT.search(text) for text in (*contract.state.artifacts, contract.state.update_rule)):
        return
    for index, action in enumerate(contract.workspace.allowed_actions):
        if EXTERNAL_EFFECT.search(action):
            yield f"workspace.allowed_actions[{index}]", f"{action!r} has an external effect state does not record"
            return


VAGUE_OBJECTIVE = re.compile(r"keep improving|make (?:it|things|everything) better|improve (?:the )?(?:repo|repository|"
                             r"codebase|code|things|everything)\W*$|\bclean (?:things )?up\W*$|do whatever",
                             re.IGNORECASE)


@_rule("LC113", "info", "The objective is vague ('improve the repo', 'keep improving', 'make it better').",
       "Loop Design Checklist: name one objective (the Prompt Loop anti-pattern).",
       "Name one measurable outcome: 'repair one reproducible required CI failure'.",
       looked_for="keep improving, make it (things, everything) better, improve the repo (repository, codebase, "
                  "code, things, everything), clean up, do whatever")
def vague_objective(contract: LoopContract) -> Iterator[Hit]:
    if VAGUE_OBJECTIVE.search(contract.objective.strip()):
        yield "objective", f"{contract.objective!r} names no measurable outcome"


WRITES = Words("record*", "writ*", "append*", "sav*", "stor*", "persist*", "checkpoint*", "log", "logs", "logged",
               "commit*", "mark*", "add", "adds", "update*", "set", "sets", "push*")
NOT_WHAT = frozenset({"after", "before", "each", "every", "per", "when", "whenever", "upon", "once", "until", "at",
                      "on", "in", "it", "them", "state", "everything", "things", "as", "immediately",
                      "regularly", "periodically", "accordingly", "then"})
DETERMINERS = frozenset({"the", "a", "an", "its", "their", "this", "that", "these", "those", "each", "every", "all"})
"""A commit point names what is written: a write verb, then an object that is not a time ('after …') or a
placeholder for everything ('state', 'progress', 'it')."""


WRITTEN = re.compile(r"([\w'-]+)\s+(?:(?:is|are|gets?|was|were|be|been)\s+)?(?:written|recorded|saved|stored|logged"
                     r"|appended|persisted|committed|updated|checkpointed)\b", re.IGNORECASE)
"""The passive voice names what is written before its verb: ``manifest written before each batch``."""


def _names_what_is_written(rule: str) -> bool:
    if any(match.group(1).casefold() not in NOT_WHAT | DETERMINERS for match in WRITTEN.finditer(rule)):
        return True
    for match in WRITES.regex.finditer(rule):
        rest = re.sub(r"^[\w'-]*", "", rule[match.end():])  # past the verb's own ending
        words = re.findall(r"[\w'-]+", rest.split(".")[0])
        words = [word for word in words if word.casefold() not in DETERMINERS]
        if words and words[0].casefold() not in NOT_WHAT:
            return True
    return False


@_rule("LC114", "info", "state.update_rule names no commit point: when state is written, and what.",
       "The seed's review checklist: 'update after every attempt' stays vague when an external action happens "
       "mid-attempt; a reviewer needs the concrete commit point.",
       "Say what is written and when: 'write the ledger entry before opening the PR, and the PR id after'.",
       pair="side effect ↔ checkpoint",
       looked_for=f"a write ({WRITES}) followed by what it writes, and a time ({WHEN})")
def no_commit_point(contract: LoopContract) -> Iterator[Hit]:
    rule = contract.state.update_rule
    if rule.lstrip().startswith(TEMPLATE_MARK):
        return
    if WHEN.search(rule) and not _names_what_is_written(rule):
        yield "state.update_rule", f"{rule!r} says when state is written, but not what"


MANY = Words("each", "every", "all")
_PLURAL = re.compile(r"\b(?!(?:its|this|was|has|does|is|as|us|yes|less|status|news|process|access|class)\b)"
                     r"[a-z]{2,}s\b", re.IGNORECASE)
"""A plural word: ``issues``, ``PRs``, ``macros``; not ``its``, ``status`` or ``access``."""
_INTAKE_VERB = re.compile(r"^\W*(?:take|pick|select|choose|process|handle|work on|build|write|draft|prepare|produce"
                          r"|triage|evaluate|collect|find|review|fix|repair)\s+", re.IGNORECASE)
_ONE_THING = re.compile(r"(?:only\s+)?(?:the|a|an|one|a single|exactly one)\s+([\w' -]+?)(?=\s+(?:with|that|whose|which"
                        r"|of|from|in|on|for|not|who|where|by|than)\b|[,;.:(]|$)", re.IGNORECASE)
"""An intake that takes one item a run (``Take one page …``, ``Pick the test with the most flips``, ``The shift
that just ended``) bounds the effects made per item; one that says ``each``, ``every`` or ``all`` does not (``the
newest backup of each database``). An event trigger delivers one event a firing, unless its words say it repeats
(``then refresh every 2-5 minutes``)."""


def _one_item(rule: str) -> bool:
    match = _ONE_THING.match(_INTAKE_VERB.sub("", rule.strip(), count=1))
    return match is not None and not _PLURAL.search(match.group(1).split()[-1])


def _many_items_a_run(contract: LoopContract) -> bool:
    rule, trigger = contract.intake.selection_rule, contract.trigger
    repeats = bool(CADENCE.search(trigger.cadence_or_event))
    if MANY.search(rule) or (trigger.type == "event" and repeats):
        return True
    if _one_item(rule):
        return False
    return trigger.type != "event"


def _per_item(action: str) -> bool:
    """Whether an action says it makes its effect once per item: ``comment on each stale issue``, ``comment on
    PRs``, ``publish the updated macros``."""
    return bool(MANY.search(action)) or any(_PLURAL.search(re.split(r"\b(?:to|in|into|with|for)\b", phrase.object)[0])
                                           for phrase in verb_phrases(action))


@_rule("LC115", "info", "An external effect may be made many times a run (once per item, or intake takes many items) "
       "and the contract writes no cap on it (at most N ...).",
       "An effect with no cap is unbounded blast radius: a wrong run opens as many pull requests as it finds items.",
       "Write the cap where the effect is named: 'open at most 3 pull requests per night'.",
       looked_for=f"{' / '.join(CAP_PHRASES)}, then one of: {', '.join(EFFECT_NOUNS)} (the kind an action makes: "
                  f"what its verb acts on, else the verb: comment, post, page ...); made per item (each, every, "
                  f"all, a plural) or by an intake of many items (not: the one item an intake names, one event)")
def uncapped_effects(contract: LoopContract) -> Iterator[Hit]:
    capped = {cap.effect for cap in effect_caps(contract)}
    many = _many_items_a_run(contract)
    uncapped = [(index, action) for index, action in external_effects(contract)
                if action_kind(action) not in capped and (many or _per_item(action))]
    if uncapped:
        index = uncapped[0][0]
        actions = ", ".join(repr(action) for _, action in uncapped)
        yield f"workspace.allowed_actions[{index}]", f"no cap is written on {actions}"


EVENT = Words("when*", "whenever", "fires", "fired", "is created", "is opened", "is merged", "is pushed", "fails",
              "on each", "on every", "on new", "arrives")


@_rule("LC116", "warning", "A manual-bootstrap trigger whose cadence_or_event reads as a schedule or an event.",
       "The template starts every trigger as manual-bootstrap; a loop that should run on its own never will.",
       "Set trigger.type to scheduled or event, or say how the run is started by hand.", pair="trigger ↔ intake",
       looked_for=f"schedules: {CADENCE}, a cron expression; events: {EVENT}")
def bootstrap_reads_as_schedule(contract: LoopContract) -> Iterator[Hit]:
    text = contract.trigger.cadence_or_event
    if contract.trigger.type != "manual-bootstrap" or text.lstrip().startswith(TEMPLATE_MARK):
        return
    if CADENCE.search(text) or CRON_EXPRESSION.search(text):
        yield "trigger.type", f"manual-bootstrap, but {text!r} reads as a schedule"
    elif EVENT.search(text):
        yield "trigger.type", f"manual-bootstrap, but {text!r} reads as an event"


LINT_RULES: tuple[LintRule, ...] = tuple(_RULES)
