"""The layering, read from the source with an AST walk (no module is imported).

- Imports go one way: docs_mcp.eval -> docs_mcp.server -> docs_mcp.indexer -> the root
  (``docs_mcp``'s ``__init__``, ``errors`` and ``lazy``); lazy imports inside functions count too.
- The root package reaches the areas only inside ``cli.py``'s ``_mount``.
- Nothing imports the source folders ``server``, ``indexer`` or ``eval`` as top-level names:
  they are only importable by accident, from a checkout, as the wrong package.
- Inside an area, each product sub-package imports only what ``PRODUCT_RULES`` allows it
  (``search`` knows nothing of MCP; ``team`` may use the contract, never the reverse; the
  indexer core knows nothing of ``indexer.libraries`` but through ``build``, the one writer; ``indexer.sources``
  hands every source's documents to ``build``, which knows no source; the server and the CLI edge use sources).
- Nothing in server/ writes to stdout (it carries the MCP protocol under ``serve``), except the
  CLI commands listed in ``STDOUT_PRINTERS``, whose output is their result.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOT = "docs_mcp"
# Lower number = lower layer; a module may import its own layer or lower ones.
LAYERS = {"docs_mcp": 0, "docs_mcp.indexer": 1, "docs_mcp.server": 2, "docs_mcp.eval": 3}
# What the areas may use of the root package: the version, the error tree, the lazy-export helper and the
# listing tables their commands print, never the CLI.
ROOT_MODULES_FOR_AREAS = {
    "docs_mcp",
    "docs_mcp.environment",
    "docs_mcp.errors",
    "docs_mcp.lazy",
    "docs_mcp.redact",
    "docs_mcp.tables",
}
MOUNT = ("cli.py", "_mount")
FOLDER_NAMES = {"server", "indexer", "eval"}
# Inside an area: importer (the longest matching prefix) -> what it must not import. Every
# sub-package has an entry, so a new product states its rule before it lands. An area's
# ``__init__`` (its public API) and its CLI edge (``commands``) may import the whole area.
_SERVER = "docs_mcp.server"
_GATEWAY = f"{_SERVER}.gateway"
_SOURCES = "docs_mcp.indexer.sources"
_FLEET = f"{_SERVER}.fleet"
_INDEXER_FLEET = "docs_mcp.indexer.fleet"
_PACKAGES = "docs_mcp.indexer.sources.packages"
_WEB = f"{_SOURCES}.web"
# The source kinds: one module each, listed in the one table (indexer/sources/kinds.py).
KIND_MODULES = {"folder", "llms_txt", "site", "github", "package"}
_KIND_MODULES = tuple(f"{_SOURCES}.{m}" for m in sorted(KIND_MODULES))
# The one writer, its planner (which keeps the other libraries) and the docs-folder source that feeds it.
_WRITER = ("docs_mcp.indexer.build", "docs_mcp.indexer.build_plan", "docs_mcp.indexer.sources.folder")
# The gateway reuses the engine, the contract's argument checks and the libraries' error shape;
# every other part of the contract and the libraries is theirs alone.
_TOOLS = f"{_SERVER}.tools"
_GATEWAY_MAY_NOT = (
    f"{_SERVER}.team", f"{_SERVER}.app", _TOOLS,
    *(f"{_SERVER}.contract.{m}" for m in ("cursor", "documents", "render", "sizing")),
    *(f"{_SERVER}.libraries.{m}" for m in ("answers", "fastpath", "fuzzy", "pages", "prompts", "resources", "served_libraries")),
)  # fmt: skip
PRODUCT_RULES: dict[str, tuple[str, ...]] = {
    f"{_SERVER}.search": (
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        "mcp",
        "mcp_types",
        _SOURCES,
        _FLEET,
        _INDEXER_FLEET,
    ),
    # The contract tools read the index only; remote sources reach the server through the library tools.
    f"{_SERVER}.contract": (
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        _TOOLS,
        _SOURCES,
        _FLEET,
        _INDEXER_FLEET,
    ),
    # A fleet replica follows the registry through the live index; team mode wires it in, never the reverse.
    _FLEET: (f"{_SERVER}.team", f"{_SERVER}.app", f"{_SERVER}.libraries", _GATEWAY, "mcp", "mcp_types"),
    f"{_SERVER}.libraries": (f"{_SERVER}.team", f"{_SERVER}.app", _GATEWAY, _TOOLS),
    # One module per tool: schema, arguments, run and spec over the products' shared parts; the app lists them.
    _TOOLS: (f"{_SERVER}.team", f"{_SERVER}.app"),
    _GATEWAY: _GATEWAY_MAY_NOT,
    # The kernel every product shares: it knows no product.
    f"{_SERVER}.core": (
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        _TOOLS,
        _SOURCES,
    ),
    # The learned ranking: features, model and gate, confidence; used by search and the library tools.
    # It reads the evidence record it owns and the indexer's tokens: the search uses it, never the reverse.
    f"{_SERVER}.ranking": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        f"{_SERVER}.core",
        _TOOLS,
        _GATEWAY,
        "mcp",
        "mcp_types",
        _SOURCES,
    ),
    f"{_SERVER}.team": (),
    f"{_SERVER}.app": (f"{_SERVER}.team",),
    # The stdio guard is transport only: JSON-RPC lines in, SDK messages out (and the answers owed at the end of input).
    f"{_SERVER}.stdio_guard": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
    ),
    f"{_SERVER}.pending_answers": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        f"{_SERVER}.stdio_guard",
    ),
    f"{_SERVER}.stdio_pipes": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        f"{_SERVER}.stdio_guard",
        "mcp",
        "mcp_types",
    ),
    f"{_SERVER}.errors": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
    ),
    # `docs-mcp setup` writes client config files: it reads the index's metadata, never serves or searches.
    f"{_SERVER}.setup": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        "mcp",
        "mcp_types",
        _SOURCES,
    ),
    f"{_SERVER}.sessions": (
        f"{_SERVER}.search",
        f"{_SERVER}.contract",
        f"{_SERVER}.libraries",
        f"{_SERVER}.team",
        f"{_SERVER}.app",
        _GATEWAY,
        "mcp",
        "mcp_types",
    ),
    "docs_mcp.indexer": ("docs_mcp.indexer.libraries", *_WRITER, _SOURCES, _INDEXER_FLEET, _PACKAGES),
    # The fleet's control plane and shared storage use the index files only; publishing a build is the CLI's business.
    _INDEXER_FLEET: ("docs_mcp.indexer.libraries", *_WRITER, _SOURCES, _PACKAGES, "docs_mcp.indexer.commands"),
    # Libraries list and remove (through the planner); they never build.
    "docs_mcp.indexer.libraries": ("docs_mcp.indexer.build", "docs_mcp.indexer.sources.folder", _SOURCES, _PACKAGES),
    # The serving arrays: their format, writer and reader; the indexer's write side fills them, the server maps them.
    "docs_mcp.indexer.serving": ("docs_mcp.indexer.libraries", *_WRITER, _SOURCES, _PACKAGES, _INDEXER_FLEET),
    # Embedding models turn texts into vectors: they know nothing of libraries, builds, sources or the fleet.
    "docs_mcp.indexer.models": ("docs_mcp.indexer.libraries", *_WRITER, _SOURCES, _PACKAGES, _INDEXER_FLEET),
    # Reading a docs folder into chunks (discovery, manifests, front matter, formats, chunking) is pure: it writes
    # no index, so it knows nothing of libraries, builds, sources, the fleet, the serving arrays or the models.
    "docs_mcp.indexer.corpus": (
        "docs_mcp.indexer.libraries",
        *_WRITER,
        _SOURCES,
        _PACKAGES,
        _INDEXER_FLEET,
        "docs_mcp.indexer.serving",
        "docs_mcp.indexer.models",
    ),
    # Formats turn one file's text into markdown: they know nothing of libraries, builds or fetching.
    "docs_mcp.indexer.corpus.formats": ("docs_mcp.indexer.libraries", *_WRITER, _SOURCES, _PACKAGES),
    "docs_mcp.indexer.build": (_SOURCES, _PACKAGES, "docs_mcp.indexer.sources.folder"),
    # The planner reads the index's other libraries back; the writer uses it, never the reverse.
    "docs_mcp.indexer.build_plan": (_SOURCES, _PACKAGES, "docs_mcp.indexer.build", "docs_mcp.indexer.sources.folder"),
    # The docs-folder source hands its folder to the writer, as every source does; it knows no other source.
    "docs_mcp.indexer.sources.folder": (
        _PACKAGES,
        _WEB,
        *(m for m in _KIND_MODULES if m != f"{_SOURCES}.folder"),
        f"{_SOURCES}.service",
        f"{_SOURCES}.ingest",
    ),
    # Sources (folders, llms.txt) hand their documents to the one writer (build); the writer knows no source.
    _SOURCES: ("docs_mcp.indexer.commands", _PACKAGES),
    # The package kind is the one user of the registries' plumbing (PyPI, npm, archives, lock files).
    f"{_SOURCES}.package": ("docs_mcp.indexer.commands",),
    # Package registries use the sources (fetcher, ingest) and the writer; no source knows them.
    _PACKAGES: ("docs_mcp.indexer.commands",),
    # The web plumbing (HTTP client, robots.txt, URLs, page cache, crawler) knows no kind, no library and no writer.
    _WEB: (
        "docs_mcp.indexer.commands",
        "docs_mcp.indexer.libraries",
        *_WRITER,
        _PACKAGES,
        f"{_SOURCES}.kinds",
        *_KIND_MODULES,
        f"{_SOURCES}.service",
        f"{_SOURCES}.ingest",
        f"{_SOURCES}.known_libraries",
    ),
}
# The indexer's root holds the index format and its life cycle, and nothing else: what is about embedding models,
# the serving arrays or reading a folder lives in its sub-package, so the root cannot grow flat again.
INDEXER_ROOT = {
    # the format: folder layout, tables, records, errors; opening a generation; the read-side store
    "__init__",
    "schema",
    "records",
    "errors",
    "index_file",
    "index_store",
    "duckdb_store",
    "absent_modules",
    "info",
    "ranker",
    # the full-text index's text: fields and windows, CJK bigrams, stems and stop words the build and every query share
    "search_text",
    "segmentation",
    "stemmer",
    "stopwords",
    # the life cycle: the one writer, its plan, a generation written, staged, swapped, its vectors
    "build",
    "build_plan",
    "generation",
    "staging",
    "vectors",
    "extensions",
    "disk_space",
    "faults",
    # the CLI edge of a build: its commands, progress and closing lines
    "commands",
    "display",
    "time_left",
    "build_summary",
}
INDEXER_SUB_PACKAGES = {"corpus", "models", "serving", "libraries", "sources", "fleet"}
# The index's database: only these indexer modules import duckdb. The server and eval read an index only
# through the index store (indexer/index_store.py), whose DuckDB implementation is the one read-side module.
READ_SIDE_STORE = "docs_mcp.indexer.duckdb_store"
DUCKDB_MODULES = {
    READ_SIDE_STORE,
    "docs_mcp.indexer.index_file",  # opening a generation; where DuckDB's errors become ours
    # the write side: one generation's tables, full-text index, vectors and serving arrays
    *(f"docs_mcp.indexer.{m}" for m in ("extensions", "generation", "staging", "stopwords", "vectors")),
    *(f"docs_mcp.indexer.serving.{m}" for m in ("page_records", "roles", "writer")),
}  # fmt: skip
# The products that read an index hold no handle on its database: no duckdb, no connection or cursor, no SQL.
NO_INDEX_HANDLES = tuple(f"{_SERVER}.{p}" for p in ("core", "search", "contract", "libraries", "gateway", "team"))
# index_file names that hand out the database itself (the store wraps them).
INDEX_HANDLE_NAMES = {"connect", "fetch_all", "open_index", "open_generation", "IndexReader"}
# team's SQLite key store is a database of its own, not the index (the fleet's keys are in indexer/fleet/control.py).
OWN_DATABASES = {f"{_SERVER}.team.keys"}
# Modules that are always free within their area: the public API and the CLI edge.
AREA_EDGES = ("__init__", "commands")
# (file, function) pairs allowed to write to stdout: CLI commands whose result is their output.
STDOUT_PRINTERS = {
    ("server/gateway/commands.py", "list_upstreams"),
    ("server/commands.py", "search"),
    ("server/commands.py", "get"),
    ("server/setup/commands.py", "_show_diff"),
    ("server/team/commands.py", "create"),
    ("server/team/commands.py", "list_keys"),
    ("server/team/commands.py", "example"),
    ("server/team/commands.py", "show"),
    ("server/fleet/commands.py", "publish_command"),
    ("server/fleet/commands.py", "status"),
}


@dataclass(frozen=True)
class Import:
    """One import statement: the file, the module it names (absolute), where it stands."""

    file: str
    line: int
    module: str
    function: str  # the enclosing top-level function, "" at module level

    def __str__(self) -> str:
        where = f" (in {self.function})" if self.function else ""
        return f"{self.file}:{self.line}{where} imports {self.module}"


def package_dirs() -> dict[str, Path]:
    """Package name -> source folder, from pyproject's setuptools package-dir mapping."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return {name: REPO / folder for name, folder in pyproject["tool"]["setuptools"]["package-dir"].items()}


