"""``review-changes``, the seed's sample: each review dimension goes audit → verify on its own (a pipeline),
and every finding of a dimension is verified at once (a parallel barrier)."""

from __future__ import annotations

from typing import Any

ARGS_SCHEMA = {
    "type": "object",
    "properties": {"changes": {"type": "string", "minLength": 1,
                               "description": "the change to review, as a diff or a description"}},
    "required": ["changes"],
    "additionalProperties": False,
}

SAMPLE_META = {"name": "review-changes", "description": "Review code changes", "phases": ["Review", "Verify"],
               "args": ARGS_SCHEMA}

DIMENSIONS = ("correctness", "security", "performance", "maintainability")

FINDINGS_SCHEMA = {
    "type": "object",
    "properties": {
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "minLength": 1},
                    "severity": {"enum": ["low", "medium", "high"]},
                    "detail": {"type": "string"},
                },
                "required": ["title", "severity"],
            },
        },
    },
    "required": ["findings"],
}

VERDICT_SCHEMA = {
    "type": "object",
    "properties": {"isReal": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["isReal"],
}


async def review_changes(ctx: Any, args: dict[str, Any]) -> dict[str, Any]:
    ctx.phase("Review")
    changes = args.get("changes", "")  # required by ARGS_SCHEMA; a run saved before it resumes as launched

    async def audit(_previous: Any, dimension: str, _index: int) -> dict[str, Any]:
        out = await ctx.agent(f"Inspect this change for {dimension} issues:\n{changes}",
                              schema=FINDINGS_SCHEMA, label=f"audit:{dimension}", phase="Review")
        return {"dimension": dimension, "findings": out["findings"]}

    async def verify(audited: dict[str, Any], dimension: str, _index: int) -> dict[str, Any]:
        ctx.phase("Verify")
        verdicts = await ctx.parallel([
            (lambda finding=finding: ctx.agent(
                f"Verify this finding against the change:\n{changes}\n\n{finding}",
                schema=VERDICT_SCHEMA, label=f"verify:{dimension}:{finding['title']}"))
            for finding in audited["findings"]
        ])
        return {"dimension": dimension,
                "confirmed": [finding for finding, verdict in zip(audited["findings"], verdicts, strict=True)
                              if verdict and verdict["isReal"]]}

    results = await ctx.pipeline(DIMENSIONS, audit, verify)
    confirmed = [finding for result in results if result for finding in result["confirmed"]]
    ctx.log(f"Confirmed {len(confirmed)} real issues")
    return {"confirmed": confirmed}
