"""A documented CPU hog: N processes that spin until stopped, to measure latency "at load N".

A shared machine's load is whatever its neighbours do; a benchmark that claims a figure "at
load 6-10" needs a load it can name.  Each hog is a Python process running an empty loop at
normal priority, so the kernel shares the cores between the hogs and the servers under test
as it would between them and any busy neighbour (the load average then reads about N plus
what was already running).

    python -m docs_mcp.eval.cpu_load 8          # spin 8 processes until Ctrl-C
"""

from __future__ import annotations

import os
import subprocess
import sys
from types import TracebackType

MAX_HOGS = 64
_SPIN = "while True:\n    pass\n"


class CpuLoad:
    """``with CpuLoad(n):`` runs ``n`` spinning processes for the block's duration (0: none)."""

    def __init__(self, processes: int) -> None:
        if not 0 <= processes <= MAX_HOGS:
            raise ValueError(f"processes must be between 0 and {MAX_HOGS}")
        self.processes = processes
        self._hogs: list[subprocess.Popen[bytes]] = []

    @property
    def pids(self) -> list[int]:
        return [hog.pid for hog in self._hogs]

    def __enter__(self) -> CpuLoad:
        try:
            for _ in range(self.processes):
                self._hogs.append(
                    subprocess.Popen([sys.executable, "-c", _SPIN], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
                )
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def wait(self) -> None:
        """Block until every hog has exited (they only exit when killed: until Ctrl-C)."""
        for hog in self._hogs:
            hog.wait()

    def stop(self) -> None:
        """Stop every hog this object started (by its own process handle, never by name)."""
        for hog in self._hogs:
            hog.kill()
        for hog in self._hogs:
            hog.wait()
        self._hogs.clear()


def load_average() -> float:
    """The one-minute load average (0.0 where the platform has none)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return 0.0


def _main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else os.cpu_count() or 1
    with CpuLoad(count) as load:
        print(f"spinning {count} processes ({', '.join(map(str, load.pids))}); Ctrl-C stops them", flush=True)
        try:
            load.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
