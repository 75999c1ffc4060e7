"""``alp-nb runs watch``: a run that another process is writing, followed in a terminal from its files alone until
it ends (exit 0 when it completes, 1 otherwise), a line per change in a log; a Ctrl-C stops the watching, never
the run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from runtime_support import SLOW_CALLS, SUPPORT

from alp_nb.cli import main
from alp_nb.runtime import RunStore

ALP_NB = str(Path(sys.executable).with_name("alp-nb"))


def writer(store: RunStore, mode: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen([sys.executable, SUPPORT, str(store.root), mode])
    deadline = time.monotonic() + 30
    while not store.run_ids():
        assert time.monotonic() < deadline and process.poll() is None, "the writer never started its run"
        time.sleep(0.02)
    return process, store.run_ids()[0]


def test_watch_follows_a_run_another_process_writes_to_its_end_a_line_per_change(tmp_path):
    """The writer answers its next call only once the watch has shown the last answer, so every change is seen
    and shown once, however slowly either process runs."""
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store, "gated")
    try:
        watch = subprocess.Popen([ALP_NB, "runs", "watch", "--store", str(store.root), "--interval", "0.05"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # the last run
        assert watch.stdout is not None
        out = []
        for line in watch.stdout:
            out.append(line.rstrip("\n"))
            if line.startswith("["):  # let the writer answer the call after those shown answered
                (store.root / f"go-{int(line.split('] ')[1].split('/')[0]) + 1}").touch()
        watch.wait(timeout=60)
    finally:
        process.wait(timeout=60)
    progress = [line for line in out if line.startswith("[")]
    assert watch.returncode == 0, out
    finished = [int(line.split("] ")[1].split("/")[0]) for line in progress]
    assert sorted(set(finished)) == list(range(SLOW_CALLS + 1)) and finished == sorted(finished), out
    assert len(progress) == len(set(progress)), out  # a line per change, never the same line twice
    assert progress[0].endswith("· running") and progress[-1].endswith("· completed")
    assert f"RUN        {run_id}" in out and "STATUS     completed" in out


def test_watch_of_a_run_whose_writer_dies_while_it_waits_ends_interrupted_with_exit_1(tmp_path, capsys):
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store, "launch")
    marker = store.root / "hanging.marker"
    while not marker.exists():
        time.sleep(0.02)
    watch = subprocess.Popen([ALP_NB, "runs", "watch", run_id, "--store", str(store.root), "--interval", "0.05"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = watch.stdout.readline()  # its first reading, while the writer still holds the run
    process.kill()
    process.wait(timeout=30)
    out, err = watch.communicate(timeout=60)
    assert watch.returncode == 1, first + out + err
    assert first.rstrip().endswith("· running") and err == ""
    assert out.splitlines()[0].endswith("· interrupted") and "STATUS     interrupted" in out.splitlines()


def test_ctrl_c_stops_the_watching_and_leaves_the_run_going(tmp_path):
    store = RunStore(tmp_path / "runs")
    process, run_id = writer(store, "launch")
    try:
        watch = subprocess.Popen([ALP_NB, "runs", "watch", run_id, "--store", str(store.root)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert watch.stdout.readline().rstrip().endswith("· running")  # its first reading: now it waits
        os.kill(watch.pid, signal.SIGINT)
        out, err = watch.communicate(timeout=30)
        assert watch.returncode == 130 and "Traceback" not in err, out + err
        assert out.splitlines()[-1] == f"stopped watching {run_id}; its run goes on"
        assert process.poll() is None and store.is_active(run_id)  # the run was never touched
    finally:
        process.kill()
        process.wait(timeout=30)


@pytest.mark.parametrize("interval", ["0", "-1", "nan", "inf", "1e308", "1e400", "0.001", "86401", "soon"])
def test_a_watch_interval_out_of_range_is_refused_at_the_flag_naming_the_range(tmp_path, capsys, interval):
    """A sleep of inf (or 1e308) raises OverflowError once the run is being watched; nan compares false with
    everything: each is refused before any run is read, as argparse refuses a bad flag (exit 2)."""
    with pytest.raises(SystemExit) as refused:
        main(["runs", "watch", "--store", str(tmp_path), "--interval", interval])
    err = capsys.readouterr().err
    assert refused.value.code == 2, err
    assert err.splitlines()[-1] == (f"alp-nb runs watch: error: argument --interval: must be a number of seconds "
                                    f"from 0.01 to 86,400, not {interval!r}")

