"""Reports and exports: a self-contained HTML page (plots as embedded PNG), a Markdown summary, JSON/JSONL/CSV."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from robust.core.errors import RobustError
from robust.core.results import Result, Table
from robust.core.store import Run


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _md(value: Any) -> str:
    """A value as inert Markdown text: HTML escaped, table pipes and emphasis marks neutralised, one line."""
    text = html.escape(_fmt(value), quote=False)
    for ch in "\\`*_[]|#~":
        text = text.replace(ch, "\\" + ch)
    return " ".join(text.split())


def markdown_table(table: Table) -> str:
    head = "| " + " | ".join(_md(c) for c in table.columns) + " |"
    rule = "|" + "---|" * len(table.columns)
    rows = ["| " + " | ".join(_md(c) for c in row) + " |" for row in table.rows]
    return "\n".join([f"### {_md(table.title)}", "", head, rule, *rows])


def markdown(title: str, meta: dict[str, Any], result: Result) -> str:
    lines = [f"# {_md(title)}", ""]
    lines += [f"- **{_md(k)}**: {_md(v)}" for k, v in meta.items()]
    lines += ["", "## Summary", ""]
    lines += [f"- **{_md(k)}**: {_md(v)}" for k, v in result.summary.items()]
    for table in result.tables:
        lines += ["", markdown_table(table)]
    return "\n".join(lines) + "\n"


def _png(figure: Any) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    figure.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buf.getvalue()).decode()


def html_page(title: str, meta: dict[str, Any], result: Result, figures: Sequence[tuple[str, Any]]) -> str:
    esc = lambda v: html.escape(_fmt(v))  # noqa: E731
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>",
             "<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
             "text-align:right}th{background:#f3f3f3}img{max-width:100%}</style></head><body>",
             f"<h1>{esc(title)}</h1><table>"]
    parts += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in meta.items()]
    parts.append("</table><h2>Summary</h2><table>")
    parts += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in result.summary.items()]
    parts.append("</table>")
    for table in result.tables:
        parts.append(f"<h3>{esc(table.title)}</h3><table><tr>")
        parts += [f"<th>{esc(c)}</th>" for c in table.columns]
        parts.append("</tr>")
        for row in table.rows:
            parts.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>")
        parts.append("</table>")
    for caption, figure in figures:
        parts.append(f"<h3>{esc(caption)}</h3><img alt='{esc(caption)}' src='data:image/png;base64,{_png(figure)}'>")
    parts.append("</body></html>")
    return "\n".join(parts)


def run_meta(run: Run) -> dict[str, Any]:
    cfg = run.config
    meta = {"run": run.id, "benchmark": run.bench, "model": run.model, "status": run.status,
            "seed": cfg.get("seed"), "created": run.to_json()["created"]}
    if cfg.get("attacks"):
        meta["attacks"] = ", ".join(cfg["attacks"])
    if cfg.get("data"):
        meta["data"] = cfg["data"]
    if cfg.get("settings"):
        meta["settings"] = ", ".join(f"{k}={v}" for k, v in cfg["settings"].items())
    meta["robust"] = run.environment.get("versions", {}).get("robust", "?")
    return meta


def write_report(title: str, meta: dict[str, Any], result: Result, figures: Sequence[tuple[str, Any]],
                 out: Path, stem: str) -> tuple[Path, Path]:
    out.mkdir(parents=True, exist_ok=True)
    html_path, md_path = out / f"{stem}.html", out / f"{stem}.md"
    html_path.write_text(html_page(title, meta, result, figures), encoding="utf-8")
    md_path.write_text(markdown(title, meta, result), encoding="utf-8")
    return html_path, md_path


def export(run: Run, records: dict[str, dict[str, Any]], fmt: str) -> str:
    """The run as JSON (run + records), JSONL (one record per line) or CSV (scalar record fields)."""
    if fmt == "json":
        return json.dumps({"run": run.to_json(), "records": records}, indent=2)
    rows = [{"item_id": item_id, **rec} for item_id, rec in records.items()]
    if fmt == "jsonl":
        return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    if fmt == "csv":
        columns: list[str] = []
        for r in rows:
            columns += [k for k, v in r.items() if k not in columns and not isinstance(v, (dict, list))]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buf.getvalue()
    raise RobustError(f"unknown export format {fmt!r}; choose json, jsonl or csv")
