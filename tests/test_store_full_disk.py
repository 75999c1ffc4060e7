"""A full disk ends a run in one line naming the file and "No space left on device", exit 2: the attempt is
recorded ``interrupted`` with that reason wherever the snapshot can still be written, the first error is never
hidden by one from closing the files, and a resume once there is room again finishes the run."""

from __future__ import annotations

import subprocess
import sys

import pytest
from runtime_support import SUPPORT

from alp_nb.cli import main
from alp_nb.runtime import RunStore

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/fd to find the store's files")
CHANGES = '{"changes": "rename parse() to load()"}'


def on_a_full_disk(store: RunStore, room: int, files: str, *command: str) -> subprocess.CompletedProcess[str]:
    """``alp-nb COMMAND --store STORE`` in a process whose writes to the store's ``files`` fail after ``room``
    bytes, as on a disk that fills up."""
    return subprocess.run([sys.executable, SUPPORT, str(store.root), "full-disk", str(room), files, *command,
                           "--store", str(store.root)], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("room", [0, 1_500, 5_000, 9_000])
def test_a_disk_that_fills_during_a_run_ends_it_in_one_line_and_exit_2(tmp_path, room):
    """The whole disk fills after ``room`` bytes: before the first snapshot, in the journal, at a phase's
    snapshot, near the end. Nothing is left half-written and the run (if it began) resumes once there is room."""
    store = RunStore(tmp_path / "runs")
    finished = on_a_full_disk(store, room, "jsonl,json,tmp,txt", "workflow", "run", "review-changes",
                              "--args", CHANGES)
    assert finished.returncode == 2, finished.stderr
    (line,) = finished.stderr.splitlines()
    assert line.startswith(f"alp-nb: cannot write run store file {store.root}/") and line.endswith(
        ": No space left on device")
    assert "Traceback" not in finished.stderr and "RuntimeError" not in finished.stderr
    if not store.run_ids():  # full before the run's first snapshot: no run, only a free lock file
        assert not list(store.root.glob("wf_*.json"))
        return
    (run_id,) = store.run_ids()
    assert store.snapshot(run_id).status == "interrupted"
    assert main(["workflow", "resume", run_id, "--store", str(store.root)]) == 0
    assert store.snapshot(run_id).status == "completed"


def test_when_only_the_journal_cannot_be_written_the_snapshot_says_interrupted_and_why(tmp_path, capsys):
    store = RunStore(tmp_path / "runs")
    finished = on_a_full_disk(store, 4_000, "journal.jsonl", "workflow", "run", "review-changes", "--args", CHANGES)
    assert finished.returncode == 2, finished.stderr
    (run_id,) = store.run_ids()
    reason = f"cannot write run store file {store.paths(run_id).journal}: No space left on device"
    assert finished.stderr == f"alp-nb: {reason}\n"
    snapshot = store.read_snapshot(run_id)
    assert (snapshot.status, snapshot.error, snapshot.error_code) == ("interrupted", reason, "STORE_INACCESSIBLE")
    assert snapshot.attempts[-1].status == "interrupted" and not store.paths(run_id).output.exists()
    assert main(["workflow", "resume", run_id, "--store", str(store.root)]) == 0
    assert store.snapshot(run_id).status == "completed"


@pytest.fixture
def small_disk(tmp_path):
    """A real 48 KiB tmpfs (where this process may mount one: root on Linux, as in CI), unmounted afterwards."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)], capture_output=True,
                          check=False)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip() or made.returncode}")
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_on_a_real_full_disk_a_run_stops_in_one_line_and_resumes_once_there_is_room(small_disk):
    store = RunStore(small_disk / "runs")
    changes = '{"changes": "' + "a long change description " * 200 + '"}'
    finished = subprocess.run([sys.executable, "-m", "alp_nb", "workflow", "run", "review-changes", "--args", changes,
                               "--store", str(store.root)], capture_output=True, text=True, timeout=60)
    assert finished.returncode == 2 and finished.stderr.endswith(": No space left on device\n"), finished.stderr
    assert len(finished.stderr.splitlines()) == 1
    subprocess.run(["mount", "-o", "remount,size=4m", str(small_disk)], check=True)
    (run_id,) = store.run_ids()
    resumed = subprocess.run([sys.executable, "-m", "alp_nb", "workflow", "resume", run_id, "--store",
                              str(store.root)], capture_output=True, text=True, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert store.snapshot(run_id).status == "completed"
