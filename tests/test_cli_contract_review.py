"""``alp-nb contract learn``, ``diff``, ``export`` and the packet's ``--expect`` and ``--receipts``: the commands a
contract's revision goes through, with their exit codes (diff exits 1 when the versions differ, as ``runs diff``)."""

from __future__ import annotations

import json
from pathlib import Path

from alp_nb.cli import main
from alp_nb.loops.loop_contract import LoopContract

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "contracts"
FLAKY = EXAMPLES / "flaky-test-quarantine-loop.json"
PUBLIC = EXAMPLES / "translation-sync-loop.json"


def edited_copy(tmp_path: Path) -> Path:
    document = json.loads(FLAKY.read_text())
    document["objective"] = document["objective"].replace("at most 3 quarantine", "at most 4 quarantine")
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(document))
    return path


def test_diff_names_the_fields_the_reviewers_and_the_scenarios_and_exits_1(tmp_path, capsys):
    assert main(["contract", "diff", str(FLAKY), str(edited_copy(tmp_path)), "--today", "2026-12-01"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("Flaky test quarantine loop → Flaky test quarantine loop: 1 field(s) changed\n  objective\n")
    assert "  cap changed: pull requests: at most 3 → at most 4 (objective)" in out
    assert "must sign again:\n  product owner: objective\n  security: objective\n" in out
    assert "  night-cap-pull-requests/item-4: stop-with-receipt with " in out


def test_diff_of_a_contract_with_itself_exits_0_and_json_is_the_model(tmp_path, capsys):
    assert main(["contract", "diff", str(FLAKY), str(FLAKY)]) == 0
    assert capsys.readouterr().out == "Flaky test quarantine loop: no field changed\n"
    assert main(["contract", "diff", str(FLAKY), str(edited_copy(tmp_path)), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [change["path"] for change in report["changes"]] == ["objective"]
    assert [entry["reviewer"] for entry in report["resign"]] == ["product owner", "security"]


def test_export_drops_the_extension_naming_every_field_and_writes_a_public_contract(tmp_path, capsys):
    output = tmp_path / "public.json"
    assert main(["contract", "export", str(FLAKY), "-o", str(output)]) == 0
    out = capsys.readouterr().out
    assert "dropped x_alp_nb.budget.max_tokens: 200000" in out and "dropped x_alp_nb.owner: " in out
    exported = json.loads(output.read_text())
    assert "x_alp_nb" not in exported and LoopContract.load(output) == LoopContract.load(FLAKY).to_public()[0]
    assert main(["contract", "export", str(FLAKY), "-o", str(output)]) == 2  # never over a file without --force
    assert "already exists" in capsys.readouterr().err


def test_export_of_a_public_contract_loses_nothing(tmp_path, capsys):
    output = tmp_path / "same.yaml"
    assert main(["contract", "export", str(PUBLIC), "-o", str(output)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "nothing dropped"
    assert LoopContract.load(output) == LoopContract.load(PUBLIC)


def test_learn_names_each_finding_with_its_receipts_and_a_bad_log_is_bad_input(tmp_path, capsys):
    receipts = tmp_path / "all.jsonl"
    assert main(["contract", "simulate", str(FLAKY), "--receipts", str(receipts)]) == 0
    capsys.readouterr()
    assert main(["contract", "learn", str(FLAKY), str(receipts)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("finding(s)") and "    receipts: " in out and "[repeated-stop]" in out
    broken = tmp_path / "broken.jsonl"
    broken.write_text(receipts.read_text().splitlines()[0] + "\n{oops\n")
    assert main(["contract", "learn", str(FLAKY), str(broken)]) == 2
    assert f"{broken}:2:" in capsys.readouterr().err


def test_the_packet_takes_a_review_file_and_receipts(tmp_path, capsys):
    review = tmp_path / "review.yaml"
    review.write_text("contract: Flaky test quarantine loop\nexpectations:\n"
                      "  retry-budget: {outcome: escalate, signed_by: Priya (operator)}\n")
    receipts = tmp_path / "all.jsonl"
    assert main(["contract", "simulate", str(FLAKY), "--receipts", str(receipts), "--expect", str(review)]) == 1
    output = tmp_path / "packet.md"
    assert main(["contract", "packet", str(FLAKY), "-o", str(output), "--expect", str(review), "--receipts",
                 str(receipts)]) == 0
    packet = output.read_text()
    assert "## Reviewer expectations" in packet and "## Learned from receipts" in packet
    rows = packet[packet.index("## Reviewer expectations"):].split("\n")
    assert next(line for line in rows if line.startswith("| ") and "retry-budget" in line).startswith(
        "| retry-budget | stop-with-receipt | escalate |")
