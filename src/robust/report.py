"""Reports and exports: a self-contained HTML page, a Markdown summary, JSON/JSONL/CSV.

A page answers its reader's first question at the top (a one-sentence headline and one figure), then gives the
detail: the other figures, the result's numbers (with their intervals where the run has them), real samples of
the texts the run produced, and the run's configuration and environment. Each benchmark supplies its headline,
figures and samples through `Benchmark.report(result, records, labels) -> ReportParts`; everything else is
generic. Figures are matplotlib PNGs embedded as data URIs (no network, no JavaScript); everything that came
from a user (texts, labels, settings, paths) is escaped.
"""

from __future__ import annotations

import base64
import csv
import difflib
import html
import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robust.core.errors import RobustError
from robust.core.results import ReportParts, Result, Sample, Table
from robust.engine.store import Run
from robust.toolkit.reporting import default_headline, fmt, interval, label_name


# --- samples ---------------------------------------------------------------------------------------------
def diff_words(original: str, perturbed: str) -> tuple[str, str]:
    """Both texts as HTML with the words that differ marked (<del> in the original, <ins> in the perturbed); in
    words edited in place (a typo, a homoglyph) the changed characters are marked too (<u>)."""
    a, b = original.split(), perturbed.split()
    left, right = [], []
    for op, i1, i2, j1, j2 in _word_blocks(a, b):
        old, new = a[i1:i2], b[j1:j2]
        if op == "equal":
            left.append(html.escape(" ".join(old)))
            right.append(html.escape(" ".join(new)))
            continue
        if _word_for_word(old, new):
            old_words, new_words = zip(*(_diff_chars(x, y) for x, y in zip(old, new)))
            left.append(f"<del>{' '.join(old_words)}</del>")
            right.append(f"<ins>{' '.join(new_words)}</ins>")
            continue
        if old:
            left.append(f"<del>{html.escape(' '.join(old))}</del>")
        if new:
            right.append(f"<ins>{html.escape(' '.join(new))}</ins>")
    return " ".join(left), " ".join(right)


def _diff_chars(old: str, new: str) -> tuple[str, str]:
    """Two forms of a word as HTML with the characters that differ in <u>."""
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        x, y = html.escape(old[i1:i2]), html.escape(new[j1:j2])
        left.append(x if op == "equal" or not x else f"<u>{x}</u>")
        right.append(y if op == "equal" or not y else f"<u>{y}</u>")
    return "".join(left), "".join(right)


