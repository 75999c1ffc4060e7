"""Models, the runtime each one runs on, their context windows and the auto-compact default."""

from __future__ import annotations

from types import MappingProxyType

from .errors import AgentError

MODEL_RUNTIMES = MappingProxyType({
    "claude-fable-5-1": "claude",
    "claude-opus-5": "claude",
    "claude-sonnet-5": "claude",
    "claude-haiku-4-5": "claude",
    "gpt-5.6-sol": "codex",
    "gpt-5.6-terra": "codex",
    "gpt-5.6-luna": "codex",
    "gpt-6-astra": "codex",
})

MODEL_CONTEXT_WINDOWS = MappingProxyType({
    "claude-fable-5-1": 1_000_000,
    "claude-opus-5": 1_000_000,
    "claude-sonnet-5": 1_000_000,
    "claude-haiku-4-5": 200_000,
    "gpt-5.6-sol": 272_000,
    "gpt-5.6-terra": 272_000,
    "gpt-5.6-luna": 272_000,
    "gpt-6-astra": 272_000,  # provisional in ALP
})

AUTO_COMPACT_DEFAULT_PERCENT = 90
AUTO_COMPACT_MIN_TOKENS = 100_000
AUTO_COMPACT_MAX_TOKENS = 1_000_000


def runtime_for_model(model: str) -> str:
    """The runtime (``claude`` or ``codex``) a model runs on; there is no other switch."""
    try:
        return MODEL_RUNTIMES[model]
    except (KeyError, TypeError):
        raise AgentError(
            "UNKNOWN_MODEL", f"model `{model}` has not been assigned a runtime in MODEL_RUNTIMES"
        ) from None


def default_auto_compact_tokens(model: str) -> int | None:
    """90 % of the model's context window, or None when the window is unknown."""
    window = MODEL_CONTEXT_WINDOWS.get(model)
    return None if window is None else window * AUTO_COMPACT_DEFAULT_PERCENT // 100
