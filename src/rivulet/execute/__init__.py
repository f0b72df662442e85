"""Executors: codegen (graph -> straight-line Python, the fast path), interpreter (the reference), replay."""
