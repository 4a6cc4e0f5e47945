"""docs/benchmarks.md describes the product as it is: each capability's section carries the command
that reproduces its figures, data outside the repository is named through $DATA (never a path
baked in), the docs do not narrate work history, and links into the page land on a heading."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BENCHMARKS_MD = DOCS / "benchmarks.md"

#: the phrases of a lab notebook, not of a product's documentation
HISTORY = re.compile(r"this session|the .* issue|previous commit|issue [0-9]", re.IGNORECASE)
#: a path that leaves the repository: a parent folder or an absolute folder of the machine it was written on
OUTSIDE = re.compile(r"\.\./shared|/work/|/heldout/")
#: sections that hold no figure of their own
NO_FIGURES = {"Data", "Contents"}



def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def sections(text: str, level: str = "##") -> dict[str, str]:
    """Heading -> body, for the headings of exactly ``level`` (fenced code is not a heading)."""
    found: dict[str, str] = {}
    title, body, fenced = None, [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith(level + " "):
            if title is not None:
                found[title] = "\n".join(body)
            title, body = line[len(level) + 1:].strip(), []
        else:
            body.append(line)
    if title is not None:
        found[title] = "\n".join(body)
    return found


def anchors(text: str) -> set[str]:
    fenced, out = False, set()
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if match:
            out.add(slug(match.group(1)))
    return out


def test_slug_matches_githubs_anchors():
    assert slug("Start-up: `criss-rag ask` cold vs warm") == "start-up-criss-rag-ask-cold-vs-warm"
    assert slug("Framework overhead: criss_rag vs the raw calls it wraps") == (
        "framework-overhead-criss_rag-vs-the-raw-calls-it-wraps"
    )
    assert slug("Cancer-type filter and boost: the Korean system's comparison") == (
        "cancer-type-filter-and-boost-the-korean-systems-comparison"
    )


def test_no_docs_page_narrates_work_history():
    hits = [
        f"{page.name}:{n}: {line.strip()}"
        for page in sorted(DOCS.glob("*.md"))
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if HISTORY.search(line)
    ]
    assert not hits, "docs describe the product; move work history to docs/changelog.md:\n" + "\n".join(hits)


def test_every_section_with_figures_has_the_command_that_reproduces_them():
    found = sections(BENCHMARKS_MD.read_text(encoding="utf-8"))
    # a section still waiting for its figures says so in bold and shows none
    waiting = {title for title, body in found.items() if "**Placeholder" in body}
    for title in waiting:
        assert not re.search(r"^\|.*\d", found[title], re.MULTILINE), f"placeholder {title!r} shows figures"
    without = [title for title, body in found.items() if title not in NO_FIGURES | waiting and "```bash" not in body]
    assert not without, f"sections of docs/benchmarks.md without a ```bash command: {without}"
    # a figure table's section, at any depth, shows its command (a bash block, or a command in the table)
    for title, body in {**sections(BENCHMARKS_MD.read_text(encoding="utf-8"), "###")}.items():
        if re.search(r"^\|.*\d", body, re.MULTILINE):
            assert "```bash" in body or "`criss-rag " in body or "`python " in body or "command" in body, (
                f"### {title}: figures without the command that reproduces them"
            )


def test_benchmarks_page_names_outside_data_through_data_only():
    text = BENCHMARKS_MD.read_text(encoding="utf-8")
    assert not OUTSIDE.findall(text), "name data outside the repository as $DATA/..., described under ## Data"
    described = set(re.findall(r"`\$DATA/([\w.-]+)/`", sections(text)["Data"]))
    used = set(re.findall(r"\$DATA/([\w.-]+)", text))
    assert described and used <= described, f"$DATA folders used but not described under ## Data: {used - described}"


def test_benchmark_scripts_docstrings_point_inside_the_repository():
    for script in sorted((ROOT / "benchmarks").glob("*.py")):
        docstring = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
        assert not OUTSIDE.findall(docstring), f"{script.name}: its docstring names a path outside the repository"
    claims = ROOT / "benchmarks" / "data" / "claims" / "README.md"
    assert "expected" in claims.read_text(encoding="utf-8"), "the claim format lives beside the claims"


def test_links_into_the_benchmarks_page_land_on_a_heading():
    targets = anchors(BENCHMARKS_MD.read_text(encoding="utf-8"))
    pages = [ROOT / "README.md", *sorted(DOCS.rglob("*.md")), *sorted((ROOT / "benchmarks").rglob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)}: #{anchor}"
        for page in pages
        for anchor in re.findall(r"benchmarks\.md#([^)\s]+)", page.read_text(encoding="utf-8"))
        if anchor not in targets
    ]
    own_links = re.findall(r"\]\(#([^)\s]+)\)", BENCHMARKS_MD.read_text(encoding="utf-8"))
    own = [f"docs/benchmarks.md: #{a}" for a in own_links if a not in targets]
    assert not broken + own, "links to headings that do not exist:\n" + "\n".join(broken + own)
