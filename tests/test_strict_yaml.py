"""Strict YAML: only the core schema's tags load, a mistyped core tag is a located error (never a crash),
and whatever ``dump_strict_yaml`` writes reads back unchanged."""

import pytest
from hypothesis import given, settings, strategies as st

from alp_nb.base.strict_yaml import dump_strict_yaml, load_strict_yaml


@pytest.mark.parametrize(("text", "value"), [
    ("a: !!str 12", "12"), ('a: !!int "12"', 12), ("a: !!float 1", 1.0), ("a: !!bool true", True),
    ('a: !!null ""', None), ("a: !!seq [x]", ["x"]), ("a: !!map {x: 1}", {"x": 1}),
    ("a: !<tag:yaml.org,2002:str> 0x1F", "0x1F"),
])
def test_the_core_schema_tags_load_as_json_types(text, value):
    assert load_strict_yaml(text) == ({"a": value}, None)


@pytest.mark.parametrize(("text", "shown"), [
    ("a: !!set {x: null}", "!!set"), ("a: !!binary aGVsbG8=", "!!binary"),
    ("a: !!timestamp 2026-01-01", "!!timestamp"), ("a: !!omap [{x: 1}]", "!!omap"), ("a: !!pairs [{x: 1}]", "!!pairs"),
    ("a: !!python/object:os.system x", "!!python/object:os.system"), ("a: !local 1", "!local"),
    ("a: ! 12", "!"),  # the non-specific tag: ruamel reads an int where YAML 1.2 says string
    ("%TAG !e! tag:yaml.org,2002:\n---\na: !e!set {x: null}", "!!set"),
])
def test_a_tag_outside_the_core_schema_is_refused(text, shown):
    document, problem = load_strict_yaml(text)
    assert document is None and problem.startswith(f"yaml: tag {shown} is not allowed")


def test_a_refused_tag_is_located_at_its_line_and_column():
    _, problem = load_strict_yaml("name: loop\nintake:\n  sources: !!set {feed: null}\n")
    assert problem.endswith("(line 3, column 12)")


@pytest.mark.parametrize("text", ["a: !!int 1:30", "a: !!int 1_000", "a: !!bool yes", "a: !!null nothing",
                                  'a: !!float "1e"', 'a: !!int "12\\n"'])
def test_a_core_tag_on_text_not_of_its_type_is_a_located_error_not_a_crash(text):
    document, problem = load_strict_yaml(text)
    assert document is None and problem.startswith("yaml: ") and problem.endswith("(line 1, column 4)")


@settings(max_examples=300, deadline=None)
@given(value=st.one_of(st.text(), st.from_regex(r"[-+.0-9eE_oxinfaINFAN:~nulTrueFals ]{0,8}", fullmatch=True)),
       key=st.text(min_size=1))
def test_any_text_dumped_reads_back_unchanged(value, key):
    document = {key: [value, {"text": value}]}
    assert load_strict_yaml(dump_strict_yaml(document)) == (document, None)
