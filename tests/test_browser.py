"""The notebooks in a real browser: JupyterLab in headless Chromium (Debian's ``/usr/bin/chromium``, driven by
Playwright; never ``playwright install``) runs every cell of a notebook through Run > Run All Cells and no cell
ends in an error; the ``WorkflowStepper`` of notebook 02 and the ``RunViewer`` of notebook 05 answer a click in
the page by redrawing what they show, and the viewer keeps its cursor in view in a narrow window. An exported run
page (``export_run``: the one notebook 05 writes, and one made here) is opened as a person opens a file sent to
them, a ``file://`` URL: it asks for nothing but itself, its script runs with no error, and its filters narrow the
call table.

A gallery notebook is written here from the registries (``viz.gallery.PICTURES``, ``widgets.gallery.WIDGETS``),
so every registered picture and widget, a test fixture's included, is shown in JupyterLab and must draw; then the
delegation graph of a project of forty custom agents and the timeline of a 2,000-call run, at 1,000 px (the file
browser closed) and 1,400 px (open), are measured in the page: no output runs past its column, no text of a
picture is under 9 px as shown, and no label runs out of its box.

One throw-away JupyterLab serves the whole module: on 127.0.0.1, an OS-chosen port, a token, and its config, data,
runtime, settings and workspace folders (and ``$HOME``) in a temp folder. The notebooks are copied there with their
outputs stripped, so the repository is never written and a stale output can neither hide nor fake an error.
Autosave is off, and the notebook windowing mode is ``none`` so every cell is in the DOM. Every process started
here is stopped by pid in a fixture teardown, even when a test fails: the server through its shutdown API first,
then its process group, then any kernel left over. Screenshots go to ``test-artifacts/browser/``.

``.ci/run`` installs Chromium, so in CI these tests run; elsewhere they skip, saying what is missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from runtime_support import FailingRunner

from alp_nb.replay import load_run
from alp_nb.runtime import RunStore, run_workflow_sync
from alp_nb.viz import export_run
from alp_nb.viz.pictures.gallery import PICTURES
from alp_nb.widgets.gallery import WIDGETS

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
ARTIFACTS = REPO / "test-artifacts" / "browser"
STEPPER_NOTEBOOK = "02-step-a-workflow.ipynb"
VIEWER_NOTEBOOK = "05-replay-a-journal.ipynb"
BROWSER_NOTEBOOKS = (STEPPER_NOTEBOOK, VIEWER_NOTEBOOK)
GALLERY_NOTEBOOK = "gallery.ipynb"
"""Written into the lab from the registries: every picture and widget kind, then the pictures at scale."""
GALLERY_TEXT = "Phở 🍜 · Dependency Bumper 🛠️ <b>not bold</b>"
"""The text every gallery sample is built from: an emoji, Vietnamese, markup that must stay text."""
SCALE_CELLS = {"delegation graph of 40 custom agents": "alp.delegation_graph(custom_agent_project(root, 32, 8))",
               "timeline of 2,000 calls": "alp.run_timeline(scale_run(root, 2000))"}
"""The pictures at the sizes real teams reach, by the marker their cell starts with."""
WIDTHS = {1000: False, 1400: True}
"""The window widths the pictures at scale are measured at, and whether the file browser is open beside them."""
SMALLEST_TEXT_PX = 9.0
TESTS = Path(__file__).resolve().parent

TOKEN = "alp-nb-browser-test"
SERVER_START_S = 90
NOTEBOOK_S = 120
"""The longest a notebook may take from opening its page to the end of Run All (each takes under 10 s here)."""
MENU_TAKES_MS = 15_000
"""How soon the first cell shows as queued after Run All Cells is clicked."""
STEP_MS = 60_000
"""The longest any single wait in the page may take: a page load, a kernel start, a widget's answer to a click."""

CHROMIUM = "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else shutil.which("chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LAB_SETTINGS: dict[str, dict[str, Any]] = {
    # no "get Jupyter news?" toast and no update check (no network); never write into the notebook
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                         "checkForUpdates": False},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    # every cell in the DOM, not only the ones scrolled into view
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}

FAILING_AUDIT = "audit:performance"
"""The call that fails in the run exported for the page test."""
EXPORTED_PAGE = "nightly-triage.html"
"""The run notebook 05 exports, into its kernel's temp folder."""
NARROW = 760
"""A notebook beside a file browser on a laptop: narrower than a timeline picture drawn at its own size."""
KERNEL_TEMP = "kernel-tmp"
"""The kernels' temp folder (``TMPDIR``), in the lab's folder: where notebook 05 exports its run."""

