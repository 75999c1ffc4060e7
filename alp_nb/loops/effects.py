"""What a contract lets its loop do to the outside world, read from its own words: external effects, and caps.

An external effect is an allowed action that reaches beyond the workspace (a comment, a post, an opened issue or
pull request, a page, a push, a merge). A cap is a number a contract writes next to an effect word ("open at
most 3 quarantine pull requests", "one issue per run"): the simulator refuses the effect that would pass it,
and lint asks for a cap when a contract has external effects and writes none. Reading words is a heuristic;
``EFFECT_NOUNS`` and ``CAP_PHRASES`` say what it reads, so an author knows how to write a cap it will find.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .loop_contract import LoopContract
from .words import verb_phrases

EXTERNAL_EFFECT = re.compile(
    r"\bcomment|\bpost(?:s|ed|ing)?\b"
    r"|\b(?:open(?:s|ed|ing)?|creat(?:e|es|ed|ing)|fil(?:e|ed|ing))\b"  # "files" is far more often a noun
    r".*\b(?:issues?|prs?|pull requests?|tickets?|incidents?)\b"
    r"|^\W*pag(?:e|es)\b|\bpaging\b"  # "page the on-call" is an effect, "one docs page" is not
    r"|\bpublish|\bland(?:s|ed|ing)?\b|\bpush|\bsend|\bemail|\bnotif|\bmerg", re.IGNORECASE)
"""An action with an effect outside the workspace."""
EXTERNAL_EFFECT_WORDS = ("comment*, post, open (create, file) … issue (PR, pull request, ticket, incident), page (as "
                         "the action's first word), paging, "
                         "publish*, land*, push*, send*, email*, notif*, merg*")
"""``EXTERNAL_EFFECT`` as an author reads it, for the lint findings that rely on it."""

EFFECT_NOUNS: dict[str, str] = {
    "pull requests": r"pull[- ]requests?|prs?|merge requests?|mrs?",
    "issues": r"issues?",
    "tickets": r"tickets?",
    "comments": r"comments?",
    "commits": r"commits?",
    "posts": r"posts?",
    "messages": r"messages?",
    "emails": r"e-?mails?",
    "notifications": r"notifications?",
    "pages": r"pages?",
    "incidents": r"incidents?",
    "alerts": r"alerts?",
    "releases": r"releases?",
    "deployments": r"deploy(?:ment)?s?",
    "branches": r"branch(?:es)?",
    "tags": r"tags?",
    "patches": r"patch(?:es)?",
}
"""The effect words a cap may count (the key names the kind), with the spellings of each."""

CAP_PHRASES = ("at most N", "no more than N", "up to N", "a maximum of N", "max N", "limited to N", "capped at N",
               "only N", "N or fewer", "N per run (night, day, week, hour)")
"""How a cap may be written, N a number (digits, or one to ten), then up to three words and an effect word."""

_N = r"(?P<n>\d{1,6}|one|two|three|four|five|six|seven|eight|nine|ten|a single|an?)"
_UNIT = r"(?P<noun>" + "|".join(EFFECT_NOUNS.values()) + r")\b"
_WORDS = r"\s+(?:[\w-]+\s+){0,3}?"  # "3 quarantine pull requests": up to three words before the effect word
_CAPS = (
    re.compile(r"\b(?:at most|no more than|not more than|up to|a maximum of|maximum of|max\.?|limit(?:ed)? to"
               rf"|cap(?:ped)? at|only)\s+{_N}{_WORDS}{_UNIT}", re.IGNORECASE),
    re.compile(rf"\b{_N}{_WORDS}{_UNIT}\s+or\s+(?:fewer|less)\b", re.IGNORECASE),
    re.compile(rf"\b{_N}{_WORDS}{_UNIT}\s+(?:per|a|each|every)\s+(?:run|night|day|week|hour|attempt)\b",
               re.IGNORECASE),
)
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
           "ten": 10, "a single": 1, "a": 1, "an": 1}


@dataclass(frozen=True)
class EffectCap:
    """At most ``limit`` effects of one kind (``effect``, a key of ``EFFECT_NOUNS``), as ``text`` at ``path``."""

    limit: int
    effect: str
    path: str
    text: str


def external_effects(contract: LoopContract) -> tuple[tuple[int, str], ...]:
    """The allowed actions, (index, text), that reach outside the workspace."""
    return tuple((index, action) for index, action in enumerate(contract.workspace.allowed_actions)
                 if EXTERNAL_EFFECT.search(action))


def effect_kind(text: str) -> str | None:
    """The kind of effect ``text`` names (a key of ``EFFECT_NOUNS``): the first effect word in it, or None."""
    for name, spelling in EFFECT_NOUNS.items():
        if re.search(rf"\b(?:{spelling})\b", text, re.IGNORECASE):
            return name
    return None


EFFECT_VERBS = {"post": "posts", "comment": "comments", "page": "pages", "message": "messages", "email": "emails",
                "e-mail": "emails", "notify": "notifications", "tag": "tags", "release": "releases",
                "deploy": "deployments"}
"""The verbs that are themselves an effect of a kind: ``comment on PRs`` makes comments, not pull requests."""
_PREPOSITION = re.compile(r"\b(?:on|to|in|into|for|with|at|from|of|about|against|per|asking|under)\b", re.IGNORECASE)


def action_kind(action: str) -> str | None:
    """The kind of effect an allowed action makes, read as a sentence: the effect word its verb acts on directly
    (``post one digest message per week``: messages, not posts), else the verb's own kind (``comment on PRs``:
    comments), else the first effect word anywhere in it."""
    phrases = list(verb_phrases(action))
    for phrase in phrases:
        kind = effect_kind(_PREPOSITION.split(phrase.object, 1)[0])
        if kind is not None:
            return kind
    for phrase in phrases:
        if phrase.verb.lower() in EFFECT_VERBS:
            return EFFECT_VERBS[phrase.verb.lower()]
    return effect_kind(action)


def effect_caps(contract: LoopContract) -> tuple[EffectCap, ...]:
    """Every kind of effect the contract caps, each with its tightest cap, in the order first written."""
    found: dict[str, EffectCap] = {}
    for path, text in _capped_texts(contract):
        for pattern in _CAPS:
            for match in pattern.finditer(text):
                effect = effect_kind(match.group("noun"))
                limit = int(match.group("n")) if match.group("n").isdigit() else _COUNTS[match.group("n").lower()]
                if effect is not None and (effect not in found or limit < found[effect].limit):
                    found[effect] = EffectCap(limit, effect, path, match.group(0))
    return tuple(found.values())


def _capped_texts(contract: LoopContract) -> Iterator[tuple[str, str]]:
    """The texts a cap is read from: the objective, intake's selection rule and the workspace."""
    yield "objective", contract.objective
    yield "intake.selection_rule", contract.intake.selection_rule
    yield "workspace.isolation", contract.workspace.isolation
    for key in ("allowed_actions", "disallowed_actions"):
        for index, text in enumerate(getattr(contract.workspace, key)):
            yield f"workspace.{key}[{index}]", text
