"""One error root, and one table of codes per layer that the code, the classes and the README all agree on."""

import ast
import inspect
import pickle
import pkgutil
import re
from importlib import import_module
from pathlib import Path

import pytest

import alp_nb
from alp_nb import (
    AGENT_ERROR_CODES,
    BASE_ERROR_CODES,
    CLI_ERROR_CODES,
    LOOP_CONTRACT_ERROR_CODES,
    POLICY_ERROR_CODES,
    REGISTRY_ERROR_CODES,
    REPLAY_ERROR_CODES,
    RUNTIME_ERROR_CODES,
    VIZ_ERROR_CODES,
    WORKFLOW_ERROR_CODES,
    AgentError,
    AgentRegistryError,
    AlpError,
    LoopContractError,
    ReplayError,
    UsageError,
    VizError,
    WorkflowError,
    WorkflowInputError,
)
from alp_nb.base import RefusedFile, UntrustedJson
from alp_nb.cli import main

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "alp_nb"

TABLES = {
    "RefusedFile": BASE_ERROR_CODES,
    "UntrustedJson": BASE_ERROR_CODES,
    "AgentRegistryError": REGISTRY_ERROR_CODES,
    "AgentError": AGENT_ERROR_CODES,
    "policy answer": POLICY_ERROR_CODES,
    "WorkflowError": WORKFLOW_ERROR_CODES,
    "WorkflowInputError": RUNTIME_ERROR_CODES,
    "Workflow tool result": RUNTIME_ERROR_CODES,
    "LoopContractError": LOOP_CONTRACT_ERROR_CODES,
    "ReplayError": REPLAY_ERROR_CODES,
    "UsageError": CLI_ERROR_CODES,
    "VizError": VIZ_ERROR_CODES,
}
"""Each way a code reaches a user, and the table its codes belong to."""

FIXED_CODES = {"RefusedFile": "REFUSED_FILE", "UntrustedJson": "INVALID_JSON"}
"""The classes that always carry one code, so their raise sites name none."""

RAISERS = {
    "AgentRegistryError": ("AgentRegistryError", 0), "_fail": ("AgentRegistryError", 0),
    "AgentError": ("AgentError", 0),
    "Deny": ("policy answer", 0), "Authorization": ("policy answer", 0), "_granted": ("policy answer", 1),
    "WorkflowError": ("WorkflowError", 0),
    "WorkflowInputError": ("WorkflowInputError", 0), "_error": ("Workflow tool result", 0),
    "LoopContractError": ("LoopContractError", 0),
    "ReplayError": ("ReplayError", 0),
    "UsageError": ("UsageError", 0),
    "VizError": ("VizError", 0),
}
"""The calls that attach a code, and the position of the code among their arguments: the error classes, and
the helpers that build them (``_fail`` makes an ``AgentRegistryError``, policy's ``_granted(condition, code,
reason)`` a ``Deny``, the Workflow tool's ``_error`` an error result)."""

LAYER_OF = {"RefusedFile": "base", "UntrustedJson": "base",
            "AgentRegistryError": "agents", "AgentError": "agents", "policy answer": "agents",
            "WorkflowError": "workflow", "WorkflowInputError": "runtime", "Workflow tool result": "runtime",
            "LoopContractError": "loops", "ReplayError": "replay", "UsageError": "cli", "VizError": "viz"}


def codes_in_the_source() -> dict[str, set[str]]:
    """Every literal code attached in alp_nb's source, by the way it reaches the user."""
    found: dict[str, set[str]] = {kind: set() for kind in TABLES}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name in FIXED_CODES:
                found[name].add(FIXED_CODES[name])
            if name not in RAISERS:
                continue
            kind, position = RAISERS[name]
            literal = [keyword.value for keyword in node.keywords if keyword.arg == "code"]
            literal = literal or node.args[position:position + 1]
            if literal and isinstance(literal[0], ast.Constant) and isinstance(literal[0].value, str):
                found[kind].add(literal[0].value)
    return found


def error_classes() -> list[type[BaseException]]:
    """Every public exception class defined in alp_nb."""
    classes = {}
    for module in pkgutil.walk_packages(alp_nb.__path__, "alp_nb."):
        if module.name.endswith("__main__"):
            continue
        for name, value in vars(import_module(module.name)).items():
            if (inspect.isclass(value) and issubclass(value, BaseException) and value.__module__.startswith("alp_nb")
                    and not name.startswith("_")):
                classes[value.__qualname__] = value
    return list(classes.values())


def readme_codes() -> set[tuple[str, str, str]]:
    """(code, layer, raised as) for each row of the README's "Error codes" table."""
    text = (ROOT / "README.md").read_text()
    section = text.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\w+) \| ([^|]+?) \|", section, re.M)
    return {(code, layer, raised.strip().strip("`")) for code, layer, raised in rows}


# --- the root ---------------------------------------------------------------------------------


def test_every_public_exception_alp_nb_defines_derives_from_the_one_root():
    classes = error_classes()
    assert {cls.__name__ for cls in classes} >= {"AlpError", "AgentError", "AgentRegistryError", "WorkflowError",
                                                 "WorkflowInputError", "LoopContractError", "UsageError"}
    assert [cls.__name__ for cls in classes if not issubclass(cls, AlpError)] == []


