"""What the server tells an agent about when to reach for it: the MCP ``instructions``, and the agent rule and skill
`docs-mcp setup` writes into a project, all built from the index (its libraries and description).

Agents call a documentation server when its instructions say *when* to (before writing code that
uses the library, when unsure of an API), not only how; clients may keep only the start of the
instructions, so the first ``LEAD_CHARS`` characters carry the when, the first tool and how to read
a hit, and the rest adds the browsing tools.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.indexer.corpus.readable_name import GENERIC_FOLDERS, library_name
from docs_mcp.indexer.libraries.catalog_entry import CatalogEntry

LEAD_CHARS = 500
MAX_DESCRIPTION_CHARS = 160
MAX_NAMED_LIBRARIES = 4
SEARCH_FIRST = "search_docs_expanded"
_DOUBLED = re.compile(r"\b(documentation|docs)(\s+documentation)+\b", re.IGNORECASE)


@dataclass(frozen=True)
class IndexSummary:
    """What an index holds, in a few words: its library names and its description."""

    names: tuple[str, ...]
    description: str

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> IndexSummary:
        description = " ".join(str(metadata.get("corpus_description") or "").split()).rstrip(".")
        description = _DOUBLED.sub(
            r"\1", description
        )  # an index built before readable_name: "X documentation documentation"
        names = []
        for library_id, stored in (metadata.get("libraries") or {}).items():
            entry = CatalogEntry.read(library_id, stored or {})
            # "Python 3.11.2", not "Python 3.11.2 documentation": the name is said as a library's ("code that uses ...").
            name = library_name(entry.name or library_id)
            # An implicit library is named after its folder ("corpus"): a name only if the description uses it, and
            # never a folder that names no library ("docs", "html": an index built before readable_name).
            if not entry.implicit or (name.lower() in description.lower() and name.lower() not in GENERIC_FOLDERS):
                names.append(name)
        return cls(tuple(dict.fromkeys(names)), description)

    @property
    def code(self) -> str:
        """'code that uses fastapi', 'code that uses fastapi, httpx and 2 more', or 'code these docs cover'."""
        if not self.names:
            return "code these docs cover"
        shown = list(self.names[:MAX_NAMED_LIBRARIES])
        rest = len(self.names) - len(shown)
        if rest:
            return f"code that uses {', '.join(shown)} and {rest} more"
        return "code that uses " + (shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}")

    @property
    def holdings(self) -> str:
        """'the fastapi documentation': what the server holds, the description cut at a word near MAX_DESCRIPTION_CHARS."""
        return self.shortened(MAX_DESCRIPTION_CHARS)

    def shortened(self, limit: int) -> str:
        """``holdings`` with the description cut at a word before ``limit`` characters."""
        text = self.description or (
            "documentation of " + ", ".join(self.names) if self.names else "indexed documentation"
        )
        if len(text) > limit:
            text = text[: max(text.rfind(" ", 0, limit), 1)].rstrip(",;:( ") + "…"
        return text if text.lower().startswith(("the ", "a ", "an ")) else f"the {text}"


def server_instructions(summary: IndexSummary, *, gateway: bool = False) -> str:
    """The MCP ``instructions``: when to search, which tool first and how to read a hit (within LEAD_CHARS), then the rest."""
    lead = _lead(summary, summary.holdings)
    cut = MAX_DESCRIPTION_CHARS
    while len(lead) > LEAD_CHARS and cut > 20:  # a long description gives way: the when and the how must fit
        cut -= 20
        lead = _lead(summary, summary.shortened(cut))
    rest = (
        " Hits carry the best passage and the chunk's token count (structured content): get_doc only what you need, "
        "with context 1-5 for the sections around it. To browse a library: resolve_library, get_library_info, then "
        "read_page; for one packed answer within a token budget: get_docs. Cite the chunk_id you used."
    )
    gateway_part = (
        " Tools of other MCP servers: tool_discovery with what the tool should do, describe_tool for its schema, "
        "then tool_execute with its tool_key and arguments."
    )
    return lead + rest + (gateway_part if gateway else "")


def _lead(summary: IndexSummary, holdings: str) -> str:
    return (
        f"This server holds {holdings}. Search it before writing or changing {summary.code}, and whenever unsure "
        "of an API, option, error or behaviour: it is this project's documentation, trust it over memory. "
        f"First call {SEARCH_FIRST} (your question, keywords, a one-sentence guess of the answer in the docs' words); "
        "search_docs for an exact name. A hit's snippet shows where it matched: read the section with get_doc(chunk_id)."
    )


@dataclass(frozen=True)
class CommandLine:
    """How an agent without MCP runs the search and the reader from its shell."""

    search: str  # e.g. "docs-mcp search --index .docs-mcp"
    get: str


def agent_rule(summary: IndexSummary, *, server: str, cli: CommandLine, project: bool = True) -> str:
    """The rule `docs-mcp setup` writes where the client reads rules (markdown, inside our block): a project's, or yours."""
    whose = "This project's documentation is" if project else "Documentation is"
    return f"""## Documentation lookup ({server})

{whose} indexed locally: {summary.holdings}. The `{server}` MCP server searches it.

- Search it before you write or change {summary.code}, and whenever you are unsure of an API,
  parameter, option, error message or behaviour. It is the documentation this project uses, so trust it over memory.
- Call `{SEARCH_FIRST}` first: your question, a few `keywords` the docs would contain (API, option and error names),
  and a one-sentence `hypothetical_answer` in the docs' own words. Use `search_docs` when you know the exact name.
- Read a hit with `get_doc` (its `chunk_id`; `context: 1` adds the sections around it), and cite the chunk_id.
- No MCP tools in this session? Use the command line: `{cli.search} --json "QUERY"`, then `{cli.get} CHUNK_ID`.
"""


def skill(summary: IndexSummary, *, name: str, cli: CommandLine) -> tuple[str, str]:
    """A Claude Code skill that searches through the command line: (frontmatter description, body)."""
    description = (
        f"Search and read {summary.holdings} from the command line. Use before writing or changing "
        f"{summary.code}, or when unsure of an API, option or error, if the {name} MCP tools are not available."
    )
    body = f"""# Search the project's documentation ({name})

The documentation is indexed locally and searched from the shell. Use it before you write
{summary.code}, and whenever you are unsure of an API, option, error or behaviour.

1. Search with the words the documentation would use (API, option and error names), in JSON:

   ```bash
   {cli.search} --json "QUERY"
   ```

   Add `--keywords "..."` (names the docs would contain) and `--hypothetical-answer "..."` (one sentence in the
   docs' own words) when you ask in your own words; `--filter KEY=VALUE` narrows to a taxonomy value.
   Each hit has a `chunk_id`, `heading`, `breadcrumb` and `snippet`.

2. Read the best hits in full:

   ```bash
   {cli.get} CHUNK_ID --context 1
   ```

3. Answer from what you read and cite the `chunk_id`. If nothing fits, say so rather than guess.
"""
    return description, body
