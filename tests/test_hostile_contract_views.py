"""Every view of what a contract's review produces, built from hostile strings (the contract, a review file, receipts
and the findings learned from them): a firing, the reviewers' grades, a contract diff, the learned findings and the
packet that carries them. Whatever they show is text: no tag or attribute the strings brought, no invisible
character left to make one text read as another, no Markdown structure."""

from __future__ import annotations

import re

from hostile_text import CHECK, HOSTILE, assert_safe_html, assert_safe_svg, hostile_contract, hostile_review
from hypothesis import given

from alp_nb.loops import (
    Firing,
    FiringItem,
    LearnedFinding,
    LearnedFindings,
    ScriptedAttempt,
    diff_contracts,
    grade,
    simulate,
    simulate_firing,
)
from alp_nb.loops.decision import Evidence
from alp_nb.viz.rendering import mimebundle, render
from alp_nb.viz.views.packet_documents import review_packet, review_packet_markdown

SVG = re.compile(r"<svg\b.*?</svg>", re.S)
INVISIBLE = "\u202e\u200b"


def assert_only_text(html: str) -> None:
    assert_safe_html(html)
    for svg in SVG.findall(html):
        assert_safe_svg(svg)
    assert not [char for char in INVISIBLE if char in html]


def clean(text: str) -> str:
    return text.encode("utf-8", "replace").decode()  # a contract is JSON or YAML text: no lone surrogates


@CHECK
@given(text=HOSTILE)
def test_a_firing_of_hostile_items_shows_only_text(text):
    text = clean(text)
    contract = hostile_contract(text)
    evidence = Evidence(summary=text, hypothesis=text, next_action=text)
    night = simulate_firing(contract, Firing(name=text, description=text, items=(
        FiringItem(item=text, attempts=(ScriptedAttempt(evidence=evidence, tokens=600),)),
        FiringItem(item=text + "2", attempts=(ScriptedAttempt(evidence=evidence, tokens=600),)))),
        allow_lint_errors=True)
    assert_only_text(render(night, "html"))
    assert not [char for char in "\x1b\u202e" if char in mimebundle(night)["text/plain"]]
    assert "<script" not in render(night, "markdown")


@CHECK
@given(text=HOSTILE)
def test_grades_a_diff_and_learned_findings_of_hostile_text_show_only_text(text):
    text = clean(text)
    contract = hostile_contract(text)
    runs = [simulate(contract, name, allow_lint_errors=True) for name in ("timeout", "duplicate-item")]
    grades = grade(contract, runs, hostile_review(contract, text))
    learned = LearnedFindings([LearnedFinding(rule="silent-destination", path="escalation.destination", message=text,
                                              suggestion=text, receipts=(text, text))])
    edited = contract.replace(objective=text + "!", escalation={"conditions": [text], "destination": text + "?"})
    for view in (grades, diff_contracts(contract, edited), learned):
        assert_only_text(render(view, "html"))
        markdown = render(view, "markdown")
        assert "<script" not in markdown
        assert not [line for line in re.split(r"\r\n|\r|\n", markdown) if re.match(r" {0,3}(?:#|>|```|~~~)", line)]
    packet = review_packet(contract, simulations=runs, expectations=hostile_review(contract, text), learned=learned)
    assert "<script" not in packet and "<img" not in packet and not [char for char in INVISIBLE if char in packet]
    assert all(target.startswith("#") for target in re.findall(r'href="([^"]*)"', packet))
    assert "<script" not in review_packet_markdown(contract, simulations=runs, learned=learned)
