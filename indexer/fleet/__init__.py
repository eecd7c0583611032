"""A fleet of replicas on many machines: generations distributed as verified copies, coordinated in PostgreSQL.

- ``manifest``: the checksum manifest of a generation folder (every file's size and sha256).
- ``storage``: shared storage a builder publishes to and replicas pull from (a directory today).
- ``control``: the PostgreSQL control plane: its schema, the generations registry (staged, live,
  retired), replica heartbeats, the fleet-wide build lock and the two-phase flip.
"""
