"""The built-ins need nothing private: a distribution holding verbatim copies (renamed) of a built-in transform
(Typo), scorer (RobTest's Average/Worst) and model adapter (`hf:`) installs and runs like the originals. The copies
are taken from src/robust/plugins when the test runs, so they are always today's built-ins."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import install_plugin, save_tiny_lm

SRC = Path(__file__).resolve().parents[1] / "src" / "robust" / "plugins"
#: copied module -> (built-in file, renames of its registered names)
COPIES = {
    "typo": ("attacks/typo.py", {'"typo-M"': '"copy-typo-M"', '"typo-G"': '"copy-typo-G"'}),
    "scores": ("benchmarks/robtest/scores.py",
               {'"robtest-average"': '"copy-average"', '"robtest-worst"': '"copy-worst"'}),
    "hf": ("models/hf.py", {'name = "hf"': 'name = "copy-hf"', "robust.plugins.models.": "robust_copies."}),
    # the modules of hf's own package that it imports, and theirs
    "vision": ("models/vision.py", {"robust.plugins.models.": "robust_copies."}),
    "arrays": ("models/arrays.py", {"robust.plugins.models.": "robust_copies."}),
}


def install_copies(site: Path) -> Path:
    install_plugin("robust-copies", site)
    for module, (path, renames) in COPIES.items():
        text = (SRC / path).read_text()
        for old, new in renames.items():
            assert old in text or "robust.plugins" in old, f"{path} no longer names {old}"
            text = text.replace(old, new)
        private = re.findall(r"^\s*(?:from|import) (robust\.(?!toolkit)[\w.]+)", text, re.M)
        assert private == [], f"{path} imports {private}: a built-in reaches past the public line"
        (site / "robust_copies" / f"{module}.py").write_text(text)
    return site


def test_copies_of_built_ins_install_and_run(cli, plugin_site, tmp_path):
    site = install_copies(plugin_site("robust-example"))
    env = {"ROBUST_CACHE": str(tmp_path / "cache")}
    listed = {(e["kind"], e["name"]): e for e in json.loads(cli("list", "--json", site=site, env=env).stdout)}
    for key in [("transform", "copy-typo-M"), ("scorer", "copy-average"), ("model", "copy-hf")]:
        assert listed[key]["origin"] == "robust-copies 0.1.0", key
    assert not [e for e in listed.values() if e["kind"] == "broken"]
    assert cli("setup", "keyword-lexicon", site=site, env=env).returncode == 0
    proc = cli("run", "--bench", "robtest", "--model", "keywords", "--data", "tiny-reviews", "--attack", "copy-typo-M",
               "--scorer", "copy-average", "--set", "degrees=0.3", "--set", "aug_num=3", "--set", "access=rule",
               "--limit", "8", "--json", "--quiet", site=site, env=env)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["result"]["summary"]
    assert 0 < summary["final"] < 100 and summary["0.3"] < summary["0"], summary  # the scorer copy: Average(d), Final


def test_the_copied_transform_draws_what_the_built_in_draws(tmp_path):
    site = install_copies(tmp_path / "site")
    sys.path.insert(0, str(site))
    try:
        from robust_copies.typo import TypoG as CopyG
        from robust_copies.typo import TypoM as CopyM

        from robust import Example
        from robust.plugins.attacks.typo import TypoG, TypoM

        ex = Example("1", "the movie was surprisingly good and the actors never overact")
        for built_in, copy in ((TypoM, CopyM), (TypoG, CopyG)):
            assert copy.name == "copy-" + built_in.name
            for seed in range(5):
                a = built_in().apply(ex, 0.3, np.random.default_rng(seed))
                b = copy().apply(ex, 0.3, np.random.default_rng(seed))
                assert [x.text for x in a] == [x.text for x in b] and a[0].text != ex.text
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.startswith("robust_copies")]:
            del sys.modules[name]


@pytest.mark.slow
def test_the_copied_model_adapter_loads_a_checkpoint_like_hf(tmp_path, prose):
    pytest.importorskip("transformers")
    site = install_copies(tmp_path / "site")
    directory = save_tiny_lm(tmp_path / "lm", prose)
    sys.path.insert(0, str(site))
    try:
        from robust_copies.hf import HFModel as Copy

        from robust.plugins.models.hf import HFModel

        texts = ["the film was good", "a dull and long story"]
        assert np.allclose(Copy(str(directory)).logprobs(texts)[0], HFModel(str(directory)).logprobs(texts)[0])
    finally:
        sys.path.remove(str(site))
        for name in [m for m in sys.modules if m.startswith("robust_copies")]:
            del sys.modules[name]
        shutil.rmtree(site, ignore_errors=True)
