"""One rendering path: core objects hold no display code; IPython shows them through the views viz registers."""

import base64
import re
import subprocess
import sys
from xml.etree import ElementTree

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.lib.pretty import pretty

import alp_nb
from alp_nb.viz import VizError, mimebundle, render
from alp_nb.viz.display import install
from alp_nb.viz.html import svg_as_images
from alp_nb.viz.rendering import VIEWS, formats_of, view_of


@pytest.fixture(scope="module")
def shell():
    shell = InteractiveShell.instance()
    install()
    yield shell
    InteractiveShell.clear_instance()


def test_no_core_class_carries_display_code():
    for qualified in VIEWS:
        module, _, name = qualified.rpartition(".")
        if module.startswith("alp_nb.viz."):  # the rendering layer's own pictures may show themselves
            continue
        cls = getattr(__import__(module, fromlist=[name]), name)
        assert not any(attribute.startswith("_repr_") and attribute != "__repr__" for attribute in vars(cls)), name


def test_a_notebook_shows_a_core_object_as_its_html_view_and_text_view(shell):
    registry = alp_nb.builtin_registry()
    data, _ = shell.display_formatter.format(registry)
    assert data["text/html"] == svg_as_images(render(registry, "html")) and "<table>" in data["text/html"]
    assert data["text/plain"] == render(registry, "text")


def test_pretty_printing_shows_the_text_view_once_installed():
    install()
    denied = alp_nb.PolicyEngine(alp_nb.builtin_registry()).authorize(
        {"type": "tool", "actor": "main", "tool": "Write"})
    assert pretty(denied) == "DENIED  TOOL_NOT_GRANTED: `Write` is not granted to `main`"


def test_importing_alp_nb_inside_ipython_registers_the_views_without_importing_the_core(tmp_path):
    code = ("import sys, IPython\nfrom IPython.lib.pretty import pretty\nimport alp_nb\n"
            "assert 'alp_nb.agents' not in sys.modules\n"
            "print(pretty(alp_nb.builtin_registry()).splitlines()[0])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert result.stdout.startswith("9 roles · principal → main")


def test_a_subclass_is_drawn_by_its_base_class_view():
    assert view_of(type(alp_nb.text_output("t"))) == VIEWS["alp_nb.agents.output_contract.OutputContract"]


def test_the_bundle_holds_every_displayable_format_and_plain_text():
    simulation = alp_nb.simulate(alp_nb.LoopContract.template("x"), "timeout", allow_lint_errors=True)
    assert formats_of(simulation) == ("html", "text", "markdown")
    assert set(mimebundle(simulation)) == {"text/html", "text/plain", "text/markdown"}


def test_render_refuses_an_unknown_format_or_an_object_with_no_view():
    with pytest.raises(VizError) as unknown:
        render(alp_nb.builtin_registry(), "pdf")  # type: ignore[arg-type]  # the refusal is what is tested
    assert unknown.value.code == "UNKNOWN_FORMAT"
    with pytest.raises(VizError) as no_view:
        render(object(), "html")
    assert (no_view.value.code, no_view.value.message) == ("NO_VIEW", "alp_nb draws no html view of object")


def test_a_notebook_gets_every_picture_as_an_image_so_an_untrusted_notebook_still_draws_it():
    registry = alp_nb.builtin_registry()
    html = mimebundle(registry)["text/html"]
    assert "<svg" not in html
    images = re.findall(r'<img alt="([^"]*)" src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)">', html)
    assert [alt for alt, _ in images] == ["Delegation"]
    drawn = base64.b64decode(images[0][1]).decode("utf-8")
    assert drawn == render(alp_nb.delegation_graph(registry), "svg")
    ElementTree.fromstring(drawn)  # a whole SVG document, as an image needs


def test_views_outside_a_notebook_keep_their_inline_svg():
    assert "<svg" in render(alp_nb.builtin_registry(), "html")
