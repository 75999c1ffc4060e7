"""``alp-nb policy check``: one what-if question to the policy engine, answered as the ``Authorization`` text view
shows it (``ALLOWED``, or ``DENIED  <CODE>: <reason>`` and the rule behind the code), exit 0 when allowed and 1 when
denied, 2 for a question asked the wrong way; the registry is the one a session in the project gets, trusted custom
agents included."""

from __future__ import annotations

from pathlib import Path

import pytest
from custom_agent_files import write_agent

from alp_nb.agents import POLICY_ERROR_CODES, TrustStore, load_project_agents
from alp_nb.cli import main
from alp_nb.viz.views.policy_codes import POLICY_RULES


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


def check(capsys, project: Path, *argv: str) -> tuple[int, list[str], str]:
    code = main(["policy", "check", *argv, "--project", str(project)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


@pytest.mark.parametrize(("argv", "code", "answer"), [
    (("--actor", "main", "--tool", "Write"), 1, "DENIED  TOOL_NOT_GRANTED: `Write` is not granted to `main`"),
    (("--actor", "worker", "--tool", "Write"), 0, "ALLOWED"),
    (("--actor", "worker", "--tool", "Bash", "--command", "eval $(cat x)"), 1,
     "DENIED  INDIRECT_TOOL_REQUEST: indirect command cannot be authorized safely"),
    (("--actor", "worker", "--tool", "Bash", "--command", "herdr spawn"), 1,
     "DENIED  RAW_RUNTIME_TOOL_DENIED: raw runtime tool `Bash` is not part of the ALP delegation API"),
    (("--actor", "main", "--target", "worker"), 0, "ALLOWED"),
    (("--actor", "worker", "--target", "main"), 1,
     "DENIED  DELEGATION_NOT_ALLOWED: `worker` cannot delegate to `main`"),
    (("--actor", "worker", "--memory", "write", "--scope", "private:worker"), 0, "ALLOWED"),
    (("--actor", "worker", "--memory", "read", "--scope", "private:main"), 1,
     "DENIED  PRIVATE_MEMORY_DENIED: `worker` cannot read private memory for `main`"),
    (("--actor", "search", "--workspace", "read", "--path", "src"), 0, "ALLOWED"),
    (("--actor", "worker", "--workspace", "write", "--path", "src", "--read-only"), 1, None),
    (("--actor", "main", "--skill", "no-such-skill"), 1,
     "DENIED  SKILL_NOT_GRANTED: skill `no-such-skill` is not granted to `main`"),
    (("--actor", "main", "--subagent", "helper"), 1,
     "DENIED  SUBAGENT_NOT_GRANTED: subagent `helper` is not granted to `main`"),
    (("--actor", "main", "--mcp", "docs"), 1,
     "DENIED  MCP_SERVER_NOT_GRANTED: mcp server `docs` is not granted to `main`"),
    (("--actor", "nobody", "--tool", "Read"), 1, "DENIED  UNKNOWN_ACTOR: unknown actor `nobody`"),
])
def test_the_answer_is_the_authorization_text_then_a_denials_rule_and_the_exit_code_says_yes_or_no(
        capsys, project, argv, code, answer):
    got, out, err = check(capsys, project, *argv)
    assert (got, err) == (code, "")
    if answer is None:
        assert out[0].startswith("DENIED  WORKSPACE_READ_ONLY: execution workspace ")
    else:
        assert out[0] == answer
    denied = out[0].split()[1].rstrip(":") if code else None
    assert out[1:] == ([f"RULE     {POLICY_RULES[denied]}"] if denied else [])


def test_every_policy_code_has_one_rule_of_one_line_in_the_codes_order():
    assert tuple(POLICY_RULES) == POLICY_ERROR_CODES
    assert all(rule and rule == " ".join(rule.split()) for rule in POLICY_RULES.values())


@pytest.mark.parametrize("argv", [
    ("--actor", "main"),
    ("--actor", "main", "--tool", "Read", "--target", "worker"),
    ("--actor", "main", "--memory", "read"),
    ("--actor", "main", "--workspace", "read"),
    ("--actor", "main", "--target", "worker", "--command", "ls"),
    ("--actor", "main", "--tool", "Read", "--scope", "shared"),
])
def test_a_question_asked_the_wrong_way_is_a_usage_error(capsys, project, argv):
    code, out, err = check(capsys, project, *argv)
    assert (code, out) == (2, [])
    assert err.startswith("alp-nb: ")


def test_an_untrusted_project_agent_is_not_in_the_registry_and_a_note_says_why(capsys, project):
    write_agent(project, "migrator")
    code, out, _ = check(capsys, project, "--actor", "main", "--target", "migrator")
    assert code == 1
    assert out == ["DENIED  UNKNOWN_TARGET: unknown delegation target `migrator`",
                   "RULE     work is delegated only to a role in the registry",
                   "NOTE     `migrator` is never trusted — run `alp-nb agent add` to approve it"]
    TrustStore().trust(project, load_project_agents(project).loaded[0])
    assert check(capsys, project, "--actor", "main", "--target", "migrator")[:2] == (0, ["ALLOWED"])
    write_agent(project, "migrator", displayName="Migrator, edited")
    code, out, _ = check(capsys, project, "--actor", "migrator", "--tool", "Read")
    assert code == 1
    assert out[2] == ("NOTE     `migrator` is edited since it was trusted — denied until `alp-nb agent add` "
                      "approves it again")


def test_an_actor_from_an_agent_file_is_printed_escaped(capsys, project):
    code, out, _ = check(capsys, project, "--actor", "ev\x1b[2Jil", "--tool", "Read")
    assert code == 1
    assert out == ["DENIED  UNKNOWN_ACTOR: unknown actor `ev\\x1b[2Jil`",
                   "RULE     only a role in the registry may ask anything"]
