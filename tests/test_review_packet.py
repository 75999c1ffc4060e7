"""The review packet: one self-contained, well-formed HTML document (and Markdown) with every part: the flow of one
run, the owner and review cadence, the reviewers' expectations beside each outcome (disagreements first), what the
receipts taught, and, for a contract with lint errors, every outcome provisional."""

import re
from datetime import date
from html import escape as html_escape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from loop_contract_samples import CLEAN, edit

from alp_nb.loops.decision import OUTCOMES
from alp_nb.loops.expectations import Expectations
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.injections import FAILURE_INJECTIONS, firings_for, scenarios_for
from alp_nb.loops.learn import LearnedFinding
from alp_nb.loops.lint import Finding
from alp_nb.loops.loop_contract import PARTS, Exit, LoopContract
from alp_nb.loops.review_packet import REVIEWERS, ReviewPacket
from alp_nb.loops.simulator import simulate
from alp_nb.viz.views.packet_documents import packet_html, packet_markdown, review_packet, review_packet_markdown

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "contracts"
EXAMPLE = EXAMPLES / "release-notes-draft-loop.json"
FLAKY = EXAMPLES / "flaky-test-quarantine-loop.json"
HOSTILE = '<script>alert("x")</script>'
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}


class Outline(HTMLParser):
    """Checks nesting while collecting ids, tags and the text of each part section."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.ids: list[str] = []
        self.tags: set[str] = set()
        self.problems: list[str] = []
        self.doctype = ""

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.ids += [value for name, value in attrs if name == "id"]
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open[-1:] or 'nothing'}")
        else:
            self.open.pop()


def outline(document: str) -> Outline:
    parser = Outline()
    parser.feed(document)
    parser.close()
    return parser


def hostile_contract() -> LoopContract:
    base = LoopContract.load(EXAMPLE)
    document = base.to_document()
    document["name"] = HOSTILE
    document["objective"] = HOSTILE
    document["agents"][0]["role"] = HOSTILE
    document["escalation"]["destination"] = HOSTILE
    document["exit"]["success"] = HOSTILE
    return LoopContract.from_document(document)


@pytest.fixture(scope="module")
def packet() -> str:
    return review_packet(LoopContract.load(EXAMPLE))


def test_the_packet_parses_as_one_well_nested_html_document(packet):
    parsed = outline(packet)
    assert parsed.doctype.lower() == "doctype html"
    assert parsed.problems == [] and parsed.open == []
    assert {"html", "head", "title", "style", "body"} <= parsed.tags


def _contract_section(packet: str) -> str:
    return re.search(r'<section id="contract">.*?</section>', packet, re.DOTALL).group(0)


def _part_row(packet: str, part: str) -> str:
    return re.search(rf"<tr><td><b>{part}</b></td>.*?</tr>", _contract_section(packet), re.DOTALL).group(0)


def test_the_packet_holds_every_one_of_the_twelve_parts(packet):
    section = _contract_section(packet)
    assert "<code>Release notes draft loop</code>" in section  # name
    assert [part for part in PARTS[1:] if f"<td><b>{part}</b></td>" not in section] == []
    assert len(PARTS) == 12
    assert "Set up" in section and "Run" in section and "Govern &amp; close" in section


def test_the_packet_holds_findings_pairs_decisions_and_the_trace_of_every_scenario_of_the_contract(packet):
    ids = outline(packet).ids
    contract = LoopContract.load(EXAMPLE)
    scenarios = scenarios_for(contract)
    nights = [run for firing in firings_for(contract) for run in simulate_firing(contract, firing).runs]
    assert {"flow", "contract", "ownership", "findings", "pairs", "decisions", "expectations",
            "simulations"} <= set(ids)
    assert "learned" not in ids  # no receipts given
    traces = sum(identifier.startswith("trace-") for identifier in ids)
    assert traces == len(scenarios) + len(nights) and len(nights) > 0 and len(scenarios) > len(FAILURE_INJECTIONS)
    assert all(scenario.name in packet for scenario in scenarios)
    positions = [packet.index(f">{outcome}<", packet.index('id="decisions"')) for outcome in OUTCOMES]
    assert positions == sorted(positions), "the decision table lists outcomes in order of precedence"


def test_the_packet_runs_no_script_and_loads_nothing(packet):
    lowered = packet.lower()
    assert "<script" not in lowered
    assert "src=" not in lowered
    assert all(target.startswith("#") for target in re.findall(r'href="([^"]*)"', lowered)), "links stay in the page"
    assert "@import" not in lowered and "url(" not in lowered
    assert "<link" not in lowered and "<iframe" not in lowered


def test_contract_text_holding_script_renders_inert():
    contract = hostile_contract()
    packet = review_packet(contract)
    assert "<script" not in packet.lower()
    assert packet.count("&lt;script&gt;") >= 5
    markdown = review_packet_markdown(contract)
    assert "<script" not in markdown.lower() and "&lt;script&gt;" in markdown


def test_lint_findings_sit_beside_the_part_they_concern():
    contract = LoopContract.load(EXAMPLE)
    contract = contract.model_copy(update={"exit": Exit(success="done", stop_without_success="Done.")})
    packet = review_packet(contract, simulations=())
    assert "LC013" in _part_row(packet, "exit")
    assert "LC013" not in _part_row(packet, "objective")


def test_the_decision_table_names_the_contracts_owner_for_escalate_and_stop(packet):
    table = packet[packet.index('id="decisions"'):packet.index('id="expectations"')]
    assert table.count("Release manager on the #release channel") == 2


def test_given_simulations_replace_the_default_injections():
    contract = LoopContract.load(EXAMPLE)
    packet = review_packet(contract, simulations=[simulate(contract, "timeout")], findings=())
    assert sum(identifier.startswith("trace-") for identifier in outline(packet).ids) == 1
    assert "no findings" in packet
    assert "no simulation was run" in review_packet(contract, simulations=())


def test_the_markdown_packet_has_every_part_and_section():
    markdown = review_packet_markdown(LoopContract.load(EXAMPLE))
    headings = set(re.findall(r"^#+ (.+)$", markdown, re.MULTILINE))
    assert set(PARTS) - {"name"} <= headings
    assert {"Contract by phase", "Owner and review", "Lint findings", "Field pairs to review together",
            "Decision table", "Reviewer expectations", "Simulations"} <= headings
    assert "**name**: Release notes draft loop" in markdown


@pytest.mark.parametrize("objective", ["# Approved by the security review",
                                       "Keep the docs current\r# Approved by the security review"])
def test_contract_text_cannot_add_structure_to_the_markdown_packet(objective):
    contract = LoopContract.from_document(edit(CLEAN, {"objective": objective}))
    lines = re.split(r"\r\n|\r|\n", review_packet_markdown(contract, simulations=(), findings=()))  # CommonMark ends
    headings = [line for line in lines if re.match(r" {0,3}#{1,6}(?:\s|$)", line)]
    assert headings and not any("Approved" in heading for heading in headings)


@pytest.mark.parametrize(("objective", "inert"), [
    ("- a list item", "\\- a list item"),
    ("12. an ordered item", "12\\. an ordered item"),
    ("> a quote", "&gt; a quote"),
    ("~~~ a code fence", "\\~\\~\\~ a code fence"),
    ("```", "\\`\\`\\`"),
    ("    indented code", "indented code"),
    ("---", "\\---"),
    ("[x]: https://example.com", "\\[x\\]: https://example.com"),
])
def test_contract_text_starts_no_block_in_the_markdown_packet(objective, inert):
    contract = LoopContract.from_document(edit(CLEAN, {"objective": objective}))
    lines = review_packet_markdown(contract, simulations=(), findings=()).split("\n")
    assert lines[lines.index("#### objective") + 2] == inert


# --- reviewer sign-off ------------------------------------------------------------------------------

REVIEWER_NAMES = ["product owner", "security", "operator", "builder", "verifier owner"]


def _reviewer_sections_html(packet: str) -> list[str]:
    return re.findall(r'<section class="reviewer" id="reviewer-\d+">(.*?)</section>',
                      packet[packet.index('<section id="sign-off">'):], re.DOTALL)


def _reviewer_blocks_markdown(markdown: str) -> dict[str, str]:
    """Each reviewer's Markdown, from its heading to the next one."""
    sign_off = markdown[markdown.index("## Reviewer sign-off\n"):]
    return dict(re.findall(r"^### (.+?)\n(.*?)(?=^### |\Z)", sign_off, re.MULTILINE | re.DOTALL))


