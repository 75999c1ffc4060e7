"""Registry validation and definition hashing at scale, against floors measured in the same run.

1,000 generated agents form a deep delegation DAG (agent i delegates to i+1
and i+2, so the longest path is 1,000 roles). The script prints, best of
several repeats:

- registry validation (``create_agent_registry``: model validation, every §4
  check, the three-colour cycle search) beside a bare loop that walks every
  value of the same dicts;
- hashing every definition (``definition_hash``) beside ``json.dumps`` +
  SHA-256 of the same dicts.

Run: ``python benchmarks/registry_scale.py [--agents N] [--repeats R]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Callable

from alp_nb.agents import create_agent_registry, definition_hash
from alp_nb.workflow import define_linear_workflow

TOOLS = ["Read", "Glob", "Grep", "Bash"]


def generated_agents(count: int) -> list[dict]:
    """``count`` valid agent dicts (camelCase, as ALP JSON) in a deep delegation chain."""
    agents = []
    for index in range(count):
        agent_id = f"agent-{index:04d}"
        agents.append({
            "id": agent_id,
            "displayName": f"Agent {index}",
            "model": {"claude": "claude-sonnet-5", "codex": "gpt-5.6-terra"},
            "reasoningEffort": {"claude": "low", "codex": "medium"},
            "reportsTo": "principal" if index == 0 else f"agent-{index - 1:04d}",
            "delegatesTo": [f"agent-{target:04d}" for target in (index + 1, index + 2) if target < count],
            "capabilities": {
                "tools": TOOLS,
                "skills": [],
                "subagents": [],
                "mcpServers": [],
                "memory": {"read": ["shared", "project:*", f"private:{agent_id}"], "write": [f"private:{agent_id}"]},
                "workspace": {"readRoots": ["."], "writeRoots": []},
            },
            "autoCompactTokens": {"claude": 150_000 + index},
            "instructions": {"role": f"Agent {index}", "purpose": "Generated for the benchmark.",
                             "rules": [f"Rule {n} of agent {index}." for n in range(5)]},
            "workflow": define_linear_workflow(
                f"{agent_id}-workflow", [("SCAN", TOOLS), ("CHECK", TOOLS[:3]), ("REPORT", [])]
            ).model_dump(by_alias=True),
            "output": {"name": f"{agent_id}-result", "schema": {"type": "string", "minLength": 1}},
        })
    return agents


def best_of(repeats: int, work: Callable[[], object]) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        timings.append(time.perf_counter() - start)
    return min(timings)


def walk(value: object) -> int:
    """Touch every value once: the least any validator must do."""
    if isinstance(value, dict):
        return sum(walk(item) for item in value.values())
    if isinstance(value, list):
        return sum(walk(item) for item in value)
    return 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    agents = generated_agents(options.agents)
    registry = create_agent_registry(agents)

    validate = best_of(options.repeats, lambda: create_agent_registry(agents))
    walk_floor = best_of(options.repeats, lambda: [walk(agent) for agent in agents])
    hashing = best_of(options.repeats, lambda: [definition_hash(definition) for definition in registry])
    hash_floor = best_of(options.repeats, lambda: [
        hashlib.sha256(json.dumps(agent, sort_keys=True).encode()).hexdigest() for agent in agents
    ])

    count = options.agents
    rows = [
        ("registry validation", validate, "bare walk of the dicts", walk_floor),
        ("definition hashing", hashing, "json.dumps + sha256", hash_floor),
    ]
    print(f"{count} agents, delegation depth {count}, best of {options.repeats}")
    print(f"{'phase':<22}{'ms':>9}{'µs/agent':>10}   {'floor':<24}{'ms':>9}{'µs/agent':>10}{'ratio':>8}")
    for name, seconds, floor_name, floor_seconds in rows:
        print(f"{name:<22}{seconds * 1e3:>9.1f}{seconds / count * 1e6:>10.1f}   "
              f"{floor_name:<24}{floor_seconds * 1e3:>9.1f}{floor_seconds / count * 1e6:>10.1f}"
              f"{seconds / floor_seconds:>7.1f}×")


if __name__ == "__main__":
    main()
