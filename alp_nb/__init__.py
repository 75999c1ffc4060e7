"""alp_nb: an executable model of the ALP agent system, for notebooks.

The public API (README.md lists it) is re-exported here from each layer and
imported on first use, so ``import alp_nb`` loads no layer and none of
networkx, jsonschema, ruamel.yaml, pandas, matplotlib or ipywidgets. Inside
IPython or Jupyter it also registers, by name, how every core object is shown
(``alp_nb.viz.display``), so the core layers hold no display code.
"""


def _interrupted_while_starting(signum: int = 2, frame: object = None) -> None:
    """The command's Ctrl-C until ``alp_nb.cli.main`` takes over: one line and exit 130, half-imported or not."""
    import os  # each import here and below is of a module Python's start loaded: it runs no code

    os.write(2, b"alp-nb: interrupted\n")
    os._exit(130)


def _started_as_the_command() -> bool:
    """The ``alp-nb`` command: its console script, or ``python -m alp_nb`` (whose ``sys.argv[0]`` is ``-m``
    while the module is found); never a library import, which must leave a user's kernel's handlers alone."""
    import os
    import sys

    argv = sys.orig_argv
    return os.path.basename(sys.argv[0]) == "alp-nb" or (
        sys.argv[0] == "-m" and "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "alp_nb")


try:  # in the command, a Ctrl-C from here on is one line and exit 130 (``alp_nb.cli.main`` gives Python its own
    # handler back first thing). Above, a docstring and two functions are stored, where Python never acts on a
    # signal; before them, only Python's own start runs.
    import _signal  # type: ignore[import-not-found]  # CPython's built-in half of ``signal`` (typeshed leaves it out)
    import sys

    if _started_as_the_command() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
        _signal.signal(_signal.SIGINT, _interrupted_while_starting)
except KeyboardInterrupt:  # before the handler was in place
    if not _started_as_the_command():
        raise
    _interrupted_while_starting()

from typing import TYPE_CHECKING  # noqa: E402 (after the interrupt handler: nothing may import before it)

from alp_nb.base.lazy import lazy_exports  # noqa: E402 (see above)

if TYPE_CHECKING:
    from .agents import (
        AGENT_ERROR_CODES as AGENT_ERROR_CODES,
        AUTO_COMPACT_DEFAULT_PERCENT as AUTO_COMPACT_DEFAULT_PERCENT,
        BUILTIN_AGENTS as BUILTIN_AGENTS,
        DEFAULT_CATALOG as DEFAULT_CATALOG,
        DEFAULT_MODE as DEFAULT_MODE,
        MCP_SERVER_CATALOG as MCP_SERVER_CATALOG,
        MODE_IDS as MODE_IDS,
        MODE_PROFILES as MODE_PROFILES,
        MODEL_CONTEXT_WINDOWS as MODEL_CONTEXT_WINDOWS,
        MODEL_RUNTIMES as MODEL_RUNTIMES,
        POLICY_ERROR_CODES as POLICY_ERROR_CODES,
        REGISTRY_ERROR_CODES as REGISTRY_ERROR_CODES,
        RUNTIME_IDS as RUNTIME_IDS,
        SKILL_CATALOG as SKILL_CATALOG,
        SUBAGENT_CATALOG as SUBAGENT_CATALOG,
        TOOL_CATALOG as TOOL_CATALOG,
        AgentDefinition as AgentDefinition,
        AgentError as AgentError,
        AgentRegistry as AgentRegistry,
        AgentRegistryError as AgentRegistryError,
        Authorization as Authorization,
        CapabilityCatalog as CapabilityCatalog,
        McpServerCatalogEntry as McpServerCatalogEntry,
        PolicyEngine as PolicyEngine,
        SubagentCatalogEntry as SubagentCatalogEntry,
        TrustStore as TrustStore,
        builtin_registry as builtin_registry,
        create_agent_registry as create_agent_registry,
        default_auto_compact_tokens as default_auto_compact_tokens,
        define_agent as define_agent,
        definition_hash as definition_hash,
        delegation_cycle as delegation_cycle,
        diff_authority as diff_authority,
        load_project_agents as load_project_agents,
        memory_grant_covers as memory_grant_covers,
        model_for_mode as model_for_mode,
        project_registry as project_registry,
        runtime_for_model as runtime_for_model,
    )
    from .base import BASE_ERROR_CODES as BASE_ERROR_CODES, AlpError as AlpError
    from .cli.errors import CLI_ERROR_CODES as CLI_ERROR_CODES, UsageError as UsageError
    from .loops import (
        FAILURE_INJECTIONS as FAILURE_INJECTIONS,
        LINT_RULES as LINT_RULES,
        LOOP_CONTRACT_ERROR_CODES as LOOP_CONTRACT_ERROR_CODES,
        OUTCOMES as OUTCOMES,
        RECEIPT_FIELDS as RECEIPT_FIELDS,
        REVIEWERS as REVIEWERS,
        BudgetState as BudgetState,
        ContractDiff as ContractDiff,
        EffectCap as EffectCap,
        Evidence as Evidence,
        Expectations as Expectations,
        Finding as Finding,
        Findings as Findings,
        Firing as Firing,
        FiringItem as FiringItem,
        FiringSimulation as FiringSimulation,
        Grades as Grades,
        LearnedFindings as LearnedFindings,
        LintRule as LintRule,
        LoopContract as LoopContract,
        LoopContractError as LoopContractError,
        LoopState as LoopState,
        ReceiptRecord as ReceiptRecord,
        ReviewPacket as ReviewPacket,
        Scenario as Scenario,
        ScriptedAttempt as ScriptedAttempt,
        Simulation as Simulation,
        decide as decide,
        diff_contracts as diff_contracts,
        effect_caps as effect_caps,
        external_effects as external_effects,
        failure_signature as failure_signature,
        firings_for as firings_for,
        grade as grade,
        learn_from_receipts as learn_from_receipts,
        lint_contract as lint_contract,
        make_receipt as make_receipt,
        read_receipt_log as read_receipt_log,
        receipt_records as receipt_records,
        scenarios_for as scenarios_for,
        simulate as simulate,
        simulate_firing as simulate_firing,
        write_receipt_log as write_receipt_log,
    )
    from .replay import (
        JOURNAL_COLUMNS as JOURNAL_COLUMNS,
        REPLAY_ERROR_CODES as REPLAY_ERROR_CODES,
        RUN_LIST_COLUMNS as RUN_LIST_COLUMNS,
        ReplayCall as ReplayCall,
        ReplayError as ReplayError,
        ReplaySession as ReplaySession,
        ResumePlan as ResumePlan,
        RunCalls as RunCalls,
        RunComparison as RunComparison,
        RunFollower as RunFollower,
        RunRecord as RunRecord,
        RunRow as RunRow,
        Timeline as Timeline,
        compare_runs as compare_runs,
        fork_run as fork_run,
        list_runs as list_runs,
        load_run as load_run,
        plan_resume as plan_resume,
        record_of as record_of,
        run_rows as run_rows,
        timeline_of as timeline_of,
    )
    from .runtime import (
        RUNTIME_ERROR_CODES as RUNTIME_ERROR_CODES,
        WORKFLOW_TOOL as WORKFLOW_TOOL,
        AgentRunner as AgentRunner,
        AnthropicAgentRunner as AnthropicAgentRunner,
        EventStream as EventStream,
        ExecutionContext as ExecutionContext,
        Fork as Fork,
        MockAgentRunner as MockAgentRunner,
        ObservedCall as ObservedCall,
        RunnerOutput as RunnerOutput,
        RunSnapshot as RunSnapshot,
        RunStore as RunStore,
        WorkflowInputError as WorkflowInputError,
        WorkflowMeta as WorkflowMeta,
        WorkflowRegistry as WorkflowRegistry,
        WorkflowRun as WorkflowRun,
        call_workflow_tool as call_workflow_tool,
        list_workflows as list_workflows,
        load_workflow_file as load_workflow_file,
        resume_workflow as resume_workflow,
        run_workflow as run_workflow,
        run_workflow_sync as run_workflow_sync,
        saved_workflow as saved_workflow,
        validate_meta as validate_meta,
    )
    from .viz import (
        VIZ_ERROR_CODES as VIZ_ERROR_CODES,
        VizError as VizError,
        capability_matrix as capability_matrix,
        contract_flow as contract_flow,
        delegation_graph as delegation_graph,
        export_run as export_run,
        render as render,
        review_packet as review_packet,
        review_packet_markdown as review_packet_markdown,
        run_timeline as run_timeline,
        state_machine as state_machine,
        status_lifecycle as status_lifecycle,
    )
    from .widgets import (
        ContractEditor as ContractEditor,
        RegistryExplorer as RegistryExplorer,
        RunProgress as RunProgress,
        RunViewer as RunViewer,
        WorkflowStepper as WorkflowStepper,
    )
    from .workflow import (
        MAX_OUTPUT_REPAIR_ATTEMPTS as MAX_OUTPUT_REPAIR_ATTEMPTS,
        WORKFLOW_ERROR_CODES as WORKFLOW_ERROR_CODES,
        ExecutionStatus as ExecutionStatus,
        ExecutionStore as ExecutionStore,
        FinalizeResult as FinalizeResult,
        OutputContract as OutputContract,
        OutputValidation as OutputValidation,
        WorkflowDefinition as WorkflowDefinition,
        WorkflowError as WorkflowError,
        WorkflowExecutionState as WorkflowExecutionState,
        WorkflowRunner as WorkflowRunner,
        WorkflowSession as WorkflowSession,
        advance_to_output as advance_to_output,
        define_linear_workflow as define_linear_workflow,
        define_output_contract as define_output_contract,
        effective_tools as effective_tools,
        text_output as text_output,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

__version__ = "0.1.0"

if "IPython" in sys.modules:  # a kernel or an IPython shell: rich views and progress bars from now on
    from alp_nb.widgets.notebook import install as _install_notebook

    _install_notebook()
