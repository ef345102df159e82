#!/usr/bin/env python3
"""The Swift snippet in README.md and docs/INTEGRATING.md is the marked part of examples/embed,
which make test builds and runs: `--check` fails when a document's copy differs, `--write`
copies it in. A document shows it in the ```swift block after
<!-- snippet: examples/embed/Sources/embed/main.swift -->."""
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = "examples/embed/Sources/embed/main.swift"
DOCUMENTS = ["README.md", "docs/INTEGRATING.md"]
MARKER = f"<!-- snippet: {SOURCE} -->"


def snippet() -> str:
    lines = (ROOT / SOURCE).read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if "// snippet: begin" in line)
    end = next(i for i, line in enumerate(lines) if "// snippet: end" in line)
    return textwrap.dedent("\n".join(lines[begin + 1:end])) + "\n"


def replaced(text: str, code: str, name: str) -> str:
    at = text.find(MARKER)
    if at < 0:
        sys.exit(f"snippets: {name} has no {MARKER}; put it above the ```swift block that shows the example")
    start = text.find("```swift\n", at)
    end = text.find("```", start + len("```swift\n"))
    if start < 0 or end < 0:
        sys.exit(f"snippets: {name} has no ```swift block after {MARKER}")
    return text[:start + len("```swift\n")] + code + text[end:]


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    code = snippet()
    stale = []
    for name in DOCUMENTS:
        path = ROOT / name
        text = path.read_text()
        new = replaced(text, code, name)
        if new != text:
            if mode == "--write":
                path.write_text(new)
            else:
                stale.append(name)
    if stale:
        sys.exit(f"snippets: the Swift snippet in {', '.join(stale)} differs from the marked part of {SOURCE}; "
                 "run 'python3 scripts/snippets.py --write' to copy it in")
    print(f"snippets: {', '.join(DOCUMENTS)} show {SOURCE} as it is ({len(code.splitlines())} lines)")


main()
