"""``alp-nb contract``: exit 0 when clean, 1 when lint finds errors, 2 on bad usage or input."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from alp_nb.cli import main
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.injections import FAILURE_INJECTIONS, firings_for, scenarios_for
from alp_nb.loops.loop_contract import LoopContract

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


def test_simulate_all_runs_every_injection_every_derived_scenario_and_every_derived_firing_as_json(capsys):
    assert main(["contract", "simulate", str(CLEAN), "--scenario", "all", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    contract = LoopContract.load(CLEAN)
    nights = [run.scenario.name for firing in firings_for(contract) for run in simulate_firing(contract, firing).runs]
    names = [run["scenario"]["name"] for run in report["runs"]]
    assert names == [scenario.name for scenario in scenarios_for(contract)] + nights and nights
    assert names[:len(FAILURE_INJECTIONS)] == list(FAILURE_INJECTIONS)
    assert {grade["verdict"] for grade in report["grades"]} == {"not stated"}


def test_simulate_all_says_which_scenarios_were_derived_and_that_nothing_was_graded(capsys):
    assert main(["contract", "simulate", str(CLEAN)]) == 0  # --scenario all is the default
    out = capsys.readouterr().out
    summary = out.splitlines()[-2]
    assert summary.startswith(f"{len(scenarios_for(LoopContract.load(CLEAN))) + 2} run(s); ")
    assert "escalation-condition-1 (escalation.conditions[0])" in summary
    assert "retry-budget (budget.max_retries)" in summary
    assert "derived from escalation.conditions[0]" in out and "  reviewer: not stated" in out
    assert out.splitlines()[-1].startswith("reviewers: none graded (no review file)")
    assert "as expected" not in out


def _review(tmp_path, expectations: dict, contract: str = "Translation catalog sync loop", suffix=".yaml"):
    path = tmp_path / f"review{suffix}"
    document = {"contract": contract, "expectations": expectations}
    path.write_text(json.dumps(document) if suffix == ".json" else yaml_text(document))
    return path


def yaml_text(document: dict) -> str:
    from alp_nb.base.strict_yaml import dump_strict_yaml

    return dump_strict_yaml(document)


def test_simulate_expect_grades_each_run_and_exits_1_on_a_disagreement(tmp_path, capsys):
    owner = LoopContract.load(CLEAN).escalation.destination
    review = _review(tmp_path, {
        "missing-authority": {"outcome": "escalate", "owner": owner, "signed_by": "Ana (operator)"},
        "retry-budget": {"outcome": "escalate", "signed_by": "Ben (product owner)"}})
    assert main(["contract", "simulate", str(CLEAN), "--expect", str(review)]) == 1
    out = capsys.readouterr().out
    lines = out[out.index(f"reviewers ({review}):"):].splitlines()
    assert lines[1] == "1 disagree, 1 agree, " + lines[1].split(", ", 2)[2] and lines[1].endswith("not stated")
    assert lines[2] == ("  disagree   retry-budget: stop-with-receipt; expected escalate, the run ended "
                        "stop-with-receipt (signed: Ben (product owner))")
    assert lines[3].startswith("  agree      missing-authority: escalate")
    assert "  reviewer: agree (signed: Ana (operator))" in out


def test_simulate_expect_exits_0_when_every_stated_expectation_agrees(tmp_path, capsys):
    review = _review(tmp_path, {"timeout": {"outcome": "stop-with-receipt", "signed_by": "Ana"}}, suffix=".json")
    assert main(["contract", "simulate", str(CLEAN), "--scenario", "timeout", "--expect", str(review)]) == 0
    assert "1 agree" not in capsys.readouterr().out.split("reviewers")[0]


@pytest.mark.parametrize(("expectations", "contract", "problem"), [
    ({"timeout": {"outcome": "escalat", "signed_by": "Ana"}}, None, "expectations.timeout.outcome: Input should be"),
    ({"retry-budget": {"outcome": "escalate"}}, None, 'expectations["retry-budget"].signed_by: Field required'),
    ({"meteor-strike": {"outcome": "escalate", "signed_by": "Ana"}}, None,
     'expectations["meteor-strike"]: the contract has no such scenario'),
    ({"timeout": {"outcome": "escalate", "signed_by": "Ana"}}, "Another loop", "contract: the review is about"),
])
def test_a_bad_review_file_is_bad_input_naming_the_file_and_the_key(tmp_path, capsys, expectations, contract,
                                                                     problem):
    review = _review(tmp_path, expectations, **({"contract": contract} if contract else {}))
    assert main(["contract", "simulate", str(CLEAN), "--expect", str(review)]) == 2
    err = capsys.readouterr().err
    assert problem in err and (str(review) in err or "does not fit" in err)


def test_simulate_refuses_a_contract_with_lint_errors_unless_allowed_and_marks_it_provisional(tmp_path, capsys):
    assert main(["contract", "new", "draft", "-o", str(tmp_path / "draft.json")]) == 0
    capsys.readouterr()
    assert main(["contract", "simulate", str(tmp_path / "draft.json"), "--scenario", "success-on-retry"]) == 2
    err = capsys.readouterr().err
    assert "lint errors; a contract with lint errors is simulated only with" in err and "LC004" in err
    assert main(["contract", "simulate", str(tmp_path / "draft.json"), "--scenario", "success-on-retry",
                 "--allow-lint-errors"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("success-on-retry on draft: exit-success (provisional)")
    assert "provisional: the contract has 22 lint errors" in out


def test_simulate_writes_the_receipts_that_learn_reads(tmp_path, capsys):
    receipts = tmp_path / "night.jsonl"
    assert main(["contract", "simulate", str(CLEAN), "--receipts", str(receipts)]) == 0
    assert f"wrote the receipts to {receipts}" in capsys.readouterr().out
    assert main(["contract", "learn", str(CLEAN), str(receipts), "--format", "json"]) == 0
    learned = json.loads(capsys.readouterr().out)
    assert {finding["rule"] for finding in learned} >= {"repeated-stop"}
    assert all(finding["receipts"] for finding in learned)


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


# --- packet output: never over an existing file without --force ------------------------------------


def test_packet_refuses_to_overwrite_an_existing_file_without_force(tmp_path, capsys):
    other = tmp_path / "b.json"
    other.write_text(CLEAN.read_text())
    assert main(["contract", "packet", str(CLEAN), "-o", str(other)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"alp-nb: {other} already exists; choose another file, or pass --force to replace it\n"
    assert other.read_text() == CLEAN.read_text()


def test_packet_refuses_a_dangling_link_at_the_output_without_force(tmp_path, capsys):
    link = tmp_path / "packet.html"
    link.symlink_to(tmp_path / "nowhere.html")
    assert main(["contract", "packet", str(CLEAN), "-o", str(link)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert link.is_symlink() and not (tmp_path / "nowhere.html").exists()


def test_packet_with_force_replaces_an_existing_file(tmp_path, capsys):
    output = tmp_path / "packet.html"
    output.write_text("an older packet")
    assert main(["contract", "packet", str(CLEAN), "-o", str(output), "--force"]) == 0
    assert output.read_text().startswith("<!DOCTYPE html>")
    assert capsys.readouterr().out == f"wrote {output}\n"


def test_packet_never_overwrites_the_contract_it_reviews_even_with_force(tmp_path, capsys):
    source = tmp_path / "contract.json"
    source.write_text(CLEAN.read_text())
    assert main(["contract", "packet", str(source), "-o", str(source), "--force"]) == 2
    assert "contract being reviewed" in capsys.readouterr().err
    assert source.read_text() == CLEAN.read_text()


def test_packet_help_says_an_existing_output_needs_force(capsys):
    with pytest.raises(SystemExit):
        main(["contract", "packet", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--force" in help_text
    assert "refused if it exists, unless --force" in help_text


# --- contract files are untrusted input: bounded, regular files only -------------------------------

BOUNDED_JSON = {
    "deep": ("[" * 5000 + "]" * 5000, "nested more than 100 levels deep"),
    "huge-integer": ('{"name": ' + "9" * 5000 + "}", "an integer of 5000 digits, over the limit of 100"),
}
COMMANDS = {"lint": [], "simulate": ["--scenario", "timeout"], "packet": ["-o", "packet.html"]}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", BOUNDED_JSON)
def test_a_deep_or_huge_json_contract_is_one_line_on_stderr_exit_2_and_nothing_written(tmp_path, monkeypatch,
                                                                                     capsys, command, case):
    text, problem = BOUNDED_JSON[case]
    contract = tmp_path / f"{case}.json"
    contract.write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["contract", command, str(contract), *COMMANDS[command]]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"alp-nb: {contract}: {problem}\n"
    assert not (tmp_path / "packet.html").exists()


def test_a_contract_named_through_a_symbolic_link_is_read_from_its_target(tmp_path, capsys):
    """The user names the contract, so a link to it (a shared folder, say) is followed; its target must still
    be a regular file."""
    link = tmp_path / "link.json"
    link.symlink_to(CLEAN)
    assert main(["contract", "lint", str(link)]) == 0
    assert capsys.readouterr().out.endswith("1 file(s), 0 finding(s), 0 error(s)\n")
    (tmp_path / "to-device.json").symlink_to("/dev/zero")
    assert main(["contract", "lint", str(tmp_path / "to-device.json")]) == 2
    assert capsys.readouterr().err == (f"alp-nb: {tmp_path / 'to-device.json'}: cannot read contract: it is not a "
                                       "regular file\n")


def _bounded_memory() -> None:
    """A child that reads a device without end fails fast instead of filling the machine's memory."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _alp_nb(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``alp-nb`` in a child process: a command that waits on a FIFO or reads a device forever times out
    there, failing the test instead of hanging the test run."""
    return subprocess.run([sys.executable, "-m", "alp_nb", *argv], cwd=cwd, capture_output=True, text=True,
                          timeout=20, preexec_fn=_bounded_memory, check=False)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_contract_that_is_a_fifo_is_refused_at_once_not_waited_on(tmp_path, command):
    fifo = tmp_path / "contract.json"
    os.mkfifo(fifo)
    finished = _alp_nb("contract", command, str(fifo), *COMMANDS[command], cwd=tmp_path)
    assert (finished.returncode, finished.stdout) == (2, "")
    assert finished.stderr == f"alp-nb: {fifo}: cannot read contract: it is not a regular file\n"
    assert not (tmp_path / "packet.html").exists()


def test_a_contract_that_is_a_device_is_refused_without_reading_it(tmp_path):
    device = tmp_path / "zero.json"
    try:
        os.mknod(device, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # the device /dev/zero is, under a contract's name
    except PermissionError:
        pytest.skip("creating a device file needs CAP_MKNOD (root); /dev/zero itself has no contract suffix")
    finished = _alp_nb("contract", "lint", str(device), cwd=tmp_path)
    assert (finished.returncode, finished.stdout) == (2, "")
    assert finished.stderr == f"alp-nb: {device}: cannot read contract: it is not a regular file\n"


# --- what reaches the terminal: control characters escaped, one value on one line -------------------

ESCAPE = "\x1b[2J"
"""Clears the screen, in a terminal that obeys it."""


def test_lint_prints_control_characters_in_file_names_escaped(tmp_path, capsys):
    broken = tmp_path / f"bro{ESCAPE}\nken.json"
    broken.write_text(json.dumps({"name": "x"}))
    assert main(["contract", "lint", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out
    lines = out.splitlines()
    assert lines[0].startswith(f"{tmp_path}/bro\\x1b[2J\\x0aken.json:agents: error LC001 ")
    assert all(line.startswith((str(tmp_path), "    fix: ")) for line in lines[:-1])


def test_simulate_prints_control_characters_in_contract_text_escaped(tmp_path, capsys):
    document = json.loads(CLEAN.read_text())
    document["name"] = f"Sync{ESCAPE}"
    document["escalation"]["destination"] = "Owner\x9b31m"
    contract = tmp_path / "contract.json"
    contract.write_text(json.dumps(document))
    assert main(["contract", "simulate", str(contract), "--scenario", "missing-authority"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out
    assert out.startswith("missing-authority on Sync\\x1b[2J: escalate (owner: Owner\\x9b31m)\n")


def test_simulate_keeps_a_line_break_inside_contract_text_on_its_own_line(tmp_path, capsys):
    """A contract cannot forge a line of the trace (``budget left ...``) with a line break in its text."""
    document = json.loads(CLEAN.read_text())
    document["escalation"]["destination"] = "Owner\n  forged  exit-success"
    contract = tmp_path / "contract.json"
    contract.write_text(json.dumps(document))
    assert main(["contract", "simulate", str(contract), "--scenario", "missing-authority"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(": escalate (owner: Owner\\x0a  forged  exit-success)")
    assert not any(line.startswith("  forged") for line in lines)


@pytest.mark.parametrize("command", [["packet", str(CLEAN)], ["new", "nightly"]], ids=["packet", "new"])
def test_packet_and_new_print_control_characters_in_the_output_path_escaped(tmp_path, capsys, command):
    output = tmp_path / f"out{ESCAPE}.json"
    assert main(["contract", *command, "-o", str(output)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert out.startswith(f"wrote {tmp_path}/out\\x1b[2J.json")


def test_json_output_escapes_the_c1_controls_json_dumps_leaves_raw(tmp_path, capsys):
    assert main(["contract", "new", "Nightly\x9b2J"]) == 0
    out = capsys.readouterr().out
    assert "\x9b" not in out and '"name": "Nightly\\u009b2J"' in out
    assert json.loads(out)["name"] == "Nightly\x9b2J"
    broken = tmp_path / "bro\x9bken.json"
    broken.write_text(json.dumps({"name": "x"}))
    assert main(["contract", "lint", "--format", "json", str(broken)]) == 1
    out = capsys.readouterr().out
    assert "\x9b" not in out and json.loads(out)["files"][0]["file"] == str(broken)


def test_an_error_naming_a_file_prints_it_escaped_on_one_line(tmp_path, capsys):
    missing = tmp_path / f"mis{ESCAPE}\nsing.json"
    assert main(["contract", "lint", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert err == f"alp-nb: {tmp_path}/mis\\x1b[2J\\x0asing.json: cannot read contract (No such file or directory)\n"
