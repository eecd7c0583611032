"""DuckDB does not search the import path for pandas on every bound value once pandas is marked absent."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

COUNT_LOOKUPS = """
import sys
from pathlib import Path

from docs_mcp.indexer.index_file import connect

looked_for = []


class Recorder:
    def find_spec(self, name, path=None, target=None):
        looked_for.append(name)
        return None


conn = connect(Path(sys.argv[1]), read_only=False)
sys.meta_path.insert(0, Recorder())
for _ in range(5):
    conn.execute("SELECT list_contains($ids, $id)", {"ids": [str(i) for i in range(10)], "id": "3"}).fetchall()
print(looked_for.count("pandas"), sys.modules.get("pandas", "unset"))
"""


@pytest.mark.skipif(importlib.util.find_spec("pandas") is not None, reason="pandas is installed: DuckDB finds it")
def test_queries_on_an_index_connection_do_not_look_for_a_missing_pandas(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", COUNT_LOOKUPS, str(tmp_path / "index.duckdb")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "None"]  # without the mark: 2 lookups per bound value, 120 here
