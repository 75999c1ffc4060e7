"""Helpers for the runtime tests: small registries of workflows and runners that count or fail.

Also runnable as a script (the crash-safety and command-line tests start it in a subprocess):
``python runtime_support.py STORE launch|resume|hold|block [RUN_ID]``, ``python runtime_support.py STORE die``
(review-changes killed as by ``kill -9`` after KILLED_AFTER journaled calls), ``python runtime_support.py STORE retry
[RUN_ID]`` (``checked`` under a budget of RETRY_BUDGET, hanging in its schema retry until killed) and
``python runtime_support.py STORE cli ARG...`` (``alp-nb ARG...`` with ``wait-once`` saved too).
"""

from __future__ import annotations

import asyncio
import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from journal_lines import journal_lines

from alp_nb.runtime import (
    DEFAULT_REGISTRY,
    MockAgentRunner,
    RunnerOutput,
    RunStore,
    WorkflowInputError,
    WorkflowRegistry,
    run_workflow,
)

CRASH_CALLS = 200
HANG_AFTER = 100
KILLED_AFTER = 4
RETRY_BUDGET = 50
RETRY_TOKENS = 20
KILL_BUDGET = 100
SLOW_CALLS, SLOW_SECONDS = 12, 0.1
MIXED_CALLS = 12
TOKENS_EACH = 10
SUPPORT = __file__
OK_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


REVIEW_CHANGES = {"changes": "rename parse() to load()"}
"""The args the replay, picture and viewer tests give ``review-changes``."""


def review(store, resume=None, runner=None):
    """``review-changes`` on REVIEW_CHANGES with the mock runner (or ``runner``), or the resume of run ``resume``."""
    return asyncio.run(run_workflow("review-changes", None if resume else REVIEW_CHANGES, resume, store=store,
                                    runner=MockAgentRunner() if runner is None else runner))


def launch(name, store, workflows=None, args=None, resume=None, **options):
    """Run (or resume) ``name`` from this module's registry, or ``workflows``, to completion."""
    workflows = registry() if workflows is None else workflows
    return asyncio.run(run_workflow(name, args, resume, store=store, registry=workflows, **options))


def journal_records(store, run_id, *, asks=False, kinds=None):
    """The journal's lines as parsed records, in file order, each answer with its call's fields (``journal_lines``);
    ask lines (said before each runner call) only with ``asks``; only lines of ``kinds`` when given."""
    records = journal_lines(store.paths(run_id).journal, asks=asks or kinds is not None)
    if kinds is not None:
        return [record for record in records if record.get("kind") in kinds]
    return records if asks else [record for record in records if record.get("kind") != "ask"]


V3_ASK_FIELDS = ("v", "seq", "key", "kind", "label", "phase", "attempts", "started")
V3_SPEND_FIELDS = ("v", "seq", "key", "kind", "label", "phase", "tokens", "attempts", "reason", "ended", "error",
                   "issues")


def as_v3_journal(store, run_id):
    """Rewrite ``run_id``'s journal as the v3 writer wrote it (each line saying all about its call, asks holding
    no prompt, 16-digit checksums), seq for seq; returns its records."""
    kept = {"ask": V3_ASK_FIELDS, "spend": V3_SPEND_FIELDS}
    records = [{name: record[name] for name in kept[record["kind"]] if name in record} if record["kind"] in kept
               else record for record in journal_records(store, run_id, asks=True)]
    records = [{**record, "v": 3} for record in records]
    store.paths(run_id).journal.write_text("".join(sealed_line(record) for record in records))
    return records


def as_legacy_run(store, run_id):
    """Rewrite ``run_id``'s snapshot as alp_nb wrote it before journal lines carried checksums (no ``sealedFrom``,
    ``errorCode`` or ``lastSeq``), so that its journal may hold legacy lines."""
    path = store.paths(run_id).snapshot
    data = json.loads(path.read_text())
    for key in ("sealedFrom", "errorCode"):
        data.pop(key, None)
    for attempt in data["attempts"]:
        attempt.pop("lastSeq", None)
    path.write_text(json.dumps(data, indent=2))


