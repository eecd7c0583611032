"""The benchmarks' named CPU load: N real spinning processes for a block's duration, every one gone after it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from services import wait_until

from docs_mcp.eval.cpu_load import MAX_HOGS, CpuLoad


def _cpu_ticks(pid: int) -> int:
    """User plus system clock ticks the process has used (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc (Linux)")
def test_each_hog_spins_for_the_block_and_none_outlives_it() -> None:
    with CpuLoad(2) as load:
        pids = load.pids
        assert len(set(pids)) == 2 and os.getpid() not in pids
        wait_until(lambda: all(_cpu_ticks(pid) > 0 for pid in pids), "both hogs to use the CPU")
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: neither running nor a zombie left for us
    assert load.pids == []


def test_no_load_starts_nothing_and_a_count_out_of_range_is_refused() -> None:
    with CpuLoad(0) as load:
        assert load.pids == []
    for count in (-1, MAX_HOGS + 1):
        with pytest.raises(ValueError, match=f"between 0 and {MAX_HOGS}"):
            CpuLoad(count)
