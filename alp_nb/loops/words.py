"""How the heuristics read a contract's prose: word families, and the verb and object of an action.

A contract is written by people, so a heuristic that reads it has to read as they write: ``read-only`` and
``read only``, ``non-production`` (not production) but ``non-duplicate`` (a de-duplication), ``commit`` the
verb (``commit the fix``) and ``commit`` the noun (``read commit metadata``), ``write a receipt`` (a record,
not a change). ``Words`` is a family of words with those rules; ``verb_phrases`` splits an allowed action into
its verbs and what each acts on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

NEGATIONS = ("non-", "no", "not", "never", "without")
"""The words after which a family word means its opposite (``never delete``, ``non-production``)."""


class Words:
    """A family of words a heuristic reads, written as an author reads them.

    ``verif*`` is a stem (verify, verifies, verifier, verification); a word without ``*`` matches whole (``pr`` is
    not ``print``). A space or hyphen inside a word matches either or neither (``read-only``: read only,
    readonly). A word right after one of ``not_after`` never matches: by default ``non-`` (non-production is not
    production); a family may list a ``non-`` word itself (``non-duplicate*``), which then matches.
    ``opening=True`` matches only a word that opens a clause (``Check the diff``, ``…, then verify``): the verb of
    a responsibility or an action, not a noun inside it (``quarantine flaky tests``, ``read commit metadata``).
    """

    OPENS_CLAUSE = r"(?:^|[,;:.(]\s*|\b(?:and|then|also|or|to|first|independently|separately|only)\s+)"

    def __init__(self, *words: str, opening: bool = False, not_after: tuple[str, ...] = ("non-",)) -> None:
        self.words = words
        self.opening = opening
        self.not_after = not_after

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use: a lint run reads only the families its contract's fields call for, and the
        process that imports the rules to list them reads none (compiling all of them costs some 20 ms)."""
        alternatives = "|".join(self._pattern(word) for word in self.words)
        lead = self.OPENS_CLAUSE if self.opening else r"\b"
        guards = "".join(_not_after(word) for word in self.not_after)
        return re.compile(rf"{lead}{guards}(?:{alternatives})", re.IGNORECASE)

    @staticmethod
    def _pattern(word: str) -> str:
        stem = re.escape(word.rstrip("*")).replace(r"\ ", "[- ]?").replace(r"\-", "[- ]?")
        return stem if word.endswith("*") else rf"{stem}\b"

    def search(self, text: str) -> re.Match[str] | None:
        return self.regex.search(text)

    def __str__(self) -> str:
        return ", ".join(self.words)


def _not_after(word: str) -> str:
    """The look-behinds that keep a family word from matching right after ``word`` (``non-``: also ``non ``)."""
    if word.endswith("-"):
        stem = re.escape(word[:-1])
        return rf"(?<!{stem}-)(?<!{stem} )"
    return rf"(?<!\b{re.escape(word)} )"


@dataclass(frozen=True)
class VerbPhrase:
    """One verb of an action and what it acts on: ``open or update an incident record`` holds two phrases, ``open``
    and ``update``, both acting on ``an incident record``."""

    verb: str
    object: str


_CLAUSE = re.compile(r"\s*(?:[,;]\s*(?:and\s+|or\s+|then\s+)?|\s+(?:and|or|then)\s+)", re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+")


def verb_phrases(action: str) -> Iterator[VerbPhrase]:
    """The verbs of an allowed action, each with its object: the action's first word, and the first word of each
    clause after ``,``, ``and``, ``or``, ``then``. A clause of one word (``open or update …``) shares the next
    clause's object. A list of nouns (``read metrics, logs, and traces``) yields its nouns as would-be verbs,
    which no verb family holds."""
    clauses = [clause for clause in _CLAUSE.split(action.strip()) if clause]
    pending: list[str] = []
    for clause in clauses:
        words = _WORD.findall(clause)
        if not words:
            continue
        if len(words) == 1:
            pending.append(words[0])
            continue
        rest = clause[clause.find(words[0]) + len(words[0]):].strip()
        for verb in (*pending, words[0]):
            yield VerbPhrase(verb, rest)
        pending = []
    for verb in pending:
        yield VerbPhrase(verb, "")
