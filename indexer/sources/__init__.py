"""Sources: where a library's documents come from on the web. An llms.txt library (``ingest``,
through ``service``), a crawled site, a GitHub repository, and Context7-compatible APIs (answered
remotely); a local docs folder is indexer/folder_source.py, beside the writer.

Every source that is indexed is a ``Source`` (indexer/build.py) and ends in the same
plan-then-write build, ``build.write_source``: the one writer. Owns fetching (SSRF-safe, with size and time limits, retries and conditional GETs), the
page cache (memory LRU over SQLite, TTL per library, stale-while-revalidate), HTML to
markdown conversion, llms.txt parsing, the library registry (bundled curated list plus the
user's custom-libraries.json) and the incremental add of fetched pages to an index through
the same chunker and writer as local folders. The server reaches it only through
:class:`~docs_mcp.indexer.sources.service.SourceService`. It may import the whole indexer;
nothing of the indexer imports it but its CLI edge.
"""
