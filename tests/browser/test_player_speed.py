"""The player on a long thread (2,000 tool calls, 20 subagents with histories of their own),
in JupyterLab with Chromium: how long it takes to open (from running its cell to the player
drawn at the last point) and to seek (from moving the scrubber to the thread drawn as of that
point, painted). The kernel sends the history once: nothing goes over the comm while a person
scrubs, and the kernel's memory stays as it was. No timing assert (machines are noisy): the
figures are printed, and recorded in benchmarks/README.md."""

from __future__ import annotations

import asyncio
import statistics
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from benchmarks.player import build

from .conftest import Lab, shown_page
from .test_lab import run_cell, write_notebook

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

WATCH_OPENING = """() => {
  window.__opened = null;
  const t0 = performance.now();
  const before = document.querySelector("[data-testid=player-where]"); // one opened earlier
  const observer = new MutationObserver(() => {
    const where = document.querySelector("[data-testid=player-where]");
    const m = where && where !== before && /^(\\d+) \\/ (\\d+)/.exec(where.textContent);
    if (m && m[1] === m[2]) {
      window.__opened = performance.now() - t0;
      observer.disconnect();
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
}"""

SEEK = """async (targets) => {
  const slider = document.querySelector("[data-testid=player-scrubber]");
  const where = document.querySelector("[data-testid=player-where]");
  const painted = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const out = [];
  for (const at of targets) {
    await painted();
    const t0 = performance.now();
    slider.value = String(at);
    slider.dispatchEvent(new Event("input"));
    await painted();
    out.push({ at, ms: performance.now() - t0, where: where.textContent });
  }
  return out;
}"""

RSS = "print('RSS', [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmRSS')][0])"


def test_the_player_of_a_long_thread_opens_and_seeks(lab: Lab, browser: Any) -> None:
    # Built beside the browser's own event loop, not in it.
    with ThreadPoolExecutor(1) as pool:
        thread_id = pool.submit(asyncio.run, build(lab.root / "long")).result()
    cells = [
        "import threadlab as tl",
        f'thread = tl.Runtime(store="long").thread("{thread_id}")',
        "import time\nstarted = time.perf_counter()\nview = tl.player(thread)\n"
        "print(f'KERNEL {(time.perf_counter() - started) * 1000:.0f}')\nview",
        RSS,
    ]
    path = write_notebook(lab, cells, "long.ipynb")
    with shown_page(lab, browser, "player-speed-failure.png") as (page, _):
        frames: list[bytes | str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
        page.goto(lab.notebook_url(path.name))
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        run_cell(page, 0)
        run_cell(page, 1)
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        opened, kernel_ms = open_player(page)
        total = int(
            page.locator("[data-testid=player-where]").inner_text().split(" / ")[1].split()[0]
        )
        assert total > 8000
        # At the last point the timeline counts the whole thread, not the messages drawn.
        head = page.locator("[data-testid=timeline] summary").first.inner_text()
        assert int(head.split(" calls")[0].split(" · ")[-1].replace(",", "")) >= 2000, head
        # The narration follows the player: "explain" ticked at once says it is on its way
        # (or already tells the last step), and tells it once it has come.
        page.locator("[data-testid=player-explain-toggle]").check()
        told = page.locator("[data-testid=player-explain]")
        assert told.inner_text().startswith(("(the narration is being written", "The run"))
        shots = lab.root.parent / "shots"
        page.screenshot(path=str(shots / "player-long-opened-light.png"))
        told.filter(has_text="The run").wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "player-long-told-light.png"))
        page.locator("[data-testid=player-explain-toggle]").uncheck()
        before = rss(page, 3)
        page.wait_for_timeout(1000)  # the kernel's last messages of the cell are in
        heard = len(frames)
        targets = [round(total * f) for f in (0.5, 0.0, 0.999, 0.25, 0.75, 0.1, 0.9, 0.33, 0.66)]
        seeks = page.evaluate(SEEK, [min(t, total - 1) for t in targets])
        for seek in seeks:
            assert seek["where"].startswith(f"{seek['at'] + 1} / {total}"), seek
        comm = [
            f
            for f in frames[heard:]
            if "comm_msg" in (f if isinstance(f, str) else f.decode("latin-1"))
        ]
        assert comm == []  # scrubbing asks nothing of the kernel
        after = rss(page, 3)
        # Opened again in the same kernel and page, on a new Runtime (nothing of the thread
        # read yet): the widgets' modules are loaded by then, as once a notebook has shown
        # any view.
        run_cell(page, 1)
        page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
        again, kernel_again = open_player(page)
        times = [s["ms"] for s in seeks]
        print(
            f"\nplayer of {total} points: opened in {opened:.0f} ms (the kernel building"
            f" it: {kernel_ms} ms); seek median"
            f" {statistics.median(times):.0f} ms, max {max(times):.0f} ms"
            f" ({', '.join(f'{t:.0f}' for t in times)}); kernel RSS {before} -> {after} kB;"
            f" opened again in {again:.0f} ms (the kernel: {kernel_again} ms)"
        )


def open_player(page: Any) -> tuple[float, int]:
    """Run the player's cell: ms from running it to the player drawn at its last point, and
    the kernel's ms building it (the cell prints them)."""
    page.evaluate(WATCH_OPENING)
    run_cell(page, 2)
    page.wait_for_function("() => window.__opened !== null", timeout=120_000)
    opened = float(page.evaluate("() => window.__opened"))
    made = page.locator(".jp-Notebook .jp-Cell").nth(2).locator(".jp-OutputArea")
    made.filter(has_text="KERNEL").wait_for(timeout=60_000)
    kernel_ms = int(made.inner_text().split("KERNEL ")[1].split()[0])
    return opened, kernel_ms


def rss(page: Any, cell: int) -> int:
    """The kernel's resident memory (kB), printed by running cell `cell`."""
    run_cell(page, cell)
    out = page.locator(".jp-Notebook .jp-Cell").nth(cell).locator(".jp-OutputArea")
    out.filter(has_text="RSS").wait_for(timeout=60_000)
    page.wait_for_selector("text=Python 3 (ipykernel) | Idle", timeout=60_000)
    return int(out.inner_text().split()[-1])
