"""The serving arrays: what a search reads per query, written at build time and memory-mapped by the server (arrays.py)."""
