"""``alp-nb workflow fork RUN_ID --value LABEL=JSON ... --prompt LABEL=TEXT ...``: a new run from a stored run's
journal with some answers or prompts replaced, run to its end with the mock runner as ``workflow run`` runs one;
only the calls that depend on a replacement run. Its report names the command that compares it with its source.
Bad input is one line on stderr, exit 2, and writes nothing."""

from __future__ import annotations

import re

import pytest
from cli_support import batch_script

from alp_nb.cli import main
from alp_nb.replay import load_run
from alp_nb.runtime import RunStore

CHANGES = '{"changes": "rename parse() to load()"}'
RUN_ID = re.compile(r"^RUN +(wf_\S+)$", re.MULTILINE)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def source(capsys, tmp_path) -> tuple[str, str]:
    """A completed ``review-changes`` run: (its store, its id)."""
    store = str(tmp_path / "runs")
    code, out, _ = run(capsys, "workflow", "run", "review-changes", "--args", CHANGES, "--store", store)
    assert code == 0
    return store, RUN_ID.search(out).group(1)


def test_a_fork_with_an_answer_replaced_reruns_only_what_depends_on_it_and_says_how_to_compare(capsys, source):
    store, run_id = source
    code, out, err = run(capsys, "workflow", "fork", run_id, "--store", store,
                         "--value", 'audit:security={"findings": []}')
    assert (code, err) == (0, "")
    fork_id = RUN_ID.search(out).group(1)
    assert fork_id != run_id and f"COMPARE    alp-nb runs diff {run_id} {fork_id} --store {store}" in out.splitlines()
    fork = load_run(fork_id, store=store)
    assert fork.status == "completed" and fork.snapshot.fork.run_id == run_id
    assert fork.snapshot.fork.values == ("audit:security",)
    code, out, _ = run(capsys, "runs", "diff", run_id, fork_id, "--store", store)
    assert code == 1 and "  [changed value] audit:security" in "\n".join(out.splitlines())
    changed = [line for line in out.splitlines() if line.startswith("  [")]
    assert changed and all("security" in line for line in changed)  # nothing else was asked again


def test_a_fork_with_a_prompt_replaced_asks_that_prompt(capsys, source):
    store, run_id = source
    code, out, _ = run(capsys, "workflow", "fork", run_id, "--store", store,
                       "--prompt", "audit:correctness=Look again, harder = better")
    assert code == 0
    fork = load_run(RUN_ID.search(out).group(1), store=store)
    asked = fork.journal[(fork.journal["label"] == "audit:correctness") & fork.journal["attempt"].notna()]
    assert asked["prompt"].tolist() == ["Look again, harder = better"]


@pytest.mark.parametrize(("argv", "message"), [
    (("--value", "audit:security"), "alp-nb: --value must be LABEL=…, a call's label and what it gets instead, not "
                                    "'audit:security'"),
    (("--value", "={}"), "alp-nb: --value must be LABEL=…"),
    (("--value", "audit:security={findings: []}"), "alp-nb: --value audit:security: not valid JSON: Expecting"),
    (("--value", "audit:security=NaN"), "alp-nb: --value audit:security: not valid JSON"),
    (("--value", "a=1", "--value", "a=2"), "alp-nb: --value names the call `a` twice"),
    (("--prompt", "no-equals"), "alp-nb: --prompt must be LABEL=…"),
    (("--value", "no-such-call=1"), "alp-nb: no call of run `"),
])
def test_bad_replacements_are_one_line_on_stderr_exit_2_and_write_nothing(capsys, source, argv, message):
    store, run_id = source
    before = sorted(RunStore(store).run_ids())
    code, out, err = run(capsys, "workflow", "fork", run_id, "--store", store, *argv)
    assert (code, out) == (2, "")
    assert err.startswith(message) and err.count("\n") == 1
    assert sorted(RunStore(store).run_ids()) == before


def test_a_fork_of_a_workflow_kept_in_a_file_takes_the_file(capsys, tmp_path):
    script, store = batch_script(tmp_path), str(tmp_path / "runs")
    code, out, _ = run(capsys, "workflow", "run", "batch-review", "--script", script, "--store", store)
    assert code == 0
    run_id = RUN_ID.search(out).group(1)
    code, out, err = run(capsys, "workflow", "fork", run_id, "--store", store, "--value", 'item-0="replaced"')
    assert code == 2 and "unknown workflow `batch-review`" in err and "`--script path`" in err
    code, out, _ = run(capsys, "workflow", "fork", run_id, "--store", store, "--script", script,
                       "--value", 'item-0="replaced"')
    assert code == 0 and load_run(RUN_ID.search(out).group(1), store=store).result[0] == "replaced"