REQUIRED = os.environ.get("ALP_NB_BROWSER_TESTS") == "required"
"""Set by ``.ci/run``: there, a missing browser or package fails the run instead of skipping these tests."""


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason}, and ALP_NB_BROWSER_TESTS=required", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


if CHROMIUM is None:
    _unavailable("no Chromium: neither /usr/bin/chromium nor `chromium` on PATH (apt-get install chromium)")
for _package in ("playwright", "jupyterlab", "psutil"):
    if importlib.util.find_spec(_package) is None:
        _unavailable(f"{_package} is not installed (pip install -e '.[test]')")
sync_api: Any = importlib.import_module("playwright.sync_api")
psutil: Any = importlib.import_module("psutil")  # comes with ipykernel

pytestmark = pytest.mark.browser

# --- what the page is asked, through window.jupyterapp (--LabApp.expose_app_in_browser) ---------------------------

# The notebook in front is ``name`` and holds its cells: the page restores the lab's other open notebooks behind it.
SHOWN_JS = """(name) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!w && !!w.context && w.context.path.endsWith(name) && !!w.content && w.content.widgets.length > 0;
}"""
KERNEL_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle' && !w.sessionContext.pendingInput;
}"""
# Read from the notebook's model, not its DOM: in JupyterLab 4 a traceback and a stderr line render alike.
CELLS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const cells = [];
  nb.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code' || !cell.model.sharedModel.getSource().trim()) return;
    const errors = cell.model.outputs.toJSON().filter(o => o.output_type === 'error')
      .map(o => o.ename + ': ' + o.evalue);
    cells.push({index, count: cell.model.executionCount, errors});
  });
  return cells;
}"""
# The first code cell that has not finished (its index and first line), scrolled into view for the screenshot.
STUCK_CELL_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const index = nb.widgets.findIndex(cell => cell.model.type === 'code'
    && cell.model.sharedModel.getSource().trim() && cell.model.executionCount === null);
  if (index < 0) return null;
  nb.widgets[index].node.scrollIntoView();
  const prompt = nb.widgets[index].node.querySelector('.jp-InputPrompt');
  return {index, prompt: prompt && prompt.textContent, source: nb.widgets[index].model.sharedModel.getSource()
    .split('\\n')[0]};
}"""
# Run All has taken: some code cell is queued, running or done.
STARTED_JS = """() => [...window.jupyterapp.shell.currentWidget.content.node.querySelectorAll('.jp-InputPrompt')]
  .some(prompt => /\\[(\\*|\\d+)\\]/.test(prompt.textContent))"""
RAN_ALL_JS = f"""() => {{
  const cells = ({CELLS_JS})();
  return cells.some(c => c.errors.length) || cells.every(c => c.count !== null);
}}"""
# The first cell (in the notebook's order) showing a widget: its index, its node tagged for a locator.
CELL_OF_JS = """([selector, tag]) => {
  const cells = window.jupyterapp.shell.currentWidget.content.widgets;
  const index = cells.findIndex(cell => cell.node.querySelector(selector) !== null);
  if (index >= 0) cells[index].node.dataset.browserTest = tag;
  return index;
}"""
RUN_CELL_JS = """async (index) => {
  const panel = window.jupyterapp.shell.currentWidget;
  panel.content.activeCellIndex = index;
  await window.jupyterapp.commands.execute('notebook:run-cell');
}"""
COUNT_OF_JS = "(index) => window.jupyterapp.shell.currentWidget.content.widgets[index].model.executionCount"
NEXT_CALL = 'button[title^="the call after"]'
# What a cell (found by the first line of its source) shows, measured: the outputs that run past their column,
# the pictures (inline SVG shown, or an <img> holding one, decoded and laid out off screen at the same scale) whose text
# shows under the smallest size, leaves the picture, or runs out of the box it labels; and what each showed.
MEASURE_JS = """async ([marker, smallest]) => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const cell = nb.widgets.find(c => c.model.sharedModel.getSource().startsWith(marker));
  if (!cell) return {missing: true};
  cell.node.scrollIntoView();
  const area = cell.node.querySelector('.jp-Cell-outputArea') || cell.node;
  const column = area.getBoundingClientRect();
  const problems = [], pictures = [];
  const name = el => (el.textContent || '').trim().slice(0, 60);
  for (const out of area.querySelectorAll('.jp-OutputArea-output')) {
    const box = out.getBoundingClientRect();
    if (box.right > column.right + 1) problems.push(`an output ends at ${box.right}, past its column`);
    if (out.scrollWidth > out.clientWidth + 1) problems.push(`an output overflows: ${out.scrollWidth} px`);
  }
  function clipped(el) {
    const box = el.getBoundingClientRect();
    for (let up = el.parentElement; up && up !== area; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (/auto|scroll/.test(style.overflowX)) return null;
      const room = up.getBoundingClientRect();
      if (style.overflowX !== 'visible' && box.right > room.right + 1) return `cut at ${room.right}`;
    }
    return null;
  }
  function measure(svg, scale, where) {
    const width = svg.viewBox.baseVal && svg.viewBox.baseVal.width || svg.width.baseVal.value;
    let small = Infinity;
    for (const text of svg.querySelectorAll('text')) {
      if (!name(text)) continue;
      const shown = parseFloat(getComputedStyle(text).fontSize) * scale;
      small = Math.min(small, shown);
      if (shown < smallest - 0.01) problems.push(`${where}: "${name(text)}" shows at ${shown.toFixed(2)} px`);
      const b = text.getBBox();
      if (b.x < -0.5 || b.x + b.width > width + 0.5) problems.push(`${where}: "${name(text)}" leaves the picture`);
    }
    for (const g of svg.querySelectorAll('g[data-node], g[data-group]')) {
      const rect = g.querySelector(':scope > rect');
      if (!rect) continue;
      const r = rect.getBBox();
      for (const text of g.querySelectorAll(':scope > text')) {
        const b = text.getBBox();
        if (b.x < r.x - 0.5 || b.x + b.width > r.x + r.width + 0.5) problems.push(
          `${where}: "${name(text)}" runs out of its box (${b.width.toFixed(1)} px in ${r.width.toFixed(1)})`);
      }
    }
    pictures.push({where, width, scale, smallest: small});
  }
  for (const svg of area.querySelectorAll('svg')) {
    if (!svg.getBoundingClientRect().width) continue;  // in a tab not shown
    const cut = clipped(svg);
    if (cut) problems.push(`an inline picture is ${cut}`);
    const width = svg.viewBox.baseVal && svg.viewBox.baseVal.width || svg.width.baseVal.value;
    if (width) measure(svg, svg.getBoundingClientRect().width / width, 'inline picture');
  }
  for (const img of area.querySelectorAll('img[src^="data:image/svg+xml;base64,"]')) {
    await img.decode().catch(() => null);
    const cut = clipped(img);
    if (cut) problems.push(`a picture is ${cut}`);
    const bytes = Uint8Array.from(atob(img.src.split(',')[1]), c => c.charCodeAt(0));
    const holder = document.createElement('div');
    holder.style.cssText = 'position:absolute;left:0;top:0;visibility:hidden';
    holder.innerHTML = new TextDecoder().decode(bytes);
    document.body.appendChild(holder);
    try {
      const svg = holder.querySelector('svg');
      measure(svg, img.getBoundingClientRect().width / svg.width.baseVal.value, img.alt || 'picture');
    } finally { holder.remove(); }
  }
  return {problems, pictures, images: area.querySelectorAll('img, table').length,
          widgets: area.querySelectorAll('.jupyter-widgets').length};
}"""
WIDGET_ERRORS = '[class*="jupyter-widgets-error"], .jp-OutputArea-output:has-text("Error displaying widget")'


@dataclass
class RunAll:
    """A notebook open in its own page after Run All Cells: each non-blank code cell's count and errors."""

    page: Any  # playwright.sync_api.Page
    cells: list[dict[str, Any]]
    seconds: float

    def errors(self) -> list[str]:
        return [f"cell {cell['index']}: {error}" for cell in self.cells for error in cell["errors"]]


