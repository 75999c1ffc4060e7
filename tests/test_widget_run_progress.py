"""RunProgress follows a live run through its events; ``progress=True`` shows one where a display is plugged in."""

import pytest

import alp_nb
from alp_nb.runtime.progress import show_progress_with
from alp_nb.widgets import RunProgress
from alp_nb.widgets.notebook import shown_progress


@pytest.fixture
def plugged():
    made = []

    def display():
        made.append(RunProgress())
        return made[-1]

    show_progress_with(display)
    yield made
    show_progress_with(None)


def agent(status, phase="Review"):
    return {"type": "workflow_agent", "status": status, "key": "agent-x", "label": "x", "phase": phase}


def test_the_bar_counts_finished_calls_of_those_started_and_names_the_phase():
    progress = RunProgress()
    for event in [{"type": "workflow_phase", "title": "Review"}, agent("started"), agent("started"),
                  agent("cached"), agent("done"), agent("failed")]:
        progress(event)
    assert (progress.bar.value, progress.bar.max) == (3, 3)
    assert progress.phase.value == "phase <b>Review</b> · 3 of 3 calls finished (1 cached, 1 failed)"


def test_the_counts_never_go_back_when_a_phase_opens_with_calls_side_by_side():
    progress, seen = RunProgress(), []
    events = [{"type": "workflow_phase", "title": "Review"}, *[agent("started")] * 3, *[agent("done")] * 3,
              {"type": "workflow_phase", "title": "Verify"}, *[agent("started", "Verify")] * 4,
              agent("done", "Verify")]
    for event in events:
        progress(event)
        seen.append((progress.bar.value, progress.bar.max))
    values, maxima = zip(*seen, strict=True)
    assert list(values) == sorted(values) and list(maxima) == sorted(maxima)
    assert all(value <= most for value, most in seen)
    assert seen[-1] == (4, 7)
    assert progress.phase.value == "phase <b>Verify</b> · 4 of 7 calls finished"


def test_the_end_of_the_run_colours_the_bar_and_names_the_run():
    progress = RunProgress()
    progress({"type": "task_notification", "runId": "wf_x_0123456789abcdef", "status": "failed",
              "error": "<b>boom</b>"})
    assert progress.bar.bar_style == "danger"
    assert progress.status.value == "run <code>wf_x_0123456789abcdef</code> failed: &lt;b&gt;boom&lt;/b&gt;"


def test_progress_true_follows_the_run_in_the_plugged_display(tmp_path, plugged):
    run = alp_nb.run_workflow_sync("review-changes", {"changes": "fix"}, store=tmp_path, progress=True)
    (progress,) = plugged
    assert run.status == "completed" and progress.bar.value == progress.bar.max > 0
    assert progress.bar.bar_style == "success" and run.run_id in progress.status.value


def test_progress_true_with_nowhere_to_show_it_is_refused_with_a_hint(tmp_path):
    show_progress_with(None)
    with pytest.raises(alp_nb.WorkflowInputError) as refused:
        alp_nb.run_workflow_sync("review-changes", {"changes": "fix"}, store=tmp_path / "runs", progress=True)
    assert refused.value.code == "INVALID_OPTION" and "on_event" in refused.value.message
    assert not (tmp_path / "runs").exists()


class Handle:
    def __init__(self):
        self.updates = []

    def update(self, obj):
        self.updates.append(repr(obj))


def test_the_notebook_display_shows_a_fresh_widget_with_a_handle(monkeypatch):
    shown, handle = [], Handle()
    monkeypatch.setattr("IPython.display.display", lambda obj, display_id=None: shown.append(obj) or handle)
    progress = shown_progress()
    assert shown == [progress] and isinstance(progress, RunProgress) and progress.display_handle is handle


def test_the_plain_text_says_in_words_what_the_bar_shows_and_the_saved_output_gets_the_ending():
    progress, handle = RunProgress(), Handle()
    progress.display_handle = handle
    assert repr(progress) == "waiting for the run to start"
    for event in [{"type": "workflow_phase", "title": "Review"}, agent("started"), agent("done"), agent("cached")]:
        progress(event)
    assert repr(progress) == "phase Review · 2 of 2 calls finished (1 cached)" and handle.updates == []
    progress({"type": "task_notification", "runId": "wf_x_0123456789abcdef", "status": "failed",
              "error": "boom\x1b[31m"})
    assert handle.updates == ["run failed · 2 of 2 calls finished (1 cached) · boom\\x1b[31m"]
