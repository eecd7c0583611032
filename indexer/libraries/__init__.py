"""Libraries: named documentation sets that share one index, each mounted under its own ID.

Owns the library spec (``--library org/project``), planning a build that adds, replaces or
removes one library while keeping the others, reading an index's libraries back, the catalog
written into metadata.json (tables of contents, prompt templates, resource marks) and the
``docs-mcp libraries`` commands. It may import the indexer core (records, corpus, manifest,
index_file, generation, ...); of the core, only ``build`` imports it.
"""
