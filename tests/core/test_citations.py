"""Every citation in the source is one a reader can follow: a paper (authors, year, section or equation), the
authors' public code, or a page of this repository's docs — never the internal method specs ("spec §…") or files
outside the repository (`shared/…`, `robtest.md §…` without `docs/`)."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "robust"
ROOT = SRC.parents[1]
#: a citation of a document that is not in the repository
OUTSIDE = re.compile(r"\b[Ss]pec(?:'s)? (?:[a-z_]+\.md )?(?:§|Appendix |A\d)"
                     r"|(?<![\w/])(?:robtest|byod|synbench|syntextbench|robusttext|anchors|environment)\.md"
                     r"|/work/shared|(?<![\w/])shared/(?:specs|seeds)")
#: a docs page cited in the source
DOCS = re.compile(r"\bdocs/[\w/]+\.md")


def outside_citations(root: Path) -> list[str]:
    return [f"{p.relative_to(root)}:{i}: {m.group(0)}" for p in sorted(root.rglob("*.py"))
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) for m in OUTSIDE.finditer(line)]


def test_no_source_file_cites_a_document_outside_the_repository():
    assert outside_citations(SRC) == []


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
