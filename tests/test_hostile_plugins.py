"""Third-party distributions that collide with robust where plugins meet (tests/plugin_packages/robust-*): a transform
named like a built-in group, a transform and attacker named like built-ins, entry points named like built-ins, a
model with its own settings, classes missing a required method. What runs is asserted from the records' plugin
origins, and every refusal leaves no run behind."""

from __future__ import annotations

import json

import pytest

from robust import attack_specs

HOSTILE = ("robust-groupname", "robust-samename", "robust-epclash", "robust-ownsettings", "robust-nomethod")
WORDS = {"positive": ["good", "great", "fun", "best", "love"], "negative": ["bad", "boring", "worst", "dull", "awful"]}


@pytest.fixture
def hostile(cli, plugin_site, tmp_path):
    """`robust ARGS` with every hostile distribution and robust-hello (its `keywords` classifier) installed."""
    site = plugin_site("robust-hello", *HOSTILE)
    data = tmp_path / "tiny.jsonl"
    rows = [{"text": f"the film was {WORDS[label][i % 5]} and {WORDS[label][(i + 2) % 5]} in every scene",
             "label": label} for i in range(12) for label in ("positive", "negative")]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))

    def run(*args: str):
        return cli(*args, site=site)

    run.data = str(data)
    return run


def _run(hostile, bench: str, attack: str, *extra: str) -> tuple[dict, list[dict]]:
    """A small run on the keyword classifier; its result and its records."""
    proc = hostile("run", "--bench", bench, "--attack", attack, "--model", "keywords", "--data", hostile.data,
                   "--limit", "3", *extra, "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    records = hostile("export", run["id"], "-f", "jsonl").stdout.splitlines()
    return run, [json.loads(line) for line in records]


def _robtest(hostile, attack: str, *extra: str) -> dict[tuple[str, str], int]:
    """(plugin, access) -> records of a small RobTest run."""
    _, records = _run(hostile, "robtest", attack, "--set", "degrees=0.1", "--set", "aug_num=2", *extra)
    counts: dict[tuple[str, str], int] = {}
    for r in records:
        if "plugin" in r:
            counts[(r["plugin"], r["access"])] = counts.get((r["plugin"], r["access"]), 0) + 1
    return counts


def _runs(hostile) -> list:
    return json.loads(hostile("runs", "--json").stdout)


def test_list_warns_of_every_collision_once_and_lists_the_broken_plugin(hostile):
    proc = hostile("list", "--json")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    expected = [
        "transform 'typo' of robust-groupname 1.0.0 has the name of robust's attack group 'typo'; --attack typo "
        "keeps meaning the group, use robust-groupname:typo for the transform",
        "transform 'all' of robust-groupname 1.0.0 has the name of robust's attack group 'all'",
        "transform 'typo-M' is also registered by robust-samename:typo-M; the bare name keeps meaning robust's "
        "built-in",
        "attacker 'saliency-greedy' is also registered by robust-samename:saliency-greedy",
        "entry point 'models' of robust-epclash 1.0.0 has the name of robust's; both are loaded",
        "entry point 'attacks' of robust-epclash 1.0.0 has the name of robust's; both are loaded",
        "plugin 'nomethod' from robust-nomethod 1.0.0 failed in register_transforms: TypeError: transform "
        "'measureless' does not implement measure",
    ]
    for text in expected:
        assert sum(text in w for w in warnings) == 1, (text, warnings)
    assert len(warnings) == len(expected)
    entries = json.loads(proc.stdout)
    listed = {(e["kind"], e["qualified"]) for e in entries if e["kind"] != "broken"}
    # both entry points named like robust's own loaded: their plugins are there beside every built-in
    assert {("model", "robust-epclash:constant"), ("transform", "robust-epclash:exclaim"),
            ("model", "robust:hf"), ("transform", "robust:typo-M"), ("model", "robust-ownsettings:tilted")} <= listed
    assert not {q for k, q in listed if q.startswith("robust-nomethod:")}  # nothing of a broken plugin stays
    assert [e["plugin"] for e in entries if e["kind"] == "broken"] == ["nomethod"]
    table = hostile("list", "transforms").stdout
    assert "robust-samename:typo-M" in table and "robust-groupname:typo " in table


def _warnings(proc) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("warning:")]


def test_a_run_warns_only_of_the_clashes_it_uses_and_other_commands_of_none(hostile):
    """Issue 34: every clash warning printed on every command; now `robust list` prints them all, a run those of
    the names it uses, once each, and the commands that only read runs none."""
    plain = hostile("run", "--bench", "accuracy", "--model", "keywords", "--data", hostile.data, "--quiet")
    assert plain.returncode == 0, plain.stderr
    assert _warnings(plain) == []
    for command in (("show", "latest"), ("report", "latest", "--out", hostile.data + ".report")):
        proc = hostile(*command)
        assert proc.returncode == 0, proc.stderr
        assert _warnings(proc) == []
    typo_m = hostile("run", "--bench", "robtest", "--attack", "typo-M", "--model", "keywords", "--data",
                     hostile.data, "--limit", "2", "--set", "degrees=0.1", "--set", "aug_num=1", "--set",
                     "access=rule", "--quiet")
    assert typo_m.returncode == 0, typo_m.stderr
    assert len(_warnings(typo_m)) == 1 and "transform 'typo-M' is also registered by robust-samename:typo-M" \
        in _warnings(typo_m)[0]
    group = hostile("run", "--bench", "robtest", "--attack", "typo", "--model", "keywords", "--data",
                    hostile.data, "--limit", "2", "--set", "degrees=0.1", "--set", "aug_num=1", "--set",
                    "access=rule", "--quiet")
    assert group.returncode == 0, group.stderr
    said = _warnings(group)
    assert sum("has the name of robust's attack group 'typo'" in w for w in said) == 1  # the name typed
    assert sum("transform 'typo-M' is also registered" in w for w in said) == 1  # a plugin the group runs
    assert len(said) == 2
    unknown = hostile("run", "--bench", "robtest", "--model", "keywords", "--attack", "measureless", "--data",
                      hostile.data, "--quiet")
    assert unknown.returncode == 1 and "plugin 'nomethod' failed to load" in unknown.stderr


