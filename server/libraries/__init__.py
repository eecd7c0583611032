"""Library tools after seed 001: resolve_library, get_library_info, read_page, get_docs, plus resources and prompts.

Owns the library catalog an index serves, fuzzy name resolution, page reading, the
token-budgeted ``get_docs`` fast path with its confidence estimate, the MCP resources and
prompts, and the ``{code, message, recoverable, suggestion}`` error shape. It may import the
search engine, the contract (argument checks, the live index) and the indexer's read side;
never team mode or the server factory.
"""
