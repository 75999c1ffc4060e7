"""The contract linter: each rule fires on a contract that breaks it and stays silent on a near
miss, ``ignore`` switches rules off per contract, and the heuristics read hyphenated and negated
words, a noun apart from a verb, and the comparisons reviewers write. How precise the heuristics
are on real contracts is held by ``test_lint_corpus.py``."""

from __future__ import annotations

from datetime import date

import pytest
from loop_contract_samples import CLEAN, DELETE, edit

from alp_nb.loops import LoopContract, LoopContractError
from alp_nb.loops.lint import Finding, Findings, lint_contract
from alp_nb.loops.lint_rules import LINT_RULES
from alp_nb.viz.rendering import render

UNCAPPED = {"objective": "Move a vulnerable dependency to its patched version each night.",
            "intake.selection_rule": "Take every advisory whose id is not already in the ledger."}
TODAY = date(2026, 3, 1)
"""The day every test lints on, so LC019 (a review overdue) judges the same on every day the suite runs."""
REVIEWED = {"x_alp_nb": {"version": 1, "owner": "Security owner (@sec)",
                         "review": {"every_days": 90, "last_reviewed": "2026-01-15"}}}
GOAL = {"trigger.type": "goal", "trigger.cadence_or_event": "until the advisory is closed"}

# rule id → (edits that make it fire, edits of a near miss that must not), both applied to CLEAN
CASES: dict[str, tuple[dict, dict]] = {
    "LC001": ({"exit.stop_without_success": DELETE}, {"exit.stop_without_success": "blocked"}),
    "LC002": ({"budget.max_retries": 2.0}, {"budget.max_retries": 2}),
    "LC003": ({"objective": "TBD"}, {"objective": "Triage TBD-labelled issues into owners weekly."}),
    "LC004": ({"objective": "TODO: decide"}, {"objective": "Resolve TODO: comments older than 90 days."}),
    "LC010": ({"workspace.disallowed_actions": ["force push", " Edit requirements  files."]},
              {"workspace.disallowed_actions": ["force push", "edit application files"]}),
    "LC011": ({"workspace.allowed_actions": []}, {"workspace.allowed_actions": ["run the test suite"]}),
    "LC012": ({"workspace.disallowed_actions": []}, {"workspace.disallowed_actions": ["force push"]}),
    "LC013": ({"exit.stop_without_success": "the pull request is open and its checks pass"},
              {"exit.stop_without_success": "the pull request is open but its checks fail twice"}),
    "LC014": ({"escalation.destination": "The team"}, {"escalation.destination": "#deps-security"}),
    "LC015": ({"agents[1].role": "implementer"}, {"agents[1].role": "Second implementer"}),
    "LC016": ({"verification.gates": ["the full test suite passes", "The full test suite passes."]},
              {"verification.gates": ["the full test suite passes", "the lint suite passes"]}),
    "LC017": ({"context.required_files": [], "context.runtime_sources": []}, {"context.required_files": []}),
    "LC018": ({"budget.max_retries": 6}, {"budget.max_retries": 5, "budget.max_runtime_minutes": 480}),
    "LC019": ({**REVIEWED, "x_alp_nb.review.last_reviewed": "2025-11-30"}, REVIEWED),
    "LC100": ({"trigger.cadence_or_event": "at 02:00 UTC"}, {"trigger.cadence_or_event": "0 2 * * 1-5"}),
    "LC101": ({**GOAL, "exit.success": "Dashboard latency stays green."},
              {**GOAL, "exit.success": "The full test suite passes on the bump."}),
    "LC102": ({"workspace.isolation": "On the shared build server"},
              {"workspace.isolation": "A throwaway container on the build server"}),
    "LC103": ({"agents[1]": {"role": "Reporter", "responsibility": "Summarise the bump."}},
              {"agents[1]": {"role": "Reporter", "responsibility": "Summarise the bump."},
               "workspace.isolation": "Read-only replica"}),
    "LC104": ({"workspace.allowed_actions": ["edit requirements files", "deploy to staging"]},
              {"workspace.allowed_actions": ["edit requirements files", "run against non-production data"]}),
    "LC105": ({"verification.gates": ["the full test suite passes", "the agent confirms the bump looks good"]},
              {"verification.gates": ["the full test suite passes", "p95 latency stays within the threshold"]}),
    "LC106": ({"verification.receipts": ["test log"]}, {"verification.receipts": ["test log", "PR link"]}),
    "LC107": ({"state.update_rule": "Write the advisory id and PR number to the ledger."},
              {"state.update_rule": "Write the advisory id and PR number to the ledger per attempt."}),
    "LC108": ({"state.artifacts": ["the chat conversation"]},
              {"state.artifacts": ["the chat conversation", "ledger file"]}),
    "LC109": ({"escalation.conditions": ["a major version bump is needed"],
               "exit.stop_without_success": "The bump needs a major version."},
              {"escalation.conditions": ["a major version bump is needed"],
               "exit.stop_without_success": "The bump needs a major version or the same failure repeats."}),
    "LC110": ({"intake.selection_rule": "Take the highest-severity advisory.",
               "state.update_rule": "Write the PR number after every attempt."},
              {"intake.selection_rule": "Take the highest-severity advisory, skipping ones handled before.",
               "state.update_rule": "Write the PR number after every attempt."}),
    "LC111": ({"verification.gates": ["pip-audit no longer reports the advisory"]},
              {"verification.gates": ["pip-audit no longer reports the advisory"],
               "workspace.allowed_actions": ["read the advisory feed", "open one pull request per night"]}),
    "LC112": ({"state.artifacts": ["progress notes"], "state.update_rule": "Write progress notes after every attempt."},
              {"state.artifacts": ["progress notes with the PR url"],
               "state.update_rule": "Write progress notes after every attempt."}),
    "LC113": ({"objective": "Keep improving the repo."},
              {"objective": "Improve the repo's test coverage from 70% to 80%."}),
    "LC114": ({"state.update_rule": "Update after every attempt, and before opening the PR."},
              {"state.update_rule": "Update the ledger after every attempt, and before opening the PR."}),
    "LC115": ({**UNCAPPED, "workspace.allowed_actions": ["edit requirements files", "open a pull request"]},
              {**UNCAPPED, "workspace.allowed_actions": ["edit requirements files", "open at most one pull request"]}),
    "LC116": ({"trigger.type": "manual-bootstrap"},
              {"trigger.type": "manual-bootstrap",
               "trigger.cadence_or_event": "Run by hand by the security owner after an advisory review."}),
}


