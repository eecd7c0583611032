"""The search engine: lexical (BM25F) and vector signals, taxonomy filters, fusion, top-k, collapse, snippets, hints.

Owns ranking over one index generation and nothing else: it knows nothing of MCP, tools,
cursors or libraries, so the same engine serves ``search_docs``, ``get_docs``, ``docs-mcp
search`` and the benchmarks. It reads the generation's memory-mapped serving arrays and,
per page, its DuckDB file (one cursor per thread: ``connections``); what it remembers
between queries goes through the one bounded cache policy in ``lru_cache``. ``pool`` runs searches
in worker processes (``worker_process`` is their side) that open the generation each request names. It may import the
indexer's read side (records, schema, index_file, serving/, models/) and
``docs_mcp.server.errors``; never ``mcp``, the contract, libraries or team mode.
"""
