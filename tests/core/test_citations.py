"""Every citation in the source, the docs, the tests and the benchmark scripts is one a reader can follow: a paper
(authors, year, section or equation), the authors' public code, or a page of this repository's docs — never the
internal method specs ("spec §…") or files outside the repository (`../shared/…`, `robtest.md §…` without `docs/`)."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "robust"
ROOT = SRC.parents[1]
#: a citation of the internal method specs, and a path outside the repository
SPEC = r"\b[Ss]pec(?:'s)? \(?(?:[a-z_]+\.md )?(?:§|Appendix |A\d)"
SHARED = r"/work/shared|\.\./shared\b|(?<![\w/.])shared/(?:specs|seeds|data)"
#: a citation of a document that is not in the repository
OUTSIDE = re.compile(SPEC + r"|(?<![\w/])(?:robtest|byod|synbench|syntextbench|robusttext|anchors|environment)\.md|"
                     + SHARED)
#: the same in the docs, where a page's bare name (`synbench.md`) is a link inside the repository
OUTSIDE_DOCS = re.compile(SPEC + "|" + SHARED)
DOC_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.md")])
#: a docs page cited in the source
DOCS = re.compile(r"\bdocs/[\w/]+\.md")
#: the tests and the benchmark scripts, but this file, whose fixtures cite outside documents on purpose
TEST_FILES = sorted(p for folder in ("tests", "benchmarks") for p in (ROOT / folder).rglob("*.py")
                    if "__pycache__" not in p.parts and p != Path(__file__).resolve())


def outside_citations(root: Path, files: list[Path] | None = None, pattern: re.Pattern = OUTSIDE) -> list[str]:
    return [f"{p.relative_to(root)}:{i}: {m.group(0)}" for p in (files or sorted(root.rglob("*.py")))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) for m in pattern.finditer(line)]


def test_no_source_file_cites_a_document_outside_the_repository():
    assert outside_citations(SRC) == []


def test_no_docs_page_cites_a_document_outside_the_repository():
    assert len(DOC_FILES) > 10 and outside_citations(ROOT, DOC_FILES, OUTSIDE_DOCS) == []


def test_no_test_or_benchmark_file_cites_a_document_outside_the_repository():
    assert len(TEST_FILES) > 100 and outside_citations(ROOT, TEST_FILES) == []


def test_every_docs_page_cited_in_the_tests_and_benchmarks_exists():
    cited = {m.group(0) for p in TEST_FILES for m in DOCS.finditer(p.read_text(encoding="utf-8"))}
    assert cited and sorted(c for c in cited if not (ROOT / c).is_file()) == []


def test_every_cited_docs_page_exists():
    cited = {m.group(0) for p in SRC.rglob("*.py") for m in DOCS.finditer(p.read_text(encoding="utf-8"))}
    assert cited and sorted(c for c in cited if not (ROOT / c).is_file()) == []


def test_the_check_sees_a_spec_citation(tmp_path):
    # negative control: the forms the source used before (229 of them)
    (tmp_path / "a.py").write_text('x = 1  # the code draws again (spec §3.3, §6 #5)\n'
                                   '"""Rule-based generation (spec robtest.md §2.1 conventions)."""\n'
                                   '# see anchors.md §4.2 and /work/shared/specs/byod.md\n'
                                   '# fine: docs/robtest.md, Chen et al. 2023, §2.2\n')
    found = outside_citations(tmp_path)
    assert [f.split(": ", 1)[1] for f in found] == ["spec §", "spec robtest.md §", "anchors.md",
                                                    "/work/shared"]


def test_the_docs_check_sees_a_spec_citation_and_a_path_outside(tmp_path):
    # negative control: the forms docs/validation used before
    page = tmp_path / "v.md"
    page.write_text("Expected directions are those of spec §8.3–8.4.\n"
                    "Paper protocol (spec §4.4), data in `../shared/data/robusttext`.\n"
                    "| case | spec (§7.3) |\n"
                    "fine: [the method](../synbench.md), docs/byod.md, Ko 2024, eq. 5.4,\n"
                    "`shared/intentional_homoglyphs.txt`\n")
    found = outside_citations(tmp_path, [page], OUTSIDE_DOCS)
    assert [f.split(": ", 1)[1] for f in found] == ["spec §", "spec §", "../shared", "spec (§"]
