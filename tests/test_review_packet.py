"""The review packet: one self-contained, well-formed HTML document (and Markdown) with every part."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from loop_contract_samples import CLEAN, edit

from alp_nb.loops.decision import OUTCOMES
from alp_nb.loops.loop_contract import PARTS, Exit, LoopContract
from alp_nb.loops.simulator import FAILURE_INJECTIONS, simulate
from alp_nb.viz.packet_documents import review_packet, review_packet_markdown

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "contracts" / "release-notes-draft-loop.json"
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


def test_the_packet_holds_findings_pairs_decisions_and_every_injection_trace(packet):
    ids = outline(packet).ids
    assert {"contract", "findings", "pairs", "decisions", "simulations"} <= set(ids)
    assert sum(identifier.startswith("trace-") for identifier in ids) == len(FAILURE_INJECTIONS)
    assert all(name in packet for name in FAILURE_INJECTIONS)
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
    table = packet[packet.index('id="decisions"'):packet.index('id="simulations"')]
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
    assert {"Contract by phase", "Lint findings", "Field pairs to review together", "Decision table",
            "Failure injections"} <= headings
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