def _word_blocks(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """Difflib's opcodes over words, with a gap of one or two common words between two changes of which one
    spans three or more rewritten words folded into a single change (a replaced sentence reads as one block, not
    as fragments aligned on 'the' and 'is'); word-level edits, even of many words in a row, stay word-level."""
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()

    def wide(op: tuple[str, int, int, int, int]) -> bool:  # three or more words rewritten, not edited one by one
        return max(op[2] - op[1], op[4] - op[3]) >= 3 and not _word_for_word(a[op[1]:op[2]], b[op[3]:op[4]])

    out: list[tuple[str, int, int, int, int]] = []
    for k, op in enumerate(ops):
        bridge = (op[0] == "equal" and op[2] - op[1] <= 2 and 0 < k < len(ops) - 1
                  and (wide(ops[k - 1]) or wide(ops[k + 1])))
        if (op[0] != "equal" or bridge) and out and out[-1][0] == "change":
            out[-1] = ("change", out[-1][1], op[2], out[-1][3], op[4])
        else:
            out.append(("change" if op[0] != "equal" else "equal", *op[1:]))
    return out


def _word_for_word(old: list[str], new: list[str]) -> bool:
    """Whether a change edits each word in place (a typo, a homoglyph): as many words, each pair alike."""
    return len(old) == len(new) and all(difflib.SequenceMatcher(None, x, y).ratio() >= 0.5 for x, y in zip(old, new))


def _marked(text: str, marks: Mapping[str, str]) -> str:
    out = []
    for word in text.split():
        kind = marks.get(word.lower().strip(".,;:!?\"'()"))
        kind = kind if kind in ("pos", "neg", "key") else None
        out.append(f"<mark class='{kind}'>{html.escape(word)}</mark>" if kind else html.escape(word))
    return " ".join(out)


def _sample_html(s: Sample, labels: Sequence[Any] | None) -> str:
    meta = [html.escape(s.note)] if s.note else []
    if s.gold is not None:
        meta.append(f"gold <b>{html.escape(label_name(s.gold, labels))}</b>")
    if s.pred is not None:
        verdict = "" if s.gold is None else (" <span class='ok'>✓ correct</span>" if s.pred == s.gold
                                             else " <span class='bad'>✗ wrong</span>")
        meta.append(f"prediction <b>{html.escape(label_name(s.pred, labels))}</b>{verdict}")
    parts = [f"<div class='sample'><div class='smeta'>{' · '.join(meta)}</div>"]
    if s.perturbed is None:
        parts.append(f"<p class='text'>{_marked(s.original, s.marks)}</p>")
    else:
        before, after = diff_words(s.original, s.perturbed)
        parts.append(f"<p class='text'><span class='role'>original</span>{before}</p>")
        parts.append(f"<p class='text'><span class='role'>perturbed</span>{after}</p>")
    if s.output:
        parts.append(f"<p class='output'><span class='role'>output</span>{html.escape(s.output)}</p>")
    parts.append("</div>")
    return "".join(parts)


# --- the page --------------------------------------------------------------------------------------------
CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2228;max-width:1100px;margin:1.5em auto;
padding:0 1.2em;line-height:1.45}
h1{font-size:1.35em;margin:.2em 0 .6em;color:#444;font-weight:600;overflow-wrap:anywhere}
h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:2em}
h3{font-size:1em;margin:1.4em 0 .4em;overflow-wrap:anywhere}
.headline{font-size:1.3em;font-weight:600;line-height:1.3;margin:.3em 0 .5em;overflow-wrap:anywhere}
.notes{color:#8a4b00;margin:.2em 0 1em;padding-left:1.2em}
nav{font-size:.9em;margin:.5em 0 1em}nav a{margin-right:1em}
figure{margin:0 0 1.5em}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.9em;color:#555;margin:.2em 0}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em}
td,th{border:1px solid #d5d9de;padding:3px 8px;text-align:right;vertical-align:top;white-space:nowrap}
th{background:#f2f4f6;text-align:left}td.t{text-align:left;white-space:normal;min-width:6em;max-width:46em;
overflow-wrap:anywhere}
.kv th{width:40%;white-space:normal}.config table{width:100%}
.kv td{text-align:left;white-space:normal;overflow-wrap:anywhere}
.config{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:0 1.5em}
.sample{border:1px solid #dde1e5;border-radius:6px;padding:.4em .8em;margin:.5em 0;background:#fbfcfd}
.smeta{font-size:.85em;color:#555}.text,.output{margin:.25em 0;overflow-wrap:anywhere}
.output{color:#333;font-style:italic}
.role{display:inline-block;min-width:6.5em;margin-right:.3em;font-size:.75em;color:#777;text-transform:uppercase}
del{background:#fde2e1;color:#8b1a14}ins{background:#d9f5dd;color:#0f5a1f;text-decoration:none;font-weight:600}
del u,ins u{text-decoration:none;border-bottom:2px solid currentColor}del u{background:#f7b9b5}ins u{background:#9fe0aa}
mark.pos{background:#d9f5dd}mark.neg{background:#fde2e1}mark.key{background:#fff1b8}
.ok{color:#16802b}.bad{color:#b3261e;font-weight:600}
details>summary{cursor:pointer;font-weight:600;margin:.6em 0}
"""


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{html.escape(fmt(c))}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        cells = "".join(f"<td{'' if _is_number(c) else ' class=t'}>{html.escape(fmt(c))}</td>" for c in row)
        body.append(f"<tr>{cells}</tr>")
    return (f"<h3>{html.escape(table.title)}</h3><div class='scroll'><table><tr>{head}</tr>"
            + "".join(body) + "</table></div>")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kv_html(rows: Mapping[str, Any]) -> str:
    body = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(fmt(v))}</td></tr>" for k, v in rows.items())
    return f"<div class='scroll'><table class='kv'>{body}</table></div>"


def summary_rows(summary: Mapping[str, Any]) -> list[tuple[str, Any, str]]:
    """(key, value, 95 % interval text) per summary entry; `<key>_ci_low`/`_ci_high` join their key's row."""
    rows = []
    for key, value in summary.items():
        if key.endswith(("_ci_low", "_ci_high")) and key.rsplit("_ci_", 1)[0] in summary:
            continue
        rows.append((key, value, interval(summary.get(f"{key}_ci_low"), summary.get(f"{key}_ci_high"), 4).strip()))
    return rows


def _summary_html(summary: Mapping[str, Any]) -> str:
    rows = summary_rows(summary)
    with_ci = any(ci for _, _, ci in rows)
    head = "<tr><th>quantity</th><th>value</th>" + ("<th>95 % interval</th>" if with_ci else "") + "</tr>"
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(fmt(v))}</td>"
                   + (f"<td>{html.escape(ci)}</td>" if with_ci else "") + "</tr>" for k, v, ci in rows)
    return f"<div class='scroll'><table class='kv'>{head}{body}</table></div>"


def figure_has_data(figure: Any) -> bool:
    """Whether any axes of a matplotlib figure holds drawn data (lines, markers, bars, areas, images)."""
    return any(ax.lines or ax.collections or ax.patches or ax.images for ax in figure.get_axes())


def _png(figure: Any) -> str:
    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=100, bbox_inches="tight", facecolor="white")
    try:
        import matplotlib.pyplot as plt

        plt.close(figure)
    except Exception:  # a Figure made without pyplot is not registered there
        pass
    return base64.b64encode(buf.getvalue()).decode()


def figure_alt(caption: str, figure: Any) -> str:
    """A figure's alternative text: its caption, then what each of its plots shows (title, y against x, the
    series), for a reader who cannot see it."""
    described = []
    for ax in figure.get_axes():
        title, x, y = ax.get_title().strip(), ax.get_xlabel().strip(), ax.get_ylabel().strip()
        series = [t for t in ax.get_legend_handles_labels()[1] if t and not t.startswith("_")]
        text = " ".join(p for p in (title + ":" if title else "", f"{y or 'values'} by {x}" if x else y) if p)
        if series:
            text += f" ({', '.join(series)})"
        if text.strip(": "):
            described.append(text.strip())
    return f"{caption}. " + "; ".join(described) if described else caption


def _figures(parts: ReportParts) -> list[tuple[str, str, str]]:
    """(caption, alt text, base64 PNG) of every figure that has data."""
    import matplotlib

    matplotlib.use("Agg")
    return [(caption, figure_alt(caption, fig), _png(fig)) for caption, fig in parts.figures
            if fig is not None and figure_has_data(fig)]


def html_page(title: str, result: Result, parts: ReportParts, config: Mapping[str, Mapping[str, Any]],
              labels: Sequence[Any] | None = None) -> str:
    """The whole page: headline and its figure, figures, results, samples, configuration."""
    esc = html.escape
    figures = _figures(parts)
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{esc(title)}</title><style>{CSS}</style></head><body>", f"<h1>{esc(title)}</h1>"]
    headline = default_headline(result) if parts.headline is None else parts.headline
    if headline:
        out.append(f"<p class='headline'>{esc(headline)}</p>")
    if parts.notes:
        out.append("<ul class='notes'>" + "".join(f"<li>{esc(n)}</li>" for n in parts.notes) + "</ul>")
    sections = [("figures", "Figures", len(figures) > 1), ("results", "Results", True),
                ("samples", "Samples", bool(parts.samples)), ("configuration", "Configuration", True)]
    out.append("<nav>" + "".join(f"<a href='#{key}'>{name}</a>" for key, name, shown in sections if shown)
               + "</nav>")
    for i, (caption, alt, png) in enumerate(figures):
        if i == 1:
            out.append("<h2 id='figures'>Figures</h2>")
        out.append(f"<figure{' class=hero' if i == 0 else ''}><figcaption>{esc(caption)}</figcaption>"
                   f"<img alt='{esc(alt)}' src='data:image/png;base64,{png}'></figure>")
    out.append("<h2 id='results'>Results</h2>" + _summary_html(result.summary))
    out += [_table_html(t) for t in result.tables if t.title not in parts.hidden_tables]
    if parts.samples:
        out.append("<h2 id='samples'>Samples</h2>")
        for group in parts.samples:
            note = f"<p class='smeta'>{esc(group.note)}</p>" if group.note else ""
            body = "".join(_sample_html(s, labels) for s in group.samples)
            out.append(f"<details open><summary>{esc(group.title)} ({len(group.samples)})</summary>{note}{body}"
                       "</details>")
    out.append("<h2 id='configuration'>Configuration</h2><div class='config'>")
    for name, rows in config.items():
        if rows:
            out.append(f"<div><h3>{esc(name)}</h3>" + _kv_html(rows) + "</div>")
    out.append("</div></body></html>")
    return "\n".join(out)


# --- Markdown --------------------------------------------------------------------------------------------
def _md(value: Any) -> str:
    """A value as inert Markdown text: HTML escaped, table pipes and emphasis marks neutralised, one line."""
    text = html.escape(fmt(value), quote=False)
    for ch in "\\`*_[]|#~":
        text = text.replace(ch, "\\" + ch)
    return " ".join(text.split())


def markdown_table(table: Table) -> str:
    head = "| " + " | ".join(_md(c) for c in table.columns) + " |"
    rule = "|" + "---|" * len(table.columns)
    rows = ["| " + " | ".join(_md(c) for c in row) + " |" for row in table.rows]
    return "\n".join([f"### {_md(table.title)}", "", head, rule, *rows])


def markdown(title: str, meta: Mapping[str, Any], result: Result, parts: ReportParts | None = None,
             labels: Sequence[Any] | None = None) -> str:
    parts = parts or ReportParts()
    lines = [f"# {_md(title)}", ""]
    headline = default_headline(result) if parts.headline is None else parts.headline
    if headline:
        lines += [f"**{_md(headline)}**", ""]
    lines += [f"- {_md(n)}" for n in parts.notes] + ([""] if parts.notes else [])
    lines += [f"- **{_md(k)}**: {_md(v)}" for k, v in meta.items()]
    lines += ["", "## Summary", ""]
    lines += [f"- **{_md(k)}**: {_md(v)}" + (f" {_md(ci)}" if ci else "") for k, v, ci in summary_rows(result.summary)]
    for table in result.tables:
        lines += ["", markdown_table(table)]
    if parts.samples:
        lines += ["", "## Samples"]
        for group in parts.samples:
            lines += ["", f"### {_md(group.title)}", ""]
            for s in group.samples[:3]:
                seen = s.original if s.perturbed is None else f"{s.original} → {s.perturbed}"
                pred = f"(gold {label_name(s.gold, labels)}, prediction {label_name(s.pred, labels)})" \
                    if s.pred is not None else ""
                # _md trims each part, so the separators go between the parts
                lines.append("- " + (f"{_md(s.note)}: " if s.note else "") + _md(seen)
                             + (f" {_md(pred)}" if pred else ""))
    return "\n".join(lines) + "\n"


# --- runs ------------------------------------------------------------------------------------------------
def run_meta(run: Run) -> dict[str, Any]:
    cfg = run.config
    meta = {"run": run.id, "benchmark": run.bench, "model": run.model, "status": run.status,
            "seed": cfg.get("seed"), "created": run.to_json()["created"]}
    if cfg.get("attacks"):
        meta["attacks"] = ", ".join(cfg["attacks"])
    if cfg.get("data"):
        meta["data"] = data_name(cfg["data"])
    if cfg.get("limit"):
        meta["limit"] = cfg["limit"]
    if cfg.get("settings"):
        meta["settings"] = ", ".join(f"{k}={v}" for k, v in cfg["settings"].items())
    meta["robust"] = run.environment.get("versions", {}).get("robust", "?")
    meta["computing"] = cost(run)
    return meta


def data_name(data: str | None, short: bool = False) -> str:
    """A run's data as the user gave it: a dataset name or a file as it is (`short`: a file by its name), rows passed
    from Python (kept as `data/<hash>.rows.jsonl`, `data/<hash>.jsonl` by runs before 0.3) as `rows <hash>`."""
    import re

    if not data:
        return "-"
    path = Path(data)
    if len(path.parts) < 2:
        return data
    if path.parent.name == "data" and re.fullmatch(r"[0-9a-f]{16}(\.rows)?\.jsonl", path.name):
        return f"rows {path.name[:8]}"
    return path.name if short else data


def unlike(runs: Sequence[Run], default_data: str | None = None) -> list[str]:
    """What differs between runs compared beside their model: data (`default_data` where none was given),
    attacks, scorers, limit, seed and each setting, with each run's value in order (`settings n: 256, 8`); empty
    when they are alike."""

    def shown(value: Any) -> str:
        if value is None or value == [] or value == "":  # not given
            return "default"
        return value if isinstance(value, str) else json.dumps(value, sort_keys=True)

    configs = [run.config for run in runs]
    out = []
    for key in ("data", "attacks", "scorers", "limit", "seed"):
        values = [data_name(c.get(key) or default_data) if key == "data" else shown(c.get(key)) for c in configs]
        if len(set(values)) > 1:
            out.append(f"{key}: {', '.join(values)}")
    plugins = sorted({name for c in configs for name in c.get("plugin_settings") or {}})
    groups = [("", [c.get("settings") or {} for c in configs])]  # the benchmark's, then each plugin's (NAME.key)
    groups += [(f"{n}.", [(c.get("plugin_settings") or {}).get(n, {}) for c in configs]) for n in plugins]
    for prefix, per_run in groups:
        for key in sorted({k for settings in per_run for k in settings}):
            values = [shown(settings.get(key)) for settings in per_run]
            if len(set(values)) > 1:
                out.append(f"settings {prefix}{key}: {', '.join(values)}")
    return out


def cost(run: Run) -> str:
    """What computing a run took: its model queries and seconds (every session's, a resumed run's too), queries a
    second, and the largest peak memory of the processes that computed it."""
    rate = run.queries_per_second
    text = f"{run.queries:,} model queries in {run.seconds:,.{2 if run.seconds < 10 else 1}f} s"
    if rate is not None:
        text += f" ({rate:,.{1 if rate < 100 else 0}f} a second)"
    return text + (f"; peak memory {run.peak_mb:,.0f} MB" if run.peak_mb is not None else "")


def run_config(run: Run) -> dict[str, dict[str, Any]]:
    """The configuration section of a run's page: the run, every benchmark setting, the model, the environment."""
    env = run.environment
    meta = run_meta(run)
    meta.pop("settings", None)
    meta.pop("computing")  # the same, field by field:
    meta.update({"finished": run.to_json()["finished"], "seconds": round(run.seconds, 1),
                 "model queries": run.queries})
    if run.queries_per_second is not None:
        meta["model queries a second"] = round(run.queries_per_second, 1)
    if run.peak_mb is not None:
        meta["peak memory MB"] = round(run.peak_mb)
    model = {f"{key}.{k}" if isinstance(value, dict) else key: v
             for key, value in (env.get("model") or {}).items()
             for k, v in (value.items() if isinstance(value, dict) else [(None, value)])}
    for key, value in (run.config.get("model_settings") or {}).items():
        model.setdefault(f"--set model.{key}", value)
    plugins = {f"--set {name}.{k}": v for name, values in (run.config.get("plugin_settings") or {}).items()
               for k, v in values.items()}
    return {"Run": meta, "Benchmark settings": {**(env.get("settings") or run.config.get("settings") or {}),
                                                **plugins},
            "Model": model, "Environment": dict(env.get("versions") or {}),
            "Plugins": {k: fmt(v) for k, v in (env.get("plugins") or {}).items()}}


def run_labels(run: Run, model_class: Any = None) -> list[Any] | None:
    """The class names of a run's model: as recorded in its environment, else the model class's declared list."""
    recorded = (run.environment.get("model") or {}).get("labels")
    if isinstance(recorded, list) and recorded:
        return recorded
    declared = getattr(model_class, "labels", None)
    return list(declared) if isinstance(declared, (list, tuple)) and declared else None


def bench_of(run: Run) -> Any:
    """The run's benchmark, configured as the run was and bound to a context without a model (for its report)."""
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry
    from robust.engine.runner import RunConfig

    registry = get_registry()
    entry = registry.get("benchmark", run.bench)
    cfg = RunConfig.from_json(run.config)
    try:
        bench = entry.create(**cfg.settings)
    except RobustError:  # a setting this version no longer accepts: the report still renders the stored result
        bench = entry.create()
    return bench.bind(RunContext(run.id, cfg.seed, None, registry, cfg.data, cfg.limit, cfg.attacks, cfg.scorers,
                                 None, cfg.plugin_settings, cfg.model))


def unfinished(r: Run, records: int) -> str:
    """'run ID is still running (HOST:PID, 310 records so far)' or 'run ID is interrupted (cause, 310 records)'."""
    if r.status == "running":
        who = (r.lease_owner or "?").rsplit(":", 1)[0]
        return f"run {r.id} is still running ({who}, {records:,} records so far)"
    return f"run {r.id} has not finished: it is {r.status}" + (f" ({r.error})" if r.error else "") + \
        f", with {records:,} records"


def write_run_report(run: Run, records: Mapping[str, Any], out: Path) -> list[Path]:
    """A finished run's report (`robust report`, `robust.write_report`): the HTML page and its Markdown summary; an
    unfinished run is refused in one line."""
    from robust.core.plugins import get_registry

    if run.result is None:
        raise RobustError(f"{unfinished(run, len(records))}; "
                          + ("report it when it has finished" if run.status == "running" else "resume it first"))
    registry = get_registry()
    name = run.model.split(":", 1)[0]
    labels = run_labels(run, registry.get("model", name).target if registry.has("model", name) else None)
    result = Result.from_json(run.result)
    parts = bench_of(run).report(result, records, labels)
    return list(write_report(f"robust report: {run.bench} on {run.model}", run_meta(run), result, parts, out, run.id,
                             run_config(run), labels))


def write_report(title: str, meta: Mapping[str, Any], result: Result, parts: ReportParts, out: Path, stem: str,
                 config: Mapping[str, Mapping[str, Any]] | None = None,
                 labels: Sequence[Any] | None = None) -> tuple[Path, Path]:
    """`<stem>.html` (self-contained) and `<stem>.md` in `out`."""
    html_path, md_path = out / f"{stem}.html", out / f"{stem}.md"
    md_text = markdown(title, meta, result, parts, labels)
    write_file(html_path, html_page(title, result, parts, config or {"Run": meta}, labels))
    write_file(md_path, md_text)
    return html_path, md_path


def write_file(path: Path, text: str) -> None:
    """`text` written to a file the user named (its directory made), or one line saying why it cannot be."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise RobustError(f"cannot write {path}: {exc.strerror or exc}") from None


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A record's nested mappings as dotted columns: `{"scores": {"toxicity": 0.2}}` -> `scores.toxicity`."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def export(run: Run, records: dict[str, dict[str, Any]], fmt: str) -> str:
    """The run as JSON (run + records), JSONL (one record per line) or CSV (scalar record fields, nested ones
    as dotted columns: a scorer's value is `scores.NAME`); the records of a run that has not finished are marked
    `partial` (a key of the JSON, a field of every row)."""
    partial = {"partial": True} if run.status != "finished" else {}
    if fmt == "json":
        return json.dumps({"run": run.to_json(), **partial, "records": records}, indent=2)
    rows = [{"item_id": item_id, **rec, **partial} for item_id, rec in records.items()]
    if fmt == "jsonl":
        return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    if fmt == "csv":
        rows = [flatten(r) for r in rows]
        columns: list[str] = []
        for r in rows:
            columns += [k for k, v in r.items() if k not in columns and not isinstance(v, list)]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue()
    raise RobustError(f"unknown export format {fmt!r}; choose json, jsonl or csv")


def slug(text: str) -> str:
    """A file-name-safe form of a label."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"
