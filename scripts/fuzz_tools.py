"""Fuzz every tool of `docs-mcp serve` through a real stdio session (the MCP SDK client).

Sends random and hostile tool calls: every tool and unknown names, valid arguments with one
mutation each (wrong types, huge and deep values, huge integers, unknown names, nulls, odd
Unicode), and checks that the server never crashes or hangs, that no answer carries a
traceback, and that every error says what to do next. Bounded in count and time.

    python scripts/fuzz_tools.py --index .docs-mcp --calls 10000 --seed 1
    python scripts/fuzz_tools.py --calls 300          # indexes the repository's corpus/ first

Prints one summary line per figure and exits 1 when any check failed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

MAX_CALLS = 100_000
MAX_SECONDS = 3_600.0
CALL_TIMEOUT = 60.0  # one call; far above any real answer, so a timeout means a hang
CORPUS = Path(__file__).resolve().parent.parent / "corpus"
UNKNOWN_TOOLS = ("search", "searchDocs", "get-docs", "", "x" * 5_000, "search_docs ", "tools/list", "🔍")
# An error says what to do when it names an action: the hint of every DocsMcpError starts with one, and a hint
# may name it mid-sentence ("...: start with 'guides/retries.md#retries'"), so the verbs match in any case.
_ADVICE = re.compile(
    r"\b(Pass|Use|Run|Try|Retry|Pick|Rebuild|Leave|Send|Repeat|Call|Check|List|Search|Read|Browse|Omit|Give|Start|Set|Ask|Wait|Keep|Shorten)\b",
    re.IGNORECASE,
)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \".*\", line \d+")
_ODD_TEXT = (
    "",
    " ",
    "\x00",
    "\n\t",
    "ä",
    "日本語のドキュメント",
    "🔥🚀",
    "\u202eevil",
    "a\u200bb",
    "ﬁ",
    "İ",
    "\\",
    "'",
    '"',
    "../../etc/passwd",
    "/etc/passwd",
    "C:\\Windows",
    "http://example.com/x",
    "%00",
    "{{path}}",
    "<script>",
    "*",
    "?",
    "NULL",
    "null",
    "-1",
    "1e309",
    "docs:///x",
    "#",
    "a#b#c",
    "guides/retries.md#",
    "org/project",
    "/",
    "//",
)


@dataclass
class Tally:
    """What the run saw."""

    calls: int = 0
    outcomes: Counter = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def problem(self, kind: str, tool: str, arguments: Any, text: str) -> None:
        self.outcomes[kind] += 1
        if len(self.problems) < 20:
            self.problems.append(f"{kind}: {tool[:40]}({_short(arguments)}) -> {text[:300]}")


class Mutator:
    """Random argument values, from plausible to hostile."""

    def __init__(self, rng: random.Random, schemas: dict[str, dict[str, Any]]) -> None:
        self.rng = rng
        self.schemas = schemas

    def call(self) -> tuple[str, Any]:
        """A tool name and its arguments."""
        if self.rng.random() < 0.03:
            return self.rng.choice(UNKNOWN_TOOLS), self.arguments(self.rng.choice(list(self.schemas)))
        tool = self.rng.choice(list(self.schemas))
        return tool, self.arguments(tool)

    def arguments(self, tool: str) -> dict[str, Any]:
        # Always an object: the SDK client refuses to send anything else.
        properties = self.schemas[tool].get("properties", {})
        arguments = {name: self.plausible(prop) for name, prop in properties.items() if self.rng.random() < 0.6}
        for name in self.schemas[tool].get("required", []):
            if self.rng.random() < 0.95:
                arguments.setdefault(name, self.plausible(properties.get(name, {})))
        for _ in range(self.rng.choice((0, 1, 1, 1, 2, 3))):
            self.mutate(arguments, properties)
        return arguments

    def mutate(self, arguments: dict[str, Any], properties: dict[str, Any]) -> None:
        names = list(properties) or ["x"]
        kind = self.rng.randrange(6)
        if kind == 0:
            arguments[self.rng.choice(names)] = self.value(depth=0)
        elif kind == 1:
            arguments[self.text(hostile=True)] = self.value(depth=0)
        elif kind == 2 and arguments:
            del arguments[self.rng.choice(list(arguments))]
        elif kind == 3:
            arguments[self.rng.choice(names)] = None
        elif kind == 4:
            arguments[self.rng.choice(names)] = self.deep(self.rng.randint(2, 80))
        else:
            arguments[self.rng.choice(names)] = self.text(hostile=True)

    def plausible(self, prop: dict[str, Any]) -> Any:
        """A value that fits the schema, mostly."""
        if "enum" in prop:
            return self.rng.choice(prop["enum"])
        kind = prop.get("type") or "string"
        if kind == "integer":
            low, high = prop.get("minimum", -5), prop.get("maximum", 100)
            return self.rng.randint(low - 2, min(high, low + 200) + 2)
        if kind == "array":
            return [
                self.plausible(prop.get("items", {}).get("anyOf", [prop.get("items", {})])[0])
                for _ in range(self.rng.randint(0, 3))
            ]
        return self.rng.choice(
            (
                "routing",
                "search",
                "how to paginate",
                "fastapi/fastapi",
                "local/corpus",
                "index.md",
                "guides/retries.md#retries",
                "RateLimitError",
                "python",
                self.text(hostile=False),
            )
        )

    def value(self, depth: int) -> Any:
        """Any JSON value, hostile ones included."""
        kind = self.rng.randrange(10 if depth < 3 else 7)
        if kind == 0:
            return self.rng.choice((True, False, None))
        if kind == 1:
            return self.rng.choice((0, -1, 1, 2**31, 2**63 - 1, -(2**63), 10**18, 7))
        if kind == 2:
            return self.rng.choice((0.5, -0.0, 1e308, 3.0, -1e-300))
        if kind == 3:
            return 10 ** self.rng.choice((25, 300, 5_000)) - 1  # past what the wire takes
        if kind in (4, 5, 6):
            return self.text(hostile=True)
        if kind == 7:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        if kind == 8:
            return {self.text(hostile=False): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}
        return self.deep(self.rng.randint(2, 80))

    def text(self, hostile: bool) -> str:
        if not hostile or self.rng.random() < 0.5:
            return "".join(self.rng.choice(_ODD_TEXT) for _ in range(self.rng.randint(1, 4)))
        size = self.rng.choice((60, 300, 2_100, 70_000, 1_000_000 if self.rng.random() < 0.05 else 5_000))
        return self.rng.choice(("x", "ü", "🚀", "a b ", "/")) * size

    def deep(self, levels: int) -> Any:
        value: Any = "bottom"
        for _ in range(levels):
            value = [value] if self.rng.random() < 0.5 else {"k": value}
        return value


async def fuzz(index: Path, calls: int, seed: int, seconds: float, errlog: Path) -> Tally:
    """Run ``calls`` random calls (or until ``seconds`` pass) against one server; the server's stderr goes to ``errlog``."""
    tally = Tally()
    params = StdioServerParameters(command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(index)])
    deadline = time.monotonic() + seconds
    with errlog.open("w") as log:
        async with Client(stdio_client(params, errlog=log), mode="legacy") as client:
            tools = (await client.list_tools()).tools
            mutator = Mutator(random.Random(seed), {tool.name: tool.input_schema for tool in tools})
            while tally.calls < calls and time.monotonic() < deadline:
                tool, arguments = mutator.call()
                tally.calls += 1
                if not await _one_call(client, tool, arguments, tally):
                    return tally  # the server is gone: nothing more to learn
                if tally.calls % 500 == 0:
                    print(f"  {tally.calls} calls, {dict(tally.outcomes)}", file=sys.stderr, flush=True)
    return tally


