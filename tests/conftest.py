"""Shared fixtures: one torch thread, an isolated run store and cache, third-party plugins on demand."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

PLUGIN_PACKAGES = Path(__file__).parent / "plugin_packages"
SHARED = Path(__file__).resolve().parents[2] / "shared"


def pytest_configure(config):
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass


def install_plugin(package: str, site: Path) -> None:
    """Expose a plugin package under tests/plugin_packages as an installed distribution in `site`."""
    src = PLUGIN_PACKAGES / package
    project = tomllib.loads((src / "pyproject.toml").read_text())["project"]
    dist = f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    (site / dist).mkdir(parents=True, exist_ok=True)
    (site / dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    eps = project.get("entry-points", {})
    lines = [f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in items.items()) for group, items in eps.items()]
    (site / dist / "entry_points.txt").write_text("\n".join(lines))
    for module in src.glob("*.py"):
        (site / module.name).write_text(module.read_text())


@pytest.fixture
def plugin_site(tmp_path):
    """A function installing plugin packages into a fresh site dir; returns that dir."""
    site = tmp_path / "site"
    site.mkdir()

    def install(*packages: str) -> Path:
        for package in packages:
            install_plugin(package, site)
        return site

    return install


@pytest.fixture
def cli(tmp_path):
    """Run `robust ARGS` in a subprocess with its own store; returns CompletedProcess."""

    def run(*args: str, site: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300):
        full_env = {**os.environ, "ROBUST_HOME": str(tmp_path / "home"), **(env or {})}
        if site is not None:
            full_env["PYTHONPATH"] = os.pathsep.join([str(site), full_env.get("PYTHONPATH", "")])
        return subprocess.run([sys.executable, "-m", "robust.cli", *args], capture_output=True, text=True,
                              env=full_env, timeout=timeout, cwd=tmp_path)

    return run


@pytest.fixture
def shared_data():
    """../shared/data, which tests may read but the project may not commit; skip when absent."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.skip("../shared/data not present")
    return path
