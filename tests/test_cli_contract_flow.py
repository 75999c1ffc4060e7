"""``alp-nb contract flow FILE --format text|svg|mermaid``: one run of a contract, printed through
``viz.terminal``, so a contract's text can neither drive the terminal nor forge a line."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest

from alp_nb.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "contracts"
RELEASE_NOTES = EXAMPLES / "release-notes-draft-loop.json"


def written(tmp_path: Path, **changes: str) -> Path:
    document = json.loads(RELEASE_NOTES.read_text())
    for path, value in changes.items():
        part, key = path.split(".")
        document[part][key] = value
    contract = tmp_path / "contract.json"
    contract.write_text(json.dumps(document))
    return contract


def test_flow_prints_the_run_step_by_step_as_text_by_default(capsys):
    assert main(["contract", "flow", str(RELEASE_NOTES)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "One run of Release notes draft loop"
    assert "  Trigger: event  (A release branch named release/* is created.)" in lines
    assert "  Handed to  (Release manager on the #release channel; when a PR has no user-facing description; " \
           "when a breaking change has no migration note; when retry budget exhausted)" in lines
    assert "      → Attempt  (try again)" in lines


def test_flow_prints_one_svg_document(capsys):
    assert main(["contract", "flow", str(RELEASE_NOTES), "--format", "svg"]) == 0
    out = capsys.readouterr().out
    root = ElementTree.fromstring(out)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and out.count("\n") == 1


def test_flow_prints_a_mermaid_flowchart(capsys):
    assert main(["contract", "flow", str(RELEASE_NOTES), "--format", "mermaid"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == ["%% One run of Release notes draft loop", "flowchart TD"]
    assert any("-.->|\"try again\"|" in line for line in lines)


@pytest.mark.parametrize("fmt", ["text", "svg", "mermaid"])
def test_flow_prints_control_characters_in_contract_text_escaped_and_on_their_own_line(tmp_path, capsys, fmt):
    contract = written(tmp_path, **{"trigger.cadence_or_event": "Nightly\x1b[2J\nforged line",
                                    "escalation.destination": "Owner\x9b31m\u202e"})
    assert main(["contract", "flow", str(contract), "--format", fmt]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "\u202e" not in out
    assert not any(line.startswith("forged line") for line in out.splitlines())
    if fmt == "text":
        assert "  Trigger: event  (Nightly\\x1b[2J forged line)" in out.splitlines()


def test_flow_of_an_unreadable_contract_is_bad_input_in_one_stderr_line(tmp_path, capsys):
    missing = tmp_path / "missing.json"
    assert main(["contract", "flow", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and str(missing) in err


def test_flow_in_an_unknown_format_is_bad_usage(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["contract", "flow", str(RELEASE_NOTES), "--format", "png"])
    assert stopped.value.code == 2
    assert "invalid choice: 'png'" in capsys.readouterr().err