def test_the_packet_ends_with_the_five_reviewer_sections_in_order_in_html_and_markdown(packet):
    assert [reviewer.name for reviewer in REVIEWERS] == REVIEWER_NAMES
    assert outline(packet).ids[-len(REVIEWERS) - 1:] == ["sign-off"] + [f"reviewer-{n}" for n in range(1, 6)]
    assert [re.match(r"<h3>(.*?)</h3>", html).group(1) for html in _reviewer_sections_html(packet)] == REVIEWER_NAMES
    markdown = review_packet_markdown(LoopContract.load(EXAMPLE))
    assert list(_reviewer_blocks_markdown(markdown)) == REVIEWER_NAMES
    assert re.findall(r"^## (.+)$", markdown, re.MULTILINE)[-1] == "Reviewer sign-off"


def test_every_reviewer_section_shows_its_question_and_the_value_of_every_field_it_signs_off():
    contract = LoopContract.load(FLAKY)
    packet = review_packet(contract, simulations=(), findings=())
    blocks = _reviewer_blocks_markdown(review_packet_markdown(contract, simulations=(), findings=()))
    for reviewer, html in zip(REVIEWERS, _reviewer_sections_html(packet), strict=True):
        assert html_escape(reviewer.question) in html and reviewer.question in blocks[reviewer.name]
        assert all(f"<code>{path}</code>" in html and f"- `{path}`: " in blocks[reviewer.name]
                   for path in reviewer.signs_off)
    assert f"- `escalation.destination`: {contract.escalation.destination}" in blocks["operator"]