def source_files() -> Iterator[tuple[str, Path, str]]:
    """(package, path, module name) of every module of every package."""
    for package, folder in package_dirs().items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield package, path, ".".join((package, *parts))


@cache
def known_modules() -> frozenset[str]:
    return frozenset(module for _, _, module in source_files())


def imports_of(path: Path, module: str) -> list[Import]:
    """Every import in ``path``, relative ones resolved against ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []
    for function, node in _walk_with_function(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            # `from docs_mcp import errors` imports the module docs_mcp.errors; `from x import name` imports x.
            names = sorted(
                {f"{base}.{alias.name}" if f"{base}.{alias.name}" in known_modules() else base for alias in node.names}
            )
        else:
            continue
        found.extend(Import(_rel(path), node.lineno, name, function) for name in names)
    return found


def _walk_with_function(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    for top in tree.body:
        function = top.name if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else ""
        for node in ast.walk(top):
            yield function, node


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join(anchor + ([node.module] if node.module else []))


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.name


def layer_of(module: str) -> str | None:
    """The package (layer) ``module`` belongs to, or None for third-party modules."""
    matches = [package for package in LAYERS if module == package or module.startswith(package + ".")]
    return max(matches, key=len) if matches else None


def upward_imports(package: str, imports: list[Import]) -> list[Import]:
    """The imports that break the layering from a module of ``package``."""
    bad = []
    for imp in imports:
        target = layer_of(imp.module)
        if target is None or target == package:
            continue
        if package == ROOT:
            allowed = target == ROOT or (Path(imp.file).name == MOUNT[0] and imp.function == MOUNT[1])
        elif target == ROOT:
            allowed = imp.module in ROOT_MODULES_FOR_AREAS
        else:
            allowed = LAYERS[target] < LAYERS[package]
        if not allowed:
            bad.append(imp)
    return bad


def rule_of(module: str) -> str | None:
    """The ``PRODUCT_RULES`` key that governs ``module`` (the longest matching prefix)."""
    matches = [key for key in PRODUCT_RULES if module == key or module.startswith(key + ".")]
    return max(matches, key=len) if matches else None


def cross_product_imports(module: str, imports: list[Import]) -> list[Import]:
    """The imports of ``module`` that its product's rule forbids."""
    key = rule_of(module)
    if key is None or module.rsplit(".", 1)[-1] in AREA_EDGES or module in LAYERS:
        return []
    forbidden = PRODUCT_RULES[key]
    return [imp for imp in imports if any(imp.module == f or imp.module.startswith(f + ".") for f in forbidden)]


