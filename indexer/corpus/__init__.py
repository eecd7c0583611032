"""Reading a docs folder into chunks (scan.py): discovery, file rules, manifests, front matter, formats, chunking, taxonomy.

The pure half of indexing: nothing here writes an index.
"""