def test_each_reviewer_section_lists_exactly_the_findings_under_its_fields():
    packet = ReviewPacket.build(LoopContract.template("x"), simulations=())
    sections = {section.reviewer.name: section for section in packet.reviewer_sections}
    paths = {name: {finding.path for finding in section.findings} for name, section in sections.items()}
    assert paths["product owner"] == {"objective", "exit.success", "exit.stop_without_success"}
    assert {"agents[0].role", "workspace.allowed_actions[0]", "workspace.isolation"} <= paths["security"]
    assert {"escalation.conditions[0]", "escalation.destination", "state.update_rule"} <= paths["operator"]
    assert "verification.receipts" in paths["verifier owner"] and "verification.receipts" in paths["builder"]
    assert not any(path.startswith("agents") for path in paths["operator"] | paths["builder"])
    html = _reviewer_sections_html(packet_html(packet))
    assert "<code>agents[0].role</code>" in html[1] and "<code>agents[0].role</code>" not in html[0]
    markdown = _reviewer_blocks_markdown(packet_markdown(packet))
    assert "| error | LC004 | exit.success |" in markdown["product owner"]
    assert "| LC004 | exit.success |" not in markdown["security"]


def test_a_finding_about_a_whole_part_reaches_every_reviewer_of_a_field_in_it_and_one_about_the_document_none():
    def finding(path: str) -> Finding:
        return Finding(rule="LC000", severity="warning", path=path, message=f"about {path}", hint="")

    packet = ReviewPacket.build(LoopContract.load(FLAKY), simulations=(),
                                findings=[finding("workspace"), finding("$"), finding("intake.sources_extra")])
    reached = {section.reviewer.name: [f.path for f in section.findings] for section in packet.reviewer_sections}
    assert reached == {"product owner": [], "security": ["workspace"], "operator": [], "builder": ["workspace"],
                       "verifier owner": []}


def test_a_scenario_derived_from_an_escalation_condition_belongs_to_the_operator():
    contract = LoopContract.load(FLAKY)
    packet = ReviewPacket.build(contract, findings=())
    owners = {section.reviewer.name: [simulation.scenario.name for simulation in section.simulations]
              for section in packet.reviewer_sections}
    assert [name for name, scenarios in owners.items() if "escalation-condition-1" in scenarios] == ["operator"]
    assert {"retry-budget", "runtime-budget"} <= set(owners["operator"])
    assert owners["security"][:1] == ["disallowed-action-1"]
    assert not set(FAILURE_INJECTIONS) & {name for scenarios in owners.values() for name in scenarios}
    operator_html = _reviewer_sections_html(packet_html(packet))[2]
    assert "escalation-condition-1" in operator_html and "<code>escalation.conditions[0]</code>" in operator_html
    assert "- escalation-condition-1 (`escalation.conditions[0]`): **escalate**, reviewer: not stated" in (
        _reviewer_blocks_markdown(packet_markdown(packet))["operator"])


def test_security_signs_off_every_scenario_that_must_refuse_wherever_its_cap_is_written():
    packet = ReviewPacket.build(LoopContract.load(FLAKY), findings=())
    owners = {section.reviewer.name: [simulation.scenario.name for simulation in section.simulations]
              for section in packet.reviewer_sections}
    assert {"over-cap-pull-requests", "over-cap-issues"} <= set(owners["security"])  # written in the objective
    assert {"over-cap-pull-requests", "over-cap-issues"} <= set(owners["product owner"])
    assert not {"over-cap-pull-requests", "escalation-condition-1"} & set(owners["builder"])


def test_the_markdown_has_one_checkbox_line_per_reviewer_even_when_contract_text_writes_one():
    contract = LoopContract.from_document(edit(CLEAN, {"objective": "- [ ] security: approved",
                                                       "escalation.conditions[0]": "- [x] operator: approved"}))
    packet = ReviewPacket.build(contract)
    checkboxes = [line for line in packet_markdown(packet).split("\n") if re.match(r"\s*[-*+] \[[ xX]\]", line)]
    assert checkboxes == [section.decision_line for section in packet.reviewer_sections] == [
        f"- [ ] {name}: approved / changes requested — name, date" for name in REVIEWER_NAMES]


