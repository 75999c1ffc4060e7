"""Modes, models, runtimes and context windows (reference §8, §10 "Modes", "Auto-compact")."""

from __future__ import annotations

import pytest
from agent_factory import build_agent

from alp_nb.agents import (
    AUTO_COMPACT_DEFAULT_PERCENT,
    BUILTIN_IDS,
    DEFAULT_MODE,
    FIXED_ROLES,
    MODE_IDS,
    MODE_PROFILES,
    MODEL_CONTEXT_WINDOWS,
    MODEL_RUNTIMES,
    AgentError,
    builtin_registry,
    default_auto_compact_tokens,
    home_runtime_for_mode,
    model_for_mode,
    parse_mode,
    runtime_for_mode,
    runtime_for_model,
    seat_for_mode,
)

DIAL_MODES = ("low", "medium", "high", "ultra")


def agent(agent_id):
    return builtin_registry().get(agent_id)


def test_five_modes_and_medium_is_the_default():
    assert MODE_IDS == ("low", "medium", "high", "ultra", "puck")
    assert DEFAULT_MODE == "medium"
    assert tuple(MODE_PROFILES) == MODE_IDS


@pytest.mark.parametrize("mode", MODE_IDS)
def test_parse_mode_accepts_each_mode(mode):
    assert parse_mode(mode) == mode


@pytest.mark.parametrize("value", ["x", "MEDIUM", "", " medium", "default"])
def test_parse_mode_refuses_anything_else_with_the_reference_message(value):
    with pytest.raises(AgentError) as caught:
        parse_mode(value)
    assert str(caught.value) == f"mode must be one of low, medium, high, ultra, puck, received `{value}`"


def test_model_for_mode_refuses_an_unknown_mode():
    with pytest.raises(AgentError, match="received `turbo`"):
        model_for_mode(agent("main"), "turbo")


def test_model_for_mode_defaults_to_medium():
    worker = agent("worker")
    assert model_for_mode(worker) == model_for_mode(worker, "medium") == "gpt-5.6-sol"


@pytest.mark.parametrize("mode", MODE_IDS)
@pytest.mark.parametrize("agent_id", BUILTIN_IDS)
def test_every_builtin_has_a_known_model_in_every_mode(agent_id, mode):
    model = model_for_mode(agent(agent_id), mode)
    assert model in MODEL_RUNTIMES
    assert model in MODEL_CONTEXT_WINDOWS
    assert runtime_for_mode(agent(agent_id), mode) == MODEL_RUNTIMES[model]


@pytest.mark.parametrize(
    "mode, worker, oracle",
    [
        ("low", ("claude-sonnet-5", "high"), ("gpt-5.6-sol", "high")),
        ("medium", ("gpt-5.6-sol", "high"), ("claude-opus-5", "high")),
        ("high", ("claude-opus-5", "high"), ("gpt-5.6-sol", "xhigh")),
        ("ultra", ("claude-opus-5", "high"), ("gpt-6-astra", "high")),
    ],
)
def test_worker_and_oracle_follow_the_dial(mode, worker, oracle):
    assert tuple(seat_for_mode(agent("worker"), mode)) == worker
    assert tuple(seat_for_mode(agent("oracle"), mode)) == oracle


@pytest.mark.parametrize("mode", DIAL_MODES)
def test_oracle_sits_on_the_runtime_opposite_the_worker(mode):
    assert {runtime_for_mode(agent("worker"), mode), runtime_for_mode(agent("oracle"), mode)} == {"claude", "codex"}


FIXED = {
    "main": ("claude-opus-5", "high"),
    "search": ("gpt-5.6-terra", "low"),
    "librarian": ("gpt-5.6-sol", "high"),
    "read-thread": ("claude-haiku-4-5", "low"),
    "review": ("claude-opus-5", "high"),
    "compaction": ("claude-opus-5", "medium"),
    "titling": ("claude-haiku-4-5", "low"),
}


def test_seven_roles_are_fixed_off_the_dial():
    assert {role: tuple(seat) for role, seat in FIXED_ROLES.items()} == FIXED


@pytest.mark.parametrize("mode", DIAL_MODES)
@pytest.mark.parametrize("agent_id", list(FIXED))
def test_fixed_role_is_identical_on_every_dial_level(agent_id, mode):
    assert tuple(seat_for_mode(agent(agent_id), mode)) == FIXED[agent_id]


PUCK = {
    "main": ("gpt-5.6-sol", "xhigh"), "worker": ("gpt-5.6-sol", "xhigh"), "oracle": ("gpt-5.6-sol", "xhigh"),
    "search": ("gpt-5.6-terra", "low"), "librarian": ("gpt-5.6-sol", "high"), "read-thread": ("gpt-5.6-luna", "low"),
    "review": ("gpt-5.6-terra", "medium"), "compaction": ("gpt-5.6-sol", "medium"), "titling": ("gpt-5.6-luna", "low"),
}


