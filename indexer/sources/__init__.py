"""Sources: where a library's documents come from. Each kind of source is one module here, exporting a
``SourceKind`` listed in the one table of ``kinds.py``: a docs folder (``folder``), an llms.txt library
(``llms_txt``), a crawled website (``site``), a GitHub repository (``github``) and a package release
(``package``, whose registries' plumbing is ``packages/``). Context7-compatible APIs are answered remotely.

Every source that is indexed is a ``Source`` (indexer/build.py) and ends in the same
plan-then-write build, ``build.write_source``: the one writer. The web plumbing every kind shares is
``web/``: fetching (SSRF-safe, with size and time limits, retries and conditional GETs), robots.txt,
sitemaps and links, the crawler, the page cache (memory LRU over SQLite, TTL per library,
stale-while-revalidate) and HTML to markdown. Beside the kinds: llms.txt parsing (``llms_txt_parse``),
the library registry (bundled curated list plus the user's custom-libraries.json) and the incremental
add of fetched pages to an index through the same chunker and writer as local folders (``ingest``).
The server reaches them only through :class:`~docs_mcp.indexer.sources.service.SourceService` and the
kinds' table. It may import the whole indexer; nothing of the indexer imports it but its CLI edge.
"""
