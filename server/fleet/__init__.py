"""A replica of a fleet: it serves a verified local copy of the live generation and follows the registry.

``replica.ReplicaAgent`` pulls each staged generation from shared storage to the replica's own
disk, verifies it, warms it beside the live one and reports it in its heartbeat; when the
registry's live pointer flips (server/team wires it into `serve --transport http` when
``fleet.database_url`` is set) it swaps with no wait. ``commands`` holds `docs-mcp publish`
and `docs-mcp fleet status`.
"""