def sealed_line(record: dict[str, Any]) -> str:
    """``record`` as a journal line of its version, following the spec (not the runtime's code): the JSON text T of
    the record without ``sum`` (compact for ``v`` 3 and 4, spaced for ``v`` 2), then ``"sum": "<first hex digits
    of sha256(T)>"`` (12 for ``v`` 4, 16 before) appended as its last member in the same style."""
    body = {key: value for key, value in record.items() if key != "sum"}
    if record.get("v") == 2:
        text = json.dumps(body, ensure_ascii=False)
        return f'{text[:-1]}, "sum": "{hashlib.sha256(text.encode()).hexdigest()[:16]}"}}\n'
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    digits = 12 if record.get("v") == 4 else 16
    return f'{text[:-1]},"sum":"{hashlib.sha256(text.encode()).hexdigest()[:digits]}"}}\n'


def one_workflow(script, name: str = "wf", phases=()) -> WorkflowRegistry:
    """A registry holding ``script`` alone, saved as ``name``."""
    workflows = WorkflowRegistry()
    workflows.register({"name": name, "description": "test", "phases": list(phases)}, script)
    return workflows


async def asks_old_questions(ctx, args):
    """Four calls; ``asks_new_questions`` asks the same labels other prompts (a script rewritten since the run)."""
    return [await ctx.agent(f"old question {i}", label=f"q{i}") for i in range(4)]


async def asks_new_questions(ctx, args):
    return [await ctx.agent(f"new question {i}", label=f"q{i}") for i in range(4)]


async def fanout(ctx, args):
    count = args.get("calls", 5)
    values = await ctx.parallel([lambda i=i: ctx.agent(f"item {i}", label=f"item-{i}") for i in range(count)])
    return {"values": values}


async def staged(ctx, args):
    ctx.phase("Stage")

    async def first(_previous, item, index):
        return await ctx.agent(f"first {item}", label=f"first-{item}")

    async def second(previous, item, index):
        return f"{await ctx.agent(f'second {item} after {previous}', label=f'second-{item}')}#{index}"

    return await ctx.pipeline(args.get("items", ["a", "b", "c"]), first, second)


async def child(ctx, args):
    ctx.phase("Child")
    return await ctx.agent(f"child {args.get('topic', '')}", label="child-call")


async def parent(ctx, args):
    ctx.phase("Parent")
    own = await ctx.agent("parent call", label="parent-call")
    nested = await ctx.workflow("child", {"topic": "x"})
    return {"own": own, "nested": nested}


async def grandparent(ctx, args):
    return await ctx.workflow("parent", {})


async def sequence(ctx, args):
    return [await ctx.agent(f"step {i}", label=f"step-{i}") for i in range(args.get("calls", 3))]


async def twice(ctx, args):
    """The same call made ``times`` times, one after another."""
    return [await ctx.agent("same prompt", label="same") for _ in range(args.get("times", 2))]


async def checked(ctx, args):
    """One call whose answer must match OK_SCHEMA (the retry-crash test)."""
    return await ctx.agent("check it", schema=OK_SCHEMA, label="check")


async def crash(ctx, args):
    """CRASH_CALLS independent calls behind one barrier (the SIGKILL test)."""
    ctx.phase("Fan-out")
    values = await ctx.parallel([lambda i=i: ctx.agent(f"crash item {i}", label=f"crash-{i}")
                                 for i in range(CRASH_CALLS)])
    return {"values": values}


async def mixed(ctx, args):
    """MIXED_CALLS calls: half side by side in one phase, half one after another in the next (a run to kill
    at any instant, with calls asked and not yet answered in either)."""
    ctx.phase("Fan")
    half = MIXED_CALLS // 2
    fanned = await ctx.parallel([lambda i=i: ctx.agent(f"fan {i}", label=f"fan-{i}") for i in range(half)])
    ctx.phase("Chain")
    return fanned + [await ctx.agent(f"chain {i}", label=f"chain-{i}") for i in range(half)]


def registry() -> WorkflowRegistry:
    """Workflows exercising each primitive; every call's label says where it comes from."""
    workflows = WorkflowRegistry()
    for name, script, phases in (("fanout", fanout, ()), ("mixed", mixed, ("Fan", "Chain")),
                                 ("staged", staged, ("Stage",)), ("child", child, ()),
                                 ("parent", parent, ()), ("grandparent", grandparent, ()),
                                 ("sequence", sequence, ()), ("twice", twice, ()), ("crash", crash, ("Fan-out",)),
                                 ("checked", checked, ()),
                                 ("wait-once", wait_once, ("Wait",))):
        workflows.register({"name": name, "description": f"{name} test workflow", "phases": list(phases)}, script)
    return workflows