def all_imports() -> list[tuple[str, Import]]:
    """(package of the importing module, import) for every import in every package."""
    return [(package, imp) for package, path, module in source_files() for imp in imports_of(path, module)]


def test_the_packages_are_the_four_layers():
    assert set(package_dirs()) == set(LAYERS)
    assert all(folder.is_dir() for folder in package_dirs().values())


def test_imports_go_one_way():
    bad = [str(imp) for package, imp in all_imports() if upward_imports(package, [imp])]
    assert bad == []


def test_products_import_only_what_their_rule_allows():
    bad = [
        str(imp)
        for _, path, module in source_files()
        for imp in cross_product_imports(module, imports_of(path, module))
    ]
    assert bad == []


def test_the_indexer_root_holds_only_the_index_format_and_its_life_cycle():
    """A module added at the root fails here: put it in the sub-package of its concept, or name it in INDEXER_ROOT."""
    root = package_dirs()["docs_mcp.indexer"]
    assert {path.stem for path in root.glob("*.py")} == INDEXER_ROOT
    assert {path.parent.name for path in root.glob("*/__init__.py")} == INDEXER_SUB_PACKAGES


def test_every_sub_package_has_a_rule():
    sub_packages = {module for _, path, module in source_files() if path.name == "__init__.py" and module not in LAYERS}
    assert sub_packages - set(PRODUCT_RULES) == set()


def test_duckdb_errors_are_translated_only_in_the_indexer():
    """One boundary (indexer/index_file.py's translate and fetch_all): the server never catches duckdb's errors."""
    server = package_dirs()["docs_mcp.server"]
    catching = [
        _rel(path)
        for path in sorted(server.rglob("*.py"))
        if re.search(r"except\s*\(?[^:]*duckdb\.", path.read_text(encoding="utf-8"))
    ]
    assert catching == []


def index_handles(path: Path, module: str) -> list[str]:
    """What in ``path`` reaches an index's database past the store: duckdb, a connection, a cursor, SQL."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [
        f"imports {imp.module}"
        for imp in imports_of(path, module)
        if imp.module == "duckdb" or imp.module.startswith("duckdb.")
    ]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "docs_mcp.indexer.index_file":
            found += [f"imports index_file.{a.name}" for a in node.names if a.name in INDEX_HANDLE_NAMES]
        elif isinstance(node, ast.Attribute) and node.attr in ("db", "reader"):  # an engine's database or index reader
            found.append(f"line {node.lineno}: .{node.attr}")
        elif (
            module not in OWN_DATABASES
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and (
                node.func.attr in ("execute", "executemany", "fetchall", "fetchone", "fetchnumpy")
                or (node.func.attr == "cursor" and not node.args)
            )
        ):
            found.append(f"line {node.lineno}: .{node.func.attr}()")
        elif (
            module not in OWN_DATABASES
            and isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _SQL.search(node.value)
        ):
            found.append(f"line {node.lineno}: SQL")
    return found


_SQL = re.compile(r"\bSELECT\b[\s\S]*\bFROM\b|\b(?:INSERT INTO|UPDATE \w+ SET|PRAGMA)\b")


# The fleet's control plane (PostgreSQL: generations, replicas and heartbeats, events, the build lock, API keys) has
# one home for its SQL, the indexer's fleet package: the server's replica, status command and key store call it.
CONTROL_PLANE_HOME = _INDEXER_FLEET
_CONTROL_PLANE_SQL = re.compile(
    r"^\s*(?:SELECT|INSERT|UPDATE|DELETE|LISTEN|NOTIFY|CREATE)\b[\s\S]*(?:\bdocs_mcp_\w+|\w+_CHANNEL|\w+_LOCK)\b"
)


def control_plane_sql(path: Path) -> list[str]:
    """The lines of ``path`` holding a statement on the control plane's tables, channels or locks."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):  # an f-string, its fields as written: f"LISTEN {KEYS_CHANNEL}"
            text = "".join(
                part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if _CONTROL_PLANE_SQL.search(text):
            found.append(f"line {node.lineno}: {text.split()[0]}")
    return found


def test_the_control_plane_sql_has_one_home():
    """Every statement on the fleet's PostgreSQL is in docs_mcp.indexer.fleet, none in the server."""
    bad = {
        module: found
        for _, path, module in source_files()
        if module != CONTROL_PLANE_HOME
        and not module.startswith(CONTROL_PLANE_HOME + ".")
        and (found := control_plane_sql(path))
    }
    assert bad == {}


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        (
            "def f(conn):\n    conn.execute('DELETE FROM docs_mcp_replicas WHERE replica = %s', ('a',))\n",
            ["line 2: DELETE"],
        ),
        ("def f(conn):\n    conn.execute(f'LISTEN {KEYS_CHANNEL}')\n", ["line 2: LISTEN"]),
        ("Q = ('SELECT at, event '\n     'FROM docs_mcp_events ORDER BY id')\n", ["line 1: SELECT"]),
        ('"""Listens to the channel ``docs_mcp_keys``; SELECT nothing."""\n', []),
        ("Q = 'SELECT content FROM chunks'\n", []),
    ],
)
def test_the_control_plane_checker(tmp_path, source, caught):
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert control_plane_sql(path) == caught


