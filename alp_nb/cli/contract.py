"""``alp-nb contract``: lint, simulate, learn from receipts, diff, export, draw, hand out and draft loop contracts.

A contract's text, its findings and the paths named on the command line are printed through ``viz.terminal``
(control characters escaped, one value on one line); JSON is printed as JSON.
"""

from __future__ import annotations

import argparse
import os
from datetime import date
from pathlib import Path

from alp_nb.loops.injection_names import INJECTION_NAMES
from alp_nb.viz.terminal import print_json, print_lines


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb contract ...`` commands to their group's parser."""
    contract = group.add_subparsers(title="contract commands")

    lint = contract.add_parser("lint", help="check contracts against the schema and the lint rules; exit 1 on errors, "
                               "2 when a file cannot be read")
    lint.add_argument("files", nargs="+", metavar="FILE", help="contract files (.json, .yaml, .yml)")
    lint.add_argument("--format", choices=("text", "json"), default="text")
    lint.add_argument("--ignore", action="append", default=[], metavar="RULE",
                      help="switch a rule off (repeatable, or comma-separated: LC105,LC110)")
    _today_option(lint)
    lint.set_defaults(handler=_lint)

    names = ", ".join(INJECTION_NAMES)
    run = contract.add_parser("simulate", help="walk a contract through its scenarios (the failure injections, those "
                              "derived from its own fields, whole firings) and print each trace; with --expect, grade "
                              "each by a review file and exit 1 on a disagreement")
    run.add_argument("file", metavar="FILE")
    run.add_argument("--scenario", default="all", metavar="NAME",
                     help=f"all (default), or one of: {names}; one derived from the contract (escalation-condition-N, "
                          "approval-N-approves, disallowed-action-N, retry-budget, runtime-budget, token-budget, "
                          "over-cap-KIND); or a derived firing (night-cap-KIND)")
    run.add_argument("--expect", metavar="REVIEW_FILE",
                     help="a review file (YAML or JSON) of the outcomes reviewers expect: each run is graded agree, "
                          "disagree or not stated")
    run.add_argument("--allow-lint-errors", action="store_true",
                     help="simulate a contract that has lint errors; every outcome is then provisional")
    run.add_argument("--receipts", metavar="OUT", help="also write every step's receipt as JSON lines, for `learn`")
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.set_defaults(handler=_simulate)

    learn = contract.add_parser("learn", help="fold receipt logs (JSON lines, from `simulate --receipts` or real "
                                "runs) back into findings about the contract")
    learn.add_argument("file", metavar="CONTRACT")
    learn.add_argument("receipts", nargs="+", metavar="RECEIPTS")
    learn.add_argument("--format", choices=("text", "json"), default="text")
    learn.set_defaults(handler=_learn)

    diff = contract.add_parser("diff", help="two versions of a contract: changed fields, who must sign again, lint "
                               "findings that came or went, scenarios that end differently; exit 1 when they differ")
    diff.add_argument("old", metavar="OLD")
    diff.add_argument("new", metavar="NEW")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    _today_option(diff)
    diff.set_defaults(handler=_diff)

    export = contract.add_parser("export", help="write the contract as the public schema holds it, naming every "
                                 "field of alp_nb's extension the export drops")
    export.add_argument("file", metavar="FILE")
    export.add_argument("-o", "--output", required=True, metavar="OUT", help=".json or .yaml; refused if it exists, "
                        "unless --force")
    export.add_argument("--force", action="store_true", help="replace an existing output file (never the contract)")
    export.set_defaults(handler=_export)

    flow = contract.add_parser("flow", help="draw one run of a contract: trigger, intake, attempt, verify, decide "
                               "and the five outcomes, in the contract's words")
    flow.add_argument("file", metavar="FILE")
    flow.add_argument("--format", choices=("text", "svg", "mermaid"), default="text",
                      help="text (default), an SVG document, or a Mermaid flowchart")
    flow.set_defaults(handler=_flow)

    packet = contract.add_parser("packet", help="write the review packet (HTML, or Markdown for a .md file); an "
                                 "existing file is replaced only with --force, and never the contract itself")
    packet.add_argument("file", metavar="FILE")
    packet.add_argument("-o", "--output", required=True, metavar="PACKET",
                        help="packet.html or packet.md; refused if it exists, unless --force")
    packet.add_argument("--expect", metavar="REVIEW_FILE", help="grade the simulations by this review file")
    packet.add_argument("--receipts", nargs="+", default=[], metavar="RECEIPTS",
                        help="add what these receipt logs teach (as `learn` does)")
    packet.add_argument("--force", action="store_true",
                        help="replace an existing output file (never the contract under review)")
    _today_option(packet)
    packet.set_defaults(handler=_packet)

    new = contract.add_parser("new", help="a blank contract template to fill in (fails lint until answered)")
    new.add_argument("name", metavar="NAME")
    new.add_argument("-o", "--output", metavar="FILE", help="write it here (.json or .yaml) instead of printing")
    new.set_defaults(handler=_new)


