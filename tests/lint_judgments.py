"""The judged lint corpus: every finding a reviewer should (or should not) get on each contract, with the reason.

Each contract was read whole, as a design review reads it, and every finding a version of the linter gave on it
was labelled: ``true`` (the contract really leaves that question open) or ``false`` (a false alarm: the contract
answers it, in words the rule did not know). A true problem no version found is labelled ``true`` as well, so
it counts against recall until a rule finds it. The contracts are ours (``tests/lint_corpus/`` and the project's
``examples/contracts/``) and the public ones of ``../shared/loop-contracts/examples/`` when they are present.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Judgment:
    """One finding judged by reading the contract: ``rule`` at ``path`` is a real problem (``true``) or not."""

    rule: str
    path: str
    true: bool
    reason: str


def real(rule: str, path: str, reason: str) -> Judgment:
    return Judgment(rule, path, True, reason)


def false_alarm(rule: str, path: str, reason: str) -> Judgment:
    return Judgment(rule, path, False, reason)


OWN: dict[str, tuple[Judgment, ...]] = {
    "changelog-digest-loop.json": (
        false_alarm("LC105", "verification.gates[0]",
                    "'listed exactly once' is a count a third party checks against the merged-PR list"),
        false_alarm("LC111", "workspace.allowed_actions[0]",
                    "'read commit and PR metadata': commit is a noun here, the action only reads"),
        false_alarm("LC115", "workspace.allowed_actions[2]",
                    "the action itself writes the cap: 'one digest message per week'"),
    ),
    "dependency-bump-loop.json": (
        false_alarm("LC104", "workspace.allowed_actions[2]",
                    "reading production error logs changes nothing in production"),
        real("LC104", "workspace.allowed_actions[3]",
             "entering the merge queue merges the PR once checks pass, with no person approving it"),
        real("LC102", "workspace.isolation",
             "'on the main branch of the shared checkout' is the opposite of isolation"),
    ),
    "feedback-triage-loop.json": (
        false_alarm("LC105", "verification.gates[0]", "'exactly one team label' is countable on every routed item"),
        false_alarm("LC105", "verification.gates[1]", "'in at most 5% of items' is a measured threshold"),
        false_alarm("LC111", "workspace.allowed_actions[2]", "writing a routing receipt records, it changes nothing"),
    ),
    "license-history-audit-loop.json": (
        false_alarm("LC102", "workspace.isolation",
                    "'read access to the history; draft PR only' is read-only access plus a draft PR"),
    ),
    "model-eval-refresh-loop.json": (
        false_alarm("LC110", "intake.selection_rule",
                    "a checkpoint is identified by its version tag, and versions with results are done"),
        false_alarm("LC111", "workspace.allowed_actions[1]",
                    "writing results to the eval table records scores; the workspace is not changed"),
        real("LC115", "workspace.allowed_actions[2]",
             "nothing caps the summary comments: each retry of a checkpoint may post another"),
    ),
    "onboarding-owners-loop.json": (
        real("LC101", "exit.success",
             "'the onboarding experience is complete' is not what the gates check (front matter, directory)"),
        false_alarm("LC105", "verification.gates[1]", "a team either exists in the team directory or it does not"),
        false_alarm("LC115", "workspace.allowed_actions[1]",
                    "intake takes one page a run, so a run opens at most one draft pull request"),
    ),
    "package-mirror-sync-loop.json": (
        real("LC104", "workspace.allowed_actions[2]",
             "publishing a package releases it to whoever installs from the staging bucket, with no approval"),
        false_alarm("LC105", "verification.gates[1]", "a signature verifying against a key is a deterministic check"),
        false_alarm("LC109", "escalation.conditions",
                    "'the same package fails twice' is the repeated-failure condition the rule asks for"),
        real("LC115", "workspace.allowed_actions[2]",
             "intake takes every changed package and nothing caps how many a run publishes"),
    ),
    "release-gate-loop.json": (
        false_alarm("LC105", "verification.gates[0]", "'meet baseline' compares measurements with a baseline"),
        false_alarm("LC105", "verification.gates[1]", "'are absent from the source tarball' is checked by listing it"),
        false_alarm("LC105", "verification.gates[2]",
                    "'called out explicitly in the release notes' is checked by reading the notes"),
    ),
    "stale-issue-sweeper-loop.json": (
        false_alarm("LC102", "workspace.isolation",
                    "a bot account scoped to labels and comments on one repository is the loop's isolation"),
        false_alarm("LC105", "verification.gates[0]", "a label on each commented issue is visible to anyone"),
        false_alarm("LC105", "verification.gates[1]", "activity dates are recorded by the tracker"),
        real("LC109", "escalation.conditions",
             "nothing says what happens when the retry budget runs out or a failure repeats"),
        false_alarm("LC111", "workspace.allowed_actions[0]",
                    "adding a label is tracker metadata, and the gates check which issues carry it"),
        real("LC115", "workspace.allowed_actions[1]",
             "a wrong run could comment on every old issue of the repository: no cap is written"),
    ),
    "support-macro-refresh-loop.json": (
        real("LC014", "escalation.destination", "'the support team' names no owner or channel"),
        real("LC102", "workspace.isolation", "the agent edits the production macro library directly"),
        real("LC103", "agents", "an editor and a publisher, and nobody checks"),
        real("LC104", "workspace.allowed_actions[1]", "publishing macros to every agent's library needs an approval"),
        real("LC105", "verification.gates[0]", "'the agent confirms' is the actor certifying itself"),
        real("LC105", "verification.gates[1]", "'leads are happy' names no observation"),
        real("LC105", "verification.gates[2]", "'the agent reports every macro is fixed' is the actor's own word"),
        real("LC106", "verification.receipts", "one receipt, and it does not show what was checked"),
        real("LC109", "escalation.conditions", "neither budget exhaustion nor a repeated failure is named"),
        real("LC110", "intake.selection_rule", "a macro fixed last week is picked again while the feature is listed"),
        real("LC111", "workspace.allowed_actions[0]", "editing macro text has no gate on scope or tests"),
        real("LC112", "workspace.allowed_actions[1]", "'progress notes' record no id of what was published"),
        real("LC114", "state.update_rule", "'update after every run' says when, not what"),
        real("LC115", "workspace.allowed_actions[1]", "publishing and posting have no cap"),
    ),
    # written after the rules were first rewritten, to see whether they held on prose they were not tuned on
    "cert-renewal-loop.json": (
        false_alarm("LC102", "workspace.isolation",
                    "a runner with access to the renewal API only, that cannot touch load balancers, is isolated"),
        false_alarm("LC105", "verification.gates[0]", "a certificate chaining to a root is checked by a verifier"),
        false_alarm("LC105", "verification.gates[1]", "'equal the old certificate's' compares two lists of names"),
        false_alarm("LC105", "verification.gates[2]", "'at least 300 days' is a threshold on the expiry date"),
        false_alarm("LC111", "workspace.allowed_actions[2]", "opening a change ticket changes no file: 'change' is "
                    "a noun there"),
        real("LC115", "workspace.allowed_actions[2]", "one change ticket per expiring certificate, and no cap"),
    ),
    "weekly-metrics-report-loop.json": (
        false_alarm("LC100", "trigger.cadence_or_event", "'Mondays at 07:00 UTC' is a weekly cadence"),
        false_alarm("LC104", "workspace.allowed_actions[2]", "publishing a report to a wiki informs; it releases "
                    "nothing anyone runs"),
        false_alarm("LC105", "verification.gates[1]", "'changes over 20% carry an explanation' is a threshold"),
        real("LC105", "verification.gates[2]", "'the numbers make sense' is an opinion"),
        real("LC107", "state.update_rule", "it never says when the report is saved"),
        false_alarm("LC109", "escalation.conditions", "'a query fails twice' is a repeated failure"),
        real("LC110", "intake.selection_rule", "nothing stops a second firing on the same Monday from building and "
             "publishing the week again"),
        real("LC112", "workspace.allowed_actions[2]", "the archive keeps no page id or link, so a restart publishes "
             "again"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "intake builds one report a run: one publication, one "
                    "email"),
    ),
    "backup-restore-drill-loop.json": (
        false_alarm("LC102", "workspace.isolation", "a disposable cluster in the drill account, torn down after "
                    "each drill, is isolated"),
        false_alarm("LC109", "escalation.conditions", "'the same backup fails twice' is a repeated failure"),
        real("LC110", "intake.selection_rule", "a backup drilled last week is taken again if it is still the "
             "newest; the drill history is not consulted"),
        real("LC115", "workspace.allowed_actions[2]", "one post per database, and retries may post again: no cap"),
    ),
    "security-advisory-watch-loop.json": (
        false_alarm("LC102", "workspace.isolation", "a stateless function with read access is isolated"),
        false_alarm("LC103", "agents", "the workspace is read-only access to the inventory; the reference exempts a "
                    "read-only loop, as it does incident response"),
        false_alarm("LC105", "verification.gates[0]", "'names the advisory id and the affected version' is read off "
                    "the issue"),
        real("LC109", "escalation.conditions", "neither a spent budget nor a repeated failure is named"),
        false_alarm("LC110", "intake.selection_rule", "state keeps the list of services already notified"),
        real("LC112", "workspace.allowed_actions[1]", "the notified list records services, not issue ids, so a "
             "restart opens the issues again"),
        real("LC115", "workspace.allowed_actions[1]", "an issue and a comment for every affected service, uncapped"),
    ),
    # a second batch written before the rules saw it
    "log-retention-loop.json": (
        false_alarm("LC102", "workspace.isolation", "a service account limited to the log buckets is the isolation"),
        real("LC104", "workspace.allowed_actions[1]", "deleting objects cannot be undone; nothing asks for approval"),
        false_alarm("LC104", "workspace.allowed_actions[2]", "writing a deletion manifest deletes nothing"),
        false_alarm("LC105", "verification.gates[0]", "membership of the legal hold list is checked per object"),
        false_alarm("LC105", "verification.gates[1]", "two counts are compared"),
        false_alarm("LC110", "intake.selection_rule", "a deleted object leaves the listing, so it cannot come round "
                    "again"),
        false_alarm("LC111", "workspace.allowed_actions[1]", "the gates bound what is deleted: nothing on hold, as "
                    "many as the manifest"),
        false_alarm("LC114", "state.update_rule", "'manifest written before each batch is deleted' names what and "
                    "when, in the passive"),
    ),
    "string-extraction-loop.json": (
        false_alarm("LC105", "verification.gates[1]", "whether the app builds is a build's exit code"),
        false_alarm("LC109", "escalation.conditions", "'the build fails the same way twice' is a repeated failure"),
        false_alarm("LC111", "workspace.allowed_actions[1]", "the i18n linter, the build and the JSON check test the "
                    "change"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one merge a firing, one pull request for it"),
    ),
    "cloud-cost-anomaly-loop.json": (
        false_alarm("LC104", "workspace.allowed_actions[1]", "'correlate with deploys' reads deploys, it deploys "
                    "nothing"),
        false_alarm("LC105", "verification.gates[0]", "'at least 80% of the spike' is a threshold"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one anomaly a firing, one explanation posted"),
    ),
    "docs-screenshot-refresh-loop.json": (
        real("LC107", "state.update_rule", "'the pull request is the state' never says when anything is written"),
        false_alarm("LC109", "escalation.conditions", "'the designer requests changes twice' is a repeated failure"),
        real("LC110", "intake.selection_rule", "while the pull request is open, the next firing picks the same "
             "screenshots again"),
        real("LC112", "workspace.allowed_actions[2]", "no pull request number is recorded, so a restart opens "
             "another"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one pull request holds every replaced image: one a run"),
    ),
    # a third batch, the last one written before the rules saw it
    "api-deprecation-notice-loop.json": (
        false_alarm("LC105", "verification.gates[1]", "the ledger shows whether a client got a milestone notice "
                    "twice"),
        real("LC115", "workspace.allowed_actions[1]", "a wrong match mails every client; nothing caps the notices "
             "a run"),
    ),
    "test-coverage-nudge-loop.json": (
        false_alarm("LC105", "verification.gates[2]", "coverage is measured before and after"),
        real("LC110", "intake.selection_rule", "while its pull request is open, the branch is still uncovered and "
             "is picked again; the ledger is not consulted"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one branch a run, so one pull request a run"),
    ),
    "oncall-handoff-summary-loop.json": (
        false_alarm("LC105", "verification.gates[0]", "every page of the shift is looked up in the summary"),
        real("LC105", "verification.gates[1]", "'clear and helpful' is an opinion"),
        real("LC106", "verification.receipts", "one receipt"),
        real("LC109", "escalation.conditions", "neither a spent budget nor a repeated failure is named"),
        real("LC110", "intake.selection_rule", "a second firing at the same shift change posts the summary again"),
        false_alarm("LC111", "workspace.allowed_actions[1]", "writing the summary changes nothing in the workspace"),
        real("LC112", "workspace.allowed_actions[2]", "the archive keeps no message id, so a restart posts again"),
        real("LC114", "state.update_rule", "'each summary is archived' says neither before nor after the post"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one shift a run, one summary posted"),
    ),
    "schema-migration-check-loop.json": (
        false_alarm("LC104", "workspace.allowed_actions[0]", "migrations are applied to an ephemeral database"),
        false_alarm("LC104", "workspace.allowed_actions[3]", "setting a check status migrates nothing"),
        false_alarm("LC105", "verification.gates[0]", "row counts are compared before and after"),
        false_alarm("LC105", "verification.gates[1]", "'exceeds 2 seconds' is a threshold"),
        false_alarm("LC105", "verification.gates[2]", "a migration either applies or exits with an error"),
        false_alarm("LC109", "escalation.conditions", "'cannot be restored twice in a row' is a repeated failure"),
        false_alarm("LC111", "workspace.allowed_actions[0]", "the gates check row counts and locks on the ephemeral "
                    "database"),
        false_alarm("LC115", "workspace.allowed_actions[2]", "one comment with the findings per head commit, and a "
                    "head already checked is skipped"),
    ),
}
"""Our contracts (``tests/lint_corpus/``); the project's examples have no findings to judge."""