# A reader of the repository has the guide, not the design documents it grew from: a comment explains its point or
# names the guide page (corpus/guide/...) that does, never "seed 001, section 8.2".
_DESIGN_REFERENCE = re.compile(r"\bseeds?[ /]0\d\d\b|\b0\d\d_\w+\.(?:txt|md)\b|\bdesign card\b", re.IGNORECASE)


def test_comments_cite_no_design_document_outside_the_repository():
    cited = {
        _rel(path): [
            n
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if _DESIGN_REFERENCE.search(line)
        ]
        for _, path, _ in source_files()
    }
    assert {path: lines for path, lines in cited.items() if lines} == {}


# A module's file name says what it holds, so two modules share a name only where the name is a per-area
# convention that means the same in each area: its public API, its CLI commands, its errors, its record types.
SHARED_FILE_NAMES = {"__init__", "commands", "errors", "records"}


def shared_file_names(modules: list[str]) -> dict[str, list[str]]:
    """The file names (the last part of a module name) of more than one module, outside the allowed conventions."""
    homes: dict[str, list[str]] = {}
    for module in modules:
        homes.setdefault(module.rsplit(".", 1)[-1], []).append(module)
    return {name: sorted(found) for name, found in homes.items() if len(found) > 1 and name not in SHARED_FILE_NAMES}


def test_no_two_modules_share_a_file_name():
    """indexer/fleet/registry.py, indexer/sources/registry.py and server/core/registry.py meant three things."""
    names = [
        path.relative_to(package_dirs()[package]).with_suffix("").as_posix().replace("/", ".")
        for package, path, _ in source_files()
    ]
    assert shared_file_names(names) == {}


def test_the_shared_name_checker():
    found = shared_file_names(
        [
            "fleet.registry",
            "sources.registry",
            "core.tools",
            "sources.commands",
            "fleet.commands",
            "a.errors",
            "b.errors",
        ]
    )
    assert found == {"registry": ["fleet.registry", "sources.registry"]}


def test_only_the_indexer_speaks_to_duckdb():
    importers = {
        module
        for _, path, module in source_files()
        for imp in imports_of(path, module)
        if imp.module.split(".")[0] == "duckdb"
    }
    assert importers == DUCKDB_MODULES


def test_no_product_holds_an_index_handle():
    """Search, core, contract, libraries, gateway and team read an index only through the index store."""
    bad = {module: found for _, path, module in source_files() if module.startswith(NO_INDEX_HANDLES)
           if (found := index_handles(path, module))}  # fmt: skip
    assert bad == {}


@pytest.mark.parametrize(
    ("source", "caught"),
    [
        ("import duckdb\n", ["imports duckdb"]),
        ("from docs_mcp.indexer.index_file import fetch_all, current_generation\n", ["imports index_file.fetch_all"]),
        ("def f(engine):\n    return engine.db.cursor()\n", ["line 2: .cursor()", "line 2: .db"]),
        ("def f(conn):\n    return conn.execute('x').fetchall()\n", ["line 2: .execute()", "line 2: .fetchall()"]),
        ("def f(engine):\n    return engine.reader.model\n", ["line 2: .reader"]),
        ("def f(args, pipe):\n    pipe.conn.send(args.cursor)\n", []),
        ("Q = 'SELECT content FROM chunks WHERE filepath = $p'\n", ["line 1: SQL"]),
        ("from docs_mcp.indexer.duckdb_store import open_store\nx = 'select the best candidates from the list'\n", []),
    ],
)
def test_the_checker_catches_index_handles(tmp_path, source, caught):
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert sorted(index_handles(path, f"{_SERVER}.libraries.m")) == sorted(caught)


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle of ``edges`` (module -> modules it imports), each from its least module."""
    cycles, path, on_path, done = [], [], set(), set()

    def visit(module: str) -> None:
        path.append(module)
        on_path.add(module)
        for target in sorted(edges.get(module, ())):
            if target in on_path:
                cycle = path[path.index(target) :]
                start = cycle.index(min(cycle))
                cycles.append(cycle[start:] + cycle[:start])
            elif target not in done:
                visit(target)
        on_path.discard(module)
        path.pop()
        done.add(module)

    for module in sorted(edges):
        if module not in done:
            visit(module)
    return sorted(map(list, {tuple(c) for c in cycles}))


def module_imports() -> dict[str, set[str]]:
    """Each of our modules -> our modules it imports; lazy imports inside functions count too (a cycle of concepts
    is one whatever the load order: models/loading.py and models/named.py once imported each other that way)."""
    known = known_modules()
    return {module: {imp.module for imp in imports_of(path, module) if imp.module in known and imp.module != module}
            for _, path, module in source_files()}  # fmt: skip


def test_no_import_cycle():
    # A package's __init__ importing its own modules is how Python loads packages, not a cycle of concepts.
    edges = {m: {t for t in targets if not m.startswith(t + ".")} for m, targets in module_imports().items()}
    assert import_cycles(edges) == []


def sub_package_of(module: str) -> str:
    """The sub-package ``module`` belongs to (``docs_mcp.server.search``), or its area for a module at the area's top."""
    area = layer_of(module) or module
    rest = module[len(area) + 1 :].split(".") if module != area else []
    return f"{area}.{rest[0]}" if len(rest) > 1 or (rest and (package_dirs()[area] / rest[0]).is_dir()) else area


