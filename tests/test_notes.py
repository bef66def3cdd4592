"""Every `Note [...]` the code cites is written down somewhere (docs/style.md, point 2).

A note is defined where its title stands alone on a line (usually followed by a
dashed underline, as PyTorch writes them); a citation is any other mention. Notes quoted from
PyTorch's own messages (listed below) are PyTorch's, not ember's.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUOTED_FROM_PYTORCH = {"Ambiguity in AutogradOther kernel"}  # inside PyTorch's error text


def _texts():
    for folder in ("src", "docs"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".md", ".yaml") and "_generated" not in path.parts:
                yield path, path.read_text()


def test_every_cited_note_is_defined():
    defined, cited = set(), {}
    for path, text in _texts():
        for match in re.finditer(r"^\s*(?:#\s*)?Note \[([^\]]+)\]\s*$", text, re.MULTILINE):
            defined.add(match.group(1))
        for match in re.finditer(r"Note \[([^\]]+)\]", text):
            name = re.sub(r"\s+(?:#\s*)?", " ", match.group(1))  # citations may wrap lines
            cited.setdefault(name, path.relative_to(ROOT))
    missing = {name: str(path) for name, path in cited.items() if name not in defined}
    for name in QUOTED_FROM_PYTORCH:
        missing.pop(name, None)
    assert missing == {}
