"""Browser fixtures: Debian's Chromium driven by Playwright (never a downloaded browser), one per session.

Tests that need it skip, with the reason, when Playwright or a Chromium executable is missing; `.ci/run`
installs Debian's `chromium` and the `test` extra installs Playwright. Set ROBUST_CHROMIUM to use another
Chromium executable.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

#: flags for a headless Chromium on a closed network, as root (CI runs as root)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                 "--disable-background-networking", "--disable-component-update", "--disable-dev-shm-usage"]
WIDTH = 1280

#: what a page reports about itself (run in the page after it loaded)
INSPECT = """() => {
  const text = el => { const c = el.cloneNode(true); c.querySelectorAll('.role').forEach(r => r.remove());
                       return c.textContent.trim(); };
  const all = [...document.querySelectorAll('*')];
  return {
    images: [...document.images].map(i => ({alt: i.alt, src: (i.getAttribute('src') || '').slice(0, 22),
                                            decoded: i.complete && i.naturalWidth > 0})),
    overflow: document.documentElement.scrollWidth - window.innerWidth,
    headline: (document.querySelector('.headline') || {}).textContent || '',
    samples: [...document.querySelectorAll('#samples ~ details .sample')].map(s =>
               [...s.querySelectorAll('p.text')].map(text)),
    body: document.body.innerText,
    scripts: document.scripts.length,
    handlers: all.filter(e => [...e.attributes].some(a => a.name.toLowerCase().startsWith('on')))
                 .map(e => e.outerHTML.slice(0, 80)),
  };
}"""


def chromium_path() -> str | None:
    for candidate in (os.environ.get("ROBUST_CHROMIUM"), "chromium", "chromium-browser", "/usr/bin/chromium"):
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright (pip install playwright; the `test` extra has it)")
    executable = chromium_path()
    if executable is None:
        pytest.skip("browser tests need Chromium: apt-get install chromium (or set ROBUST_CHROMIUM)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def inspect(browser: Any, path: Path, screenshot: Path | None = None) -> dict[str, Any]:
    """Open a report as a reader does (a file, 1280 px wide) and return what the page says about itself plus
    every console error or warning, uncaught exception and failed request."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning")
            else None)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url[:60]}"))
    try:
        page.goto(path.resolve().as_uri(), wait_until="load")
        info = page.evaluate(INSPECT)
        if screenshot is not None:
            page.screenshot(path=str(screenshot), full_page=False)
    finally:
        page.close()
    info["problems"] = problems
    return info