def sub_package_imports() -> dict[str, set[str]]:
    """Each sub-package -> the other sub-packages its modules import; the CLI edges (``commands``), which may import
    the whole area to mount its commands, left out."""
    edges: dict[str, set[str]] = {}
    for module, targets in module_imports().items():
        if module.rsplit(".", 1)[-1] == "commands":
            continue
        source = sub_package_of(module)
        edges.setdefault(source, set()).update(
            t for t in map(sub_package_of, targets) if t != source and not source.startswith(t + ".")
        )
    return edges


def test_no_import_cycle_between_sub_packages():
    """One sub-package depends on another, never both ways: search uses ranking, the tools use the products."""
    assert import_cycles(sub_package_imports()) == []


def test_sub_packages_are_found_from_module_names():
    assert sub_package_of("docs_mcp.server.search.engine") == "docs_mcp.server.search"
    assert sub_package_of("docs_mcp.server.app") == "docs_mcp.server"
    assert sub_package_of("docs_mcp.server.search") == "docs_mcp.server.search"
    assert sub_package_of("docs_mcp.errors") == "docs_mcp"


def test_the_cycle_finder():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def class_homes() -> dict[str, list[str]]:
    """Each class name defined at module level in our packages -> the modules that define it."""
    homes: dict[str, list[str]] = {}
    for _, path, module in source_files():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                homes.setdefault(node.name, []).append(module)
    return homes


def test_one_record_per_concept():
    """A class name means one thing: one Library, one TocEntry, one Mode..., each defined in one module."""
    assert {name: modules for name, modules in class_homes().items() if len(modules) > 1} == {}


TOOLS_PACKAGE = f"{_SERVER}.tools"
TOOL_LIST = f"{TOOLS_PACKAGE}.offered"  # lists the tool modules, in tools/list order
SCHEMA_NAMES = {"SCHEMA", "schema"}  # a fixed input schema, or one made per index (search_docs's taxonomy filters)


def top_level_names(path: Path) -> dict[str, ast.AST]:
    """The names ``path`` defines at module level (functions, classes, assignments)."""
    names: dict[str, ast.AST] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    names[target.id] = node
    return names


def tool_name(path: Path) -> str | None:
    """The tool a module is: its module-level ``NAME = "..."``, None for a module that is no tool."""
    node = top_level_names(path).get("NAME")
    value = getattr(node, "value", None)
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def tool_module_gaps(path: Path) -> list[str]:
    """What a tool module lacks of a tool: its schema, its run, its spec (what the registry serves)."""
    names = top_level_names(path)
    gaps = [] if SCHEMA_NAMES & set(names) else ["a schema"]
    return gaps + [f"def {name}" for name in ("run", "spec") if not isinstance(names.get(name), ast.FunctionDef)]


def listed_tool_modules(path: Path) -> set[str]:
    """The modules of the tools package that the tool list names in its tuples of tool modules."""
    imported = {alias.asname or alias.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.module == TOOLS_PACKAGE for alias in node.names}  # fmt: skip
    listed = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.BinOp)):
            listed |= {name.id for name in ast.walk(node.value) if isinstance(name, ast.Name) and name.id in imported}
    return {f"{TOOLS_PACKAGE}.{name}" for name in listed}


def spec_builders(path: Path) -> list[int]:
    """Lines of ``path`` that make a ToolSpec: a tool's spec is made in its tool module (or the tools' shared mechanics)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "ToolSpec"]  # fmt: skip


def test_a_tool_is_one_module():
    """Every tool the server lists is one module of server/tools/ holding its name, schema, run and spec; no two
    modules name the same tool, and every tool module is listed."""
    files = {module: path for _, path, module in source_files()}
    tools = {
        module: name
        for module, path in files.items()
        if module.startswith(TOOLS_PACKAGE + ".") and (name := tool_name(path))
    }
    assert len(set(tools.values())) == len(tools) > 0
    assert {module: gaps for module in tools if (gaps := tool_module_gaps(files[module]))} == {}
    assert listed_tool_modules(files[TOOL_LIST]) == set(tools)


def test_tool_specs_are_made_only_in_the_tools_package():
    made = {module: lines for module, path in ((m, p) for _, p, m in source_files())
            if not module.startswith(TOOLS_PACKAGE + ".") and (lines := spec_builders(path))}  # fmt: skip
    assert made == {}


def test_the_tool_checkers(tmp_path):
    tool = tmp_path / "tool.py"
    tool.write_text(
        'NAME = "t"\nSCHEMA = {}\ndef run(): ...\ndef spec(context):\n    return ToolSpec(NAME)\n', encoding="utf-8"
    )
    assert (tool_name(tool), tool_module_gaps(tool), spec_builders(tool)) == ("t", [], [5])
    tool.write_text('NAME = "t"\nrun = None\n', encoding="utf-8")
    assert tool_module_gaps(tool) == ["a schema", "def run", "def spec"]
    listing = tmp_path / "offered.py"
    listing.write_text(f"from {TOOLS_PACKAGE} import a, b, c\nX = (a, b)\nY = X + (c,)\nZ = 1\n", encoding="utf-8")
    assert listed_tool_modules(listing) == {f"{TOOLS_PACKAGE}.{m}" for m in "abc"}
    assert tool_name(listing) is None


ENVIRONMENT_MODULE = "docs_mcp/environment.py"


def environment_reads(path: Path) -> list[int]:
    """Lines of ``path`` that touch the process environment directly (os.environ, os.getenv, os.putenv)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "putenv", "unsetenv")
            and isinstance(node.value, ast.Name) and node.value.id == "os"]  # fmt: skip


def test_settings_are_read_from_the_environment_in_one_module():
    readers = {_rel(path) for _, path, _ in source_files() if environment_reads(path)}
    assert readers == {ENVIRONMENT_MODULE}


@pytest.mark.parametrize(("line", "reads"), [("os.environ.get('X')", True), ("os.getenv('X')", True), ("environ.get('X')", False),
                                             ("variable('X')", False)])  # fmt: skip
def test_the_environment_detector(tmp_path, line, reads):
    path = tmp_path / "m.py"
    path.write_text(f"import os\ndef f(environ):\n    return {line}\n", encoding="utf-8")
    assert bool(environment_reads(path)) is reads


def test_the_root_reaches_the_areas_only_in_mount():
    mounted = {
        imp.module for package, imp in all_imports() if package == ROOT and layer_of(imp.module) not in (None, ROOT)
    }
    assert mounted == {"docs_mcp.indexer.commands", "docs_mcp.server.commands", "docs_mcp.eval.commands"}


def folder_imports(paths: list[Path]) -> list[str]:
    """The imports in ``paths`` that name a source folder (``server``...) as a top-level package."""
    # Relative imports resolve under the dummy package, so only absolute names can hit the folders.
    imports = [imp for path in paths for imp in imports_of(path, "_anywhere.module")]
    return [str(imp) for imp in imports if imp.module.split(".")[0] in FOLDER_NAMES]