async def _one_call(client: Client, tool: str, arguments: Any, tally: Tally) -> bool:
    """Make one call and record its outcome; False when the server no longer answers."""
    try:
        with anyio.fail_after(CALL_TIMEOUT):
            result = await client.call_tool(tool, arguments)
    except TimeoutError:
        tally.problem("hang", tool, arguments, f"no answer in {CALL_TIMEOUT:.0f} s")
        return False
    except MCPError as error:  # a JSON-RPC error: unknown tool, or a message the transport refused
        text = str(error)
        _check_text("protocol_error", tool, arguments, text, tally)
        return True
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as error:
        tally.problem("crash", tool, arguments, repr(error))
        return False
    text = "\n".join(getattr(item, "text", "") for item in result.content)
    _check_text("tool_error" if result.is_error else "ok", tool, arguments, text, tally, error=bool(result.is_error))
    return True


def _check_text(kind: str, tool: str, arguments: Any, text: str, tally: Tally, error: bool = True) -> None:
    if _TRACEBACK.search(text):
        tally.problem("traceback", tool, arguments, text)
    elif error and not _ADVICE.search(text):
        tally.problem("error_without_advice", tool, arguments, text)
    else:
        tally.outcomes[kind] += 1


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=True, default=str)
    except (ValueError, RecursionError):  # an integer past 4,300 digits has no str()
        text = f"<{type(value).__name__} that does not print>"
    return text if len(text) <= 120 else f"{text[:120]}... ({len(text)} chars)"


