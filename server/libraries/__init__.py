"""What the library tools (corpus/guide/libraries.md) share (the tools themselves are server/tools/), plus resources and prompts.

Owns the library catalog an index serves and what the tools' answers share (``answers``), fuzzy
name resolution, page reading, the token-budgeted ``get_docs`` packing with its confidence
estimate, the remote sources, the MCP resources and prompts, and the
``{code, message, recoverable, suggestion}`` error shape. It may import the
search engine, the contract (argument checks, the live index) and the indexer's read side;
never team mode or the server factory.
"""