def test_source_folders_are_never_imported_as_top_level_packages():
    folders = ("docs_mcp", "indexer", "server", "eval", "tests", "scripts")
    assert folder_imports([path for folder in folders for path in sorted((REPO / folder).rglob("*.py"))]) == []


# -- the checker itself: each rule fails on a known bad case -----------------------------------


def _imports_from_text(tmp_path: Path, name: str, text: str, module: str) -> list[Import]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return imports_of(path, module)


def test_the_checker_catches_upward_and_lazy_imports(tmp_path):
    source = (
        "from docs_mcp.errors import DocsMcpError\n"
        "from docs_mcp import __version__\n"
        "from docs_mcp.server.search.records import Hit\n"
        "def f():\n"
        "    import docs_mcp.eval.metrics\n"
        "    from . import build\n"
        "    from ..cli import app\n"
        "    from docs_mcp import cli\n"
    )
    imports = _imports_from_text(tmp_path, "m.py", source, "docs_mcp.indexer.m")
    assert [imp.module for imp in upward_imports("docs_mcp.indexer", imports)] == [
        "docs_mcp.server.search.records",
        "docs_mcp.eval.metrics",
        "docs_mcp.cli",
        "docs_mcp.cli",
    ]


@pytest.mark.parametrize(
    ("module", "source", "caught"),
    [
        ("docs_mcp.server.search.engine", "import mcp_types\n", ["mcp_types"]),
        (
            "docs_mcp.server.ranking.features",
            "from docs_mcp.server.search.lexical import tokenize\n",
            ["docs_mcp.server.search.lexical"],
        ),
        ("docs_mcp.server.search.engine", "from mcp.server.lowlevel import Server\n", ["mcp.server.lowlevel"]),
        (
            "docs_mcp.server.search.engine",
            "from docs_mcp.server.contract.cursor import CursorCodec\n",
            ["docs_mcp.server.contract.cursor"],
        ),
        (
            "docs_mcp.server.contract.tools",
            "def f():\n    from docs_mcp.server.team.keys import KeyStore\n",
            ["docs_mcp.server.team.keys"],
        ),
        (
            "docs_mcp.server.contract.tools",
            "from docs_mcp.server.libraries.served_libraries import Library\n",
            ["docs_mcp.server.libraries.served_libraries"],
        ),
        (
            "docs_mcp.server.contract.tools",
            "from docs_mcp.indexer.sources.service import SourceService\n",
            ["docs_mcp.indexer.sources.service"],
        ),
        (
            "docs_mcp.server.search.engine",
            "import docs_mcp.indexer.sources.web.fetch\n",
            ["docs_mcp.indexer.sources.web.fetch"],
        ),
        ("docs_mcp.server.libraries.tools", "from docs_mcp.server.app import build_server\n", ["docs_mcp.server.app"]),
        ("docs_mcp.server.app", "from docs_mcp.server.team.auth import OriginGuard\n", ["docs_mcp.server.team.auth"]),
        ("docs_mcp.server.stdio_guard", "from docs_mcp.server.app import build_server\n", ["docs_mcp.server.app"]),
        ("docs_mcp.server.sessions", "import mcp_types\n", ["mcp_types"]),
        ("docs_mcp.server.setup.plan", "from docs_mcp.server.app import build_server\n", ["docs_mcp.server.app"]),
        (
            "docs_mcp.server.sessions",
            "from docs_mcp.server.team.auth import API_KEY_SCOPE\n",
            ["docs_mcp.server.team.auth"],
        ),
        (
            "docs_mcp.indexer.corpus.chunking",
            "from docs_mcp.indexer.libraries.spec import LibrarySpec\n",
            ["docs_mcp.indexer.libraries.spec"],
        ),
        (
            "docs_mcp.indexer.libraries.ops",
            "from docs_mcp.indexer.build import build_index\n",
            ["docs_mcp.indexer.build"],
        ),
        (
            "docs_mcp.server.gateway.gateway_service",
            "from docs_mcp.server.team.keys import ApiKey\n",
            ["docs_mcp.server.team.keys"],
        ),
        ("docs_mcp.server.gateway.handlers", "from docs_mcp.server.app import AppState\n", ["docs_mcp.server.app"]),
        (
            "docs_mcp.server.gateway.describe",
            "from docs_mcp.server.contract.render import render_hit\n",
            ["docs_mcp.server.contract.render"],
        ),
        (
            "docs_mcp.server.gateway.discovery",
            "from docs_mcp.server.libraries.fastpath import answer\n",
            ["docs_mcp.server.libraries.fastpath"],
        ),
        (
            "docs_mcp.server.search.engine",
            "from docs_mcp.server.gateway.records import ToolEntry\n",
            ["docs_mcp.server.gateway.records"],
        ),
        (
            "docs_mcp.server.contract.tools",
            "def f():\n    from docs_mcp.server.gateway import Gateway\n",
            ["docs_mcp.server.gateway"],
        ),
        (
            "docs_mcp.indexer.generation",
            "from docs_mcp.indexer.sources.web.page_cache import PageCache\n",
            ["docs_mcp.indexer.sources.web.page_cache"],
        ),
        (
            "docs_mcp.indexer.build_plan",
            "def f():\n    from docs_mcp.indexer.sources import ingest\n",
            ["docs_mcp.indexer.sources.ingest"],
        ),
        (
            "docs_mcp.indexer.build",
            "from docs_mcp.indexer.sources.service import SourceService\n",
            ["docs_mcp.indexer.sources.service"],
        ),
        (
            "docs_mcp.indexer.sources.ingest",
            "from docs_mcp.indexer.commands import index\n",
            ["docs_mcp.indexer.commands"],
        ),
        (
            "docs_mcp.indexer.build",
            "from docs_mcp.indexer.sources.folder import FolderSource\n",
            ["docs_mcp.indexer.sources.folder"],
        ),
        (
            "docs_mcp.indexer.sources.service",
            "from docs_mcp.indexer.commands import index\n",
            ["docs_mcp.indexer.commands"],
        ),
        (
            "docs_mcp.server.fleet.replica",
            "from docs_mcp.server.team.keys import KeyReader\n",
            ["docs_mcp.server.team.keys"],
        ),
        (
            "docs_mcp.server.contract.tools",
            "from docs_mcp.server.fleet.replica import ReplicaAgent\n",
            ["docs_mcp.server.fleet.replica"],
        ),
        (
            "docs_mcp.indexer.generation",
            "from docs_mcp.indexer.fleet.storage import DirectoryStorage\n",
            ["docs_mcp.indexer.fleet.storage"],
        ),
        (
            "docs_mcp.indexer.fleet.publish",
            "from docs_mcp.indexer.build import build_index\n",
            ["docs_mcp.indexer.build"],
        ),
        # allowed: the reverse directions, and the edges
        ("docs_mcp.server.team.http_transport", "from docs_mcp.server.app import build_server\n", []),
        ("docs_mcp.server.libraries.tools", "from docs_mcp.server.core.live_index import ServedIndex\n", []),
        ("docs_mcp.server.core.live_index", "from docs_mcp.server.search.engine import Engine\n", []),
        (
            "docs_mcp.server.core.live_index",
            "from docs_mcp.server.contract.cursor import CursorCodec\n",
            ["docs_mcp.server.contract.cursor"],
        ),
        (
            "docs_mcp.server.core.tool_registry",
            "from docs_mcp.server.libraries.tools import catalog_of\n",
            ["docs_mcp.server.libraries.tools"],
        ),
        (
            "docs_mcp.server.core.tool_errors",
            "def f():\n    from docs_mcp.server.gateway.errors import NoToolError\n",
            ["docs_mcp.server.gateway.errors"],
        ),
        ("docs_mcp.server.gateway.handlers", "from docs_mcp.server.core.tool_registry import ToolSpec\n", []),
        (
            "docs_mcp.server.gateway.gateway_service",
            "from docs_mcp.server.tools import tool_discovery\n",
            ["docs_mcp.server.tools.tool_discovery"],
        ),
        ("docs_mcp.server.tools.get_docs", "from docs_mcp.server.libraries.fastpath import pack\n", []),
        ("docs_mcp.indexer.build", "from docs_mcp.indexer.build_plan import plan_build\n", []),
        ("docs_mcp.indexer.sources.ingest", "from docs_mcp.indexer.build_plan import plan_build\n", []),
        ("docs_mcp.indexer.sources.ingest", "from docs_mcp.indexer.build import write_source\n", []),
        ("docs_mcp.server.libraries.remote", "from docs_mcp.indexer.sources.service import SourceService\n", []),
        ("docs_mcp.indexer.commands", "from docs_mcp.indexer.sources.commands import register_sources\n", []),
        ("docs_mcp.server.commands", "from docs_mcp.server.team.commands import register\n", []),
        ("docs_mcp.server.gateway.catalog_index", "from docs_mcp.server.search.engine import Engine\n", []),
        ("docs_mcp.server.gateway.arguments", "from docs_mcp.server.contract.arguments import integer\n", []),
        ("docs_mcp.server.gateway.errors", "from docs_mcp.server.core.tool_errors import ToolError\n", []),
        ("docs_mcp.server.gateway.commands", "from docs_mcp.server.team.server_settings import CONFIG_FILE\n", []),
        ("docs_mcp.server.team.auth", "from docs_mcp.server.gateway import Caller\n", []),
        ("docs_mcp.server.app", "from docs_mcp.server.gateway import Gateway\n", []),
        ("docs_mcp.server.app", "from docs_mcp.server.stdio_guard import guarded_stdio\n", []),
        ("docs_mcp.server.team.auth", "from docs_mcp.server.sessions import SESSION_SCOPE\n", []),
        ("docs_mcp.server.team.fleet_mode", "from docs_mcp.server.fleet.replica import ReplicaAgent\n", []),
        ("docs_mcp.server.fleet.replica", "from docs_mcp.server.core.live_index import LiveIndex\n", []),
    ],
)
def test_the_checker_catches_cross_product_imports(tmp_path, module, source, caught):
    imports = _imports_from_text(tmp_path, "m.py", source, module)
    assert [imp.module for imp in cross_product_imports(module, imports)] == caught