async def wait_once(ctx, args):
    """A run to interrupt: one call, then, the first time only (no ``args["marker"]`` file yet), it writes the
    marker and waits until it is stopped; then one more call."""
    ctx.phase("Wait")
    await ctx.agent("before the wait", label="before")
    marker = Path(args["marker"])
    if not marker.exists():
        marker.write_text("waiting")
        await asyncio.sleep(3600)
    return await ctx.agent("after the wait", label="after")


def interrupted_review(root: Path) -> RunStore:
    """A store holding one review-changes run whose process died (as by ``kill -9``) after KILLED_AFTER calls."""
    finished = subprocess.run([sys.executable, SUPPORT, str(root), "die"], check=False, capture_output=True)
    assert finished.returncode == 9, finished.stderr.decode()
    return RunStore(root)


class DiesAfter(MockAgentRunner):
    """The mock, until it has answered ``answers`` calls: then the process exits at once, as if killed."""

    def __init__(self, answers: int) -> None:
        super().__init__()
        self.answers = answers

    def run(self, prompt, schema=None, label=""):
        if len(self.calls) == self.answers:
            os._exit(9)  # no cleanup: the lock is freed by the OS, the snapshot stays "running"
        return super().run(prompt, schema, label)


class FailingRunner(MockAgentRunner):
    """The mock, except that the labels in ``fail`` raise."""

    def __init__(self, fail: set[str], **options: Any) -> None:
        super().__init__(**options)
        self.fail = fail

    def run(self, prompt, schema=None, label=""):
        if label in self.fail:
            self.calls.append(label)
            raise RuntimeError(f"runner broke on {label}")
        return super().run(prompt, schema, label)


class SiblingFailure:
    """Answers any label; ``broken`` raises after a moment; ``slow`` waits until that failure cancels it."""

    async def run(self, prompt, schema, label):
        if label == "slow":
            await asyncio.sleep(30)
        if label == "broken":
            await asyncio.sleep(0.01)
            raise RuntimeError("runner broke: <script>alert(1)</script>")
        return RunnerOutput({"answer": label}, 3)


def hostile_failure(store, text: str):
    """``wf`` run until it failed, its phase, label, prompt, value, a log line and its failure reason carrying
    ``text`` (markup, escapes...); the run and the registry holding ``wf``."""
    async def script(ctx, args):
        ctx.phase(text)
        await ctx.agent(f"prompt {text}", label=f"label {text}")
        ctx.log(text)
        await ctx.agent("second", label="boom")

    class Runner(MockAgentRunner):
        def run(self, prompt, schema=None, label=""):
            if label == "boom":
                raise RuntimeError(f"runner broke: {text}")
            return super().run(prompt, schema, label)

    workflows = one_workflow(script, phases=(text,))
    runner = Runner({f"label {text}": f"value {text}"})
    run = asyncio.run(run_workflow("wf", store=store, registry=workflows, runner=runner))
    assert run.status == "failed"
    return run, workflows


def run_script(store, script, runner, phases=(), **options):
    """``script`` saved as ``wf`` (with ``phases``) and run to its end with ``runner``."""
    workflows = WorkflowRegistry()
    workflows.register({"name": "wf", "description": "test", "phases": list(phases)}, script)
    return asyncio.run(run_workflow("wf", store=store, registry=workflows, runner=runner, **options))


class CountingRunner:
    """A runner whose every answer differs, as a real model's do: ``answer 1``, ``answer 2``, ..."""

    blocking = False

    def __init__(self) -> None:
        self.calls = 0

    def run(self, prompt, schema, label):
        self.calls += 1
        return RunnerOutput(f"answer {self.calls}", 1)


class YieldingRunner:
    """An async runner that yields to the loop before answering (as a network client does); labels in ``fail``
    raise."""

    def __init__(self, fail=(), tokens=10) -> None:
        self.calls: list[str] = []
        self.fail = set(fail)
        self.tokens = tokens

    async def run(self, prompt, schema, label):
        self.calls.append(label)
        await asyncio.sleep(0)
        if label in self.fail:
            raise RuntimeError(f"runner broke on {label}")
        return RunnerOutput(f"answer to {label}", self.tokens)


