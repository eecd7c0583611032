"""Memory and open files of a server across index swaps: is a replaced generation really released?

Builds a synthetic corpus (eval.synthetic) into an index, opens it as the server
does (LiveIndex), warms it and runs a search, then rebuilds and swaps N times
(a search after each swap, as a request would).  Prints RSS before and after,
and how many files of generation folders the process still holds open, deleted
(pruned) ones apart.  Bounded: one build per swap, full-text only by default.

    python scripts/swap_memory.py --chunks 4000 --swaps 5
    python scripts/swap_memory.py --chunks 4000 --swaps 5 --embeddings default

Exit status 1 if a pruned generation is still open.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from pathlib import Path

from docs_mcp.eval.synthetic import generate_corpus
from docs_mcp.indexer import build_index
from docs_mcp.server.core.live_index import LiveIndex


def rss_mib() -> float:
    """This process's resident set size, from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def open_files(under: Path) -> list[str]:
    """Files under ``under`` that this process has open (deleted ones end in ' (deleted)')."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(under)):
            found.append(target)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=4000, help="chunks in the synthetic corpus (default 4000)")
    parser.add_argument("--swaps", type=int, default=5, help="rebuilds swapped in while serving (default 5)")
    parser.add_argument("--embeddings", default="none", help="none (default) or default (the packaged model)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="swap-memory-") as work:
        corpus = generate_corpus(Path(work) / "docs", args.chunks)
        index = Path(work) / "index"
        build_index(corpus.root, index, embeddings=args.embeddings)
        live = LiveIndex(index)
        query = corpus.queries[0]
        with live.lease() as served:
            served.warm()
            served.engine.search(query)
        gc.collect()
        before = rss_mib()
        for swap in range(args.swaps):
            (corpus.root / f"swap-{swap}.md").write_text(f"# Swap {swap}\n\nA page added before swap {swap}.\n")
            build_index(corpus.root, index, embeddings=args.embeddings)
            with live.lease() as served:
                served.engine.search(query)
        gc.collect()
        after = rss_mib()
        held = open_files(index)
        deleted = [path for path in held if path.endswith("(deleted)")]
        print(
            f"{args.chunks} chunks, {args.swaps} swaps ({args.embeddings} embeddings): RSS {before:.0f} MiB before, "
            f"{after:.0f} MiB after ({after - before:+.0f} MiB); generation files open: {len(held)}, "
            f"of pruned generations: {len(deleted)}"
        )
        live.close()
    return 1 if deleted else 0


if __name__ == "__main__":
    sys.exit(main())
