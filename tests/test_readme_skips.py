"""The README's list of what the suite's skips need names every test file that needs it: a test that starts to
need ../shared, a service or a tool is listed where a newcomer looks for why it skipped."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
README = (TESTS.parent / "README.md").read_text(encoding="utf-8")
# What a test file says when it needs the thing -> how the README names the thing.
NEEDS = {
    r"\bshared_dir\b|\.\./shared|\"shared\"": "`../shared`",
    r"\bredis_url\b": "`redis-server`",
    r"\bpostgres\b\(|\bpostgres: |\(postgres\b|\bconn: Any": "PostgreSQL",
    r"haproxy": "`haproxy`",
    r"/usr/share/doc/python3": "`python3-doc`",
    r"CLAUDE is None": "Claude Code CLI",
}


def test_every_test_file_that_skips_without_something_is_listed_under_it() -> None:
    missing = []
    for path in sorted(set(TESTS.rglob("test_*.py")) - {Path(__file__).resolve()}):
        text = path.read_text(encoding="utf-8")
        for pattern, thing in NEEDS.items():
            if re.search(pattern, text) and path.relative_to(TESTS.parent).as_posix() not in README:
                missing.append(f"{path.relative_to(TESTS.parent)} ({thing})")
    assert missing == [], f"README: list these files under what their skips need: {missing}"