@pytest.mark.parametrize("error", [
    AgentRegistryError("UNKNOWN_AGENT", "unknown agent `x`"),
    AgentError("INVALID_MODE", "mode must be one of ..."),
    WorkflowError("SUBMIT_REFUSED", "cannot submit output in `running` status"),
    WorkflowInputError("RUN_NOT_FOUND", "no run"),
    LoopContractError("CONTRACT_INVALID", "contract: not a valid loop contract", ("name: Field required",)),
    UsageError("USAGE", "name one role, or pass --all"),
    ReplayError("STORE_NOT_FOUND", "no run store at runs: the folder does not exist"),
    RefusedFile("/store/run.lock", "is a symbolic link, which alp_nb does not follow"),
    UntrustedJson('repeated key "a"'),
], ids=lambda error: type(error).__name__)
def test_an_error_keeps_its_code_and_message_through_a_pickle(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and isinstance(copy, AlpError)
    assert (copy.code, copy.message, str(copy)) == (error.code, error.message, str(error))


def test_a_loop_contract_error_shows_its_headline_then_one_issue_per_line():
    error = LoopContractError("CONTRACT_INVALID", "c.json: not a valid loop contract", ("a: x", "b: y"))
    assert error.message == "c.json: not a valid loop contract\n  a: x\n  b: y" == str(error)
    assert error.issues == ("a: x", "b: y")


def test_workflow_error_lives_in_the_workflow_layer_and_carries_a_code():
    assert WorkflowError.__module__ == "alp_nb.workflow.errors"
    assert alp_nb.WorkflowError is alp_nb.workflow.WorkflowError
    with pytest.raises(WorkflowError) as refusal:
        alp_nb.define_linear_workflow("empty", [])
    assert refusal.value.code == "INVALID_WORKFLOW"


def test_a_refused_move_raises_a_workflow_error_with_its_code():
    session = alp_nb.WorkflowSession(alp_nb.builtin_registry().get("worker"))
    with pytest.raises(WorkflowError) as refused:
        session.submit("too early")
    assert refused.value.code == "SUBMIT_REFUSED"
    assert refused.value.message == "cannot submit output in `running` status"


def test_a_command_line_usage_error_is_not_a_workflow_error(monkeypatch, capsys):
    monkeypatch.delenv("ALP_DELEGATION_EXECUTION_ID", raising=False)
    assert main(["context", "status"]) == 2
    assert capsys.readouterr().err == (
        "alp-nb: usage: alp-nb context status EXEC_ID (or set ALP_DELEGATION_EXECUTION_ID)\n")
    assert not issubclass(UsageError, WorkflowError)


# --- the tables -------------------------------------------------------------------------------


def test_each_class_publishes_its_table_as_codes():
    assert RefusedFile.codes + UntrustedJson.codes == BASE_ERROR_CODES
    assert AgentRegistryError.codes == REGISTRY_ERROR_CODES
    assert AgentError.codes == AGENT_ERROR_CODES
    assert WorkflowError.codes == WORKFLOW_ERROR_CODES
    assert WorkflowInputError.codes == RUNTIME_ERROR_CODES
    assert LoopContractError.codes == LOOP_CONTRACT_ERROR_CODES
    assert ReplayError.codes == REPLAY_ERROR_CODES
    assert UsageError.codes == CLI_ERROR_CODES
    assert VizError.codes == VIZ_ERROR_CODES


@pytest.mark.parametrize("table", sorted({next(name for name in TABLES if TABLES[name] is codes)
                                           for codes in TABLES.values()}))
def test_a_table_names_each_code_once_in_upper_snake_case(table):
    codes = TABLES[table]
    assert len(set(codes)) == len(codes)
    assert all(re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*", code) for code in codes)


def test_the_registry_table_is_alps_fourteen_codes():
    assert set(REGISTRY_ERROR_CODES) == {
        "DUPLICATE_AGENT", "INVALID_AGENT", "UNKNOWN_AGENT", "UNKNOWN_RELATION", "INVALID_DELEGATION",
        "INVALID_MEMORY_GRANT", "INVALID_WORKSPACE_GRANT", "UNKNOWN_TOOL", "UNKNOWN_SKILL", "UNKNOWN_SUBAGENT",
        "UNKNOWN_MCP_SERVER", "INVALID_SKILL_GRANT", "DUPLICATE_GRANT", "INVALID_AUTO_COMPACT_LIMIT",
    }


def test_every_code_the_source_attaches_is_in_its_table():
    strays = {kind: sorted(codes - set(TABLES[kind])) for kind, codes in codes_in_the_source().items()}
    assert {kind: codes for kind, codes in strays.items() if codes} == {}


def test_every_code_in_a_table_is_attached_somewhere():
    found = codes_in_the_source()
    used = {kind: found[kind] for kind in TABLES}
    unused = {
        kind: sorted(set(codes) - set().union(*(used[other] for other in TABLES if TABLES[other] is codes)))
        for kind, codes in TABLES.items()
    }
    assert {kind: codes for kind, codes in unused.items() if codes} == {}


def test_the_readme_table_lists_exactly_the_codes_with_their_layer_and_class():
    tool_results = codes_in_the_source()["Workflow tool result"]
    expected = {
        (code, LAYER_OF[kind], "Workflow tool result" if code in tool_results else kind)
        for kind, codes in TABLES.items() if kind != "Workflow tool result"
        for code in ((FIXED_CODES[kind],) if kind in FIXED_CODES else codes)
    }
    assert readme_codes() == expected
