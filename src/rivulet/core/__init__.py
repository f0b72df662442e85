"""The engine's core: op records, the context stack with bind(), and tensors."""