# --- server, browser, notebooks -------------------------------------------------------------------------------------


def _copy_without_outputs(source: Path, folder: Path) -> None:
    notebook = nbformat.read(source, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(notebook, folder / source.name)


def _marker(kind: str, name: str) -> str:
    """The first line of a gallery cell, by which a test finds it in the page."""
    return f"# {kind}: {name}"


def _gallery_notebook() -> nbformat.NotebookNode:
    """Every registered picture and widget kind, each in a cell of its own built from ``GALLERY_TEXT``, then the
    pictures at scale; the first cell imports each module that registered a kind, as a fresh kernel must."""
    modules = sorted({kind.module for kind in (*PICTURES, *WIDGETS)})
    setup = "\n".join([
        "import importlib, sys, tempfile", "from pathlib import Path", f"sys.path[:0] = [{str(TESTS)!r}]",
        "import alp_nb as alp", "from alp_nb.viz.pictures.gallery import PICTURES",
        "from alp_nb.widgets.gallery import WIDGETS",
        "from scale_samples import custom_agent_project, scale_run",
        f"for module in {modules!r}:", "    importlib.import_module(module)",
        "pictures, widgets = {k.name: k for k in PICTURES}, {k.name: k for k in WIDGETS}",
        f"TEXT = {GALLERY_TEXT!r}", "root = Path(tempfile.mkdtemp())"])
    cells = [nbformat.v4.new_code_cell(setup)]
    cells += [nbformat.v4.new_code_cell(f"{_marker('picture', kind.name)}\npictures[{kind.name!r}].sample(TEXT)")
              for kind in PICTURES]
    cells += [nbformat.v4.new_code_cell(f"{_marker('widget', kind.name)}\nwidgets[{kind.name!r}].sample(TEXT)")
              for kind in WIDGETS]
    cells += [nbformat.v4.new_code_cell(f"{_marker('scale', name)}\n{source}") for name, source in SCALE_CELLS.items()]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


def _post(url: str) -> None:
    with contextlib.suppress(OSError):
        urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=10).close()