@pytest.mark.parametrize("agent_id", BUILTIN_IDS)
def test_puck_runs_every_builtin_on_codex(agent_id):
    assert tuple(seat_for_mode(agent(agent_id), "puck")) == PUCK[agent_id]
    assert runtime_for_mode(agent(agent_id), "puck") == "codex"


@pytest.mark.parametrize(
    "mode, home", [("low", "claude"), ("medium", "codex"), ("high", "claude"), ("ultra", "claude"), ("puck", "codex")]
)
def test_home_runtime_is_the_runtime_of_the_worker_seat(mode, home):
    assert home_runtime_for_mode(mode) == home


@pytest.mark.parametrize(
    "mode, seat",
    [
        ("ultra", ("claude-sonnet-5", "max")),
        ("puck", ("gpt-5.6-terra", "low")),
        ("low", ("claude-sonnet-5", "max")),
        ("medium", ("gpt-5.6-terra", "low")),
        ("high", ("claude-sonnet-5", "max")),
    ],
)
def test_custom_role_falls_back_to_its_own_model_on_the_home_runtime(mode, seat):
    custom = build_agent(
        "migrator", model={"claude": "claude-sonnet-5", "codex": "gpt-5.6-terra"},
        reasoningEffort={"claude": "max", "codex": "low"},
    )
    assert tuple(seat_for_mode(custom, mode)) == seat
    assert model_for_mode(custom, mode) == seat[0]
    assert runtime_for_mode(custom, mode) == home_runtime_for_mode(mode)


def test_definition_model_is_only_a_fallback_for_builtins():
    search = agent("search")
    assert search.model.claude == "claude-sonnet-5"
    assert {model_for_mode(search, mode) for mode in DIAL_MODES} == {"gpt-5.6-terra"}


def test_custom_profiles_can_be_passed_in():
    profiles = {**MODE_PROFILES, "medium": {**MODE_PROFILES["medium"], "main": MODE_PROFILES["puck"]["main"]}}
    assert model_for_mode(agent("main"), "medium", profiles) == "gpt-5.6-sol"
    assert model_for_mode(agent("main"), "medium") == "claude-opus-5"


# --- Models, runtimes, windows ---------------------------------------------------------------

MODELS = [
    ("claude-fable-5-1", "claude", 1_000_000, 900_000),
    ("claude-opus-5", "claude", 1_000_000, 900_000),
    ("claude-sonnet-5", "claude", 1_000_000, 900_000),
    ("claude-haiku-4-5", "claude", 200_000, 180_000),
    ("gpt-5.6-sol", "codex", 272_000, 244_800),
    ("gpt-5.6-terra", "codex", 272_000, 244_800),
    ("gpt-5.6-luna", "codex", 272_000, 244_800),
    ("gpt-6-astra", "codex", 272_000, 244_800),
]


def test_model_table_is_closed():
    assert list(MODEL_RUNTIMES) == [model for model, *_ in MODELS]
    assert list(MODEL_CONTEXT_WINDOWS) == [model for model, *_ in MODELS]


@pytest.mark.parametrize("model, runtime, window, default", MODELS)
def test_model_runtime_window_and_ninety_percent_default(model, runtime, window, default):
    assert runtime_for_model(model) == runtime
    assert MODEL_CONTEXT_WINDOWS[model] == window
    assert default_auto_compact_tokens(model) == default


def test_default_is_ninety_percent_rounded_down():
    assert AUTO_COMPACT_DEFAULT_PERCENT == 90
    assert (default_auto_compact_tokens("claude-opus-5"), default_auto_compact_tokens("claude-haiku-4-5"),
            default_auto_compact_tokens("gpt-5.6-sol")) == (900_000, 180_000, 244_800)


@pytest.mark.parametrize("model", ["gpt-oss-120b", "", "Claude-Opus-5"])
def test_unknown_model_has_no_default_threshold(model):
    assert default_auto_compact_tokens(model) is None


@pytest.mark.parametrize("model", ["gpt-oss-120b", "claude-opus-4"])
def test_unknown_model_has_no_runtime(model):
    with pytest.raises(AgentError) as caught:
        runtime_for_model(model)
    assert "MODEL_RUNTIMES" in str(caught.value)
    assert f"`{model}`" in str(caught.value)


def test_model_tables_are_read_only():
    with pytest.raises(TypeError):
        MODEL_RUNTIMES["gpt-oss-120b"] = "codex"
    with pytest.raises(TypeError):
        MODEL_CONTEXT_WINDOWS["gpt-oss-120b"] = 128_000
    with pytest.raises(TypeError):
        MODE_PROFILES["medium"]["worker"] = MODE_PROFILES["low"]["worker"]
