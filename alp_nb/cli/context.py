"""``alp-nb context status``: where one execution stands, read from its files on disk.

The role, workflow and state ids come from those files and from agent files, so the lines are printed through
``viz.terminal``: a control character in them is shown, never obeyed.
"""

from __future__ import annotations

import argparse
import os

from alp_nb.agents import TrustStore, project_registry
from alp_nb.viz.terminal import print_lines
from alp_nb.viz.views.workflows import execution_status_lines
from alp_nb.workflow import ExecutionStore

from .errors import UsageError


def register(group: argparse.ArgumentParser) -> None:
    """Add the ``alp-nb context ...`` commands to their group's parser."""
    context = group.add_subparsers(title="context commands")
    status = context.add_parser("status", help="an execution's role, workflow state, status and tools now")
    status.add_argument("execution_id", nargs="?", help="exec_… (default: $ALP_DELEGATION_EXECUTION_ID)")
    status.add_argument("--root", help="executions folder (default: $ALP_EXECUTION_ROOT or ~/.alp/executions)")
    status.add_argument("--project", default=".", help="project whose trusted agents may own the execution")
    status.set_defaults(handler=_status)


def _status(args: argparse.Namespace) -> int:
    execution_id = args.execution_id or os.environ.get("ALP_DELEGATION_EXECUTION_ID")
    if not execution_id:
        raise UsageError("USAGE", "usage: alp-nb context status EXEC_ID (or set ALP_DELEGATION_EXECUTION_ID)")
    registry = project_registry(args.project, TrustStore(), candidates=True).registry  # by hash, not trust
    print_lines(*execution_status_lines(ExecutionStore(args.root).status(execution_id, registry)))
    return 0
