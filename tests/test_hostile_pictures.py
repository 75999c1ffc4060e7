"""Every registered picture built from hostile strings: markup, attribute breakouts, CDATA ends, direction and
zero-width characters, huge labels. Hypothesis mixes them into every text a picture kind's sample draws, and for
each format: the SVG is one well-formed XML document of known elements and attributes only, the HTML around it
holds no tag or attribute the strings brought, and the Mermaid text gives them no syntax. The kinds come from the
registry (``viz.gallery.PICTURES``), a test fixture's included, never from a list kept here."""

from __future__ import annotations

import pytest
from gallery_fixtures import FIXTURE_KIND
from hostile_text import CHECK, HOSTILE, assert_inert_mermaid, assert_safe_html, assert_safe_svg
from hypothesis import given

from alp_nb.viz import mimebundle, render
from alp_nb.viz.pictures.gallery import PICTURES
from alp_nb.viz.pictures.picture import Picture

KINDS = list(PICTURES)


def assert_every_format_is_safe(picture: Picture) -> None:
    assert_safe_svg(picture.to_svg())
    assert_safe_html(render(picture, "html"))
    if "mermaid" in picture.formats:
        assert_inert_mermaid(picture.to_mermaid())
    assert not [char for char in "\x1b\u202e" if char in mimebundle(picture)["text/plain"]]


@pytest.mark.parametrize("kind", KINDS, ids=[kind.name for kind in KINDS])
@CHECK
@given(text=HOSTILE)
def test_every_registered_picture_of_hostile_text_is_safe_in_every_format(kind, text):
    assert_every_format_is_safe(kind.sample(text))


def test_a_picture_kind_a_test_fixture_registers_is_among_those_the_hostile_test_draws():
    assert FIXTURE_KIND in [kind.name for kind in KINDS]
    assert {"delegation graph", "run timeline", "capability matrix", "contract flow"} <= {kind.name for kind in KINDS}
