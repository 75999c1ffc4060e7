"""A JSON Schema is paid for only when one is used: a run of a workflow without schemas imports no JSON Schema
machinery, a run with schemas compiles each distinct schema once, and jsonschema's import never pays for the
``rfc3987_syntax`` parsers behind a format check that nothing asks for, while that check still works when asked."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
from runtime_support import run_script

from alp_nb.agents.output_contract import OutputContract
from alp_nb.runtime import MockAgentRunner, RunStore, WorkflowInputError
from alp_nb.runtime.sample import ARGS_SCHEMA

HAS_RFC3987_SYNTAX = importlib.util.find_spec("rfc3987_syntax") is not None


def _fresh(code: str) -> str:
    """What ``code`` prints in a fresh interpreter."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_a_run_of_a_workflow_without_schemas_imports_no_json_schema_machinery(tmp_path):
    shown = _fresh(f"""
        import sys
        import alp_nb as alp
        workflows = alp.WorkflowRegistry()

        async def fanout(ctx, args):
            return await ctx.parallel([lambda i=i: ctx.agent(f"item {{i}}", label=f"item-{{i}}") for i in range(20)])

        workflows.register({{"name": "fanout", "description": "d"}}, fanout)
        run = alp.run_workflow_sync("fanout", store=alp.RunStore({str(tmp_path)!r}), registry=workflows,
                                    runner=alp.MockAgentRunner())
        alp.builtin_registry(), alp.WORKFLOW_TOOL
        print(run.status, sorted(name for name in ("jsonschema", "rfc3987_syntax") if name in sys.modules))
    """)
    assert shown == "completed []"


@pytest.mark.skipif(not HAS_RFC3987_SYNTAX, reason="rfc3987_syntax is not installed: nothing to defer")
def test_jsonschema_imported_by_alp_nb_leaves_rfc3987_syntax_unloaded_until_an_iri_is_checked():
    shown = _fresh("""
        import sys
        from alp_nb.agents.output_contract import OutputContract
        verdict = OutputContract("c", {"type": "object", "required": ["n"]}).validate({})
        loaded = "rfc3987_syntax" in sys.modules
        import jsonschema
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        print(verdict.ok, loaded, checker.conforms("http://example.com/ä", "iri"),
              checker.conforms("not an iri", "iri"), type(sys.modules["rfc3987_syntax"].is_valid_syntax).__name__)
    """)
    assert shown == "False False True False function"


@pytest.mark.skipif(not HAS_RFC3987_SYNTAX, reason="rfc3987_syntax is not installed: nothing to defer")
def test_an_import_of_rfc3987_syntax_after_alp_nb_imported_jsonschema_gets_the_real_module():
    shown = _fresh("""
        from alp_nb.base.json_schema import jsonschema_module
        jsonschema_module()
        import rfc3987_syntax
        print(rfc3987_syntax.__file__ is not None, hasattr(rfc3987_syntax, "RFC3987_SYNTAX_TERMS"))
    """)
    assert shown == "True True"


def test_jsonschema_imported_by_alp_nb_loads_no_deferred_format_package_until_its_format_is_checked():
    """Each installed package of ``DEFERRED`` stays unloaded through the import; its format, asked for, still
    accepts what is valid and refuses what is not (and only then loads the package)."""
    shown = _fresh("""
        import importlib.util, sys
        from alp_nb.base.json_schema import DEFERRED, jsonschema_module
        installed = [name for name in DEFERRED if importlib.util.find_spec(name) is not None]
        jsonschema = jsonschema_module()
        loaded = [name for name in installed if name in sys.modules]
        checks = {"rfc3987_syntax": (jsonschema.Draft202012Validator, "iri", "http://example.com/ä", "not an iri"),
                  "rfc3986_validator": (jsonschema.Draft202012Validator, "uri-reference", "/a/b", "\\\\ no"),
                  "webcolors": (jsonschema.Draft3Validator, "color", "red", "not a colour"),
                  "uri_template": (jsonschema.Draft202012Validator, "uri-template", "/a/{b}", "/a/{b"),
                  "arrow": (jsonschema.Draft202012Validator, "duration", "P1Y2M", "P0003-16-04T12:30:05")}
        answers = [(name, validator.FORMAT_CHECKER.conforms(good, fmt), validator.FORMAT_CHECKER.conforms(bad, fmt))
                   for name, (validator, fmt, good, bad) in checks.items() if name in installed]
        print(bool(installed), loaded, all(good and not bad for _, good, bad in answers),
              len(answers) == len(installed), "arrow" not in installed or "arrow" in sys.modules)
    """)
    assert shown == "True [] True True True"


def test_a_run_compiles_each_distinct_schema_once(tmp_path, monkeypatch):
    compiled: list[str] = []
    compile_schema = OutputContract._compile

    def counting(self):
        compiled.append(self.name)
        return compile_schema(self)

    monkeypatch.setattr(OutputContract, "_compile", counting)
    schemas = [{"type": "string"}, {"type": "string", "maxLength": 99}]

    async def script(ctx, args):
        return [await ctx.agent(f"q{i}", label=f"q{i}", schema=schemas[i % 2]) for i in range(12)]

    run = run_script(RunStore(tmp_path), script, MockAgentRunner())
    assert run.status == "completed" and compiled == ["agent-output", "agent-output"]


def test_the_built_in_workflow_s_args_schema_compiled_late_still_refuses_bad_args(tmp_path):
    from alp_nb.runtime import DEFAULT_REGISTRY

    OutputContract("review-changes args", ARGS_SCHEMA)  # a valid schema: compiled eagerly, it is not refused
    saved = DEFAULT_REGISTRY.get("review-changes")
    with pytest.raises(WorkflowInputError, match="args do not match what `review-changes` takes") as refused:
        saved.check_args({"changes": 7})
    assert refused.value.code == "INVALID_ARGS"
