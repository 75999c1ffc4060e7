"""matplotlib draws only what its font has: a missing glyph is left out, never drawn as an empty box."""

import pytest

pytest.importorskip("matplotlib")

from alp_nb.viz.renderers.figure_text import drawable


def test_text_the_font_can_draw_is_kept_as_written():
    assert drawable("Phở reads $x$ — “quoted”") == "Phở reads $x$ — “quoted”"


def test_an_emoji_the_font_lacks_is_left_out_with_its_variation_selector_and_the_space_it_leaves():
    assert drawable("Worker 🛠️") == "Worker"
    assert drawable("a 🧵 b") == "a b"


def test_an_emoji_sequence_joined_by_zero_width_joiners_goes_as_a_whole():
    assert drawable("team 👩‍💻 lead") == "team lead"
