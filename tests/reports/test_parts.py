"""The report's parts without a browser: headlines with their numbers, figures only with data, radar maps only
with three dimensions, rankings that say what is within noise, word diffs, labels as in the data, escaping."""

from __future__ import annotations

import math

import numpy as np
import pytest

from robust.core.results import ReportParts, Result, Sample, SampleGroup
from robust.plugins.benchmarks.accuracy import _label_names, confusion_figure
from robust.plugins.benchmarks.robtest import report as robtest
from robust.plugins.benchmarks.robtest.scores import final_score
from robust.report import diff_words, figure_has_data, html_page, markdown, summary_rows
from robust.toolkit.reporting import ranking, within_noise

DEGREES = [0.0, 0.1, 0.3]


def robtest_data(dimensions=("Typo", "Glyph", "Synonym"), access=("rule",)):
    """A RobTest result's data with one -M tag per dimension; the first is the weakest."""
    tags, curves, finals = [], {}, {}
    for k, dim in enumerate(dimensions):
        name = f"{dim.lower()}-M"
        tags.append({"name": name, "dimension": dim, "tag": "M", "access": list(access)})
        avg, worst = [80.0, 60.0 + 10 * k, 41.0 + 10 * k], [80.0, 40.0 + 10 * k, 30.0 + 10 * k]
        curves[name] = {a: {"average": avg, "worst": worst} for a in access}
        finals[name] = {f"{robtest.title(a)}-{m.capitalize()}": final_score(c) for a in access
                        for m, c in (("average", avg), ("worst", worst))}
    return {"kind": "robtest", "degrees": DEGREES, "clean_accuracy": 80.0, "tags": tags, "access": list(access),
            "curves": curves, "finals": finals, "settings": {"n": 50, "final": "code"}}


def test_robtest_headline_gives_the_drop_at_the_largest_degree_and_the_lowest_worst_final():
    data = robtest_data()
    worst = final_score([80.0, 40.0, 30.0])  # typo-M's Worst curve: 0.5*40 + 0.25*30 = 27.5
    assert worst == 27.5
    assert robtest.headline(data) == ("Accuracy falls from 80\u00a0% (clean) to 41\u00a0% at typo-M degree 0.3 "
                                      "(rule-based), the weakest of 3 settings; lowest Worst-case Final Score 28 "
                                      "(typo-M, rule-based).")


def test_radar_needs_three_dimensions_and_draws_only_accesses_with_scores():
    three = robtest.figures(Result(data=robtest_data()))
    radars = [fig for title, fig in three if title.startswith("Radar")]
    assert len(radars) == 2 and all(len(fig.get_axes()) == 1 for fig in radars)  # rule only: no empty score map
    assert all(figure_has_data(fig) for _, fig in three)
    two = robtest.figures(Result(data=robtest_data(("Typo", "Glyph"))))
    assert not any(title.startswith("Radar") for title, _ in two)
    both = robtest.figures(Result(data=robtest_data(access=("rule", "score"))))
    assert [len(fig.get_axes()) for title, fig in both if title.startswith("Radar")] == [2, 2]


def test_final_scores_figure_and_curves_need_data():
    empty = {**robtest_data(), "finals": {}, "tags": []}
    assert robtest.final_scores_figure(empty) is None
    assert figure_has_data(robtest.final_scores_figure(robtest_data()))
    from matplotlib.figure import Figure

    blank = Figure()
    blank.add_subplot().set_title("nothing here")
    assert not figure_has_data(blank)  # negative control of the guard the page applies to every figure


def test_average_and_worst_curves_are_drawn_differently():
    fig = robtest._curves_figure("typo-M", {"": robtest_data()})
    lines = {line.get_label(): line for line in fig.get_axes()[0].lines}
    avg, worst = lines["Rule-Average"], lines["Rule-Worst"]
    assert (avg.get_linestyle(), avg.get_marker()) != (worst.get_linestyle(), worst.get_marker())
    assert avg.get_markerfacecolor() != worst.get_markerfacecolor()


def test_within_noise_is_the_95_percent_bound_of_the_difference():
    assert within_noise(0.80, 0.02, 0.78, 0.02) is True  # 0.02 <= 1.96 * 0.0283
    assert within_noise(0.80, 0.01, 0.70, 0.01) is False  # 0.10 > 1.96 * 0.0141
    assert within_noise(0.80, None, 0.70, 0.01) is None
    rows, ties = ranking([("b", 0.78, 0.02), ("a", 0.80, 0.02), ("c", 0.50, 0.02)])
    assert [r[1] for r in rows] == ["a", "b", "c"] and ties == [("a", "b")]
    assert [r[4] for r in rows] == ["within noise", "ahead", "–"]
    assert [r[1] for r in ranking([("x", 0.2, None), ("y", 0.1, None)], higher_is_better=False)[0]] == ["y", "x"]


