"""A role's identity rendered as the text its sessions start with.

Identity is static: it depends on the definition alone, never on an
execution, so the same definition always renders the same text.
"""

from __future__ import annotations

from .definition import InstructionSpec

PRINCIPAL_INSTRUCTION = (
    "You speak with the principal directly: address them in the language they write in."
)
PRINCIPAL_STYLE = (
    "State status or conclusion first. Be concise, direct, and explicit about evidence and uncertainty."
)


def render_instructions(spec: InstructionSpec) -> str:
    """``You are <role>. <purpose>``, the principal lines unless the audience is a machine, the rules."""
    lines = [f"You are {spec.role}. {spec.purpose}"]
    if spec.audience in (None, "principal"):
        lines += [PRINCIPAL_INSTRUCTION, PRINCIPAL_STYLE]
    lines += [f"- {rule}" for rule in spec.rules]
    return "\n".join(lines)
