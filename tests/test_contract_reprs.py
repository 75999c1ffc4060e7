"""A contract renders as its parts by phase with lint findings beside the parts they concern; a
findings list renders as a table. Contract text is untrusted: the HTML never carries it as markup."""

from __future__ import annotations

import re

import pytest
from loop_contract_samples import CLEAN, edit

from alp_nb.loops import LoopContract
from alp_nb.loops.lint import lint_contract
from alp_nb.viz.rendering import render

HOSTILE = '<script>alert("x")</script>'


def hostile_contract() -> LoopContract:
    return LoopContract.from_document(edit(CLEAN, {
        "name": HOSTILE, "objective": HOSTILE, "workspace.allowed_actions": [HOSTILE],
        "workspace.disallowed_actions": [HOSTILE], "agents[0].role": HOSTILE, "escalation.destination": HOSTILE,
    }))


@pytest.mark.parametrize("subject", [hostile_contract, lambda: lint_contract(hostile_contract())],
                         ids=["contract", "findings"])
def test_untrusted_contract_text_is_escaped_in_html(subject):
    html = render(subject(), "html")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


def part_rows(html: str) -> dict[str, str]:
    """The HTML of each part's table row, keyed by part name."""
    return {match.group(1): row for row in html.split("<tr>") if (match := re.search(r"<td><b>(\w+)</b></td>", row))}


def test_the_contract_shows_every_part_under_its_phase_in_order():
    html = render(LoopContract.from_document(CLEAN), "html")
    positions = [html.index(marker) for marker in (
        "Set up", "<b>objective</b>", "<b>trigger</b>", "<b>intake</b>", "<b>workspace</b>",
        "Run", "<b>context</b>", "<b>agents</b>", "<b>verification</b>", "<b>state</b>",
        "Govern &amp; close", "<b>budget</b>", "<b>escalation</b>", "<b>exit</b>")]
    assert positions == sorted(positions)
    assert "lint clean" in html


def test_findings_sit_beside_the_part_they_concern():
    contract = LoopContract.from_document(edit(CLEAN, {
        "workspace.disallowed_actions": ["run the test suite"], "verification.receipts": ["test log"]}))
    rows = part_rows(render(contract, "html"))
    assert "LC010" in rows["workspace"] and "LC106" in rows["verification"]
    assert not any("LC010" in row or "LC106" in row for part, row in rows.items() if part not in ("workspace",
                                                                                                    "verification"))


def test_a_finding_about_the_name_shows_in_the_header():
    html = render(LoopContract.from_document(edit(CLEAN, {"name": "TBD"})), "html")
    assert html.index("LC003") < html.index("Set up")


def test_the_plain_text_form_lists_phases_parts_and_findings():
    text = render(LoopContract.from_document(edit(CLEAN, {"verification.receipts": ["test log"]})), "text")
    lines = text.splitlines()
    assert lines[0] == "Loop contract: Nightly vulnerable-dependency bump  (0 errors, 0 warnings, 1 info)"
    assert [line for line in lines if not line.startswith(" ")][1:] == ["Set up", "Run", "Govern & close"]
    receipts = next(index for index, line in enumerate(lines) if "verification" in line)
    assert any("[info LC106] verification.receipts" in line for line in lines[receipts:receipts + 8])


def test_findings_render_as_a_table_and_as_text():
    findings = lint_contract(edit(CLEAN, {"exit.success": "TBD", "exit.stop_without_success": "tbd."}))
    html = render(findings, "html")
    assert html.count("<tr>") == 1 + len(findings)
    assert "LC003" in html and "LC013" in html
    text = render(findings, "text")
    assert text.splitlines()[0] == "1 error, 2 warnings, 0 infos"
    assert "[error LC013] exit.stop_without_success" in text


def test_no_findings_render_as_such():
    findings = lint_contract(CLEAN)
    assert "no findings" in render(findings, "html")
    assert render(findings, "text") == "no findings"