def test_robtest_final_se_bounds_the_spread_of_correlated_examples():
    """Examples that fail at every degree above their own breaking point (the most correlated case): the
    spread of the Final Score over resamples stays under the bound, which a bound assuming independent degrees
    would not (negative control)."""
    rng, n, p = np.random.default_rng(0), 50, np.array([1.0, 0.7, 0.4])
    curve = list(100 * p)
    finals = []
    for _ in range(3000):
        u = rng.random(n)
        finals.append(final_score([100 * np.mean(u < q) for q in p]))
    spread = float(np.std(finals))
    assert spread <= robtest.final_se(curve, n, "code")
    weights = [final_score([0.0, 1.0, 0.0]), final_score([0.0, 0.0, 1.0])]
    independent = 100 * math.sqrt(sum(w * w * q * (1 - q) / n for w, q in zip(weights, p[1:])))
    assert spread > independent


def test_compare_ranks_runs_and_marks_noise():
    a, b = Result(data=robtest_data()), Result(data=robtest_data())
    cmp = robtest.compare([("A", a), ("B", b)])
    ranking_table = cmp.tables[0]
    assert ranking_table.rows[0][4] == "within noise" and cmp.summary["within noise"] == ["A vs B"]
    parts = robtest.report_parts(cmp, {})
    assert "within noise: A vs B" in parts.headline


def test_word_diff_marks_edits_and_keeps_replaced_sentences_whole():
    before, after = diff_words("the film was good", "the film was g00d")
    assert before == "the film was <del>g<u>oo</u>d</del>" and after == "the film was <ins>g<u>00</u>d</ins>"
    # homoglyph edits of several words in a row, a common word apart: each word and character stays marked
    before, after = diff_words("is enormous fun for thinking audiences", "іs еnormous fuո for thinking audieոces")
    assert after == ("<ins><u>і</u>s <u>е</u>normous fu<u>ո</u></ins> for thinking "
                     "<ins>audie<u>ո</u>ces</ins>")
    before, after = diff_words("A cat sat on the mat. It is big.", "Dogs bark at the moon all night. It is big.")
    assert before.count("<del>") == 1 and after.count("<ins>") == 1  # one block, not fragments around 'the'
    before, after = diff_words("<b>x</b> y", "<b>x</b> z")
    assert "<b>" not in before + after and "&lt;b&gt;x&lt;/b&gt;" in before