PUBLIC: dict[str, tuple[Judgment, ...]] = {
    "ci-repair-loop.json": (
        real("LC107", "state.update_rule", "it lists what is recorded but never when"),
        real("LC109", "escalation.conditions", "neither the conditions nor the stop name a spent budget or a repeat"),
        real("LC110", "intake.selection_rule", "nothing recognises a failure already being repaired"),
    ),
    "cost-control-loop.json": (
        false_alarm("LC105", "verification.gates[2]", "whether an estimate includes uncertainty and sample size is "
                    "read off the estimate"),
        false_alarm("LC105", "verification.gates[3]", "'remain intact' compares the gates and escalation before and "
                    "after the change"),
        real("LC110", "intake.selection_rule",
             "a cluster investigated yesterday that still exceeds its budget is picked again; the exception ledger "
             "holds accepted exceptions, not investigated clusters"),
    ),
    "dependency-triage-loop.json": (
        real("LC115", "workspace.allowed_actions[3]", "one comment per update PR, and nothing caps them"),
    ),
    "docs-drift-loop.json": (
        real("LC107", "state.update_rule", "it lists what is recorded but never when"),
        real("LC109", "escalation.conditions", "neither a spent budget nor a repeated failure is named"),
        false_alarm("LC110", "intake.selection_rule", "state keeps a processed item list and records rejected false "
                    "positives"),
    ),
    "incident-response-loop.json": (
        real("LC109", "escalation.conditions", "neither a spent budget nor a repeated failure is named"),
        real("LC110", "intake.selection_rule", "a repeat alert for an open incident is not said to be recognised: "
             "'open or update' leaves open which, and no key is named"),
        false_alarm("LC111", "workspace.allowed_actions[1]", "an incident record is a record, and the workspace is "
                    "read-only"),
        real("LC115", "workspace.allowed_actions[1]", "paging and status posts every few minutes have no cap"),
    ),
    "pr-babysitter-loop.json": (
        real("LC115", "workspace.allowed_actions[3]", "a progress comment every two hours, with no cap written"),
    ),
}
"""The public contracts of ``../shared/loop-contracts/examples/`` (read there, never copied here)."""