def _today_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--today", type=date.fromisoformat, metavar="YYYY-MM-DD",
                        help="the day LC019 judges a review overdue on (default: today)")


def _lint(args: argparse.Namespace) -> int:
    from alp_nb.loops.lint import lint_contract
    from alp_nb.loops.loop_contract import read_contract_document

    ignore = [rule for value in args.ignore for rule in value.split(",") if rule.strip()]
    documents = [(file, read_contract_document(file)) for file in args.files]  # unreadable: bad input, exit 2
    results = [{"file": file, "findings": [finding.model_dump() for finding in lint_contract(document, ignore,
                                                                                             today=args.today)]}
               for file, document in documents]
    errors = sum(finding["severity"] == "error" for result in results for finding in result["findings"])
    if args.format == "json":
        print_json({"files": results, "errors": errors})
    else:
        for result in results:
            for finding in result["findings"]:
                print_lines(f"{result['file']}:{finding['path']}: {finding['severity']} {finding['rule']} "
                            f"{finding['message']}", f"    fix: {finding['hint']}")
        total = sum(len(result["findings"]) for result in results)
        print_lines(f"{len(results)} file(s), {total} finding(s), {errors} error(s)")
    return 1 if errors else 0


def _simulate(args: argparse.Namespace) -> int:
    """Exit 0 unless a reviewer's expectation disagrees with a run (1); no review file, nothing to disagree with."""
    from alp_nb.loops.expectations import Expectations, grade
    from alp_nb.loops.firing import simulate_firing
    from alp_nb.loops.injections import firings_for, scenario_names, scenarios_for
    from alp_nb.loops.loop_contract import LoopContract
    from alp_nb.loops.receipt_log import receipt_records, write_receipt_log
    from alp_nb.loops.simulator import Simulation, simulate
    from alp_nb.viz.views.simulation import grades_lines, simulation_lines

    contract = LoopContract.load(args.file)
    expectations = Expectations.load(args.expect) if args.expect else None
    allowed = args.allow_lint_errors
    firings = {firing.name: firing for firing in firings_for(contract)}
    if args.scenario == "all":
        nights = [simulate_firing(contract, firing, allow_lint_errors=allowed) for firing in firings.values()]
        runs = [simulate(contract, scenario, allow_lint_errors=allowed) for scenario in scenarios_for(contract)]
    elif args.scenario in firings:
        nights, runs = [simulate_firing(contract, args.scenario, allow_lint_errors=allowed)], []
    else:
        nights, runs = [], [simulate(contract, args.scenario, allow_lint_errors=allowed)]
    everything: list[Simulation] = [*runs, *(run for night in nights for run in night.runs)]
    grades = grade(contract, everything, expectations, known=scenario_names(contract))
    if args.receipts:
        write_receipt_log(args.receipts, [*(record for run in runs for record in receipt_records(run)),
                                          *(record for night in nights for record in receipt_records(night))])
    if args.format == "json":
        print_json({"runs": [run.model_dump(mode="json") for run in everything],
                    "grades": [{"scenario": each.scenario, "verdict": each.verdict, "differences": each.differences}
                               for each in grades]})
    else:
        verdicts = {each.scenario: each for each in grades}
        for run in everything:
            print_lines(*simulation_lines(run, verdicts.get(run.scenario.name)), "")
        derived = [run.scenario for run in everything if run.scenario.derived_from is not None]
        print_lines(f"{len(everything)} run(s); {len(derived)} derived from the contract: "
                    + (", ".join(f"{scenario.name} ({scenario.derived_from})" for scenario in derived) or "none"))
        if expectations is None:
            print_lines("reviewers: none graded (no review file): pass --expect REVIEW_FILE to grade each run")
        else:
            print_lines(f"reviewers ({args.expect}):", *grades_lines(grades))
        if args.receipts:
            print_lines(f"wrote the receipts to {args.receipts}")
    return 1 if grades.disagreements else 0


