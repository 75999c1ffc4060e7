"""alp_nb's extension of the loop contract: what the seed asks a contract to hold and the public schema cannot.

Seed 004 caps autonomy with "retries, time, cost, concurrency, repeated-evidence stop and escalation
destination", and gives a contract "an owner and a review cadence, like code". The public schema closes every
object (``additionalProperties: false``) and its budget holds only retries and minutes, so none of that fits in
it. alp_nb keeps all of it under one optional top-level key, ``x_alp_nb``, checked by the schema alp_nb ships
(``loop-contract-extended.schema.json`` beside this module: the public schema plus that one key). A contract
without the key is a public contract and stays one; a contract with it says so wherever it is shown, and
``LoopContract.to_public()`` drops the key and names every field it drops.
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from functools import cache
from importlib.resources import files
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError

from alp_nb.base.frozen_model import FrozenModel

EXTENSION_KEY = "x_alp_nb"
"""The one key a contract may hold beyond the public schema's twelve."""
EXTENDED_SCHEMA_FILE = "loop-contract-extended.schema.json"
EXTENDED_SCHEMA_ID = "urn:alp-nb:loop-contract-extended"


def present(value: Any) -> Any:
    """An optional key is left out, never written ``null``: the schema alp_nb ships refuses ``null`` too."""
    if value is None:
        raise ValueError("write a value, or leave the key out")
    return value


def _integral(value: Any) -> Any:
    """JSON Schema counts ``3.0`` as an integer, as the public budget does."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _iso_date(value: Any) -> Any:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("write the date as YYYY-MM-DD")
    return date.fromisoformat(value)  # a day that does not exist (2026-02-30) is refused here


MAX_CONCURRENCY = 10_000
"""Items one firing may work at once: far past any fleet of agent sessions a team runs side by side."""
MAX_FIRING_TOKENS = 10**12
"""Tokens one firing may spend: a trillion, far past what one night of any loop spends, and exact in every JSON
reader (below 2**53)."""
MAX_FIRING_COST_USD = 1_000_000
"""Dollars one firing may spend: a million, more than any team would let one night of a loop cost."""
MAX_REPEATED_EVIDENCE = 1_000
"""Sightings of one failure before its item stops: a failure seen a thousand times is no longer news."""
MAX_REVIEW_DAYS = 3_650
"""Days between two reviews: ten years, longer than a contract's tools, team and credentials stay the same."""


def _at_most(bound: int, unit: str) -> AfterValidator:
    """A bound no real loop reaches: a number past it is a typo, or a contract written to exhaust whoever simulates
    it, and is refused naming its field like any other invalid value."""
    def check(value: Any) -> Any:
        if value > bound:
            raise PydanticCustomError("less_than_equal", "Input should be at most {bound} {unit}",
                                      {"bound": f"{bound:,}", "unit": unit})
        return value

    return AfterValidator(check)


def _amount(value: Any) -> Any:
    """A positive number, kept as written (``4`` stays ``4``); ``true`` and ``"4"`` are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a valid number")
    if not value > 0:
        raise ValueError("Input should be greater than 0")
    return value


Count = Annotated[int, Field(strict=True, ge=1), BeforeValidator(_integral)]
Concurrency = Annotated[Count, _at_most(MAX_CONCURRENCY, "items at once")]
Tokens = Annotated[Count, _at_most(MAX_FIRING_TOKENS, "tokens a firing")]
Dollars = Annotated[int | float, BeforeValidator(_amount), _at_most(MAX_FIRING_COST_USD, "US dollars a firing")]
Days = Annotated[Count, _at_most(MAX_REVIEW_DAYS, "days (ten years)")]
Day = Annotated[date, BeforeValidator(_iso_date)]
Text = Annotated[str, StringConstraints(strict=True, min_length=1)]
Repeats = Annotated[int, Field(strict=True, ge=2), BeforeValidator(_integral),
                    _at_most(MAX_REPEATED_EVIDENCE, "sightings of one failure")]


class ExtensionPart(FrozenModel):
    """Closed and frozen like every part of a contract, keyed in the contract's snake_case."""

    model_config = ConfigDict(alias_generator=None)


class FiringBudget(ExtensionPart):
    """Caps over one firing of the trigger (a night, for a nightly loop): every item and every attempt it runs.

    The public ``budget`` bounds one item (its retries and minutes); these bound the whole firing, across its
    items. ``repeated_evidence_stop`` is how many times one failure may be seen before the item stops (2, the
    policy's default, stops at the first repeat).
    """

    max_tokens: Annotated[Tokens | None, BeforeValidator(present)] = None
    max_cost_usd: Annotated[Dollars | None, BeforeValidator(present)] = None
    max_concurrency: Annotated[Concurrency | None, BeforeValidator(present)] = None
    repeated_evidence_stop: Annotated[Repeats | None, BeforeValidator(present)] = None


class Review(ExtensionPart):
    """How often the contract is reviewed, and when it last was: a contract is reviewed like code."""

    every_days: Days
    last_reviewed: Day

    @property
    def due(self) -> date | None:
        """The day the next review is due; None when that falls after ``date.max`` (a review dated near 9999-12-31):
        no calendar day ever comes, so the review never comes due."""
        if (date.max - self.last_reviewed).days < self.every_days:
            return None
        return self.last_reviewed + timedelta(days=self.every_days)

    def overdue(self, today: date) -> bool:
        due = self.due
        return due is not None and today > due


class Extension(ExtensionPart):
    """What alp_nb adds to a contract: who owns it, how often it is reviewed, and the firing's budget."""

    version: Literal[1]
    owner: Annotated[Text | None, BeforeValidator(present)] = None
    review: Annotated[Review | None, BeforeValidator(present)] = None
    budget: Annotated[FiringBudget | None, BeforeValidator(present)] = None

    def fields(self) -> tuple[tuple[str, Any], ...]:
        """Every field it holds as ``(json path, value)``, in its own order: what an export to the public schema
        drops."""
        found = []
        for key, value in self.model_dump(mode="json", exclude_none=True).items():
            items = value.items() if isinstance(value, dict) else [("", value)]
            found += [(".".join(part for part in (EXTENSION_KEY, key, inner) if part), item) for inner, item in items]
        return tuple(found)


@cache
def extended_json_schema() -> dict[str, Any]:
    """The schema alp_nb ships: the public schema's twelve parts, plus the optional ``x_alp_nb`` key."""
    return json.loads(files("alp_nb.loops").joinpath(EXTENDED_SCHEMA_FILE).read_text(encoding="utf-8"))
