"""Property tests: the journal reader, ``validate_meta`` and run ids never fail with anything but
WorkflowInputError, and nothing is ever written outside the store."""

from __future__ import annotations

import asyncio
import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st
from runtime_support import registry

from alp_nb.base.jsonline import line_encoder
from alp_nb.runtime import RunStore, WorkflowInputError, WorkflowMeta, read_journal, run_workflow, validate_meta

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
VALID_LINE = json.dumps({"key": "agent-" + "0" * 32, "value": 1}).encode() + b"\n"
line_pieces = st.one_of(
    st.binary(max_size=60),
    st.just(VALID_LINE),
    json_values.map(lambda value: json.dumps(value).encode() + b"\n"),
    st.builds(lambda key, value, tokens: json.dumps({"key": key, "value": value, "tokens": tokens}).encode() + b"\n",
              st.sampled_from(["agent-" + "a" * 32, "agent-0123456789", "agent-x", "../x"]), json_values,
              st.one_of(st.integers(), st.text(max_size=3))),
    st.just(b"[" * 5000 + b"\n"),
)
JOURNAL_REFUSALS = ("JOURNAL_CORRUPT", "JOURNAL_TAMPERED")
"""A malformed line, or lines that contradict each other (the same call with two values)."""


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


@FUZZ
@given(st.lists(line_pieces, max_size=8))
def test_journal_reader_returns_or_raises_workflow_input_error_only(pieces):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "x.journal.jsonl"
        path.write_bytes(b"".join(pieces))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                read = read_journal(path, keep_entries=True)
            except WorkflowInputError as error:
                assert error.code in JOURNAL_REFUSALS and "line" in error.message
                return
        assert read.good_bytes <= path.stat().st_size and len(read.entries) >= len(read.calls)


@FUZZ
@given(st.lists(line_pieces, max_size=6))
def test_resuming_from_a_fuzzed_journal_fails_cleanly_or_runs_and_stays_in_the_store(pieces):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        store = RunStore(root / "runs")
        first = asyncio.run(run_workflow("sequence", store=store, registry=registry()))
        store.paths(first.run_id).journal.write_bytes(b"".join(pieces))
        before = files_under(root)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                again = asyncio.run(run_workflow("sequence", None, first.run_id, store=store, registry=registry()))
            except WorkflowInputError as error:
                assert error.code in JOURNAL_REFUSALS
                assert files_under(root) == before
                return
        assert again.status in ("completed", "failed")
        assert all(store.root in path.parents for path in files_under(root) - before)


meta_values = st.one_of(
    json_values,
    st.fixed_dictionaries({}, optional={
        "name": st.one_of(st.text(max_size=70), st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,70}", fullmatch=True),
                          json_values),
        "description": st.one_of(st.text(max_size=5), json_values),
        "phases": st.one_of(st.lists(st.text(max_size=4), max_size=3), json_values),
        "extra": json_values,
    }),
)


@FUZZ
@given(meta_values)
def test_validate_meta_returns_a_meta_or_raises_invalid_meta(meta):
    try:
        checked = validate_meta(meta)
    except WorkflowInputError as error:
        assert error.code == "INVALID_META"
        return
    assert isinstance(checked, WorkflowMeta) and 1 <= len(checked.name) <= 64


@FUZZ
@given(st.one_of(st.text(max_size=90), st.from_regex(r"wf_[A-Za-z0-9._/-]{1,20}_[0-9a-f]{16}", fullmatch=True),
                 json_values.filter(lambda value: value is not None)))
def test_a_run_id_never_names_a_file_outside_the_store(run_id):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        store = RunStore(root / "runs")
        try:
            paths = store.paths(run_id)
        except WorkflowInputError as error:
            assert error.code == "INVALID_RUN_ID"
        else:
            for path in vars(paths).values():
                assert path.resolve().parent == store.root.resolve()
        try:
            asyncio.run(run_workflow("sequence", None, run_id, store=store, registry=registry()))
        except WorkflowInputError as error:
            assert error.code in ("INVALID_RUN_ID", "RUN_NOT_FOUND")
        assert files_under(root) == set()


@settings(max_examples=300, deadline=None)
@given(json_values, st.booleans(), st.booleans())
def test_the_hot_path_encoder_writes_exactly_what_json_dumps_writes(value, sort_keys, compact):
    separators = (",", ":") if compact else (", ", ": ")
    expected = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys, separators=separators)
    assert line_encoder(sort_keys=sort_keys, compact=compact)(value) == expected
