"""failure_signature: a failure reworded only in numbers, ids, paths or times is the same failure."""

import pytest

from alp_nb.loops.decision import failure_signature


@pytest.mark.parametrize(("first", "second"), [
    ("FAILED tests/test_api.py::test_list line 42: expected 200, got 500",
     "FAILED tests/test_api.py::test_list line 57: expected 201, got 503"),
    ("build 8e3f2a1c9d failed at 2026-01-01T08:02:11Z", "build 0a77b3c4e2 failed at 2026-03-09 17:45:03+02:00"),
    ("segfault at 0x7ffd3a2b while loading /tmp/pytest-of-ci/pytest-12/lib.so",
     "segfault at 0x1000ff while loading /tmp/pytest-of-ci/pytest-99/lib.so"),
    ("request 123e4567-e89b-12d3-a456-426614174000 timed out after 30.5s",
     "request 00000000-1111-2222-3333-444444444444 timed out after 31s"),
    ("worker killed at 08:03:12", "worker killed at 23:59:59.125"),
    ("cannot open C:\\build\\out\\x.log", "cannot open C:\\ci\\tmp\\y.log"),
    ("ImportError  in  ./src/app/main.py", "importerror in ../vendor/app/main.py"),
    ("cannot remove tmp_8e3f2a1c9d: busy", "cannot remove tmp_0b77a3c4e2: busy"),
    ("lock deadbeefcafe held by worker", "lock facadebeef held by worker"),
    ("worker killed at Thu, 01 Jan 2026 08:02:11 GMT", "worker killed at Mon, 9 March 2026 17:45:03 GMT"),
    ("worker killed at Tue Feb 17 08:02:11 2026", "worker killed at Sat Dec  5 23:59:59 2026"),
], ids=["numbers", "hex-and-timestamp", "address-and-path", "uuid-and-duration", "time", "windows-path", "case-space",
        "hex-after-underscore", "digit-free-hex", "rfc-2822-date", "ctime-date"])
def test_rewording_in_incidental_parts_keeps_the_signature(first, second):
    assert failure_signature(first) == failure_signature(second)


@pytest.mark.parametrize(("first", "second"), [
    ("FAILED test_list: expected 200, got 500", "FAILED test_list: KeyError 'cursor'"),
    ("ImportError: no module named yaml", "ImportError: no module named toml"),
    ("check pass/fail mismatch", "check pass/skip mismatch"),
    ("the cache may be stale", "the cache must be stale"),
    ("deploy blocked: defaced page", "deploy blocked: deleted page"),
], ids=["other-error", "other-module", "prose-slash-is-not-a-path", "month-word-is-prose", "short-hex-word-is-prose"])
def test_a_different_failure_has_a_different_signature(first, second):
    assert failure_signature(first) != failure_signature(second)


def test_the_signature_keeps_the_words_that_identify_the_failure():
    assert failure_signature("FAILED tests/test_api.py::test_list line 42") == "failed <path>::test_list line <n>"