class ThreadRecordingRunner:
    """A plain sync runner (no ``blocking = False``): the runtime must call it in a worker thread."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def run(self, prompt, schema, label):
        import threading

        self.threads.append(threading.get_ident())
        return RunnerOutput(f"threaded {label}", 3)


class HangingRunner:
    """Answers the first ``after`` calls, then never answers (the process is killed while it waits)."""

    def __init__(self, after: int, marker: Path) -> None:
        self.after, self.marker, self.answered = after, marker, 0

    async def run(self, prompt, schema, label):
        if self.answered >= self.after:
            self.marker.write_text("hanging")
            await asyncio.sleep(3600)
        self.answered += 1
        return RunnerOutput(f"answer to {label}", 5)


class BlockingRunner:
    """A plain sync runner (so it runs in a thread) whose call writes ``marker`` and then blocks for an hour."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def run(self, prompt, schema, label):
        self.marker.write_text("blocking")
        time.sleep(3600)
        return RunnerOutput("too late", 1)


class HangsInRetry:
    """Answers a first prompt with output that breaks OK_SCHEMA (RETRY_TOKENS tokens), appending the tokens it hands
    back to ``ledger`` first; the retry writes ``marker`` and hangs until the process is killed."""

    def __init__(self, ledger: Path, marker: Path) -> None:
        self.ledger, self.marker = ledger, marker

    async def run(self, prompt, schema, label):
        if prompt.endswith("Return valid JSON."):
            self.marker.write_text("retrying")
            await asyncio.sleep(3600)
        with self.ledger.open("a") as ledger:
            ledger.write(f"{RETRY_TOKENS}\n")
        return RunnerOutput({"ok": "not a boolean"}, RETRY_TOKENS)


class HandsBackThenDies:
    """Answers one call (TOKENS_EACH tokens, logged to ``ledger`` first); the next call's answer is logged as handed
    back and then the process is killed (SIGKILL) before the runtime can journal it: every process loses one
    answer it paid for."""

    blocking = False

    def __init__(self, ledger: Path) -> None:
        self.ledger, self.answered = ledger, 0

    def run(self, prompt, schema, label):
        with self.ledger.open("a") as ledger:
            ledger.write(f"{TOKENS_EACH}\n")
        self.answered += 1
        if self.answered == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return RunnerOutput(f"answer to {label}", TOKENS_EACH)


class SlowRunner:
    """An async runner whose answers take from SLOW_SECONDS / 2 to 1.5 × SLOW_SECONDS, as a model's would (calls
    side by side end at different times)."""

    def __init__(self) -> None:
        self.asked = 0

    async def run(self, prompt, schema, label):
        self.asked += 1
        await asyncio.sleep(SLOW_SECONDS * (1 + self.asked % 3) / 2)
        return RunnerOutput(f"answer to {label}", 3)