# further ways to break a rule, beyond the first case of each
MORE_CASES = [
    ("LC003", {"context.required_files": ["-"]}),
    ("LC014", {"escalation.destination": "Somebody senior"}),
    ("LC018", {"budget.max_runtime_minutes": 481}),
    ("LC104", {"workspace.allowed_actions": ["edit requirements files", "drop the staging database"]}),
    ("LC103", {"agents[1]": {"role": "Quarantiner",
                             "responsibility": "Quarantine the flaky tests and open the pull request."}}),
    ("LC114", {"state.update_rule": "Update state after every attempt and before opening the PR."}),
    ("LC116", {"trigger.type": "manual-bootstrap", "trigger.cadence_or_event": "When a new advisory is published."}),
    ("LC105", {"verification.gates": ["the full test suite passes", "customers are happy"]}),
]


def fired(document) -> set[str]:
    return {finding.rule for finding in lint_contract(document, today=TODAY)}


def test_every_rule_has_a_firing_case_and_a_near_miss():
    assert set(CASES) == {rule.id for rule in LINT_RULES}


def test_the_clean_contract_has_no_findings():
    assert lint_contract(CLEAN) == ()
    assert lint_contract(LoopContract.from_document(CLEAN)) == ()


@pytest.mark.parametrize(("rule_id", "changes"),
                         [*((rule_id, CASES[rule_id][0]) for rule_id in sorted(CASES)), *MORE_CASES])