def _stop(process: subprocess.Popen[bytes], url: str | None) -> None:
    """The server's own shutdown first (it stops its kernels), then its process group, then any kernel left."""
    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        descendants = []
    if url is not None:
        _post(f"{url}/api/shutdown?token={TOKEN}")
    for sig, wait in ((None, 20), (signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        if sig is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
        try:
            process.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    _, alive = psutil.wait_procs(descendants, timeout=5)
    for leftover in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            leftover.kill()
    psutil.wait_procs(alive, timeout=5)


@pytest.fixture(scope="module")
def lab_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The throw-away JupyterLab's folders: its root, config, settings, home, and its kernels' temp folder."""
    return tmp_path_factory.mktemp("browser-lab")


@pytest.fixture(scope="module")
def lab(lab_folder: Path) -> Iterator[str]:
    """The base URL of a throw-away JupyterLab whose root holds output-free copies of the notebooks."""
    tmp = lab_folder
    root = tmp / "root"
    (root / "notebooks").mkdir(parents=True)
    for name in BROWSER_NOTEBOOKS:
        if (NOTEBOOKS / name).exists():
            _copy_without_outputs(NOTEBOOKS / name, root / "notebooks")
    nbformat.write(_gallery_notebook(), root / "notebooks" / GALLERY_NOTEBOOK)
    settings = tmp / "settings"
    for relative, value in LAB_SETTINGS.items():
        (settings / relative).parent.mkdir(parents=True, exist_ok=True)
        (settings / relative).write_text(json.dumps(value))
    (tmp / "home").mkdir()
    (tmp / KERNEL_TEMP).mkdir()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp / "config"), JUPYTER_DATA_DIR=str(tmp / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp / "runtime"), IPYTHONDIR=str(tmp / "ipython"), HOME=str(tmp / "home"),
               TMPDIR=str(tmp / KERNEL_TEMP), PYTHONUNBUFFERED="1")
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
               "--ServerApp.port=0", "--ServerApp.port_retries=0", f"--ServerApp.root_dir={root}",
               f"--IdentityProvider.token={TOKEN}", "--ServerApp.password=", "--ServerApp.allow_root=True",
               "--LabApp.news_url=None", "--LabApp.expose_app_in_browser=True",
               f"--LabServerApp.user_settings_dir={settings}", f"--LabServerApp.workspaces_dir={tmp / 'workspaces'}"]
    log_path = tmp / "server.log"
    url: str | None = None
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root,
                                   start_new_session=True)
        try:
            url = _wait_for_server(process, tmp / "runtime" / f"jpserver-{process.pid}.json", log_path)
            yield url
        finally:
            _stop(process, url)


def _wait_for_server(process: subprocess.Popen[bytes], info: Path, log_path: Path) -> str:
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {process.returncode}:\n{log_path.read_text()}")
        with contextlib.suppress(OSError, ValueError, KeyError):
            url = f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
            with urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=5) as answer:
                if answer.status == 200:
                    return url
        time.sleep(0.25)
    raise TimeoutError(f"jupyter lab did not answer within {SERVER_START_S} s:\n{log_path.read_text()}")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def run_all(lab: str, lab_folder: Path, browser: Any, artifacts: Path) -> Iterator[Callable[[str], RunAll]]:
    """``run_all(name)``: the notebook opened in a page of its own and run once through the Run menu; the page
    stays open (its kernel alive) for the module, so each notebook runs once however many tests look at it."""
    done: dict[str, RunAll | BaseException] = {}
    contexts: list[Any] = []

    def run(name: str) -> RunAll:
        if name not in done:
            context = browser.new_context(viewport={"width": 1400, "height": 1400})
            contexts.append(context)
            context.set_default_timeout(STEP_MS)
            try:
                done[name] = _open_and_run_all(context.new_page(), lab, name, artifacts)
            except Exception as failure:
                log = (lab_folder / "server.log").read_text(errors="replace").splitlines()[-20:]
                failure.add_note("the end of the server's log (its kernels' stderr too):\n" + "\n".join(log))
                done[name] = failure
                raise
        outcome = done[name]
        if isinstance(outcome, BaseException):
            notes = "".join(f"\n{note}" for note in getattr(outcome, "__notes__", ()))
            pytest.fail(f"{name} did not run all its cells: {outcome}{notes}", pytrace=False)
        return outcome

    try:
        yield run
    finally:
        for context in contexts:
            with contextlib.suppress(Exception):
                context.close()


def _open_and_run_all(page: Any, lab: str, name: str, artifacts: Path) -> RunAll:
    """Open ``name``, wait for its kernel, click Run > Run All Cells and wait until every cell ran (or one failed)
    and the kernel is idle again: all within ``NOTEBOOK_S``."""
    stem, started = Path(name).stem, time.monotonic()

    def left() -> float:
        return max(1.0, started + NOTEBOOK_S - time.monotonic()) * 1000

    page.goto(f"{lab}/lab/tree/notebooks/{name}?token={TOKEN}", timeout=left())
    try:
        page.locator("#jupyterlab-splash").wait_for(state="detached", timeout=left())
        page.wait_for_function(SHOWN_JS, arg=name, polling=250, timeout=left())
        page.wait_for_function(KERNEL_IDLE_JS, polling=250, timeout=left())
        page.get_by_role("menuitem", name="Run", exact=True).click(timeout=left())
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click(timeout=left())
        try:
            page.wait_for_function(STARTED_JS, polling=250, timeout=MENU_TAKES_MS)
        except sync_api.TimeoutError:  # the menu closed before the click reached its item: the command, as it runs
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
        try:
            page.wait_for_function(RAN_ALL_JS, polling=250, timeout=left())
        except sync_api.TimeoutError as timeout:
            stuck = page.evaluate(STUCK_CELL_JS)
            waited = time.monotonic() - started
            raise AssertionError(f"after {waited:.0f} s, cell {stuck} has not finished") from timeout
        page.wait_for_function(KERNEL_IDLE_JS, polling=250, timeout=left())
        return RunAll(page, page.evaluate(CELLS_JS), time.monotonic() - started)
    finally:
        page.screenshot(path=str(artifacts / f"{stem}-run-all.png"))


def _present(name: str) -> None:
    if not (NOTEBOOKS / name).exists():
        pytest.skip(f"notebooks/{name} does not exist yet")


def _fresh(run: RunAll, widget_class: str, button: Callable[[Any], Any]) -> Any:
    """The first ``widget_class`` widget in the page, with ``button`` clickable: when a later cell has already
    moved it as far as it goes (say, cancelled the stepper from code), the cell that shows it runs again for a fresh
    one, as a learner would."""
    page = run.page
    index = page.evaluate(CELL_OF_JS, [f".{widget_class}", widget_class])
    assert index >= 0, f"no .{widget_class} widget in the page"
    cell = page.locator(f'.jp-Cell[data-browser-test="{widget_class}"]')
    widget = cell.locator(f".{widget_class}").first
    widget.wait_for()
    if button(widget).is_disabled():
        count = page.evaluate(COUNT_OF_JS, index)
        page.evaluate(RUN_CELL_JS, index)
        page.wait_for_function(f"() => ({COUNT_OF_JS})({index}) > {count}", polling=250)
        page.wait_for_function(KERNEL_IDLE_JS, polling=250)
        widget = cell.locator(f".{widget_class}").first
    sync_api.expect(button(widget)).to_be_enabled()
    return widget


@contextlib.contextmanager
def _screenshot_on_failure(page: Any, path: Path) -> Iterator[None]:
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):
            page.screenshot(path=str(path))
        raise


def _transition_button(stepper: Any) -> Any:
    """The button whose description is "transition" (matched on its text: the accessible name also holds the
    icon's glyph)."""
    return stepper.locator("button.widget-button", has_text=re.compile(r"^\s*transition\s*$")).first


def _expect_redrawn(locator: Any, before: str) -> None:
    """Wait (the page polled, no fixed sleep) until ``locator``'s inner HTML is no longer ``before``."""
    sync_api.expect(locator).not_to_have_js_property("innerHTML", before)


# --- the tests ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BROWSER_NOTEBOOKS)
def test_run_all_cells_in_jupyterlab_leaves_no_error_output(run_all: Callable[[str], RunAll], name: str) -> None:
    _present(name)
    run = run_all(name)
    assert not run.errors(), f"{name}: {run.errors()}"
    assert all(cell["count"] is not None for cell in run.cells), f"{name}: cells left unrun: {run.cells}"
    broken = run.page.locator(WIDGET_ERRORS)
    assert broken.count() == 0, f"{name}: a widget failed to render: {broken.all_inner_texts()}"
    print(f"{name}: ran {len(run.cells)} code cells in {run.seconds:.1f} s")


def test_stepper_transition_click_redraws_its_state_machine_and_labels(run_all: Callable[[str], RunAll],
                                                                      artifacts: Path) -> None:
    _present(STEPPER_NOTEBOOK)
    run = run_all(STEPPER_NOTEBOOK)
    with _screenshot_on_failure(run.page, artifacts / "02-stepper-failed.png"):
        stepper = _fresh(run, "alp-workflow-stepper", _transition_button)
        picture = stepper.locator(".alp-stepper-picture").first
        status = stepper.locator(".alp-stepper-status").first
        message = stepper.locator(".alp-stepper-message").first
        moves = stepper.locator(".alp-stepper-history li")
        sync_api.expect(picture.locator("svg")).to_have_count(1)
        picture_before, status_before = picture.inner_html(), status.inner_text()
        message_before, moves_before = message.inner_text(), moves.count()
        chosen = stepper.locator("select").first.input_value()
        assert chosen, "the stepper offers no next state"
        chosen_node = picture.locator(f'g[data-node="state:{chosen}"]')  # the chosen state's box in the SVG
        node_before = chosen_node.first.inner_html() if chosen_node.count() == 1 else None
        stepper.screenshot(path=str(artifacts / "02-stepper-before-click.png"))

        _transition_button(stepper).click()

        _expect_redrawn(picture, picture_before)
        if node_before is not None:  # the picture marks the state the execution moved to
            _expect_redrawn(chosen_node.first, node_before)
        sync_api.expect(status).not_to_have_text(status_before)
        sync_api.expect(status).to_contain_text(chosen)
        sync_api.expect(message).not_to_have_text(message_before)
        sync_api.expect(message).to_contain_text("accepted")
        sync_api.expect(moves).to_have_count(moves_before + 1)
        sync_api.expect(picture.locator("svg")).to_have_count(1)
        stepper.screenshot(path=str(artifacts / "02-stepper-after-click.png"))


def test_viewer_next_click_shows_the_call_after(run_all: Callable[[str], RunAll], artifacts: Path) -> None:
    _present(VIEWER_NOTEBOOK)
    run = run_all(VIEWER_NOTEBOOK)
    with _screenshot_on_failure(run.page, artifacts / "05-viewer-failed.png"):
        viewer = _fresh(run, "alp-run-viewer", lambda widget: widget.locator(NEXT_CALL))
        call = viewer.locator(".alp-run-viewer-call").first
        cursor = viewer.locator(".alp-timeline-cursor").first
        sync_api.expect(call).to_contain_text("call ")
        call_before, cursor_before = call.inner_text(), cursor.inner_html()
        position = re.search(r"call ([\d,]+) of ([\d,]+)", call_before)
        assert position, f"the viewer shows no 'call N of M': {call_before!r}"
        shown, count = (int(group.replace(",", "")) for group in position.groups())
        viewer.screenshot(path=str(artifacts / "05-viewer-before-click.png"))

        viewer.locator(NEXT_CALL).click()

        sync_api.expect(call).not_to_have_text(call_before)
        sync_api.expect(call).to_contain_text(f"call {shown + 1:,} of {count:,}")
        _expect_redrawn(cursor, cursor_before)
        viewer.screenshot(path=str(artifacts / "05-viewer-after-click.png"))


def test_viewer_in_a_narrow_window_keeps_its_cursor_in_view(run_all: Callable[[str], RunAll],
                                                            artifacts: Path) -> None:
    """The picture scales down to the viewer's width, the cursor laid over it alike: stepping to the last call
    of the run leaves the cursor inside the part of the picture the window shows, with no scrolling."""
    _present(VIEWER_NOTEBOOK)
    run = run_all(VIEWER_NOTEBOOK)
    page = run.page
    with _screenshot_on_failure(page, artifacts / "05-viewer-narrow-failed.png"):
        viewer = _fresh(run, "alp-run-viewer", lambda widget: widget.locator(NEXT_CALL))
        page.set_viewport_size({"width": NARROW, "height": 1400})
        try:
            call = viewer.locator(".alp-run-viewer-call").first
            position = re.search(r"call ([\d,]+) of ([\d,]+)", call.inner_text())
            assert position, f"the viewer shows no 'call N of M': {call.inner_text()!r}"
            shown, count = (int(group.replace(",", "")) for group in position.groups())
            for step in range(shown + 1, count + 1):  # to the last call: the right end of the picture
                viewer.locator(NEXT_CALL).click()
                sync_api.expect(call).to_contain_text(f"call {step:,} of {count:,}")
            sync_api.expect(viewer.locator(NEXT_CALL)).to_be_disabled()
            box = viewer.locator(".alp-timeline-cursor svg rect").last.bounding_box()
            picture = viewer.locator(".alp-timeline-cursor").first.bounding_box()
            assert box is not None and picture is not None
            assert picture["x"] >= 0 and picture["x"] + picture["width"] <= NARROW, picture  # no wider than the page
            assert picture["x"] <= box["x"] and box["x"] + box["width"] <= picture["x"] + picture["width"] + 1, (
                box, picture)
            viewer.scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "05-viewer-narrow.png"))
        finally:
            page.set_viewport_size({"width": 1400, "height": 1400})


def test_the_run_notebook_05_exports_opens_offline_and_filters_to_its_failed_calls(
        run_all: Callable[[str], RunAll], browser: Any, lab_folder: Path, artifacts: Path) -> None:
    """The page the notebook wrote, opened as a colleague opens a file sent to them: its outcome filter leaves
    the two calls the API refused."""
    _present(VIEWER_NOTEBOOK)
    run_all(VIEWER_NOTEBOOK)
    exported = lab_folder / KERNEL_TEMP / EXPORTED_PAGE
    assert exported.is_file(), f"notebook 05 exported no {EXPORTED_PAGE} into its temp folder {exported.parent}"
    with _offline_page(browser, exported) as page:
        sync_api.expect(page.locator("h1")).to_contain_text("nightly-triage")
        visible = page.locator("#calls-table tbody tr:visible")
        page.locator("#filter-outcome").select_option("failed")
        sync_api.expect(visible).to_have_count(2)
        for row, label in zip(visible.all(), ("triage:#3", "triage:#5"), strict=True):
            sync_api.expect(row).to_contain_text(label)
            sync_api.expect(row).to_contain_text("429 Too Many Requests")
        page.screenshot(path=str(artifacts / "05-exported-run.png"), full_page=True)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ``review-changes`` run under a budget that failed at its third audit, exported to a page."""
    folder = tmp_path_factory.mktemp("export")
    run = run_workflow_sync("review-changes", {"changes": "rename parse() to load()", "budget": 2000},
                            store=RunStore(folder / "runs"), runner=FailingRunner({FAILING_AUDIT}))
    assert run.status == "failed"
    return export_run(load_run(run.run_id, store=folder / "runs"), folder / "run.html")


def test_the_exported_page_works_offline_and_its_filters_narrow_the_call_table(exported: Path, browser: Any,
                                                                             artifacts: Path) -> None:
    """Typing into the filter narrows the table and clearing it widens it again; the outcome `failed` leaves the
    failed call, and a click opens its row."""
    with _offline_page(browser, exported) as page:
        rows = page.locator("#calls-table tbody tr")
        visible = page.locator("#calls-table tbody tr:visible")
        count = page.locator("#filter-count")
        total = rows.count()
        assert total >= 3, "the page shows too few calls to filter"
        sync_api.expect(count).to_have_text(f"{total} of {total} calls shown")  # the page's script ran

        page.locator("#filter-text").fill("audit:correctness")
        sync_api.expect(visible).to_have_count(1)
        sync_api.expect(visible.first).to_contain_text("audit:correctness")
        sync_api.expect(count).to_have_text(f"1 of {total} calls shown")
        page.locator("#filter-text").fill("no call says this")
        sync_api.expect(visible).to_have_count(0)
        sync_api.expect(page.locator("#filter-none")).to_be_visible()
        page.locator("#filter-text").fill("")
        sync_api.expect(visible).to_have_count(total)

        page.locator("#filter-outcome").select_option("failed")
        sync_api.expect(visible).to_have_count(1)
        sync_api.expect(visible.first).to_contain_text(FAILING_AUDIT)
        sync_api.expect(visible.first.locator(".chip")).to_have_text("failed")
        visible.first.click()  # a click opens the row to read it whole
        sync_api.expect(visible.first).to_have_class("open")
        page.screenshot(path=str(artifacts / "export.png"), full_page=True)
        page.locator("#filter-outcome").select_option("")
        sync_api.expect(visible).to_have_count(total)


def _measured(page: Any, marker: str) -> dict[str, Any]:
    shown = page.evaluate(MEASURE_JS, [marker, SMALLEST_TEXT_PX])
    assert not shown.get("missing"), f"the gallery has no cell starting {marker!r}"
    return shown


@contextlib.contextmanager
def _window(page: Any, width: int) -> Iterator[None]:
    """The page ``width`` px wide, its file browser open or closed as ``WIDTHS`` says; 1,400 px again after."""
    page.set_viewport_size({"width": width, "height": 1400})
    try:
        page.evaluate("(open) => { const shell = window.jupyterapp.shell; if (open) { shell.expandLeft(); "
                      "shell.activateById('filebrowser'); } else shell.collapseLeft(); }", WIDTHS[width])
        page.wait_for_timeout(500)  # the panels settle into the new width
        yield
    finally:
        page.set_viewport_size({"width": 1400, "height": 1400})


@pytest.mark.parametrize("width", WIDTHS)
def test_every_registered_picture_and_widget_shows_in_jupyterlab(run_all: Callable[[str], RunAll],
                                                               artifacts: Path, width: int) -> None:
    """The gallery, written from the registries, runs with no error; at ``width`` px each picture kind's cell
    shows a picture (or its table) and each widget kind's cell a live widget, none runs past its column, and no
    picture's text is under 9 px or out of its box."""
    run = run_all(GALLERY_NOTEBOOK)
    assert not run.errors(), run.errors()
    broken = run.page.locator(WIDGET_ERRORS)
    assert broken.count() == 0, f"a widget failed to render: {broken.all_inner_texts()}"
    problems = []
    with _window(run.page, width):
        for family, kinds, shows in (("picture", PICTURES, "images"), ("widget", WIDGETS, "widgets")):
            for kind in kinds:
                shown = _measured(run.page, _marker(family, kind.name))
                if not shown[shows]:
                    problems.append(f"{family} {kind.name!r} shows no {shows}")
                problems += [f"{family} {kind.name!r}: {problem}" for problem in shown["problems"]]
        run.page.screenshot(path=str(artifacts / f"gallery-{width}px.png"), full_page=True)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_pictures_at_scale_fit_the_column_with_text_of_9_px_or_more(run_all: Callable[[str], RunAll],
                                                                    artifacts: Path, width: int) -> None:
    """The delegation graph of forty custom agents and the timeline of a 2,000-call run, at ``width`` px (the file
    browser open at 1,400): each fits its column, its text at least 9 px high as shown, every label in its box;
    the screenshots are kept."""
    run = run_all(GALLERY_NOTEBOOK)
    page = run.page
    problems = []
    with _window(page, width):
        for name in SCALE_CELLS:
            marker = _marker("scale", name)
            shown = _measured(page, marker)
            if not shown["images"]:
                problems.append(f"{name}: no picture")
            problems += [f"{name}: {problem}" for problem in shown["problems"]]
            print(f"{name} at {width} px: {shown['pictures']}")
            cell = page.locator(".jp-Cell", has_text=marker.removeprefix("# ")).locator(".jp-Cell-outputArea").first
            cell.screenshot(path=str(artifacts / f"scale-{name.split()[0]}-{width}px.png"))
        page.screenshot(path=str(artifacts / f"scale-{width}px.png"))
    assert not problems, "\n".join(problems)


@contextlib.contextmanager
def _offline_page(browser: Any, path: Path) -> Iterator[Any]:
    """``path`` opened as a ``file://`` URL in a page of its own; on leaving, the page must have asked for
    nothing but itself and logged no error (its script is allowed by the page's own policy, nothing else)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(STEP_MS)
    try:
        page = context.new_page()
        requested: list[str] = []
        problems: list[str] = []
        page.on("request", lambda request: requested.append(request.url))
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(path.as_uri())
        yield page
        assert requested == [path.as_uri()], f"the page asked for more than itself: {requested}"
        assert problems == [], problems
    finally:
        context.close()
