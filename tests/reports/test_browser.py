"""Every benchmark's report opened in a real browser, as a reader meets it: it loads without console errors,
every image decodes, nothing overflows at 1280 px, the samples are the run's own texts, and a hostile class name
or text stays text."""

from __future__ import annotations

import time

import pytest

from robust.core.plugins import get_registry
from tests.reports.conftest import WIDTH, inspect
from tests.reports.runs import HOSTILE, HOSTILE_TEXT, make_runs


@pytest.fixture(scope="module")
def reports(tmp_path_factory, gpt2_dir, corpus_file, browser):
    start = time.perf_counter()
    runs = make_runs(tmp_path_factory.mktemp("reports"), gpt2_dir, corpus_file)
    made = time.perf_counter()
    pages = {bench: inspect(browser, found["html"]) for bench, found in runs.items()}
    print(f"\nruns and reports {made - start:.1f} s, browser checks {time.perf_counter() - made:.1f} s")
    return runs, pages


def norm(text: str) -> str:
    return " ".join(text.split())


def run_texts(bench: str, records: dict) -> set[str]:
    """The texts a run's records hold (what its samples must come from)."""
    fields = {"robtest": ("text", "perturbed", "sample"), "byod": ("x", "x_prime"),
              "attack": ("original", "perturbed")}.get(bench, ())
    return {norm(r[f])[:400] for r in records.values() for f in fields if r.get(f)}


@pytest.mark.parametrize("bench", ["accuracy", "robtest", "syntextbench", "byod", "compare", "attack", "synbench",
                                   "asr-predict"])
def test_report_reads_cleanly_in_a_browser(reports, bench):
    runs, pages = reports
    page = pages[bench]
    assert page["problems"] == []
    assert page["images"] and all(img["decoded"] for img in page["images"]), page["images"]
    assert all(img["src"].startswith("data:image/png") for img in page["images"])
    assert page["overflow"] <= 0, f"{page['overflow']} px wider than {WIDTH}"
    assert page["scripts"] == 0 and page["handlers"] == []
    assert len(page["headline"].split()) >= 4 and page["headline"].rstrip().endswith(".")


@pytest.mark.parametrize("bench", ["robtest", "byod", "attack"])
def test_samples_are_the_runs_texts_with_edits(reports, bench):
    runs, pages = reports
    samples = pages[bench]["samples"]
    texts = run_texts(bench, runs[bench]["records"])
    assert len(samples) >= 3
    for original, *perturbed in samples:
        assert norm(original).removesuffix(" …")[:400] in {t[: len(norm(original).removesuffix(" …"))] for t in texts}
        if perturbed:
            assert norm(perturbed[0]) != norm(original)
    # negative control: a text the run never produced is not accepted
    assert "the film was splendid" not in {t[:21] for t in texts}


def test_syntextbench_samples_are_the_sentences_the_model_embedded(reports):
    runs, pages = reports
    samples = [norm(s[0]) for s in pages["syntextbench"]["samples"]]
    generator = get_registry().get("dataset", "syntextbench-sentences")
    produced = {norm(t) for p in (0.0, 0.5, 0.9) for t in generator.create(n=64, p=p).task(0).test_texts}
    assert len(samples) == 9 and set(samples) <= produced
    wrong_seed = {norm(t) for p in (0.0, 0.5, 0.9) for t in generator.create(n=64, p=p).task(1).test_texts}
    assert not set(samples) <= wrong_seed  # negative control: another seed's sentences differ


@pytest.mark.parametrize("bench", ["accuracy", "robtest", "attack"])
def test_hostile_label_and_text_stay_text(reports, bench):
    _, pages = reports
    page = pages[bench]
    assert HOSTILE in page["body"]  # shown literally ...
    assert page["handlers"] == [] and all(img["src"].startswith("data:") for img in page["images"])  # ... not live
    if bench in ("robtest", "attack"):  # the hostile text is a sample, as text
        assert norm(HOSTILE_TEXT) in [norm(s[0]) for s in page["samples"]]


def test_attack_samples_are_its_successful_attacks_with_the_new_prediction(reports):
    runs, pages = reports
    records = runs["attack"]["records"]
    wins = [r for r in records.values() if r["status"] == "succeeded"]
    samples = pages["attack"]["samples"]
    assert len(samples) == min(5, len(wins)) >= 2
    pairs = {(norm(r["original"]), norm(r["perturbed"])) for r in wins}
    assert {(norm(a), norm(b)) for a, b in samples} <= pairs
    lost = {(norm(r["original"]), norm(r["perturbed"])) for r in records.values() if r["status"] != "succeeded"}
    assert not {(norm(a), norm(b)) for a, b in samples} & lost  # negative control: no failed attack is shown
    assert pages["attack"]["body"].count("✗ wrong") == len(samples)  # every shown attack flipped the prediction


def test_attack_headline_states_the_accuracy_under_attack(reports):
    runs, pages = reports
    s = runs["attack"]["run"]["result"]["summary"]
    expected = (f"from {100 * s['clean_accuracy']:.0f}\u00a0% (clean) to {100 * s['accuracy_under_attack']:.0f}\u00a0% "
                f"under saliency-greedy:leetspeak: it succeeds on {s['succeeded']} of {s['n'] - s['skipped']}")
    assert expected in pages["attack"]["headline"]


def test_synbench_and_asr_predict_headlines_give_their_numbers(reports):
    runs, pages = reports
    score = runs["synbench"]["run"]["result"]["summary"]["score"]
    assert pages["synbench"]["headline"].startswith(f"SynBench-Score {score:.3g} at ε = 0, a_T = 0.7")
    data = runs["asr-predict"]["run"]["result"]["data"]
    last = data["comparisons"][-1]
    assert pages["asr-predict"]["headline"].startswith(data["verdict"].splitlines()[0].rstrip("."))
    assert f"RMSE {last['model_rmse']:.3f} against {last['baseline_rmse']:.3f}" in pages["asr-predict"]["headline"]


def test_robtest_headline_states_the_drop_and_the_worst_final(reports):
    runs, pages = reports
    data = runs["robtest"]["run"]["result"]["data"]
    clean = data["clean_accuracy"]
    end = min(data["curves"]["leetspeak"][a]["average"][-1] for a in data["access"])
    expected = f"from {clean:.0f}\u00a0% (clean) to {end:.0f}\u00a0% at leetspeak degree 0.5"
    assert expected in pages["robtest"]["headline"]
    worst = min(v for k, v in data["finals"]["leetspeak"].items() if k.endswith("Worst"))
    assert f"Worst-case Final Score {worst:.0f}" in pages["robtest"]["headline"]


def test_the_checks_catch_a_broken_page(browser, tmp_path):
    """Negative control: an undecodable image, a page wider than the window, a console error and injected
    markup are each reported."""
    page = tmp_path / "broken.html"
    page.write_text("<!doctype html><html><body><p class='headline'>Broken.</p>"
                    "<img alt='bad' src='data:image/png;base64,AAAA'>"
                    "<div style='width:2000px'>wide</div>"
                    f"<p>{HOSTILE}</p><script>console.error('boom')</script></body></html>")
    found = inspect(browser, page)
    assert [img["decoded"] for img in found["images"]] == [False, False]
    assert found["overflow"] > 0
    assert any("boom" in p for p in found["problems"]) and any("label" in p for p in found["problems"])
    assert found["scripts"] == 1 and found["handlers"]