def _learn(args: argparse.Namespace) -> int:
    from alp_nb.loops.learn import learn_from_receipts
    from alp_nb.loops.loop_contract import LoopContract
    from alp_nb.loops.receipt_log import read_receipt_log
    from alp_nb.viz.views.contract_changes import learned_lines

    contract = LoopContract.load(args.file)
    records = [record for path in args.receipts for record in read_receipt_log(path)]
    learned = learn_from_receipts(contract, records)
    if args.format == "json":
        print_json([finding.model_dump(mode="json") for finding in learned])
    else:
        print_lines(f"{len(records)} receipt(s) from {len(args.receipts)} file(s); {len(learned)} finding(s)",
                    *learned_lines(learned))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from alp_nb.loops.contract_diff import diff_contracts
    from alp_nb.loops.loop_contract import LoopContract
    from alp_nb.viz.views.contract_changes import diff_lines

    difference = diff_contracts(LoopContract.load(args.old), LoopContract.load(args.new), today=args.today)
    if args.format == "json":
        print_json(difference.model_dump(mode="json"))
    else:
        print_lines(*diff_lines(difference))
    return 1 if difference.changed else 0


def _export(args: argparse.Namespace) -> int:
    from alp_nb.loops.errors import LoopContractError
    from alp_nb.loops.loop_contract import LoopContract

    output = Path(args.output)
    if _same_file(output, args.file):
        raise LoopContractError("PACKET_OVERWRITES_CONTRACT", f"{output} is the contract being exported; write the "
                                "export to another file")
    if not args.force:
        _refuse_existing(output, "choose another file, or pass --force to replace it")
    public, dropped = LoopContract.load(args.file).to_public()
    public.dump(output)
    print_lines(f"wrote {output}: the public schema's twelve parts",
                *([f"dropped {path}: {value}" for path, value in dropped] or ["nothing dropped"]))
    return 0


def _flow(args: argparse.Namespace) -> int:
    from alp_nb.loops.loop_contract import LoopContract
    from alp_nb.viz.pictures.contract_picture import contract_flow

    picture = contract_flow(LoopContract.load(args.file))
    drawn = {"text": picture.to_text, "svg": picture.to_svg, "mermaid": picture.to_mermaid}[args.format]()
    print_lines(*drawn.rstrip("\n").split("\n"))  # SVG and Mermaid are escaped already: each line prints as it is
    return 0


def _packet(args: argparse.Namespace) -> int:
    from alp_nb.loops.errors import LoopContractError
    from alp_nb.loops.expectations import Expectations
    from alp_nb.loops.learn import learn_from_receipts
    from alp_nb.loops.loop_contract import LoopContract, write_contract_file
    from alp_nb.loops.receipt_log import read_receipt_log
    from alp_nb.viz.views.packet_documents import review_packet, review_packet_markdown

    output = Path(args.output)
    if _same_file(output, args.file):
        raise LoopContractError("PACKET_OVERWRITES_CONTRACT",
                                f"{output} is the contract being reviewed; write the packet to another file")
    if not args.force:
        _refuse_existing(output, "choose another file, or pass --force to replace it")
    contract = LoopContract.load(args.file)
    expectations = Expectations.load(args.expect) if args.expect else None
    learned = learn_from_receipts(contract, [record for path in args.receipts for record in read_receipt_log(path)])
    markdown = output.suffix.lower() in (".md", ".markdown")
    document = (review_packet_markdown if markdown else review_packet)(contract, expectations=expectations,
                                                                       learned=learned, today=args.today)
    write_contract_file(output, document)
    print_lines(f"wrote {output}")
    return 0


def _new(args: argparse.Namespace) -> int:
    from alp_nb.loops.loop_contract import LoopContract

    template = LoopContract.template(args.name)
    if args.output is None:
        print_json(template.to_document())
        return 0
    output = Path(args.output)
    _refuse_existing(output, "choose another file")
    template.dump(output)
    print_lines(f"wrote {output}: answer every TODO: question, then `alp-nb contract lint {output}`")
    return 0


def _same_file(output: Path, source: str) -> bool:
    """Whether writing ``output`` would write over ``source``. ``realpath``, not ``Path.resolve``, which raises
    RuntimeError on a symlink loop (``ln -s loop loop``): the loop is then refused as any unwritable path is."""
    return os.path.realpath(output) == os.path.realpath(source)


def _refuse_existing(output: Path, advice: str) -> None:
    """``CONTRACT_EXISTS`` when anything is at ``output``, a dangling link included (``exists()`` follows it)."""
    from alp_nb.loops.errors import LoopContractError

    if os.path.lexists(output):
        raise LoopContractError("CONTRACT_EXISTS", f"{output} already exists; {advice}")
