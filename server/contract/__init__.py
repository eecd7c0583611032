"""The MCP contract of seed 003: the ``search_docs`` and ``get_doc`` tools, exactly as specified.

Owns their schemas (with the taxonomy injected), argument checks, cursors, the delimiter
grammar of the rendered text, reading stored chunks for ``get_doc``, and the live index that
follows the indexer's generation swaps. It may import the search engine, the indexer's read
side and ``docs_mcp.server.errors``; never libraries, team mode or the server factory.
"""
