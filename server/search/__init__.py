"""The search engine: lexical (BM25F) and vector signals, taxonomy filters, fusion, collapse, snippets, hints.

Owns ranking over one index generation and nothing else: it knows nothing of MCP, tools,
cursors or libraries, so the same engine serves ``search_docs``, ``get_docs``, ``docs-mcp
search`` and the benchmarks. It may import the indexer's read side (records, schema,
index_file, embedding) and ``docs_mcp.server.errors``; never ``mcp``, the contract,
libraries or team mode.
"""