def test_typo_runs_the_built_in_group_whatever_is_installed(hostile):
    assert _robtest(hostile, "typo") == {("robust:typo-M", "rule"): 3, ("robust:typo-M", "score"): 3,
                                         ("robust:typo-G", "rule"): 3, ("robust:typo-G", "score"): 3}


def test_bare_names_of_built_ins_mean_the_built_ins(hostile):
    assert _robtest(hostile, "typo-M") == {("robust:typo-M", "rule"): 3, ("robust:typo-M", "score"): 3}
    run, records = _run(hostile, "attack", "typo-M")
    assert {(r["attacker"], r["transform"]) for r in records} == {("robust:saliency-greedy", "robust:typo-M")}


def test_qualified_names_select_each_plugin_end_to_end(hostile):
    assert _robtest(hostile, "robust-samename:typo-M") == {("robust-samename:typo-M", "rule"): 3,
                                                           ("robust-samename:typo-M", "score"): 3}
    assert _robtest(hostile, "robust:typo-M") == {("robust:typo-M", "rule"): 3, ("robust:typo-M", "score"): 3}
    assert _robtest(hostile, "saliency-greedy:robust:typo-M") == {("robust:typo-M", "score"): 3}
    assert _robtest(hostile, "robust-samename:saliency-greedy:robust-samename:typo-M") == {
        ("robust-samename:typo-M", "first"): 3}
    assert _robtest(hostile, "robust-groupname:typo") == {("robust-groupname:typo", "rule"): 3,
                                                          ("robust-groupname:typo", "score"): 3}
    run, records = _run(hostile, "attack", "robust-samename:saliency-greedy:typo-G")
    assert {(r["attack"], r["attacker"], r["transform"]) for r in records} == {
        ("robust-samename:saliency-greedy:typo-G", "robust-samename:saliency-greedy", "robust:typo-G")}
    attacked = [r for r in records if r["status"] != "skipped"]  # its attacker edits the first word only
    assert attacked and all([e["index"] for e in r["edits"]] == [0] for r in attacked)


def test_all_means_the_built_ins(hostile):
    counts = _robtest(hostile, "all", "--set", "access=rule", "--set", "aug_num=1", "--limit", "2")
    plugins = {plugin for plugin, _ in counts}
    assert all(p.startswith("robust:") for p in plugins) and {"robust:typo-M", "robust:syntax"} <= plugins
    assert len(plugins) == 13


def test_a_model_with_its_own_settings_keeps_the_base_class_settings(hostile):
    proc = hostile("run", "--bench", "accuracy", "--model", "tilted", "--data", hostile.data, "--set",
                   "model.batch_size=2", "--set", "model.tilt=0.9", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    run = json.loads(proc.stdout)
    assert run["environment"]["model"]["config"] == {"batch_size": 2, "tilt": 0.9}
    assert run["result"]["summary"]["accuracy"] == 0.5  # always 'positive' on balanced data


@pytest.mark.parametrize("args, message", [
    (("--bench", "accuracy", "--model", "hollow"), "unknown model 'hollow'"),
    (("--bench", "robtest", "--model", "keywords", "--attack", "measureless"), "unknown attack 'measureless'"),
    (("--bench", "robtest", "--model", "keywords", "--attack", "robust-nomethod:measureless"), "unknown attack"),
])
def test_plugins_that_broke_their_contract_are_refused_before_a_run_exists(hostile, args, message):
    proc = hostile("run", *args, "--data", hostile.data, "--quiet")
    assert proc.returncode == 1 and message in proc.stderr.splitlines()[-1] and "Traceback" not in proc.stderr
    assert _runs(hostile) == []


def test_two_third_parties_with_a_group_name_leave_the_group_alone(plugin_site, monkeypatch):
    """A clash among third parties over `typo` (refused as a bare name) never touches the built-in group."""
    import robust
    from robust.core import plugins

    class Other(robust.Transform):
        name = "typo"

        def apply(self, example, degree, rng):
            return [example]

        def measure(self, original, perturbed):
            return 0.0

    class P:
        @robust.hookimpl
        def register_transforms(register):
            register(Other)

    monkeypatch.syspath_prepend(str(plugin_site("robust-groupname")))
    import robust_groupname

    plugins.register_plugin(robust_groupname, "groupname-test", "robust-groupname", "1.0.0")
    plugins.register_plugin(P, "other-test", "robust-other", "1.0.0")
    try:
        registry = plugins.get_registry()
        assert [s.transform.qualified for s in attack_specs(["typo"], registry)] == ["robust:typo-G", "robust:typo-M"]
        with pytest.raises(robust.RobustError, match="transform name 'typo' is ambiguous"):
            registry.get("transform", "typo")
        assert attack_specs(["robust-other:typo"], registry)[0].transform.distribution == "robust-other"
    finally:
        plugins.unregister_plugin("groupname-test")
        plugins.unregister_plugin("other-test")
