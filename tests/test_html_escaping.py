"""Text from data on an HTML page: never markup, and never an invisible character that makes it read as another."""

from alp_nb.viz.html import esc
from alp_nb.viz.views.simulation import md


def test_markup_and_quotes_are_escaped():
    assert esc('<b onclick="x">&') == "&lt;b onclick=&quot;x&quot;&gt;&amp;"


def test_a_direction_override_or_zero_width_space_is_shown_not_obeyed():
    assert esc("abc\u202edef") == "abc\\u202edef"
    assert esc("a\u200bb") == "a\\u200bb"


def test_control_characters_are_shown_and_line_breaks_and_tabs_kept():
    assert esc("a\x1b[2Jb\tc\nd") == "a\\x1b[2Jb\tc\nd"


def test_markdown_text_shows_a_direction_override_too():
    assert md("name\u202etxt.exe") == "name\\\\u202etxt.exe"