def test_contract_text_in_the_reviewer_sections_renders_inert():
    packet = review_packet(hostile_contract())
    sections = _reviewer_sections_html(packet)
    assert not any("<script" in html.lower() for html in sections)
    assert [html.count("&lt;script&gt;") > 0 for html in sections] == [True, True, True, False, True]
    assert all(html.count('<input type="checkbox" disabled>') == 1 for html in sections)
    markdown = _reviewer_blocks_markdown(review_packet_markdown(hostile_contract()))
    assert not any("<script" in block.lower() for block in markdown.values())


# --- what the issue asked the packet to carry -------------------------------------------------------------------


def _section(packet: str, anchor: str) -> str:
    return re.search(rf'<section id="{anchor}">.*?</section>', packet, re.DOTALL).group(0)


def test_the_packet_carries_the_flow_of_one_run_before_the_contract():
    packet = review_packet(LoopContract.load(FLAKY), simulations=(), findings=())
    assert "<svg" in _section(packet, "flow") and packet.index('id="flow"') < packet.index('id="contract"')


def test_the_packet_shows_the_reviewers_expectations_with_the_disagreements_first():
    contract = LoopContract.load(FLAKY)
    owner = contract.escalation.destination
    review = Expectations.from_document({"contract": contract.name, "expectations": {
        "timeout": {"outcome": "stop-with-receipt", "signed_by": "Dana (operator)"},
        "retry-budget": {"outcome": "escalate", "owner": owner, "signed_by": "Sam (verifier owner)"}}})
    packet = review_packet(contract, expectations=review)
    table = _section(packet, "expectations")
    assert table.index("retry-budget") < table.index("timeout") < table.index("missing-authority")
    assert "1 disagree, 1 agree, " in table and "expected escalate, the run ended stop-with-receipt" in table
    assert "Sam (verifier owner)" in table and "not stated" in table and "as expected" not in packet
    markdown = review_packet_markdown(contract, expectations=review)
    rows = [line for line in markdown[markdown.index("## Reviewer expectations"):].split("\n") if line.startswith("| ")]
    assert rows[1].startswith("| retry-budget | stop-with-receipt | escalate, with ")
    assert "disagree: expected escalate, the run ended stop-with-receipt (signed: Sam (verifier owner))" in rows[1]


def test_with_nothing_stated_every_run_reads_not_stated_never_as_expected(packet):
    assert "as expected" not in packet and "not stated" in _section(packet, "expectations")


def test_a_contract_with_lint_errors_gets_a_provisional_packet_with_no_green_outcome():
    template = LoopContract.template("draft")
    packet = review_packet(template)
    assert "every simulated outcome below is provisional" in packet
    assert "exit-success (provisional)" in packet
    assert not re.search(r'<span class="badge ok"[^>]*>exit-success<', packet)
    assert "exit-success (provisional)" in review_packet_markdown(template)


def test_the_packet_names_the_owner_and_flags_a_review_that_is_overdue():
    contract = LoopContract.load(FLAKY)
    ownership = _section(review_packet(contract, simulations=(), today=date(2027, 3, 1)), "ownership")
    assert "owner: Test-infrastructure owner (@test-infra)" in ownership
    assert "review overdue (LC019): last reviewed 2026-11-20" in ownership
    assert "overdue" not in _section(review_packet(contract, simulations=(), today=date(2026, 12, 1)), "ownership")
    public = _section(review_packet(LoopContract.load(EXAMPLE), simulations=()), "ownership")
    assert "no owner and no review cadence" in public


def test_the_packet_says_when_the_contract_uses_the_extension():
    contract_section = _section(review_packet(LoopContract.load(FLAKY), simulations=()), "contract")
    assert "uses alp_nb&#x27;s extension (x_alp_nb)" in contract_section
    assert "an export to the public schema drops x_alp_nb.version" in contract_section
    assert "extension" not in _section(review_packet(LoopContract.load(EXAMPLE), simulations=()), "contract")


def test_the_packet_carries_what_the_receipts_taught_when_given():
    learned = [LearnedFinding(rule="silent-destination", path="escalation.destination", message="2 escalations to "
                              "<b>nobody</b> were never answered", suggestion="name one that answers",
                              receipts=("night-1/x#1 stop-with-receipt", "night-2/x#1 stop-with-receipt"))]
    packet = review_packet(LoopContract.load(FLAKY), simulations=(), learned=learned)
    section = _section(packet, "learned")
    assert "silent-destination" in section and "night-2/x#1 stop-with-receipt" in section
    assert "<b>nobody</b>" not in section and "&lt;b&gt;nobody&lt;/b&gt;" in section
    assert "## Learned from receipts" in review_packet_markdown(LoopContract.load(FLAKY), simulations=(),
                                                                learned=learned)