def test_rule_fires_alone_on_the_contract_that_breaks_it(rule_id, changes):
    assert fired(edit(CLEAN, changes)) == {rule_id}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_rule_is_silent_on_the_near_miss(rule_id):
    assert fired(edit(CLEAN, CASES[rule_id][1])) == set()


@pytest.mark.parametrize("rule", LINT_RULES, ids=lambda rule: rule.id)
def test_every_rule_has_an_id_severity_rationale_and_hint(rule):
    assert rule.id.startswith("LC") and len(rule.id) == 5
    assert rule.severity in ("error", "warning", "info")
    for text in (rule.summary, rule.rationale, rule.hint):
        assert text.strip() and "\n" not in text


def test_severities_follow_the_reference():
    severities = {rule.id: rule.severity for rule in LINT_RULES}
    assert {rule for rule, severity in severities.items() if severity == "error"} == {
        "LC001", "LC004", "LC010", "LC013"}
    assert {rule for rule, severity in severities.items() if severity == "warning"} == {
        "LC002", "LC003", "LC011", "LC012", "LC014", "LC015", "LC017", "LC019", "LC100", "LC102", "LC103", "LC108",
        "LC116"}


def test_the_five_field_pairs_each_have_a_rule():
    pairs = {rule.pair for rule in LINT_RULES if rule.pair}
    assert pairs == {"trigger ↔ intake", "action ↔ verifier", "side effect ↔ checkpoint", "budget ↔ escalation",
                     "success ↔ stop-without-success"}


def test_a_finding_names_rule_severity_path_message_and_hint():
    findings = lint_contract(edit(CLEAN, {"workspace.disallowed_actions": ["force push", "run the test suite"]}))
    assert findings == (Finding(
        rule="LC010", severity="error", path="workspace.disallowed_actions[1]",
        message="'run the test suite' is also an allowed action", hint="Keep the action in one list only."),)
    assert findings[0].part == "workspace"
    assert findings.errors == findings


def test_schema_violations_are_reported_per_path_and_stop_the_other_rules():
    document = edit(CLEAN, {"objective": "TBD", "agents[0].role": "", "trigger.type": "cron"})
    findings = lint_contract(document)
    assert {finding.rule for finding in findings} == {"LC001"}
    assert {finding.path for finding in findings} == {"agents[0].role", "trigger.type"}


def test_a_missing_or_unexpected_key_is_reported_at_its_own_path_as_loading_reports_it():
    document = edit(CLEAN, {"agents[0].role": DELETE, "exit": DELETE, "agents[1].owner": "me", "notes": "x"})
    with pytest.raises(LoopContractError) as loading:
        LoopContract.from_document(document)
    loaded_paths = {issue.split(": ")[0] for issue in loading.value.issues}
    assert loaded_paths == {"agents[0].role", "agents[1].owner", "exit", "notes"}
    assert {finding.path for finding in lint_contract(document)} == loaded_paths


def test_a_fractional_budget_is_a_schema_violation_not_a_float_warning():
    assert fired(edit(CLEAN, {"budget.max_retries": 2.5})) == {"LC001"}


def test_document_rules_do_not_apply_to_a_model():
    assert fired(LoopContract.from_document(edit(CLEAN, {"budget.max_retries": 2.0}))) == set()


def test_findings_come_in_rule_order():
    document = edit(CLEAN, {"objective": "Keep improving.", "workspace.allowed_actions": [],
                            "exit.stop_without_success": "The pull request is open and its checks pass."})
    assert [finding.rule for finding in lint_contract(document)] == ["LC011", "LC013", "LC113"]


def test_ignore_switches_rules_off_for_one_contract():
    document = edit(CLEAN, {"objective": "TBD", "verification.receipts": ["test log"]})
    assert fired(document) == {"LC003", "LC106"}
    assert {finding.rule for finding in lint_contract(document, ignore=["lc106"])} == {"LC003"}
    assert lint_contract(document, ignore=("LC003", "LC106")) == ()


