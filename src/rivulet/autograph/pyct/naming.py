"""Unique names for the code a conversion generates, avoiding every name the user's function uses."""
import ast


class Namer:
    def __init__(self, node):
        self.taken = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        self.taken |= {n.arg for n in ast.walk(node) if isinstance(n, ast.arg)}
        self.taken |= {n.name for n in ast.walk(node) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        self.helpers = set()  # generated functions (if_body, get_state ...): never loop or branch variables

    def new(self, base, helper=False):
        """base, base_1, base_2 ...: the first not yet used."""
        candidate, i = base, 0
        while candidate in self.taken:
            i += 1
            candidate = f"{base}_{i}"
        self.taken.add(candidate)
        if helper:
            self.helpers.add(candidate)
        return candidate
