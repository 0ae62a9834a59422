"""Regenerate docs/images/report-<benchmark>.png: small real runs of each benchmark on the embedded models, their
HTML reports, and the top of each page as Debian's Chromium renders it at 1280 px (through Playwright).

    python benchmarks/report_screenshots.py                # every benchmark (a few minutes on 2 cores)
    python benchmarks/report_screenshots.py robtest byod   # some of them
    python benchmarks/report_screenshots.py --keep DIR     # also keep the store and the HTML reports in DIR

Needs `robust setup` (MR data, WordNet) and `apt-get install chromium`; the PNGs are palette-quantised to stay
small (< 300 KB each).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: benchmark -> `robust run` arguments of its small real run
RUNS = {
    "syntextbench": ["--model", "minilm", "--set", "n=256", "--set", "levels=0,0.2,0.4,0.6,0.8,0.9"],
    "robtest": ["--model", "probe:minilm", "--attack", "typo,glyph", "--limit", "16", "--set", "aug_num=5",
                "--set", "degrees=0.05,0.1,0.2,0.4"],
    "byod": ["--model", "smollm2", "--test", "negation,toxicity,lrs,word_order,tokenization", "--limit", "12",
             "--set", "max_new_tokens=12", "--set", "bootstrap=500"],
    "accuracy": ["--model", "probe:minilm", "--limit", "200"],
}
HEIGHT = 1000  # the part of the page a reader sees first


def robust(*args: object) -> str:
    from tests.core.conftest import in_process

    code, out, err = in_process(*args)
    if code:
        raise SystemExit(f"robust {' '.join(map(str, args))} failed: {err.strip()}")
    return out


def shoot(html: Path, png: Path) -> int:
    """The top of `html` at 1280 px as a palette PNG; returns its size in bytes."""
    from PIL import Image
    from playwright.sync_api import sync_playwright
    from tests.reports.conftest import CHROMIUM_ARGS, chromium_path, inspect

    executable = chromium_path()
    if executable is None:
        raise SystemExit("needs Chromium: apt-get install chromium (or set ROBUST_CHROMIUM)")
    raw = png.with_suffix(".raw.png")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": HEIGHT})
        page.goto(html.resolve().as_uri(), wait_until="load")
        page.screenshot(path=str(raw))
        found = inspect(browser, html)
        browser.close()
    if found["problems"] or not all(img["decoded"] for img in found["images"]) or found["overflow"] > 0:
        raise SystemExit(f"{html} does not read cleanly: {found['problems']}, overflow {found['overflow']}")
    Image.open(raw).convert("RGB").quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(png, optimize=True)
    raw.unlink()
    return png.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", nargs="*", default=list(RUNS), choices=list(RUNS))
    parser.add_argument("--keep", type=Path, help="keep the run store and the HTML reports here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="robust-screens-"))
    work.mkdir(parents=True, exist_ok=True)
    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    for bench in args.benchmarks:
        start = time.perf_counter()
        run = json.loads(robust("--store", work / "runs.db", "run", "--bench", bench, *RUNS[bench], "--json",
                                "--quiet"))
        robust("--store", work / "runs.db", "report", run["id"], "--out", work)
        size = shoot(work / f"{run['id']}.html", images / f"report-{bench}.png")
        print(f"{bench}: run {run['id']} in {time.perf_counter() - start:.0f} s -> docs/images/report-{bench}.png "
              f"({size / 1024:.0f} KB)", flush=True)


if __name__ == "__main__":
    main()