def test_accuracy_labels_are_the_datas():
    rows = [{"label": -1, "gold": 0, "pred": 0}, {"label": 1, "gold": 1, "pred": 0}, {"label": 1, "gold": 1, "pred": 1}]
    names = _label_names(rows, None)
    assert names == {0: "-1", 1: "1"}
    fig = confusion_figure(rows, names)
    ax = fig.get_axes()[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["-1", "1"]
    assert sorted(t.get_text() for t in ax.texts) == ["0", "1", "1", "1"]
    assert _label_names([], ["neg", "pos"]) == {0: "neg", 1: "pos"}  # no records: the model's class names


def test_summary_intervals_join_their_quantity():
    rows = summary_rows({"score": 0.5, "score_ci_low": 0.4, "score_ci_high": 0.6, "n": 3, "x_ci_low": 1.0})
    assert rows == [("score", 0.5, "[0.4, 0.6]"), ("n", 3, ""), ("x_ci_low", 1.0, "")]


@pytest.mark.parametrize("hostile", ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>"])
def test_page_escapes_samples_labels_and_notes(hostile):
    parts = ReportParts(f"headline {hostile}.", [], [SampleGroup(hostile, [Sample(hostile, hostile + " y", 0, 1,
                                                                                  output=hostile, note=hostile)])],
                        [hostile])
    page = html_page(hostile, Result({hostile: hostile}), parts, {"Run": {hostile: hostile}}, [hostile, "ok"])
    assert hostile not in page and hostile.replace("<", "&lt;").replace(">", "&gt;") in page


def test_markdown_sample_lines_keep_their_separators():
    parts = ReportParts("", [], [SampleGroup("typo", [Sample("a good film .", "a godo film .", 1, 0,
                                                              note="degree 0.1 · succeeded after 1 query")])])
    page = markdown("run", {}, Result({}), parts, ["negative", "positive"])
    assert ("- degree 0.1 · succeeded after 1 query: a good film . → a godo film . "
            "(gold positive, prediction negative)") in page


def test_wilson_interval_matches_its_closed_form():
    from robust.toolkit.stats import wilson

    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)  # Wilson (1927), z = 1.96
    low, high = wilson(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12) and high == pytest.approx(0.2775, abs=1e-4)  # Wald would give [0, 0]
    assert all(math.isnan(v) for v in wilson(0, 0))


def attack_result(n: int, succeeded: int, skipped: int = 0) -> Result:
    from robust.plugins.benchmarks.attack.benchmark import summarize

    recs = ([{"status": "succeeded", "queries": 10, "word_share": 0.2, "seconds": 0.1}] * succeeded
            + [{"status": "skipped", "queries": 1, "word_share": 0.0, "seconds": 0.1}] * skipped
            + [{"status": "failed", "queries": 20, "word_share": 0.5, "seconds": 0.1}] * (n - succeeded - skipped))
    return Result(data={"per_attack": {"typo": summarize(recs)}})


def test_attack_compare_ranks_by_accuracy_under_attack_and_marks_noise():
    from robust.plugins.benchmarks.attack.report import compare, report_parts

    close = compare([("A", attack_result(100, 40)), ("B", attack_result(100, 43))])
    assert close.tables[0].rows[0][1] == "A" and close.tables[0].rows[0][4] == "within noise"
    assert "within noise: A vs B" in report_parts(close, {}).headline
    apart = compare([("A", attack_result(400, 100)), ("B", attack_result(400, 300))])  # negative control
    assert apart.tables[0].rows[0][4] == "ahead" and apart.summary["typo: within noise"] == []


def test_attack_headline_and_figures_follow_the_outcomes():
    from robust.plugins.benchmarks.attack.report import headline, outcomes_figure

    result = attack_result(10, 6, skipped=2)
    assert headline(result).startswith("Accuracy falls from 80\u00a0% (clean) to 20\u00a0% under typo: it succeeds on "
                                       "6 of 8 attacked examples (success rate 75\u00a0%")
    fig = outcomes_figure(result)
    assert [p.get_width() for p in fig.get_axes()[0].patches] == [6, 2, 2]  # succeeded, failed, skipped
    nothing = attack_result(3, 0, skipped=3)
    assert headline(nothing).startswith("No example was attacked")


def test_synbench_noise_comes_from_trials():
    from robust.plugins.benchmarks.synbench.compare import score_interval

    assert score_interval({"trials": 1, "score": 0.9, "score_sd": None}).n == 1  # one trial: no spread, no verdict
    assert score_interval({"trials": 5, "score": 0.9, "score_sd": 0.02}).se == pytest.approx(0.02 / 5 ** 0.5)
    old = score_interval({"trials": 5, "score": 0.9, "score_std": 0.02})  # results stored np.std (ddof 0)
    assert old.sd == pytest.approx(0.02 * (5 / 4) ** 0.5)


def test_asr_predict_pages_say_what_each_stage_found():
    from robust.plugins.benchmarks.asr_predict.report import report_parts

    rows = {f"subset/{i}": {"family": "wn-noun" if i % 2 else "wn-verb", "asr": {"typo": 0.0}, "target": 0.0}
            for i in range(4)}
    build = Result({"rows": 4, "mean_asr": 0.0, "sd_asr": 0.0, "mean_victim_clean_accuracy": 0.5, "table": "t.csv"})
    parts = report_parts(build, rows)
    assert parts.headline.startswith("Built 4 sub-datasets of wn-noun, wn-verb")
    assert any("cannot learn" in n for n in parts.notes)  # a flat table is called out ...
    varied = {k: {**r, "target": 0.1 * i, "asr": {"typo": 0.1 * i}} for i, (k, r) in enumerate(rows.items())}
    assert not any("cannot learn" in n for n in report_parts(build, varied).notes)  # ... a varied one is not
    predicted = Result({"predicted_asr": 0.6, "asr_low": 0.3, "asr_high": 0.9, "error_basis": "unseen-corpus"},
                       data={"sentence": "Predicted attack success rate 0.600.",
                             "predictor_meta": {"asr_range": [0.2, 0.8], "rows": 9}})
    parts = report_parts(predicted, {})
    strip = parts.figures[0][1].get_axes()[0]
    assert strip.get_xlim()[0] < 0.0 < 1.0 < strip.get_xlim()[1] and len(strip.patches) == 1  # the training band
    assert parts.hidden_tables == ["Prediction"] and parts.headline == "Predicted attack success rate 0.600."
