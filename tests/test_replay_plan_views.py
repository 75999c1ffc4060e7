"""Views of a resume plan: the warning first when the script differs, the refusal, totals, then the calls, live
ones with their reason; every string from the run escaped; a huge plan shows one page, not every row."""

from __future__ import annotations

import asyncio
import re
from dataclasses import replace

import pandas as pd
import pytest
from runtime_support import FailingRunner, asks_new_questions, asks_old_questions, launch, one_workflow, registry

from alp_nb.replay import ReplayError, plan_resume
from alp_nb.replay.plan import PLAN_PAGE_SIZE
from alp_nb.runtime import run_workflow
from alp_nb.viz import render
from alp_nb.viz.views.plans import resume_plan_html, resume_plan_text

HOSTILE = "<script>alert(1)</script>\u202e\x1b[2J"


@pytest.fixture
def failed_review(store):
    run = asyncio.run(run_workflow("review-changes", {"changes": "rename parse() to load()"}, store=store,
                                   runner=FailingRunner({"audit:performance"})))
    return plan_resume(run.run_id, store=store)


def test_a_plan_is_drawn_by_its_view_with_live_calls_and_their_reasons(failed_review):
    text, html = render(failed_review, "text"), render(failed_review, "html")
    assert text == resume_plan_text(failed_review) and html == resume_plan_html(failed_review)
    assert text.splitlines()[0].startswith(f"PLAN       resume of {failed_review.run_id} · review-changes · run failed")
    assert "CALLS      10 calls: 2 cached (49 tokens saved), 8 live" in text
    line = next(line for line in text.splitlines() if "audit:performance" in line)
    assert re.match(r"3 +live +audit:performance +failed before +RuntimeError: runner broke on audit:performance$",
                    line)
    assert sum("downstream of a live call" in line for line in text.splitlines()) == 3
    assert "failed before" in html and "downstream of a live call" in html and "audit:performance" in html
    assert "WARNING" not in text and "script differs" not in html


def test_the_warning_comes_first_and_the_refusal_is_said_when_there_is_one(store):
    run = launch("wf", store, one_workflow(asks_old_questions))
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(asks_new_questions))
    text, html = resume_plan_text(plan), resume_plan_html(plan)
    assert text.splitlines()[0] == f"WARNING    {plan.warning}"
    assert html.index("script differs") < html.index("Resume plan") and plan.warning in html
    assert "UNUSED     q0 (seq 2)" in text and "q3 (seq 8)" in html

    over = launch("sequence", store, args={"calls": 3, "budget": 10})
    refused = plan_resume(over.run_id, store=store, registry=registry())
    text, html = resume_plan_text(refused), resume_plan_html(refused)
    assert f"REFUSED    {refused.refusal}" in text and "`--budget N`" in text
    assert "refused" in html and "--budget N" in html


def test_hostile_labels_prompts_and_errors_are_escaped_in_html_and_text(store):
    async def original(ctx, args):
        return await ctx.parallel([lambda: ctx.agent(f"say {HOSTILE}", label=HOSTILE),
                                   lambda: ctx.agent("boom", label=f"boom {HOSTILE}")])

    async def edited(ctx, args):
        return await ctx.parallel([lambda: ctx.agent(f"say it again {HOSTILE}", label=HOSTILE),
                                   lambda: ctx.agent("boom", label=f"boom {HOSTILE}")])

    class Breaks:
        def run(self, prompt, schema, label):
            raise RuntimeError(f"broke on {HOSTILE}")

    run = launch("wf", store, one_workflow(original), runner=Breaks())
    plan = plan_resume(run.run_id, store=store, registry=one_workflow(edited))
    assert "failed before" in set(plan.calls["reason"]) and HOSTILE in "".join(plan.calls["detail"])
    html, text = resume_plan_html(plan), resume_plan_text(plan)
    for shown in (html, text):  # shown, never obeyed
        assert "\u202e" not in shown and "\x1b" not in shown
        assert "\\u202e" in shown and "\\x1b" in shown
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_a_huge_plan_shows_a_page_of_its_calls_not_every_row(failed_review):
    calls = failed_review.calls
    huge = pd.concat([calls] * 10_000, ignore_index=True)
    huge["order"] = range(1, len(huge) + 1)
    plan = replace(failed_review, calls=huge)
    html, text = resume_plan_html(plan), resume_plan_text(plan)
    assert html.count("<tr>") == PLAN_PAGE_SIZE + 1  # the header and one page
    assert f"calls: 1–{PLAN_PAGE_SIZE} of 100,000 · page 1 of 5,000 · 99,980 more: .page(2) shows the next" in html
    assert f"calls: 1–{PLAN_PAGE_SIZE} of 100,000" in text and len(text.splitlines()) < PLAN_PAGE_SIZE + 15
    last = plan.page(plan.pages)
    assert "calls: 99,981–100,000 of 100,000 · page 5,000 of 5,000" in resume_plan_text(last)
    assert len(resume_plan_text(plan, every_call=True).splitlines()) > 100_000
    with pytest.raises(ReplayError) as outside:
        plan.page(5_001)
    assert outside.value.code == "INVALID_OPTION"