def test_ignoring_an_unknown_rule_is_an_error_so_a_typo_silences_nothing():
    with pytest.raises(LoopContractError) as raised:
        lint_contract(CLEAN, ignore=["LC1066"])
    assert raised.value.code == "UNKNOWN_LINT_RULE" and "LC1066" in raised.value.message


def test_the_schema_check_cannot_be_ignored():
    with pytest.raises(LoopContractError, match="LC001 cannot be ignored"):
        lint_contract(CLEAN, ignore=["LC001"])


def test_the_template_fails_lint_with_an_error_for_every_unanswered_text():
    template = LoopContract.template("draft")
    findings = lint_contract(template)
    unanswered = {finding.path for finding in findings if finding.rule == "LC004"}
    texts = {"objective", "trigger.type", "trigger.cadence_or_event", "intake.selection_rule", "workspace.isolation",
             "state.update_rule", "escalation.destination", "exit.success", "exit.stop_without_success"}
    assert texts <= unanswered
    assert all(finding.severity == "error" for finding in findings if finding.rule == "LC004")
    assert len(findings.errors) >= 20


def test_lint_returns_findings_that_render_as_a_table():
    findings = lint_contract(edit(CLEAN, {"objective": "TBD"}))
    assert isinstance(findings, Findings)
    assert "<table>" in render(findings, "html")


@pytest.mark.parametrize("action", ["read files in the project", "create a local profile"])
def test_lc112_fires_on_external_effects_only(action):
    unrecorded = {"state.artifacts": ["progress notes"],
                  "state.update_rule": "Write progress notes after every attempt."}

    def fires(allowed: str) -> bool:
        document = edit(CLEAN, {**unrecorded, "workspace.allowed_actions": [allowed]})
        return "LC112" in {finding.rule for finding in lint_contract(document)}

    assert fires("open a pull request")
    assert not fires(action)


@pytest.mark.parametrize(("role", "responsibility"), [
    ("Checker", "Check the pull request only quarantines tests."),
    ("Gate", "Checks that the rerun log shows both passes and failures."),
    ("Gate", "Test the patched build against the original command."),
    ("Gate", "Inspect the diff for files outside the quarantine list."),
    ("Gate", "Run the suite, then verify the lockfile changed only the bumped package."),
    ("Test reviewer", "Signs off the change."),
    ("Auditor", "Signs off the change."),
])
def test_lc103_accepts_every_word_of_the_checking_family(role, responsibility):
    checking = {"agents[1]": {"role": role, "responsibility": responsibility}}
    assert "LC103" not in fired(edit(CLEAN, checking))


@pytest.mark.parametrize("responsibility", [
    "Quarantine the flaky tests and open the pull request.",
    "Bump the version the audit flagged.",
    "Fix the failing test and push the branch.",
])
def test_lc103_still_fires_when_every_agent_acts_whatever_it_acts_on(responsibility):
    acting = {"agents[0].responsibility": responsibility, "agents[1]": {"role": "Releaser",
                                                                        "responsibility": responsibility}}
    (finding,) = [finding for finding in lint_contract(edit(CLEAN, acting)) if finding.rule == "LC103"]
    assert "reviewer" in finding.looked_for and "verify" in finding.looked_for and "inspect" in finding.looked_for


HEURISTICS = [rule for rule in LINT_RULES if rule.id >= "LC100" and rule.id != "LC106"]


@pytest.mark.parametrize("rule", HEURISTICS, ids=lambda rule: rule.id)
def test_every_heuristic_finding_names_the_words_it_looked_for(rule):
    changes = CASES[rule.id][0]
    (finding,) = [finding for finding in lint_contract(edit(CLEAN, changes)) if finding.rule == rule.id]
    assert finding.looked_for == rule.looked_for and len(finding.looked_for) > 10
    assert f"looked for: {finding.looked_for}" in render(Findings([finding]), "text")


@pytest.mark.parametrize("rule", HEURISTICS, ids=lambda rule: rule.id)
def test_heuristics_never_raise_errors(rule):
    assert rule.severity in ("info", "warning")


