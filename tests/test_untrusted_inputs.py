"""The base readers of untrusted input: no link is followed, no FIFO waited on, no document read unbounded."""

import os
import threading

import pytest
from ruamel.yaml import YAML

from alp_nb.base.safe_files import NOT_REGULAR, RefusedFile, check_not_link, open_regular, read_regular
from alp_nb.base.strict_yaml import load_strict_yaml
from alp_nb.base.untrusted_json import MAX_DEPTH, MAX_INT_DIGITS, UntrustedJson, loads_untrusted

# --- files ------------------------------------------------------------------------------------


def test_a_symlink_is_refused_and_its_target_is_neither_read_nor_written(tmp_path):
    outside = tmp_path / "outside.key"
    outside.write_text("secret\n")
    link = tmp_path / "store.jsonl"
    link.symlink_to(outside)
    with pytest.raises(RefusedFile, match="symbolic link"):
        read_regular(link)
    with pytest.raises(RefusedFile, match="symbolic link"):
        open_regular(link, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    assert outside.read_text() == "secret\n"


def test_a_dangling_symlink_is_refused_without_creating_its_target(tmp_path):
    link = tmp_path / "run.lock"
    link.symlink_to(tmp_path / "elsewhere" / "made")
    with pytest.raises(RefusedFile, match="symbolic link"):
        open_regular(link, os.O_RDWR | os.O_CREAT)
    assert not (tmp_path / "elsewhere").exists()


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    """Nothing ever opens the FIFO's other end, so an open that waited for it would wait for ever: the opens run in
    a thread, and the generous join only keeps a broken open from hanging the test (no time is measured)."""
    fifo = tmp_path / "contract.json"
    os.mkfifo(fifo)
    refused: list[str] = []

    def open_both_ways():
        for flags in (os.O_RDONLY, os.O_WRONLY):
            try:
                os.close(open_regular(fifo, flags))
            except RefusedFile as refusal:
                refused.append(refusal.problem)

    opener = threading.Thread(target=open_both_ways, daemon=True)
    opener.start()
    opener.join(timeout=60)
    waited = opener.is_alive()
    if waited:  # let the blocked open go: opened read-write, the FIFO has both ends
        os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))
        opener.join(timeout=60)
    assert not waited, "open_regular waited for the FIFO's other end"
    assert refused == [NOT_REGULAR, NOT_REGULAR]


def test_a_folder_or_a_device_is_not_a_regular_file(tmp_path):
    with pytest.raises(RefusedFile, match="not a regular file"):
        read_regular(tmp_path)
    with pytest.raises(RefusedFile, match="not a regular file"):
        read_regular("/dev/zero", limit=10)


def test_a_file_over_its_limit_is_refused(tmp_path):
    big = tmp_path / "agent.yaml"
    big.write_bytes(b"x" * 11)
    assert read_regular(big, limit=11) == b"x" * 11
    with pytest.raises(RefusedFile, match="over the 10 byte limit"):
        read_regular(big, limit=10)


def test_check_not_link_passes_a_missing_or_regular_file_and_refuses_a_link(tmp_path):
    check_not_link(tmp_path / "missing.json")
    (tmp_path / "real.json").write_text("{}")
    check_not_link(tmp_path / "real.json")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    with pytest.raises(RefusedFile, match="symbolic link"):
        check_not_link(tmp_path / "link.json")


# --- JSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "problem"), [
    ('{"a": 1, "a": 2}', 'repeated key "a"'),
    ("[NaN]", "NaN is not a JSON number"),
    ('{"x": -Infinity}', "-Infinity is not a JSON number"),
    ("[" * 5000 + "]" * 5000, f"nested more than {MAX_DEPTH} levels deep"),
    ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), f"nested more than {MAX_DEPTH} levels deep"),
    ("9" * 5000, f"an integer of 5000 digits, over the limit of {MAX_INT_DIGITS}"),
    ("[1,", "not JSON: Expecting value (line 1, column 4)"),
    (b"\xff{}", "not UTF-8 text (byte 0)"),
], ids=["repeated-key", "nan", "infinity", "deep", "one-too-deep", "huge-int", "torn", "binary"])
def test_untrusted_json_is_refused_with_one_clear_phrase(text, problem):
    with pytest.raises(UntrustedJson) as refused:
        loads_untrusted(text)
    assert str(refused.value) == problem


def test_untrusted_json_within_the_bounds_reads_as_json_does():
    arrays = MAX_DEPTH - 1  # and the object inside them makes MAX_DEPTH
    text = "[" * arrays + '{"n": -' + "9" * MAX_INT_DIGITS + "}" + "]" * arrays
    value = loads_untrusted(text)
    for _ in range(arrays):
        value = value[0]
    assert value == {"n": -int("9" * MAX_INT_DIGITS)}


# --- YAML -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "problem"), [
    ("[" * 100_000 + "]" * 100_000, f"yaml: nested more than {MAX_DEPTH} levels deep"),
    ("a:\n" + "".join("  " * level + "b:\n" for level in range(1, 200)),
     f"yaml: nested more than {MAX_DEPTH} levels deep (line 101, column 201)"),
    ("budget: " + "9" * 5000,
     f"yaml: an integer of 5000 digits, over the limit of {MAX_INT_DIGITS} (line 1, column 9)"),
], ids=["deep-flow", "deep-block", "huge-int"])
def test_strict_yaml_refuses_unbounded_documents_quickly(text, problem, monkeypatch):
    """Quickly, counted in work rather than timed: the refusal comes after at most the events of MAX_DEPTH levels
    (the parser is never run over a 100,000-deep document), and the document is never built."""
    pulled = []
    parse = YAML.parse

    def counted_parse(self, stream):
        for event in parse(self, stream):
            pulled.append(event)
            yield event

    def no_load(self, stream):
        pytest.fail("the refused document was built")

    monkeypatch.setattr(YAML, "parse", counted_parse)
    monkeypatch.setattr(YAML, "load", no_load)
    assert load_strict_yaml(text) == (None, problem)
    assert len(pulled) <= 2 * MAX_DEPTH + 8, f"{len(pulled)} parser events read before the refusal"


def test_strict_yaml_reads_a_long_quoted_number_as_the_text_it_is():
    assert load_strict_yaml(f"id: '{'9' * 5000}'\n") == ({"id": "9" * 5000}, None)
