"""The floor plan (docs/DESIGN.md) kept by a test: every import in src/rivulet, inside functions too, points down the
layers; subsystems share only through a lower layer; only clients and the face import the public facade.

ALLOWED lists the upward imports that exist today. It only shrinks: an entry whose import is gone fails the test
too, so whoever removes a reach-up also removes its entry."""
import ast
import collections
import os

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")

# bottom to top; a module's layer is that of its first name below rivulet (a folder or a top-level module)
LAYERS = [
    ("base", {"dtypes", "errors", "nest", "shape", "log", "version"}),
    ("formats", {"formats"}),
    ("core", {"core", "devices", "config_devices"}),
    ("graph", {"graph"}),
    ("state", {"state"}),
    ("execute", {"execute"}),
    ("ops", {"ops", "init_ops"}),
    ("optimize", {"optimize"}),
    ("autodiff", {"autodiff"}),
    ("function", {"function"}),
    ("autograph", {"autograph"}),
    ("subsystems", {"data", "io", "summary", "checkpoint", "saved_model", "sparse", "ragged", "distribute",
                    "extension_type"}),
    ("clients", {"keras", "onnx", "jit", "lite", "feature_column"}),
    ("face", {"__init__", "__main__", "cli", "tour", "math", "nn", "random", "strings", "linalg", "debugging",
              "array", "bitwise", "control_flow", "image", "signal", "train", "types", "config", "profiler",
              "audio", "experimental", "lookup", "compat"}),
]
RANK = {name: i for i, (_, names) in enumerate(LAYERS) for name in names}
LAYER = {name: layer for layer, names in LAYERS for name in names}

# "importer -> imported" (below rivulet.) allowed to point up or across today; shrink it, never grow it
ALLOWED = set()  # every upward import is gone: keep it empty


def _modules():
    mods = {}
    for d, _, files in os.walk(os.path.join(SRC, "rivulet")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, SRC)[:-3].replace(os.sep, ".")
                mods[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return mods


def _imports(name, path, mods):
    """(imported module, line) for every rivulet import in the file, at any depth."""
    pkg = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1]) + ("." + node.module if node.module else "")
            else:
                base = node.module or ""
            for a in node.names:
                cand = f"{base}.{a.name}"
                yield (cand if cand in mods else base), node.lineno


def _short(module):
    return module[len("rivulet."):] if module != "rivulet" else "rivulet"


def private_imports():
    """(importer, 'module.name') for each `from X import _name` where X is in another top-level package."""
    mods = _modules()
    out = {}
    for name, path in mods.items():
        pkg = name if path.endswith("__init__.py") else name.rsplit(".", 1)[0]
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1]) + ("." + node.module if node.module else "")
            else:
                base = node.module or ""
            if not base.startswith("rivulet") or _top(base) == _top(name):
                continue
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    out[(_short(name), f"{_short(base)}.{a.name}")] = f"{os.path.relpath(path, SRC)}:{node.lineno}"
    return out


def _top(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def import_graph():
    mods = _modules()
    graph = collections.defaultdict(set)
    lines = {}
    for name, path in mods.items():
        for target, line in _imports(name, path, mods):
            if target == "rivulet" or target.startswith("rivulet."):
                graph[name].add(target)
                lines.setdefault((name, target), f"{os.path.relpath(path, SRC)}:{line}")
    return mods, graph, lines


def _violation(src, dst):
    a, b = _top(src), _top(dst)
    if a == b:
        return None
    if a not in RANK or b not in RANK:
        return f"{a if a not in RANK else b} has no layer in tests/test_layering.py LAYERS"
    if LAYER[b] == "face":  # the facade is for clients (and the face itself): they use the API users see
        return None if LAYER[a] in ("clients", "face") else f"{LAYER[a]} ({a}) imports the public facade ({dst})"
    if RANK[b] > RANK[a]:
        return f"{LAYER[a]} ({a}) imports up into {LAYER[b]} ({b})"
    if RANK[b] == RANK[a] and LAYER[a] == "subsystems":
        return f"subsystem {a} imports subsystem {b} (share through a lower layer)"
    return None


def test_every_module_has_a_layer():
    mods = _modules()
    missing = sorted({_top(m) for m in mods} - set(RANK))
    assert not missing, f"add these to LAYERS (and docs/DESIGN.md): {missing}"


def test_imports_point_down():
    _, graph, lines = import_graph()
    found = {(_short(s), _short(d)): why for s, ds in graph.items() for d in ds if (why := _violation(s, d))}
    lines = {(_short(s), _short(d)): where for (s, d), where in lines.items()}
    new = sorted(f"{lines[e]}: {e[0]} -> {e[1]}: {why}" for e, why in found.items() if f"{e[0]} -> {e[1]}" not in ALLOWED)
    assert not new, "upward or sideways imports (use a registry the lower layer owns):\n" + "\n".join(new)
    gone = sorted(e for e in ALLOWED if tuple(e.split(" -> ")) not in found)
    assert not gone, "these ALLOWED entries no longer exist: remove them:\n" + "\n".join(gone)


# "importer -> module.private_name" still imported across packages: none left; keep it empty
PRIVATE_ALLOWED = set()


def test_no_package_imports_another_packages_private_names():
    found = private_imports()
    new = sorted(f"{where}: {a} -> {b}" for (a, b), where in found.items() if f"{a} -> {b}" not in PRIVATE_ALLOWED)
    assert not new, "private names imported from another package (make them public there):\n" + "\n".join(new)
    gone = sorted(e for e in PRIVATE_ALLOWED if tuple(e.split(" -> ")) not in found)
    assert not gone, "these PRIVATE_ALLOWED entries no longer exist: remove them:\n" + "\n".join(gone)


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    nodes = set(graph) | {d for ds in graph.values() for d in ds}
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


KERNEL = {"core", "graph", "state", "autodiff", "function", "execute", "optimize"}


def test_the_kernel_folders_are_in_no_cycle_across_folders():
    _, graph, _ = import_graph()
    bad = []
    for comp in _cycles(graph):
        folders = {_top(m) for m in comp}
        if len(folders) > 1 and folders & KERNEL:
            bad.append(f"{len(comp)} modules from {sorted(folders)}")
    assert not bad, "import cycles through the kernel folders:\n" + "\n".join(bad)


def test_no_import_cycle_crosses_a_folder_except_the_face_and_its_clients():
    """The documented plugin registration: the face loads keras/ (and onnx/, jit/) on first use, and they build
    on the public facade. Every other cycle across folders is a reach-up to replace with a registry."""
    _, graph, _ = import_graph()
    bad = []
    for comp in _cycles(graph):
        layers = {LAYER.get(_top(m)) for m in comp}
        if len({_top(m) for m in comp}) > 1 and not layers <= {"face", "clients"}:
            bad.append(f"{len(comp)} modules from {sorted({_top(m) for m in comp})}")
    assert not bad, "import cycles across folders:\n" + "\n".join(bad)