def test_lc114_asks_for_the_commit_point_the_seed_calls_vague():
    assert "LC114" in fired(edit(CLEAN, {"state.update_rule": "Update after every attempt."}))
    assert "LC114" not in fired(edit(CLEAN, {"state.update_rule": "Write the ledger entry after every attempt."}))


def test_the_template_asks_for_its_trigger_type_until_the_trigger_is_answered():
    template = LoopContract.template("draft")
    assert "trigger.type" in {finding.path for finding in lint_contract(template) if finding.rule == "LC004"}
    answered = template.replace(trigger={"type": "manual-bootstrap", "cadence_or_event": "Nightly at 02:00 UTC"})
    on_type = [finding.rule for finding in lint_contract(answered) if finding.path == "trigger.type"]
    assert on_type == ["LC116"]


# --- the word families read prose as reviewers write it -----------------------------------------------------


@pytest.mark.parametrize("action", ["read commit and PR metadata", "rerun one test 20 times on one commit",
                                    "write a receipt to the run log", "open or update an incident record",
                                    "add the stale label"])
def test_lc111_reads_a_commit_a_receipt_or_a_record_as_no_change(action):
    ungated = {"verification.gates": ["pip-audit no longer reports the advisory"],
               "workspace.allowed_actions": [action]}
    assert "LC111" not in fired(edit(CLEAN, ungated))


@pytest.mark.parametrize("action", ["commit the fix", "apply config changes", "review and commit the patch",
                                    "update the README"])
def test_lc111_still_reads_the_verb_as_a_change(action):
    ungated = {"verification.gates": ["pip-audit no longer reports the advisory"],
               "workspace.allowed_actions": [action]}
    assert "LC111" in fired(edit(CLEAN, ungated))


@pytest.mark.parametrize("rule", ["Pick non-duplicate advisories of the last day.",
                                  "Take each package whose checksum changed since the mirror's last sync.",
                                  "Evaluate each checkpoint identified by its version tag.",
                                  "Take advisories not yet handled."])
def test_lc110_knows_non_duplicate_a_changed_checksum_and_an_item_identified_by_its_version(rule):
    assert "LC110" not in fired(edit(CLEAN, {"intake.selection_rule": rule,
                                             "state.update_rule": "Write the PR number after every attempt."}))


def test_lc110_reads_a_state_artifact_that_lists_processed_items():
    no_dedupe = {"intake.selection_rule": "Take the highest-severity advisory.",
                 "state.update_rule": "Write the PR number after every attempt."}
    assert "LC110" in fired(edit(CLEAN, no_dedupe))
    assert "LC110" not in fired(edit(CLEAN, {**no_dedupe, "state.artifacts": ["processed advisory list"]}))


@pytest.mark.parametrize("isolation", ["Read access to the history; draft PR only.",
                                       "A bot account scoped to labels on one repository.",
                                       "Runner with access to the renewal API only.",
                                       "Disposable cluster in the drill account, torn down after each drill."])
def test_lc102_accepts_read_access_a_draft_pr_and_a_scoped_credential(isolation):
    assert "LC102" not in fired(edit(CLEAN, {"workspace.isolation": isolation}))


@pytest.mark.parametrize("isolation", ["On the main branch of the shared checkout.", "No sandbox, on the build host."])
def test_lc102_refuses_the_main_branch_and_a_negated_mechanism(isolation):
    assert "LC102" in fired(edit(CLEAN, {"workspace.isolation": isolation}))


@pytest.mark.parametrize("gate", ["p95 latency and memory meet baseline", "generated files are absent from the tarball",
                                  "breaking changes are called out explicitly", "error rate stays within 0.1%",
                                  "the certificate chains to the internal root"])
def test_lc105_takes_measurable_comparisons_and_domain_checks_as_observable(gate):
    assert "LC105" not in fired(edit(CLEAN, {"verification.gates": ["the full test suite passes", gate]}))


@pytest.mark.parametrize("gate", ["the agent reports every change is fixed", "the numbers make sense",
                                  "the summary is clear and helpful"])
