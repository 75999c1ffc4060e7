"""``alp-nb contract``: lint, simulate, draw, hand out and draft loop contracts.

A contract's text, its findings and the paths named on the command line are printed through ``viz.terminal``
(control characters escaped, one value on one line); JSON is printed as JSON.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from alp_nb.loops.errors import LoopContractError
from alp_nb.loops.injections import FAILURE_INJECTIONS, scenarios_for
from alp_nb.loops.lint import lint_contract
from alp_nb.loops.loop_contract import LoopContract, read_contract_document, write_contract_file
from alp_nb.loops.simulator import simulate
from alp_nb.viz.contract_picture import contract_flow
from alp_nb.viz.packet_documents import review_packet, review_packet_markdown
from alp_nb.viz.simulation import simulation_lines
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
    lint.set_defaults(handler=_lint)

    names = ", ".join(FAILURE_INJECTIONS)
    run = contract.add_parser("simulate", help="walk a contract through a scenario (a failure injection, or one "
                              "derived from its own fields) and print the trace")
    run.add_argument("file", metavar="FILE")
    run.add_argument("--scenario", required=True, metavar="NAME",
                     help=f"one of: {names}; one derived from the contract (escalation-condition-N, "
                          "disallowed-action-N, retry-budget, runtime-budget, over-cap-KIND); or all")
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.set_defaults(handler=_simulate)

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
    packet.add_argument("--force", action="store_true",
                        help="replace an existing output file (never the contract under review)")
    packet.set_defaults(handler=_packet)

    new = contract.add_parser("new", help="a blank contract template to fill in (fails lint until answered)")
    new.add_argument("name", metavar="NAME")
    new.add_argument("-o", "--output", metavar="FILE", help="write it here (.json or .yaml) instead of printing")
    new.set_defaults(handler=_new)


def _lint(args: argparse.Namespace) -> int:
    ignore = [rule for value in args.ignore for rule in value.split(",") if rule.strip()]
    documents = [(file, read_contract_document(file)) for file in args.files]  # unreadable: bad input, exit 2
    results = [{"file": file, "findings": [finding.model_dump() for finding in lint_contract(document, ignore)]}
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
    """Exit 0 when every scenario ended as it expects, 1 otherwise (as ``lint`` exits 1 on errors)."""
    contract = LoopContract.load(args.file)
    scenarios = scenarios_for(contract) if args.scenario == "all" else (args.scenario,)
    runs = [simulate(contract, scenario) for scenario in scenarios]
    if args.format == "json":
        print_json([run.model_dump(mode="json") for run in runs])
    else:
        for run in runs:
            print_lines(*simulation_lines(run), "")
        derived = [run.scenario for run in runs if run.scenario.derived_from is not None]
        print_lines(f"{len(runs)} scenario(s), {sum(run.as_expected for run in runs)} as expected; "
                    f"{len(derived)} derived from the contract: "
                    + (", ".join(f"{scenario.name} ({scenario.derived_from})" for scenario in derived) or "none"))
    return 0 if all(run.as_expected for run in runs) else 1


def _flow(args: argparse.Namespace) -> int:
    picture = contract_flow(LoopContract.load(args.file))
    drawn = {"text": picture.to_text, "svg": picture.to_svg, "mermaid": picture.to_mermaid}[args.format]()
    print_lines(*drawn.rstrip("\n").split("\n"))  # SVG and Mermaid are escaped already: each line prints as it is
    return 0


def _packet(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if output.resolve() == Path(args.file).resolve():
        raise LoopContractError("PACKET_OVERWRITES_CONTRACT",
                                f"{output} is the contract being reviewed; write the packet to another file")
    if not args.force:
        _refuse_existing(output, "choose another file, or pass --force to replace it")
    contract = LoopContract.load(args.file)
    markdown = output.suffix.lower() in (".md", ".markdown")
    write_contract_file(output, (review_packet_markdown if markdown else review_packet)(contract))
    print_lines(f"wrote {output}")
    return 0


def _new(args: argparse.Namespace) -> int:
    template = LoopContract.template(args.name)
    if args.output is None:
        print_json(template.to_document())
        return 0
    output = Path(args.output)
    _refuse_existing(output, "choose another file")
    template.dump(output)
    print_lines(f"wrote {output}: answer every TODO: question, then `alp-nb contract lint {output}`")
    return 0


def _refuse_existing(output: Path, advice: str) -> None:
    """``CONTRACT_EXISTS`` when anything is at ``output``, a dangling link included (``exists()`` follows it)."""
    if os.path.lexists(output):
        raise LoopContractError("CONTRACT_EXISTS", f"{output} already exists; {advice}")
