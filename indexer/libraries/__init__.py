"""Libraries: named documentation sets that share one index, each mounted under its own ID.

Owns the library spec (``--library org/project``), listing and removing a library (the plan that
keeps the others is indexer/build_plan.py, beside the writer), reading an index's libraries back, the catalog
written into metadata.json (tables of contents, prompt templates, resource marks) and the
``docs-mcp libraries`` commands. It may import the indexer core (records, corpus, manifest,
index_file, generation, ...); of the core, only ``build`` and its planner ``build_plan`` import it.
"""