def test_the_checker_catches_folders_imported_as_packages(tmp_path):
    path = tmp_path / "m.py"
    path.write_text(
        "import server.app\nfrom eval import metrics\nimport evaluate\nfrom docs_mcp import eval\n", encoding="utf-8"
    )
    assert [line.split(" imports ")[1] for line in folder_imports([path])] == ["server.app", "eval"]


def test_the_checker_allows_the_mount_only_in_cli(tmp_path):
    source = "from docs_mcp import errors\ndef _mount():\n    from docs_mcp.server.commands import register\n"
    assert upward_imports(ROOT, _imports_from_text(tmp_path, "cli.py", source, "docs_mcp.cli")) == []
    assert len(upward_imports(ROOT, _imports_from_text(tmp_path, "other.py", source, "docs_mcp.other"))) == 1


# -- stdout ------------------------------------------------------------------------------------


def stdout_writes(path: Path) -> list[tuple[str, int]]:
    """(enclosing top-level function, line) of each write to stdout in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(function, node.lineno) for function, node in _walk_with_function(tree) if _writes_stdout(node)]


def _writes_stdout(node: ast.AST) -> bool:
    if isinstance(node, ast.Attribute):
        # sys.stdout / sys.__stdout__ in any use: .write, a StreamHandler, basicConfig(stream=...).
        return node.attr in ("stdout", "__stdout__") and isinstance(node.value, ast.Name) and node.value.id == "sys"
    if not isinstance(node, ast.Call):
        return False
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    keywords = {kw.arg: kw.value for kw in node.keywords}
    if name == "print":
        return "file" not in keywords
    if name in ("echo", "secho"):  # typer / click
        return not _is_true(keywords.get("err"))
    if name == "Console":  # rich
        return not _is_true(keywords.get("stderr")) and "file" not in keywords
    return False


def _is_true(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def test_nothing_in_server_writes_to_stdout_but_the_listed_cli_commands():
    server = package_dirs()["docs_mcp.server"]
    writers = {(_rel(path), function) for path in server.rglob("*.py") for function, _ in stdout_writes(path)}
    assert writers == STDOUT_PRINTERS


@pytest.mark.parametrize(
    ("line", "writes"),
    [
        ("print('x')", True),
        ("print('x', file=sys.stderr)", False),
        ("sys.stdout.write('x')", True),
        ("logging.basicConfig(stream=sys.stdout)", True),
        ("typer.echo('x')", True),
        ("typer.echo('x', err=True)", False),
        ("Console()", True),
        ("Console(stderr=True)", False),
        ("logger.info('x')", False),
    ],
)
def test_the_stdout_detector(tmp_path, line, writes):
    path = tmp_path / "m.py"
    path.write_text(f"import sys\ndef f():\n    {line}\n", encoding="utf-8")
    assert bool(stdout_writes(path)) is writes


# -- source kinds: one module each, one table ------------------------------------------------------------------------

_ORIGIN_NAMES = {"SITE", "GITHUB", "LLMS_TXT", "PYPI", "NPM"}


def _kind_table() -> dict[str, str]:
    """indexer/sources/kinds.py's KIND_MODULES, read from its source (origin -> module)."""
    tree = ast.parse((package_dirs()["docs_mcp.indexer"] / "sources" / "kinds.py").read_text(encoding="utf-8"))
    table = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KIND_MODULES" for t in node.targets)
    )
    return ast.literal_eval(table)


