"""Everything the project cites is inside the project.

Layer: tests. Every `facts §N` (or bare `§N`) in code, tests and docs names a
section of docs/reference-facts.md that exists; every `style N` a point of
docs/style.md; every relative link in the Markdown files a file of the
repository; and nothing points outside it (a user's clone has only itself).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".md", ".yaml", ".toml", ".html", ".json", ".expected", ""}
FOLDERS = ("src", "tests", "docs", "examples", "benchmarks", ".ci")
TOP_FILES = ("README.md", "Makefile", "pyproject.toml")
SECTION = r"\d+(?:\.\d+)?"
CITATION = re.compile(rf"§\s?({SECTION})(?:\s?[-–]\s?({SECTION}))?")


def _texts():
    paths = [ROOT / name for name in TOP_FILES]
    for folder in FOLDERS:
        paths += [p for p in (ROOT / folder).rglob("*") if p.is_file()]
    for path in paths:
        built = any(part == "__pycache__" or part.endswith(".egg-info") for part in path.parts)
        if path.suffix in SUFFIXES and not built and path.name != Path(__file__).name:
            yield path, path.read_text(encoding="utf-8", errors="replace")


def _sections() -> set[str]:
    text = (ROOT / "docs" / "reference-facts.md").read_text()
    return set(re.findall(rf"^#{{2,3}} ({SECTION})\.? ", text, re.MULTILINE))


def test_the_facts_have_their_sections():
    sections = _sections()
    assert {str(n) for n in range(1, 12)} <= sections
    assert {"1.2", "3.5", "4.1", "4.4", "5.6", "6.4", "7.3", "8.5", "9.5", "10.3"} <= sections


def test_every_cited_section_of_the_facts_exists():
    sections, missing = _sections(), {}
    for path, text in _texts():
        for match in CITATION.finditer(text):
            for cited in filter(None, match.groups()):
                if cited not in sections:
                    missing.setdefault(f"§{cited}", str(path.relative_to(ROOT)))
    assert missing == {}


def test_every_cited_style_point_exists():
    points = set(re.findall(r"^(\d+)\. ", (ROOT / "docs" / "style.md").read_text(), re.MULTILINE))
    cited = {}
    for path, text in _texts():
        for match in re.finditer(r"style(?:\.md)?,? (?:point )?(\d+)\b", text):
            cited.setdefault(match.group(1), str(path.relative_to(ROOT)))
    assert cited and {n: p for n, p in cited.items() if n not in points} == {}


def test_relative_links_in_markdown_lead_to_files():
    broken = []
    for path, text in _texts():
        if path.suffix != ".md":
            continue
        prose = re.sub(r"```.*?```|`[^`]*`", "", text, flags=re.DOTALL)  # code is not a link
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if "://" not in target and not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert broken == []


def test_nothing_points_outside_the_repository():
    outside = re.compile(
        r"\.\./shared|shared/(?:examples|reference|seeds|tools)|DESIGN\.md|STYLE\.md|seed \d{3}\b"
    )
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(0)}"
        for path, text in _texts()
        for m in outside.finditer(text)
    ]
    assert found == []
