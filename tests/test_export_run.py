"""``export_run`` and ``alp-nb runs export``: a run as one self-contained, offline HTML page (header with status,
failure reason and budget, the timeline, a table of every call the page's script filters, the resume plan, and a
fork's comparison with its source). Everything from the run stays escaped text; the page refers to nothing
outside itself; it is written whole, never over a file without ``force`` and never into the run store.

Filtering in a real browser is held by ``tests/test_browser.py``; here, that every row carries the outcome
and phase the script reads, and that the script holds no data."""

from __future__ import annotations

import asyncio
import re
from html.parser import HTMLParser

import pytest
from hostile_text import FRAGMENTS, assert_safe_html
from runtime_support import FailingRunner, hostile_failure, launch, registry, review
from s16_support import CRASH, CRASHED_CALLS, write_s16_run

from alp_nb.cli import main
from alp_nb.replay import fork_run, load_run
from alp_nb.runtime import WorkflowRegistry, run_workflow
from alp_nb.viz import VizError, export_run
from alp_nb.viz.views import run_page as page_module
from alp_nb.viz.views.run_page import POLICY, SCRIPT, SCRIPT_HASH, run_page

HOSTILE = "".join(fragment for fragment in FRAGMENTS if fragment != "\ud800")  # a run refuses lone surrogates
ROW = re.compile(r'<tr data-outcome="([^"]*)" data-phase="([^"]*)">')


def failed_review(store):
    return review(store, runner=FailingRunner({"audit:security"}))


def without_own_script(page: str) -> str:
    assert page.count("<script") == 1 and page.count(f"<script>{SCRIPT}</script>") == 1
    return page.replace(f"<script>{SCRIPT}</script>", "")


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(tag, name, value) for name, value in attrs]


def test_a_failed_run_s_page_has_its_status_reason_timeline_every_call_and_the_resume_plan(store, tmp_path):
    run = failed_review(store)
    record = load_run(run.run_id, store=store)
    path = export_run(record, tmp_path / "run.html")
    page = path.read_text()
    assert path == tmp_path / "run.html" and page.startswith("<!DOCTYPE html>")
    assert "Why it failed" in page and "RuntimeError: runner broke on audit:security" in page
    assert page.count("<svg") == 1 and 'id="timeline"' in page
    rows = ROW.findall(page)
    assert [outcome for outcome, _ in rows] == [record.calls.call(index).outcome for index in range(len(record.calls))]
    assert ("failed", "Review") in rows and 'id="plan"' in page and "failed before" in page
    assert 'id="fork"' not in page


def test_the_budget_and_what_each_phase_spent_of_it_are_in_the_header(store, tmp_path):
    run = asyncio.run(run_workflow("review-changes", {"changes": "x", "budget": 1000}, store=store))
    record = load_run(run.run_id, store=store)
    page = run_page(record)
    spent = record.usage.cumulative.counted
    assert f"{spent / 1000:.0%} used" in page and f"1,000 tokens · {spent:,} spent, {1000 - spent:,} left" in page
    for phase, tokens in record.spent_by_phase().items():
        assert re.search(rf"<code>{phase}</code></td>(<td class='n'>[\d,]+</td>){{5}}<td class='n'>{tokens:,}</td>",
                         page)


def test_every_string_from_the_run_stays_escaped_text(store, tmp_path):
    run, workflows = hostile_failure(store, HOSTILE)
    page = run_page(load_run(run.run_id, store=store), registry=workflows)
    rest = without_own_script(page)
    assert_safe_html(rest)
    assert "\u202e" not in page and "\x1b" not in page and "\u200b" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "runner broke: " in page
    assert "</svg>" not in rest.replace("</svg></div>", "")  # only the timeline's own end of picture


def test_the_page_refers_to_nothing_outside_itself_and_lets_the_browser_fetch_nothing(store, tmp_path):
    run, workflows = hostile_failure(store, HOSTILE)
    page = run_page(load_run(run.run_id, store=store), registry=workflows)
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # a namespace, never fetched
    assert "https://" not in page and "url(" not in page and "@import" not in page
    parser = _Attributes()
    parser.feed(page)
    assert not [found for found in parser.found if found[1] in ("src", "href", "action", "xlink:href", "srcset",
                                                                 "poster", "data", "formaction")]
    assert not [found for found in parser.found if found[2] and "//" in found[2] and found[1] != "xmlns"]
    assert f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">' in page
    assert POLICY.startswith("default-src 'none';") and f"'sha256-{SCRIPT_HASH}'" in POLICY


def test_the_script_holds_no_data_and_each_row_carries_what_it_filters_on(store):
    run, workflows = hostile_failure(store, HOSTILE)
    record = load_run(run.run_id, store=store)
    page = run_page(record, registry=workflows)
    assert HOSTILE[:10] not in SCRIPT and "label" not in SCRIPT.replace("aria-label", "")
    rows = ROW.findall(page)
    assert len(rows) == len(record.calls) == 2
    assert {outcome for outcome, _ in rows} == {"live", "failed"}
    phase = rows[0][1]
    assert f'<option value="{phase}">' in page and "<" not in phase and '"' not in phase
    assert '<option value="failed">failed (1)</option>' in page


