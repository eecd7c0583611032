"""The MCP contract (corpus/guide/search-docs.md, get-doc.md): what ``search_docs``, ``get_doc`` and ``search_docs_expanded`` share.

The tools themselves (schemas with the taxonomy injected, argument checks, runs) are server/tools/;
this package owns their cursors, the delimiter grammar of the rendered text and the sizing of an
answer for a context window. It may import the search engine, the indexer's read
side and ``docs_mcp.server.errors``; never libraries, team mode or the server factory.
"""