def test_lc105_flags_the_actors_own_word_and_a_bare_opinion(gate):
    assert "LC105" in fired(edit(CLEAN, {"verification.gates": ["the full test suite passes", gate]}))


@pytest.mark.parametrize(("action", "fires"), [("read production error logs", False), ("deploy to production", True),
                                               ("run against non-production data", False),
                                               ("never delete the backups", False),
                                               ("publish the report to the wiki", False),
                                               ("publish the package to the registry", True),
                                               ("open a pull request into the merge queue", True)])
def test_lc104_reads_what_an_action_does_to_production(action, fires):
    assert ("LC104" in fired(edit(CLEAN, {"workspace.allowed_actions": ["edit requirements files", action]}))) is fires


def test_lc115_reads_the_cap_an_action_writes_on_what_its_verb_acts_on():
    many = {"intake.selection_rule": "Take every advisory whose id is not already in the ledger."}
    capped = {**many, "workspace.allowed_actions": ["post one digest message per week to #deps"]}
    assert "LC115" not in fired(edit(CLEAN, capped))  # messages, not posts: the verb is not the effect's kind
    assert "LC115" in fired(edit(CLEAN, {**many, "workspace.allowed_actions": ["post a digest to #deps"]}))


def test_lc115_leaves_an_effect_bounded_by_an_intake_of_one_item():
    single = {"objective": "Move a vulnerable dependency to its patched version.",
              "workspace.allowed_actions": ["edit requirements files", "open a pull request"]}
    assert "LC115" not in fired(edit(CLEAN, {**single, "intake.selection_rule": "Take the oldest open advisory."}))
    assert "LC115" in fired(edit(CLEAN, {**single, "intake.selection_rule": "Take the newest advisory of each repo."}))


def test_lc109_takes_twice_and_in_a_row_as_a_repeated_failure():
    assert "LC109" not in fired(edit(CLEAN, {"escalation.conditions": ["the bump fails twice in a row"],
                                             "exit.stop_without_success": "The bump needs a major version."}))


def test_lc114_reads_the_passive_voice():
    assert "LC114" not in fired(edit(CLEAN, {"state.update_rule": "Ledger entry written before each PR is opened."}))
    assert "LC114" in fired(edit(CLEAN, {"state.update_rule": "State is written after every attempt."}))


def test_lc100_takes_a_plural_weekday_as_a_cadence():
    assert "LC100" not in fired(edit(CLEAN, {"trigger.cadence_or_event": "Mondays at 07:00 UTC."}))


# --- the extension -------------------------------------------------------------------------------------------


def test_lc019_flags_a_review_older_than_its_cadence_naming_the_day_it_fell_due():
    overdue = edit(CLEAN, {**REVIEWED, "x_alp_nb.review.last_reviewed": "2025-11-30"})
    (finding,) = lint_contract(overdue, today=TODAY)
    assert (finding.rule, finding.severity, finding.path) == ("LC019", "warning", "x_alp_nb.review.last_reviewed")
    assert finding.message == "last reviewed 2025-11-30, due every 90 days: overdue since 2026-02-28"
    assert lint_contract(overdue, today=date(2026, 2, 28)) == ()  # due that day, not yet overdue


def test_an_extended_contract_lints_against_the_schema_alp_nb_ships():
    extended = edit(CLEAN, {"x_alp_nb": {"version": 1, "budget": {"max_tokens": 200000, "max_concurrency": 2}}})
    assert lint_contract(extended, today=TODAY) == ()
    broken = edit(extended, {"x_alp_nb.budget.max_tokens": 0, "x_alp_nb.review": {"every_days": 30,
                                                                                  "last_reviewed": "2026-02-30"}})
    assert {(finding.rule, finding.path) for finding in lint_contract(broken)} == {
        ("LC001", "x_alp_nb.budget.max_tokens"), ("LC001", "x_alp_nb.review.last_reviewed")}
    assert {finding.path for finding in lint_contract({**CLEAN, "x-alp-nb": {}})} == {'$["x-alp-nb"]'}