def test_a_fork_s_page_compares_it_with_the_run_it_came_from(store, tmp_path):
    source = review(store)
    fork = fork_run(source, {"audit:security": {"findings": []}})
    page = run_page(fork)
    assert 'id="fork"' in page and f"forked from <code>{source.run_id}</code>" in page
    assert "Compared" in page and page.count("<svg") == 3  # its own timeline, and both runs' in the comparison
    assert "changed value" in page


def test_a_page_says_why_it_has_no_resume_plan(store):
    run = launch("sequence", store, runner=FailingRunner({"step-1"}))
    page = run_page(load_run(run.run_id, store=store))  # `sequence` is not in the default registry
    assert "No plan could be made: unknown workflow `sequence`" in page
    assert "Resume plan" in run_page(load_run(run.run_id, store=store), registry=registry())


def test_a_completed_run_s_page_says_it_needs_no_resume_instead_of_planning_one(store, monkeypatch):
    """Planning is a dry run of every call; a completed run has nothing to resume, so its page makes none."""
    run = launch("sequence", store, args={"calls": 3})
    monkeypatch.setattr(page_module, "plan_resume", lambda *args, **kwargs: pytest.fail("planned"))
    page = run_page(load_run(run.run_id, store=store), registry=registry())
    assert "The run completed, so it needs no resume" in page and f"workflow plan {run.run_id}" in page


def test_a_long_run_keeps_every_notable_call_and_says_the_table_was_cut(store, monkeypatch):
    monkeypatch.setattr(page_module, "PAGE_CALLS", 4)
    run = launch("sequence", store, args={"calls": 8}, runner=FailingRunner({"step-6"}))
    record = load_run(run.run_id, store=store)
    page = run_page(record)
    rows = ROW.findall(page)
    assert len(rows) == 4 and ("failed", "(no phase)") in rows
    assert f"This page holds 4 of the run's {len(record.calls)} calls" in page
    assert f"alp-nb runs show {run.run_id} --status live --page N" in page


def test_a_long_text_is_cut_and_the_page_says_so(store):
    async def script(ctx, args):
        return await ctx.agent("p" * 5000, label="long")

    workflows = WorkflowRegistry()
    workflows.register({"name": "wf", "description": "test"}, script)
    run = asyncio.run(run_workflow("wf", store=store, registry=workflows))
    page = run_page(load_run(run.run_id, store=store), registry=workflows)
    assert "p" * 399 + "…" in page and "p" * 401 not in page and "texts are cut at 400 characters" in page


def test_an_s16_run_s_page_shows_its_call_tokens_missing_and_says_why(tmp_path):
    store, run_id = write_s16_run(tmp_path / ".runtime", "review-changes", status="failed", calls=CRASHED_CALLS,
                                  output={"error": CRASH})
    page = run_page(load_run(run_id, store=store))
    assert "the snapshot records only the run&#x27;s total" in page
    assert page.count("<td class='n'>—</td>") >= len(CRASHED_CALLS) and CRASH in page


def test_an_existing_file_is_replaced_only_with_force_and_never_one_in_the_run_store(store, tmp_path):
    record = load_run(failed_review(store).run_id, store=store)
    path = tmp_path / "run.html"
    path.write_text("mine")
    with pytest.raises(VizError, match=r"run\.html already exists; choose another file") as refused:
        export_run(record, path)
    assert refused.value.code == "EXPORT_EXISTS" and path.read_text() == "mine"
    export_run(record, path, force=True)
    assert path.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(VizError) as refused:
        export_run(record, store.root / "page.html", force=True)
    assert refused.value.code == "EXPORT_INTO_STORE" and not (store.root / "page.html").exists()
    with pytest.raises(VizError, match="no such directory") as refused:
        export_run(record, tmp_path / "nowhere" / "run.html")
    assert refused.value.code == "EXPORT_UNWRITABLE"
    assert [found.name for found in tmp_path.iterdir() if found.name.startswith(".run.html")] == []


def test_runs_export_writes_the_store_s_last_run_and_refuses_an_existing_file_in_one_line(store, tmp_path, capsys):
    run = failed_review(store)
    out_path = tmp_path / "run.html"
    assert main(["runs", "export", "-o", str(out_path), "--store", str(store.root)]) == 0
    assert capsys.readouterr().out == f"wrote {out_path}: {run.run_id} (failed), 2 calls\n"
    assert run.run_id in out_path.read_text()
    assert main(["runs", "export", run.run_id, "-o", str(out_path), "--store", str(store.root)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "--force" in captured.err
    assert main(["runs", "export", "-o", str(out_path), "--store", str(store.root), "--force"]) == 0