class GatedRunner:
    """An async runner that answers its Nth call once the file ``go-N`` is in ``folder``: a test lets a run go
    one call at a time, whatever the machine's speed."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.asked = folder, 0

    async def run(self, prompt, schema, label):
        self.asked += 1
        while not (self.folder / f"go-{self.asked}").exists():
            await asyncio.sleep(0.005)
        return RunnerOutput(f"answer to {label}", 3)


class LoggingRunner(MockAgentRunner):
    """The mock, appending every label it is asked to a file (so another process can see the calls)."""

    def __init__(self, log: Path) -> None:
        super().__init__(tokens=5)
        self.log = log

    def run(self, prompt, schema=None, label=""):
        with self.log.open("a") as handle:
            handle.write(label + "\n")
        return RunnerOutput(f"answer to {label}", 5)


def fill_disk_after(folder: Path, room: int, kinds: list[str]) -> None:
    """From now on, in this process, writes to the store files under ``folder`` whose names end with one of
    ``kinds`` (``journal.jsonl``, ``json``, ``tmp``...) fail as on a full disk once ``room`` bytes were written."""
    real_write, written = os.write, [0]

    def write(fd, data):
        try:
            name = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            name = ""
        if name.startswith(str(folder)) and name.endswith(tuple(kinds)):
            if written[0] + len(data) > room:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written[0] += len(data)
        return real_write(fd, data)

    os.write = write


def _die(store, folder, argv):
    asyncio.run(run_workflow("review-changes", {"changes": "rename parse() to load()"}, store=store,
                             runner=DiesAfter(KILLED_AFTER)))


def _cli(store, folder, argv):
    from alp_nb.cli import main as cli

    DEFAULT_REGISTRY.register({"name": "wait-once", "description": "waits", "phases": ["Wait"]}, wait_once)
    sys.exit(cli(argv[2:]))


def _launch_then_hang(store, folder, argv):
    asyncio.run(run_workflow("crash", store=store, registry=registry(),
                             runner=HangingRunner(HANG_AFTER, folder / "hanging.marker")))


def _resume(store, folder, argv):
    run = asyncio.run(run_workflow("crash", None, argv[2], store=store, registry=registry(),
                                   runner=LoggingRunner(folder / "resume-calls.log")))
    print(json.dumps(run.to_json()))


def _block(store, folder, argv):
    asyncio.run(run_workflow("sequence", store=store, registry=registry(),
                             runner=BlockingRunner(folder / "blocking.marker")))


def _print_refusal(refusal: WorkflowInputError) -> None:
    print(json.dumps({"refused": {"code": refusal.code, "message": refusal.message}}))


def _retry(store, folder, argv):
    runner = HangsInRetry(folder / "handed-back.log", folder / "retrying.marker")
    resume = argv[2] if len(argv) > 2 else None
    try:
        run = asyncio.run(run_workflow("checked", None if resume else {"budget": RETRY_BUDGET}, resume,
                                       store=store, registry=registry(), runner=runner))
    except WorkflowInputError as refusal:
        _print_refusal(refusal)
        return
    print(json.dumps(run.to_json()))


def _hand_back(store, folder, argv):
    resume = argv[2] if len(argv) > 2 else None
    try:
        asyncio.run(run_workflow("sequence", None if resume else {"calls": 20, "budget": KILL_BUDGET}, resume,
                                 store=store, registry=registry(), runner=HandsBackThenDies(folder / "ledger")))
    except WorkflowInputError as refusal:
        _print_refusal(refusal)


def _full_disk(store, folder, argv):
    fill_disk_after(folder, int(argv[2]), argv[3].split(","))
    from alp_nb.cli import main as cli

    sys.exit(cli(argv[4:]))


def _slow(store, folder, argv):
    asyncio.run(run_workflow("sequence", {"calls": SLOW_CALLS}, store=store, registry=registry(),
                             runner=SlowRunner()))


def _gated(store, folder, argv):
    asyncio.run(run_workflow("sequence", {"calls": SLOW_CALLS}, store=store, registry=registry(),
                             runner=GatedRunner(folder)))


def _slow_mixed(store, folder, argv):
    asyncio.run(run_workflow("mixed", store=store, registry=registry(), runner=SlowRunner()))


def _hold(store, folder, argv):
    asyncio.run(run_workflow("crash", None, argv[2], store=store, registry=registry(),
                             runner=HangingRunner(0, folder / "holding.marker")))


MODES = {
    "die": _die,  # a review that dies after KILLED_AFTER calls
    "cli": _cli,  # `alp-nb ARG...` with wait-once registered
    "launch": _launch_then_hang,  # journal HANG_AFTER calls, then hang until killed
    "resume": _resume,
    "block": _block,  # a run stopped by Ctrl-C while its runner blocks in a thread
    "retry": _retry,  # launch (or resume) `checked`, killed by the test while its retry hangs
    "hand-back": _hand_back,  # `sequence` of 20 calls under a budget of KILL_BUDGET; loses an answer, then dies
    "full-disk": _full_disk,  # `alp-nb ARG...` on a disk that fills after BYTES bytes of the FILES named
    "slow": _slow,  # `sequence` of SLOW_CALLS calls, each answer SLOW_SECONDS in coming: a run to follow
    "gated": _gated,  # `sequence` of SLOW_CALLS calls, each answered once the test lets it (GatedRunner)
    "slow-mixed": _slow_mixed,  # `mixed`, each answer SLOW_SECONDS in coming: a run to kill at a random instant
    "hold": _hold,  # resume and hang on the first new call, holding the run's lock
}
"""What this file does when run as ``python runtime_support.py STORE MODE ARG...``."""


def main(argv: list[str]) -> None:
    MODES[argv[1]](RunStore(argv[0]), Path(argv[0]), argv)


if __name__ == "__main__":
    main(sys.argv[1:])
