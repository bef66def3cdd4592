"""The route view in a real headless Chromium: `ember demo`'s route.html, from file://.

Layer: tests (tools). Playwright for Python drives Debian's chromium (never a
downloaded browser; .ci/run installs the package). Checks: the whole route is
readable before playing; Play highlights the stages one at a time, in order;
each comparison control changes the keys and kernels shown exactly as the
recorded traces embedded in the page say. Saves artifacts/route.png.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[1]

playwright_api = pytest.importorskip("playwright.sync_api")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"{CHROMIUM} is not installed (.ci/run installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def route_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("demo")
    ember = shutil.which("ember", path=str(Path(sys.executable).parent)) or "ember"
    done = subprocess.run([ember, "demo"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    html = folder / "route.html"
    assert html.exists()
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(html.as_uri())
        yield page, html
        assert errors == [], errors
        assert all(url.startswith("file://") for url in requests), requests  # works offline
        browser.close()


def embedded(html: Path) -> dict:
    text = html.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="route-data">') + len(
        '<script type="application/json" id="route-data">'
    )
    return json.loads(text[start : text.index("</script>", start)].replace("<\\/", "</"))


def route_for(data: dict, mode: str, device: str, transform: str = "none") -> dict:
    for route in data["routes"]:
        if route["condition"] == {"mode": mode, "device": device, "transform": transform}:
            return route
    raise AssertionError(f"no route for {mode}/{device}/{transform}")


def stage_text(page, stage: str) -> str:
    return page.inner_text(f'#route .stage[data-stage="{stage}"]')


def field(page, stage: str, name: str) -> str:
    return page.inner_text(f'#route .stage[data-stage="{stage}"] td[data-field="{name}"]')


def test_route_is_readable_before_playing(route_page):
    page, _ = route_page
    stages = page.eval_on_selector_all("#route .stage", "nodes => nodes.map(n => n.dataset.stage)")
    assert stages == ["binding", "entry", "dispatcher", "autograd", "redispatch", "backend"]
    assert page.eval_on_selector_all(".stage.current", "nodes => nodes.length") == 0
    for stage in stages:
        assert page.is_visible(f'#route .stage[data-stage="{stage}"]')
    assert "y = ember.mm(a, b)" in stage_text(page, "binding")
    assert "aten::mm(Tensor self, Tensor mat2) -> Tensor" in stage_text(page, "entry")
    assert field(page, "dispatcher", "=") == "{CPU, AutogradCPU}"
    assert field(page, "autograd", "backward node") == "MmBackward0"
    assert "[[11.0]]" in field(page, "backend", "result")
    numbers = page.eval_on_selector_all(".arrow .num", "nodes => nodes.map(n => n.textContent)")
    assert numbers == ["1", "2", "3", "4", "5"]
    assert "[call] op=[aten::mm], key=[AutogradCPU]" in page.inner_text("#trace-text")


def test_play_highlights_stages_in_order(route_page):
    page, _ = route_page
    order = ["binding", "entry", "dispatcher", "autograd", "redispatch", "backend"]
    page.click("#play")
    for stage in order:
        page.wait_for_selector(f'#route .stage.current[data-stage="{stage}"]', timeout=5000)
        assert page.eval_on_selector_all(".stage.current", "nodes => nodes.length") == 1
    page.wait_for_function(
        "document.getElementById('play-status').textContent.startsWith('played')"
    )
    assert page.evaluate("window.emberPlayLog") == order
    assert page.eval_on_selector_all(".stage.done", "nodes => nodes.length") == len(order)


def test_each_control_changes_what_the_traces_say(route_page):
    page, html = route_page
    data = embedded(html)
    for device in ("cpu", "meta"):
        page.check(f'input[name="device"][value="{device}"]')
        for mode in ("grad", "plain", "no_grad", "inference_mode"):
            page.check(f'input[name="mode"][value="{mode}"]')
            assert page.get_attribute("body", "data-condition") == f"{mode} / {device} / none"
            event = route_for(data, mode, device)["trace"]["events"][0]
            keys = "{" + ", ".join(event["dispatch_keys"]) + "}"
            assert field(page, "dispatcher", "=") == keys
            assert field(page, "dispatcher", "highest key") == event["key"]
            backend = event["children"][0] if event["children"] else event
            assert field(page, "backend", "kernel") == backend["kernel"]["name"]
            assert field(page, "backend", "slot").startswith(backend["key"])
            if mode == "inference_mode":
                assert "skipped" in page.get_attribute('.stage[data-stage="autograd"]', "class")
                assert keys == ("{CPU}" if device == "cpu" else "{Meta}")
            else:
                autograd = field(page, "autograd", "kernel")
                assert autograd == event["kernel"]["name"]
                node = field(page, "autograd", "backward node")
                assert node == ("MmBackward0" if mode == "grad" else "none")
            text = page.inner_text("#trace-text")
            assert f"[call] op=[aten::mm], key=[{event['key']}]" in text
    page.check('input[name="device"][value="cpu"]')
    page.check('input[name="mode"][value="grad"]')
    page.check('input[name="mode"][value="no_grad"]')  # one switch: grad mode and the node differ
    changed = page.eval_on_selector_all(
        "#route td.changed", "cells => cells.map(c => c.dataset.field)"
    )
    assert changed == ["grad mode", "backward node"]
    page.check('input[name="mode"][value="grad"]')


def test_the_autocast_control_shows_its_kernel_and_the_call_again(route_page):
    page, html = route_page
    data = embedded(html)
    page.check('input[name="device"][value="cpu"]')
    page.check('input[name="mode"][value="grad"]')
    page.check('input[name="transform"][value="autocast"]')
    assert page.get_attribute("body", "data-condition") == "grad / cpu / autocast"
    stages = page.eval_on_selector_all("#route .stage", "nodes => nodes.map(n => n.dataset.stage)")
    assert stages == [
        "binding", "entry", "dispatcher", "kernel0", "call1", "autograd", "redispatch", "backend"
    ]  # fmt: skip
    event = route_for(data, "grad", "cpu", "autocast")["trace"]["events"][0]
    assert field(page, "dispatcher", "highest key") == event["key"] == "AutocastCPU"
    assert field(page, "kernel0", "slot") == "AutocastCPU [kernel]"
    assert "AutocastCPU" in field(page, "call1", "- excluded")
    assert field(page, "call1", "highest key") == "AutogradCPU"
    assert field(page, "autograd", "backward node") == "MmBackward0"
    assert "bfloat16" in field(page, "backend", "result")
    page.check('input[name="transform"][value="none"]')
    assert page.eval_on_selector_all("#route .stage", "nodes => nodes.length") == 6


def test_the_vmap_control_shows_the_layer_stack_and_the_batching_rule(route_page):
    page, html = route_page
    data = embedded(html)
    page.check('input[name="device"][value="cpu"]')
    page.check('input[name="mode"][value="grad"]')
    page.check('input[name="transform"][value="vmap"]')
    assert page.get_attribute("body", "data-condition") == "grad / cpu / vmap"
    stages = page.eval_on_selector_all("#route .stage", "nodes => nodes.map(n => n.dataset.stage)")
    assert stages == ["binding", "entry", "dispatcher", "autograd", "kernel0", "call1", "backend"]
    event = route_for(data, "grad", "cpu", "vmap")["trace"]["events"][0]
    assert field(page, "dispatcher", "highest key") == event["key"]
    assert event["key"] == "FuncTorchDynamicLayerFrontMode"
    assert "skipped" in page.get_attribute('.stage[data-stage="autograd"]', "class")
    assert field(page, "call1", "highest key") == "FuncTorchBatched"
    assert field(page, "backend", "slot") == "FuncTorchBatched [kernel]"
    assert field(page, "backend", "then calls") == "aten::matmul"
    page.check('input[name="transform"][value="none"]')


def test_screenshot(route_page):
    page, _ = route_page
    out = ROOT / "artifacts"
    out.mkdir(exist_ok=True)
    page.screenshot(path=str(out / "route.png"), full_page=True)
    assert (out / "route.png").stat().st_size > 10_000
