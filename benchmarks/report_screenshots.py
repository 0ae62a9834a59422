"""Regenerate docs/images/report-<benchmark>.png: small real runs of each benchmark on the embedded models, their
HTML reports, and the page as Debian's Chromium renders it at 1280 px (through Playwright): its top and, when it
has samples, the start of its Samples section below it.

    python benchmarks/report_screenshots.py                # every benchmark (about 10 min on 2 cores; RobTest 463 s)
    python benchmarks/report_screenshots.py robtest byod   # some of them
    python benchmarks/report_screenshots.py --keep DIR     # also keep the store and the HTML reports in DIR

Needs `robust setup` (MR data, WordNet) and `apt-get install chromium`; asr-predict fits the authors'
data_bert.csv from the data folder beside the repository (never committed) when it is there, else a tiny table it builds
first. The PNGs are palette-quantised to stay small (< 300 KB each).
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
    "robtest": ["--model", "probe:minilm", "--attack", "typo", "--limit", "48", "--set", "aug_num=5",
                "--set", "degrees=0.05,0.1,0.2,0.4"],
    "byod": ["--model", "smollm2", "--test", "negation,toxicity,lrs,word_order,tokenization", "--limit", "12",
             "--set", "max_new_tokens=12", "--set", "bootstrap=500"],
    "accuracy": ["--model", "probe:minilm", "--limit", "200"],
    "synbench": ["--model", "random-projection:48"],
    "attack": ["--model", "probe:minilm", "--attack", "deepwordbug", "--limit", "20"],
    "asr-predict": ["--set", "stage=fit"],  # on a table: see `asr_predict_table`
}
#: a table to fit when the authors' is absent: tiny victims, often too weak to attack (a flat, useless table)
TINY_BUILD = ["--set", "stage=build", "--set", "subsets=6", "--set", "train_size=40", "--set", "val_size=10",
              "--set", "test_size=10", "--set", "epochs=2", "--set", "families=wn-noun,wn-verb",
              "--set", "class_counts=2"]
HEIGHT = 1000  # the part of the page a reader sees first
SAMPLES_HEIGHT = 560  # of the Samples section, below it
GAP = 6  # grey rule between the two


def robust(*args: object) -> str:
    from tests.core.conftest import in_process

    code, out, err = in_process(*args)
    if code:
        raise SystemExit(f"robust {' '.join(map(str, args))} failed: {err.strip()}")
    return out


def asr_predict_table(work: Path) -> list[str]:
    """`--set table=...` for the asr-predict fit: the authors' data_bert.csv, else a tiny table built now."""
    for folder in (ROOT.parent / "shared" / "data" / "robusttext",):
        if (folder / "data_bert.csv").is_file():
            return ["--set", f"table={folder / 'data_bert.csv'}", "--set", f"predictor={work / 'predictor.json'}"]
    print("asr-predict: no data_bert.csv; fitting a tiny table built here (its ASRs may all be 0)", flush=True)
    paths = ["--set", f"table={work / 'tiny-table.csv'}", "--set", f"predictor={work / 'predictor.json'}"]
    robust("--store", work / "runs.db", "run", "--bench", "asr-predict", *TINY_BUILD, *paths, "--quiet")
    return paths


def shoot(html: Path, png: Path) -> int:
    """The top of `html` at 1280 px (and the start of its samples) as a palette PNG; returns its size in bytes."""
    from PIL import Image
    from playwright.sync_api import sync_playwright
    from tests.reports.conftest import CHROMIUM_ARGS, chromium_path, inspect

    executable = chromium_path()
    if executable is None:
        raise SystemExit("needs Chromium: apt-get install chromium (or set ROBUST_CHROMIUM)")
    raw = png.with_suffix(".raw.png")
    shots = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": HEIGHT})
        page.goto(html.resolve().as_uri(), wait_until="load")
        page.screenshot(path=str(raw))
        shots.append(Image.open(raw).convert("RGB"))
        top = page.evaluate("(() => { const s = document.getElementById('samples');"
                            " return s ? s.getBoundingClientRect().top + window.scrollY - 12 : null; })()")
        if top is not None and top > HEIGHT:
            page.screenshot(path=str(raw), full_page=True,
                            clip={"x": 0, "y": top, "width": 1280, "height": SAMPLES_HEIGHT})
            shots.append(Image.open(raw).convert("RGB"))
        found = inspect(browser, html)
        browser.close()
    if found["problems"] or not all(img["decoded"] for img in found["images"]) or found["overflow"] > 0:
        raise SystemExit(f"{html} does not read cleanly: {found['problems']}, overflow {found['overflow']}")
    image = Image.new("RGB", (1280, sum(s.height for s in shots) + GAP * (len(shots) - 1)), "#c8ccd0")
    y = 0
    for shot in shots:
        image.paste(shot, (0, y))
        y += shot.height + GAP
    image.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(png, optimize=True)  # keeps rare hues
    raw.unlink()
    return png.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("benchmarks", nargs="*", help=f"default: all of {', '.join(RUNS)}")
    parser.add_argument("--keep", type=Path, help="keep the run store and the HTML reports here")
    args = parser.parse_args()
    unknown = [b for b in args.benchmarks if b not in RUNS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(RUNS)}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="robust-screens-"))
    work.mkdir(parents=True, exist_ok=True)
    images = ROOT / "docs" / "images"
    images.mkdir(parents=True, exist_ok=True)
    for bench in args.benchmarks or list(RUNS):
        start = time.perf_counter()
        extra = asr_predict_table(work) if bench == "asr-predict" else []
        run = json.loads(robust("--store", work / "runs.db", "run", "--bench", bench, *RUNS[bench], *extra, "--json",
                                "--quiet"))
        robust("--store", work / "runs.db", "report", run["id"], "--out", work)
        size = shoot(work / f"{run['id']}.html", images / f"report-{bench}.png")
        print(f"{bench}: run {run['id']} in {time.perf_counter() - start:.0f} s -> docs/images/report-{bench}.png "
              f"({size / 1024:.0f} KB)", flush=True)


if __name__ == "__main__":
    main()