def _build_index(folder: Path) -> Path:
    from docs_mcp.indexer import build_index

    build_index(CORPUS, folder / "index")
    return folder / "index"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--index", type=Path, help="index to serve (default: index the repository's corpus/ into a temporary folder)"
    )
    parser.add_argument("--calls", type=int, default=10_000, help=f"number of tool calls (at most {MAX_CALLS})")
    parser.add_argument(
        "--seconds", type=float, default=1_800.0, help=f"stop after this long (at most {MAX_SECONDS:.0f})"
    )
    parser.add_argument("--seed", type=int, default=1, help="random seed: the same seed sends the same calls")
    args = parser.parse_args(argv)
    calls, seconds = min(max(args.calls, 1), MAX_CALLS), min(max(args.seconds, 1.0), MAX_SECONDS)
    with tempfile.TemporaryDirectory(prefix="docs-mcp-fuzz-") as scratch:
        index = args.index or _build_index(Path(scratch))
        errlog = Path(scratch) / "server.log"
        started = time.monotonic()
        tally = anyio.run(fuzz, index, calls, args.seed, seconds, errlog)
        elapsed = time.monotonic() - started
        server_log = errlog.read_text(errors="replace")
        log_tracebacks = server_log.count("Traceback (most recent call last)")
    report(tally, elapsed, log_tracebacks)
    if log_tracebacks:  # the scratch folder goes with the run: show what the server logged around the first one
        first = server_log.index("Traceback (most recent call last)")
        print(server_log[max(0, first - 1_000) : first + 4_000], file=sys.stderr)
    bad = sum(tally.outcomes[kind] for kind in ("hang", "crash", "traceback", "error_without_advice"))
    return 1 if bad or log_tracebacks else 0


def report(tally: Tally, elapsed: float, log_tracebacks: int) -> None:
    print(f"calls: {tally.calls} in {elapsed:.1f} s ({tally.calls / max(elapsed, 1e-9):.0f}/s)")
    for kind in ("ok", "tool_error", "protocol_error", "crash", "hang", "traceback", "error_without_advice"):
        print(f"{kind}: {tally.outcomes[kind]}")
    print(f"tracebacks in the server log: {log_tracebacks}")
    for problem in tally.problems:
        print(f"  {problem}")


if __name__ == "__main__":
    sys.exit(main())
