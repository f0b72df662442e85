"""A small, generic Python AST toolkit: parsing live functions, code templates, unique names, static
analysis (bound/read names, liveness, possibly-defined names) and loading transformed code back."""
