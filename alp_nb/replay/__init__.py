"""The replay layer: runs read after the fact, with no server and nothing run again. ``load_run`` gives a
``RunRecord`` (the caught-up snapshot, status with ``interrupted``, the failure reason, usage, attempts, output,
events on demand, and the journal as one pandas DataFrame, s16 runs' labels and phases recovered from their
snapshot); ``list_runs`` a DataFrame of every run in a store (``run_rows`` the same rows without pandas).

Every public name is listed below and imported on first use (see ``alp_nb.base.lazy``); pandas is imported only
when a record or a list is made.
"""

from typing import TYPE_CHECKING

from alp_nb.base.lazy import lazy_exports

if TYPE_CHECKING:
    from .compare import (
        COMPARISON_COLUMNS as COMPARISON_COLUMNS,
        RunComparison as RunComparison,
        compare_runs as compare_runs,
    )
    from .errors import REPLAY_ERROR_CODES as REPLAY_ERROR_CODES, ReplayError as ReplayError
    from .follow import RunFollower as RunFollower
    from .forks import fork_run as fork_run
    from .listing import (
        RUN_LIST_COLUMNS as RUN_LIST_COLUMNS,
        RunRow as RunRow,
        list_runs as list_runs,
        run_rows as run_rows,
    )
    from .locate import record_of as record_of, timeline_of as timeline_of
    from .plan import ResumePlan as ResumePlan, plan_resume as plan_resume
    from .record import JOURNAL_COLUMNS as JOURNAL_COLUMNS, RunRecord as RunRecord, load_run as load_run
    from .run_calls import RunCall as RunCall, RunCalls as RunCalls
    from .session import Divergence as Divergence, ReplayCall as ReplayCall, ReplaySession as ReplaySession
    from .timeline import (
        CALL_OUTCOMES as CALL_OUTCOMES,
        AttemptStart as AttemptStart,
        CallSpan as CallSpan,
        PhaseTokens as PhaseTokens,
        Timeline as Timeline,
    )

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
