"""``alp-nb contract``: exit 0 when clean, 1 when lint finds errors, 2 on bad usage or input."""

import json
from pathlib import Path

import pytest

from alp_nb.cli import main
from alp_nb.loops.loop_contract import LoopContract
from alp_nb.loops.simulator import FAILURE_INJECTIONS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "contracts"
CLEAN = EXAMPLES / "translation-sync-loop.json"


@pytest.fixture
def broken(tmp_path) -> Path:
    """A schema-valid contract whose two exits are the same (LC013, an error)."""
    document = json.loads(CLEAN.read_text())
    document["exit"]["stop_without_success"] = document["exit"]["success"]
    path = tmp_path / "same-exits.json"
    path.write_text(json.dumps(document))
    return path


def test_lint_of_clean_contracts_exits_0(capsys):
    assert main(["contract", "lint", *map(str, sorted(EXAMPLES.glob("*.json")))]) == 0
    assert capsys.readouterr().out.strip().endswith("0 error(s)")


def test_lint_with_an_error_exits_1_and_names_the_rule_and_path(broken, capsys):
    assert main(["contract", "lint", str(CLEAN), str(broken)]) == 1
    out = capsys.readouterr().out
    assert f"{broken}:exit.stop_without_success: error LC013" in out
    assert out.strip().endswith("2 file(s), 1 finding(s), 1 error(s)")


def test_lint_json_lists_each_file_with_its_findings(broken, capsys):
    assert main(["contract", "lint", "--format", "json", str(CLEAN), str(broken)]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [entry["file"] for entry in report["files"]] == [str(CLEAN), str(broken)]
    assert report["files"][0]["findings"] == []
    assert {finding["rule"] for finding in report["files"][1]["findings"]} >= {"LC013"}
    assert report["errors"] >= 1


def test_lint_ignore_switches_a_rule_off(broken, capsys):
    assert main(["contract", "lint", "--ignore", "LC013", str(broken)]) == 0


def test_lint_of_a_schema_invalid_file_exits_1_with_lc001(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"name": "x"}))
    assert main(["contract", "lint", str(path)]) == 1
    assert "LC001" in capsys.readouterr().out


def test_lint_names_a_missing_contract_field_at_its_own_path(tmp_path, capsys):
    document = json.loads(CLEAN.read_text())
    del document["agents"][0]["role"]
    contract = tmp_path / "contract.json"
    contract.write_text(json.dumps(document))
    assert main(["contract", "lint", str(contract), "--format", "json"]) == 1
    paths = [finding["path"] for finding in json.loads(capsys.readouterr().out)["files"][0]["findings"]]
    assert "agents[0].role" in paths, paths


@pytest.mark.parametrize("command", [["lint"], ["simulate", "--scenario", "timeout"], ["packet", "-o", "p.html"]])
def test_an_unreadable_contract_is_bad_input_in_one_stderr_line_for_every_command(tmp_path, capsys, command):
    missing = tmp_path / "missing.json"
    assert main(["contract", command[0], str(missing), *command[1:]]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert len(err.splitlines()) == 1 and str(missing) in err


def test_lint_prints_nothing_when_any_of_its_files_cannot_be_read(tmp_path, capsys):
    malformed = tmp_path / "malformed.json"
    malformed.write_text('{"name": ')
    assert main(["contract", "lint", "--format", "json", str(CLEAN), str(malformed)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"alp-nb: {malformed}: not JSON") and len(err.splitlines()) == 1


def test_lint_of_an_unknown_rule_id_is_bad_usage(capsys):
    assert main(["contract", "lint", "--ignore", "LC999", str(CLEAN)]) == 2
    assert "LC999" in capsys.readouterr().err


def test_the_template_fails_lint_until_filled_in(tmp_path, capsys):
    path = tmp_path / "draft.yaml"
    assert main(["contract", "new", "Nightly docs check", "-o", str(path)]) == 0
    assert main(["contract", "lint", str(path)]) == 1
    assert "LC004" in capsys.readouterr().out


def test_new_prints_a_template_that_loads(tmp_path, capsys):
    assert main(["contract", "new", "Weekly audit"]) == 0
    path = tmp_path / "printed.json"
    path.write_text(capsys.readouterr().out)
    assert LoopContract.load(path).name == "Weekly audit"


def test_new_refuses_to_overwrite_a_file(capsys):
    assert main(["contract", "new", "x", "-o", str(CLEAN)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_simulate_prints_the_trace_and_the_owner(capsys):
    assert main(["contract", "simulate", str(CLEAN), "--scenario", "missing-authority"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("missing-authority on Translation catalog sync loop: escalate")
    assert "destination: Localization owner via an issue in the i18n queue" in out


def test_simulate_all_runs_every_injection_as_json(capsys):
    assert main(["contract", "simulate", str(CLEAN), "--scenario", "all", "--format", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [run["scenario"]["name"] for run in runs] == list(FAILURE_INJECTIONS)


def test_simulate_an_unknown_scenario_is_bad_usage(capsys):
    assert main(["contract", "simulate", str(CLEAN), "--scenario", "meteor"]) == 2
    assert "unknown scenario `meteor`" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "start"),
                         [("packet.html", "<!DOCTYPE html>"), ("packet.md", "# Loop contract review")])
def test_packet_writes_html_or_markdown_by_suffix(tmp_path, capsys, name, start):
    output = tmp_path / name
    assert main(["contract", "packet", str(CLEAN), "-o", str(output)]) == 0
    assert output.read_text().startswith(start)
    assert f"wrote {output}" in capsys.readouterr().out


def test_contract_new_with_an_empty_name_is_a_one_line_error_naming_the_field(capsys):
    assert main(["contract", "new", ""]) == 2
    assert "name" in capsys.readouterr().err


def test_contract_new_to_an_unwritable_path_is_a_one_line_error_naming_it(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    output = blocker / "draft.json"  # its folder is a file
    assert main(["contract", "new", "x", "-o", str(output)]) == 2
    assert str(output) in capsys.readouterr().err


def test_contract_packet_to_an_unwritable_path_is_a_one_line_error_naming_it(tmp_path, capsys):
    source = tmp_path / "contract.json"
    source.write_text(CLEAN.read_text())
    folder = tmp_path / "packets"
    folder.mkdir()
    assert main(["contract", "packet", str(source), "-o", str(folder)]) == 2
    assert str(folder) in capsys.readouterr().err


def test_contract_packet_never_overwrites_the_contract_it_reviews(tmp_path, monkeypatch, capsys):
    source = tmp_path / "contract.json"
    source.write_text(CLEAN.read_text())
    monkeypatch.chdir(tmp_path)
    assert main(["contract", "packet", str(source), "-o", "./sub/../contract.json"]) == 2
    assert "contract being reviewed" in capsys.readouterr().err
    assert source.read_text() == CLEAN.read_text()


@pytest.mark.parametrize("command", [["new", "nightly"], ["packet", str(CLEAN)]], ids=["new", "packet"])
def test_an_output_path_in_a_missing_directory_is_refused_naming_it(tmp_path, capsys, command):
    missing = tmp_path / "typo" / "dir"
    assert main(["contract", *command, "-o", str(missing / "out.yaml")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"no such directory {missing}" in err
    assert not (tmp_path / "typo").exists()
