"""Package registries: the documentation of a project's dependencies, at the versions it uses.

Reads the PyPI JSON API and the npm registry (``registry_client``: bounded, SSRF-safe, cached
with a TTL), unpacks a release's sdist or tarball safely (``archive``), turns a release into a
``Source`` that ends in the one writer (``source``), reads a project's manifests and lock files
(``project``, ``python_project``, ``node_project``) and keeps the index in step with them
(``sync``). It may use the indexer core, ``indexer.libraries``, ``build`` and ``indexer.sources``
(the fetcher, the site and repository sources); nothing of those imports it.
"""