def _defines_kind(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "KIND" for t in node.targets) for node in tree.body
    )


def test_every_source_kind_is_one_module_of_sources_listed_in_the_one_table():
    """A kind module exports KIND (a SourceKind), its origins are the table's rows for it, and only kinds define KIND."""
    from docs_mcp.indexer.sources.kinds import SourceKind, kind_of

    table = _kind_table()
    sources = package_dirs()["docs_mcp.indexer"] / "sources"
    defining = {path.stem for path in sources.rglob("*.py") if _defines_kind(path)}
    assert defining == set(table.values()) == KIND_MODULES
    assert all(not (sources / module).is_dir() for module in KIND_MODULES)  # at the top of sources/, by name
    for origin, module in table.items():
        kind = kind_of(origin)
        assert isinstance(kind, SourceKind), origin
        assert kind.__class__.__module__ == "docs_mcp.indexer.sources.kinds"
        assert origin in kind.origins
        assert {o for o, m in table.items() if m == module} == set(kind.origins), module
        assert callable(kind.add), module
        assert all(callable(getattr(kind.source, m, None)) for m in ("documents", "catalog_entry")), module  # a Source
    assert kind_of("no-such-origin") is None


def _names_origin(node: ast.expr) -> bool:
    """``x.origin``, ``x.get("origin")`` or ``x["origin"]``: a catalog entry's or a library's origin."""
    if isinstance(node, ast.Attribute):
        return node.attr == "origin"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value == "origin"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "origin"
    return False


def _names_a_kind(node: ast.expr, origins: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _ORIGIN_NAMES
    if isinstance(node, ast.Constant):
        return node.value in origins
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_kind(element, origins) for element in node.elts)
    return False


def origin_dispatches(path: Path, origins: set[str]) -> list[int]:
    """Lines of ``path`` that compare an origin with a kind's name (``if entry.get("origin") == SITE``...)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_names_origin(o) for o in operands) and any(_names_a_kind(o, origins) for o in operands):
                lines.append(node.lineno)
    return sorted(lines)


def test_nothing_outside_the_kinds_dispatches_on_a_kind_name():
    """Callers ask the table (kind_of(origin).refresh, .pages_have_urls...); only a kind's module names its origin."""
    origins = {origin for origin in _kind_table() if origin}
    kinds = {f"docs_mcp.indexer.sources.{m}" for m in (*KIND_MODULES, "kinds")}
    found = [
        f"{path.relative_to(REPO)}:{line}"
        for _, path, module in source_files()
        if module not in kinds
        for line in origin_dispatches(path, origins)
    ]
    assert found == []


def test_the_dispatch_check_catches_an_if_chain_on_origins(tmp_path):
    chain = tmp_path / "chain.py"
    chain.write_text(
        'if entry.get("origin") == SITE:\n    pass\nelif library.origin in ("github", "npm"):\n    pass\n'
        'if record["origin"] != "pypi":\n    pass\nif facts["origin"] == PACKAGED:\n    pass\n',
        encoding="utf-8",
    )
    assert origin_dispatches(chain, {"site", "github", "pypi", "npm"}) == [1, 3, 5]


# -- documentation formats: one table ---------------------------------------------------------------------------------


def suffix_chains(path: Path) -> list[int]:
    """Lines of ``path`` that compare with a file suffix (``if suffix in (".rst", ".rest")``...): a format chosen by hand."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            constants = [
                c
                for o in [node.left, *node.comparators]
                for c in (o.elts if isinstance(o, (ast.Tuple, ast.List, ast.Set)) else [o])
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            ]
            if any(re.fullmatch(r"\.[a-z]{2,8}", c.value) for c in constants):
                lines.append(node.lineno)
    return sorted(lines)


def test_each_converted_format_is_one_row_of_the_table_and_one_reader_module():
    """indexer/corpus/formats/__init__.py's CONVERTERS: suffix -> reader module exporting read_page; no if-chain."""
    from docs_mcp.indexer.corpus import formats

    folder = package_dirs()["docs_mcp.indexer"] / "corpus" / "formats"
    for suffix, converter in formats.CONVERTERS.items():
        assert re.fullmatch(r"\.[a-z]+", suffix)
        assert (folder / f"{converter.module}.py").is_file(), suffix
        reader = __import__(f"docs_mcp.indexer.corpus.formats.{converter.module}", fromlist=["read_page"])
        assert callable(reader.read_page), converter.module
    assert set(formats.PAGE_SUFFIXES) == {*formats.MARKDOWN_SUFFIXES, *formats.CONVERTERS}
    assert suffix_chains(folder / "__init__.py") == []


def test_the_suffix_check_catches_an_if_chain(tmp_path):
    chain = tmp_path / "chain.py"
    chain.write_text(
        'if suffix in (".rst", ".rest"):\n    pass\nif name == "README":\n    pass\nif s == ".ipynb":\n    pass\n'
    )
    assert suffix_chains(chain) == [1, 5]


def test_the_guide_s_concept_to_module_map_names_files_that_exist():
    """corpus/guide/architecture.md is how a reader finds a concept's module: a moved module must move there too."""
    guide = (REPO / "corpus" / "guide" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:indexer|server|eval|docs_mcp)/[\w/]+\.py)`", guide))
    assert len(named) > 50
    assert sorted(path for path in named if not (REPO / path).is_file()) == []
    # Issue 38's fourteen places a newcomer looks for first, each in the guide's "Where to start reading".
    fourteen = (
        "indexer/corpus/chunk_ids.py",  # slugging
        "indexer/serving/bm25f.py",  # BM25 scoring
        "server/contract/cursor.py",
        "server/search/zero_result_hints.py",
        "indexer/corpus/formats/__init__.py",  # a new format
        "indexer/sources/kinds.py",  # a new source
        "indexer/sources/llms_txt_fetch.py",
        "indexer/sources/web/robots.py",
        "server/team/auth.py",  # the API-key check
        "indexer/fleet/generations.py",  # the fleet's flip
        "server/tools/search_docs.py",  # search_docs' schema
        "eval/metrics.py",  # NDCG
        "indexer/models/loading.py",
        "server/setup/config_writer.py",  # setup claude's writer
    )
    assert sorted(set(fourteen) - named) == []
