"""``ContractEditor``: a loop contract as a form, linted as it is typed, walked through failure injections graded
by the reviewers' expectations, and saved or handed out as a review packet.

``contract`` is always a contract the schema accepts. An edit is applied to it whole or not at all: one the
schema refuses (an empty list where an item is needed, a negative budget) leaves ``contract`` as it was, and the
schema's message stays beside the field, with what was typed, until the field is edited again. Typing into a
control and ``set(path, value)`` are one path through the editor, so code and a person see the same thing.

A contract with lint errors (the template, a half-answered draft) is simulated only once ``allow_lint_errors`` is
ticked, and its outcomes are then grey and marked provisional: a draft never shows a green success. A run is
graded only by a review file (``expectations``): ``agree``, ``disagree`` or ``not stated``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from alp_nb.base.errors import AlpError
from alp_nb.loops.errors import LoopContractError
from alp_nb.loops.expectations import Expectations, Grades, grade
from alp_nb.loops.firing import simulate_firing
from alp_nb.loops.injections import firings_for, scenario_names, scenarios_for
from alp_nb.loops.lint import Finding, Findings, lint_contract
from alp_nb.loops.loop_contract import PHASES, TRIGGER_TYPES, LoopContract, write_contract_file
from alp_nb.loops.simulator import Simulation, simulate
from alp_nb.viz.html import STYLE, badge, block
from alp_nb.viz.terminal import plain_line
from alp_nb.viz.views.loop_contracts import TONES
from alp_nb.viz.views.packet_documents import review_packet, review_packet_markdown
from alp_nb.viz.views.simulation import grades_fragment, trace_fragment

from .contract_fields import (
    FIELDS,
    FORM_FIELDS,
    SHARED_PARTS,
    WHOLE,
    FormField,
    control_value,
    fields_at,
    path_steps,
    place_of,
    typed_value,
    with_value,
)
from .shown_text import shown

JSON_SUFFIXES, YAML_SUFFIXES = (".json",), (".yaml", ".yml")
PACKET_SUFFIXES, MARKDOWN_SUFFIXES = (".html", ".htm", ".md", ".markdown"), (".md", ".markdown")
"""What each button writes: the path typed, its suffix made the button's own unless it already is one of these, so
the contract and its packet never overwrite each other."""
LABEL_WIDTH, CONTROL_WIDTH = "11em", "34em"
TEXT_ROWS = {"text": 2, "lines": 3, "agents": 3}
REFUSED = "bad"


class ContractEditor(widgets.VBox):
    """A form over a loop contract (a ``LoopContract``, or a name for a blank template), grouped by its phases.

    ``controls[path]`` edits one field and ``notes[place]`` beside it shows the schema's refusal of the last edit
    there and the lint findings about it (``notes["context"]`` those about a part as a whole); ``summary`` counts
    the findings. ``scenario`` and ``simulate_button`` play a failure injection, or a scenario derived from the
    contract as it stands (its escalation conditions, disallowed actions, budget, caps), into ``trace``, beside the
    reviewers' verdict; ``allow_lint_errors`` lets a contract with lint errors be simulated, provisionally.
    ``expect_path`` with ``expect_button`` loads a review file into ``expectations`` (or pass one), and
    ``grade_button`` simulates every scenario and derived firing into ``grades``, disagreements first. ``path`` with
    ``save_json_button``, ``save_yaml_button`` and ``packet_button`` write files (an existing one only with
    ``force``), and ``status`` says what happened. ``contract``, ``findings``, ``simulation`` and ``graded`` hold
    the state.
    """

    def __init__(self, contract: LoopContract | str, expectations: Expectations | None = None) -> None:
        self.contract = contract if isinstance(contract, LoopContract) else LoopContract.template(contract)
        self.findings: Findings = lint_contract(self.contract)
        self.expectations = expectations
        self.simulation: Simulation | None = None
        self.graded: Grades | None = None
        self._refused: dict[str, tuple[str, ...]] = {}
        self._syncing = False
        self.controls: dict[str, Any] = {field.path: self._control(field) for field in FORM_FIELDS}
        self.notes: dict[str, Any] = {place: widgets.HTML() for place in (*self.controls, *SHARED_PARTS)}
        self.summary = widgets.HTML()
        self.scenario = widgets.Dropdown(options=_scenario_names(self.contract), description="scenario")
        self.simulate_button = widgets.Button(description="simulate", icon="play",
                                              tooltip="play the scenario against the contract as it stands")
        self.trace = widgets.HTML()
        self.allow_lint_errors = widgets.Checkbox(description="simulate despite lint errors (outcomes provisional)",
                                                  indent=False)
        self.expect_path = widgets.Text(description="review file", placeholder="e.g. nightly-triage.review.yaml")
        self.expect_button = widgets.Button(description="load expectations", icon="check",
                                            tooltip="a review file: the outcome reviewers expect per scenario")
        self.grade_button = widgets.Button(description="simulate all and grade", icon="list",
                                           tooltip="every scenario and derived firing, graded by the review file")
        self.grades = widgets.HTML()
        self.path = widgets.Text(description="file", placeholder="e.g. nightly-triage.yaml")
        self.force = widgets.Checkbox(description="replace an existing file", indent=False)
        self.save_json_button = widgets.Button(description="save JSON", icon="save")
        self.save_yaml_button = widgets.Button(description="save YAML", icon="save")
        self.packet_button = widgets.Button(description="review packet", icon="file",
                                            tooltip="HTML, or Markdown for a .md file")
        self.status = widgets.HTML()
        self.simulate_button.on_click(lambda _: self._simulate())
        self.allow_lint_errors.observe(lambda _: self._resimulate(), names="value")
        self.expect_button.on_click(lambda _: self._load_expectations())
        self.grade_button.on_click(lambda _: self._grade())
        self.save_json_button.on_click(lambda _: self._save(JSON_SUFFIXES, self._dump, "the contract as JSON"))
        self.save_yaml_button.on_click(lambda _: self._save(YAML_SUFFIXES, self._dump, "the contract as YAML"))
        self.packet_button.on_click(lambda _: self._save(PACKET_SUFFIXES, self._packet, "the review packet"))
        super().__init__([self.summary, self._row(FIELDS["name"]), *self._phases(), self._actions()])
        self.add_class("alp-contract-editor")
        self._show(FORM_FIELDS, self.contract.to_document())
        self._redraw()

    def __repr__(self) -> str:
        """What a page without the widget shows (GitHub, nbviewer): the contract and its lint tally in words."""
        counts = {severity: sum(finding.severity == severity for finding in self.findings)
                  for severity in ("error", "warning", "info")}
        tally = ", ".join(f"{count} {severity}{'s' if count != 1 else ''}" for severity, count in counts.items())
        return plain_line(f"ContractEditor: {self.contract.name} · lint {tally}")

    def set(self, path: str, value: Any) -> tuple[str, ...]:
        """Put ``value`` (plain JSON, as the contract's document holds it) at the JSON ``path``
        (``budget.max_retries``, ``workspace.allowed_actions``, ``agents[0].role``), exactly as typing it would,
        and show it in the form. Returns the schema's refusal, one ``<path>: <message>`` a line, or ``()``."""
        return self._apply(path, value, typed=None)

    # --- the form ---------------------------------------------------------------------------------------------

    def _control(self, field: FormField) -> Any:
        layout = widgets.Layout(width=CONTROL_WIDTH)
        if field.kind == "count":
            control = widgets.IntText(layout=layout)
        elif field.kind == "choice":
            control = widgets.Dropdown(options=TRIGGER_TYPES, layout=layout)
        elif field.path == "name":
            control = widgets.Text(layout=layout)
        else:
            placeholder = {"lines": "one item a line", "agents": "role: responsibility, one agent a line"}
            control = widgets.Textarea(rows=TEXT_ROWS[field.kind], placeholder=placeholder.get(field.kind, ""),
                                       layout=layout)
        control.observe(lambda change: self._typed(field, change["new"]), names="value")
        return control

    def _row(self, field: FormField) -> Any:
        label = shown(field.key.replace("_", " "))
        return widgets.HBox([widgets.HTML(label, layout=widgets.Layout(width=LABEL_WIDTH, flex="none")),
                             self.controls[field.path], self.notes[field.path]])

    def _phases(self) -> list[Any]:
        """A heading per phase, then each part: its fields, under its name when it has several."""
        rows: list[Any] = []
        for title, parts in PHASES:
            rows.append(widgets.HTML(f'<h3 style="margin:14px 0 4px">{shown(title)}</h3>'))
            for part in parts:
                fields = [field for field in FORM_FIELDS if field.part == part]
                if part in SHARED_PARTS:
                    rows.append(widgets.HBox([widgets.HTML(f"<b>{shown(part)}</b>", layout=widgets.Layout(
                        width=LABEL_WIDTH, flex="none")), self.notes[part]]))
                rows += [self._row(field) for field in fields]
        return rows

    def _actions(self) -> Any:
        heading = '<h3 style="margin:14px 0 4px">{}</h3>'.format
        return widgets.VBox([
            widgets.HTML(heading("Failure injection")),
            widgets.HBox([self.scenario, self.simulate_button]), self.allow_lint_errors, self.trace,
            widgets.HTML(heading("Reviewers' expectations")),
            widgets.HBox([self.expect_path, self.expect_button, self.grade_button]), self.grades,
            widgets.HTML(heading("Files")),
            widgets.HBox([self.path, self.save_json_button, self.save_yaml_button, self.packet_button]),
            self.force, self.status,
        ])

    # --- edits ------------------------------------------------------------------------------------------------

    def _typed(self, field: FormField, typed: Any) -> None:
        if self._syncing:
            return
        value, unreadable = typed_value(field, typed)
        if unreadable:
            self._settle(field.path, {field.path: (f"{field.path}: {unreadable}",)})
            self._redraw()
        else:
            self._apply(field.path, value, typed=field)

    def _apply(self, path: str, value: Any, typed: FormField | None) -> tuple[str, ...]:
        """The one way an edit reaches ``contract``: put into its document, validated whole, kept or refused."""
        document = self.contract.to_document()
        problem = with_value(document, path, value)
        issues: tuple[str, ...] = (f"{path}: {problem}",) if problem else ()
        if not problem:
            try:
                contract = LoopContract.from_document(document)
            except LoopContractError as refused:
                issues = refused.issues
        refusals: dict[str, tuple[str, ...]] = {}
        for issue in issues:  # "<json path>: <message>"
            place = place_of(issue.split(":", 1)[0])
            refusals[place] = (*refusals.get(place, ()), issue)
        self._settle(path, refusals)
        if not issues:
            self.contract = contract
            self.findings = lint_contract(contract)
            self._offer_scenarios()
            self._resimulate()
            document = contract.to_document()
        self._show([field for field in fields_at(path) if field != typed], document)
        self._redraw()
        return issues

    def _settle(self, path: str, refusals: dict[str, tuple[str, ...]]) -> None:
        """Forget what was refused where ``path`` was edited again, and remember this edit's refusals."""
        place = place_of(path)
        for old in [old for old in self._refused if old == place or old.startswith(place + ".")]:
            del self._refused[old]
        self._refused.update(refusals)

    def _show(self, fields: Iterable[FormField], document: dict[str, Any]) -> None:
        """Put each field's value in ``document`` in its control, unless a control of its kind cannot show it."""
        self._syncing = True
        try:
            for field in fields:
                shown_value = control_value(field, _value_at(document, field))
                if shown_value is not None:
                    self.controls[field.path].value = shown_value
        finally:
            self._syncing = False

    # --- what is drawn ----------------------------------------------------------------------------------------

    def _redraw(self) -> None:
        """Every note and the summary, from ``findings`` and what was refused where."""
        beside: dict[str, list[Finding]] = {}
        for finding in self.findings:
            beside.setdefault(place_of(finding.path), []).append(finding)
        document = self.contract.to_document()
        for place, note in self.notes.items():
            refused, field = self._refused.get(place, ()), FIELDS.get(place)
            kept = control_value(field, _value_at(document, field)) if refused and field else None
            note.value = _note_html(refused, beside.get(place, ()), place, kept)
        counts = dict.fromkeys(TONES, 0)
        for finding in self.findings:
            counts[finding.severity] += 1
        tally = " ".join(badge(f"{count} {severity}{'s' if count != 1 else ''}", TONES[severity] if count else "ok")
                         for severity, count in counts.items())
        places = len(self._refused)
        refusals = (f' {badge(f"{places} edit refused" if places == 1 else f"{places} edits refused", REFUSED)} '
                    '<span class="muted">the contract keeps its last valid value there</span>' if places else "")
        self.summary.value = (f'{STYLE}<div class="alp"><b>Loop contract</b> <code>{shown(self.contract.name)}</code>'
                              f" · lint {tally}{refusals}"
                              f"{_note_html(self._refused.get(WHOLE, ()), beside.get(WHOLE, ()), WHOLE)}</div>")

    def _offer_scenarios(self) -> None:
        """The derived scenarios follow the contract; the chosen one stays chosen while the contract still has it."""
        names, chosen = _scenario_names(self.contract), self.scenario.value
        if names != tuple(self.scenario.options):
            self.scenario.options = names
            self.scenario.value = chosen if chosen in names else names[0]
            if chosen not in names:
                self.simulation, self.trace.value = None, ""

    def _resimulate(self) -> None:
        """Redo what is shown after a change: the trace and the grades follow the contract as it stands."""
        if self.trace.value:
            self._simulate()
        if self.grades.value:
            self._grade()

    def _simulate(self) -> None:
        try:
            self.simulation = simulate(self.contract, self.scenario.value,
                                       allow_lint_errors=self.allow_lint_errors.value)
            (graded,) = grade(self.contract, [self.simulation], self.expectations, self._known())
        except AlpError as refused:
            self.simulation = None
            self.trace.value = _refusal(refused)
            return
        self.trace.value = block(trace_fragment(self.simulation, graded))

    def _grade(self) -> None:
        """Every scenario and every derived firing's items, graded by the expectations, disagreements first."""
        allowed = self.allow_lint_errors.value
        try:
            runs = [simulate(self.contract, scenario, allow_lint_errors=allowed)
                    for scenario in scenarios_for(self.contract)]
            runs += [run for firing in firings_for(self.contract)
                     for run in simulate_firing(self.contract, firing, allow_lint_errors=allowed).runs]
            self.graded = grade(self.contract, runs, self.expectations, self._known())
        except AlpError as refused:
            self.graded = None
            self.grades.value = _refusal(refused)
            return
        self.grades.value = block(grades_fragment(self.graded))

    def _load_expectations(self) -> None:
        typed = self.expect_path.value.strip()
        try:
            self.expectations = Expectations.load(Path(typed).expanduser())
        except AlpError as refused:
            self._say("refused", refused.message)
            return
        self._say("loaded", f"{len(self.expectations.expectations)} expectation(s) from {typed}")
        self._resimulate()

    def _known(self) -> tuple[str, ...]:
        return scenario_names(self.contract)

    # --- files ------------------------------------------------------------------------------------------------

    def _dump(self, target: Path) -> None:
        self.contract.dump(target)

    def _packet(self, target: Path) -> None:
        document = review_packet_markdown if target.suffix.lower() in MARKDOWN_SUFFIXES else review_packet
        write_contract_file(target, document(self.contract, expectations=self.expectations))

    def _save(self, suffixes: tuple[str, ...], write: Callable[[Path], None], what: str) -> None:
        """Write ``what`` to the path typed (with one of ``suffixes``), refusing an existing file without ``force``,
        as ``alp-nb contract packet`` does."""
        typed = self.path.value.strip()
        try:
            path = Path(typed).expanduser()
            target = path if path.suffix.lower() in suffixes else path.with_suffix(suffixes[0])
        except ValueError:  # "", "/" or "." have no name to give a suffix
            self._say("refused", f"type a file name to write {what} to")
            return
        if os.path.lexists(target) and not self.force.value:
            self._say("refused", f"{target} already exists; tick “replace an existing file” to overwrite it")
            return
        try:
            write(target)
        except AlpError as refused:
            self._say("refused", refused.message)
            return
        self._say("wrote", f"{what} to {target}")

    def _say(self, verdict: str, message: str) -> None:
        self.status.value = (f'{STYLE}<div class="alp">{badge(verdict, REFUSED if verdict == "refused" else "ok")} '
                             f"{shown(message, 400)}</div>")


def _value_at(document: dict[str, Any], field: FormField) -> Any:
    value: Any = document
    for step in field.path.split("."):
        value = value.get(step) if isinstance(value, dict) else None
    return value


def _refusal(refused: AlpError) -> str:
    """What stands where a trace or the grades would: the refusal and its first reasons, never an outcome."""
    issues = refused.issues if isinstance(refused, LoopContractError) else ()
    headline = refused.headline if isinstance(refused, LoopContractError) else refused.message
    lines = "".join(f"<div>{shown(issue, 200)}</div>" for issue in issues[:3])
    more = f'<div class="muted">+{len(issues) - 3} more</div>' if len(issues) > 3 else ""
    return f'<div class="alp">{badge("refused", REFUSED)} {shown(headline, 400)}{lines}{more}</div>'


def _note_html(refusals: Iterable[str], findings: Iterable[Finding], place: str, kept: Any = None) -> str:
    """A place's refusals (the schema's words, and what the contract keeps instead), then its findings: rule, where
    within the field (``item 2 · role`` for ``agents[1].role``) and message; the fix is the line's tooltip."""
    lines = []
    for issue in refusals:  # "<json path>: <message>"
        path, _, message = issue.partition(": ")
        lines.append(f'<div>{badge("refused", REFUSED)} {_where(path, place)}{shown(message, 300)}</div>')
    if kept is not None:
        lines.append(f'<div class="muted">the contract keeps: {shown(str(kept).replace(chr(10), "; "), 100)}</div>')
    lines += [f'<div title="fix: {shown(finding.hint, 300)}{_looked_for(finding)}">'
              f"{badge(finding.rule, TONES[finding.severity])} {_where(finding.path, place)}"
              f"{shown(finding.message, 300)}</div>" for finding in findings]
    return f'<div class="alp" style="margin-left:8px">{"".join(lines)}</div>' if lines else ""


def _looked_for(finding: Finding) -> str:
    return f"; looked for: {shown(finding.looked_for, 600)}" if finding.looked_for else ""


def _where(path: str, place: str) -> str:
    """Where in its place a finding is: the item of a list (counted from 1) and the key in it; the whole path
    beside the summary."""
    if place == WHOLE:
        return "" if path == WHOLE else f"<code>{shown(path)}</code> "
    steps = path_steps(path[len(place):]) or ()
    words = [f"item {step + 1}" if isinstance(step, int) else step for step in steps]
    return f'<span class="muted">{shown(" · ".join(words))}:</span> ' if words else ""


def _scenario_names(contract: LoopContract) -> tuple[str, ...]:
    return tuple(scenario.name for scenario in scenarios_for(contract))
