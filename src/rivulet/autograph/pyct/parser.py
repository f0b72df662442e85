"""Source of a live function as an AST whose line numbers are those of its file."""
import ast
import inspect
import linecache
import os
import re
import textwrap
import tokenize


class SourceUnavailable(Exception):
    pass


def parse_function(fn):
    """(ast.FunctionDef, filename) for `fn`; a lambda becomes `def <name>(args): return <body>`."""
    code = getattr(fn, "__code__", None)
    try:
        # The code object's own source: inspect would follow a functools.wraps `__wrapped__` to the
        # decorated function, whose source is not the wrapper's.
        found = _file_source(fn, code) if code is not None else None
        if found is not None:
            lines, first, filename = found
        else:
            lines, first = inspect.getsourcelines(code if code is not None else fn)
            filename = inspect.getsourcefile(code if code is not None else fn) or inspect.getfile(fn)
    except (OSError, TypeError, tokenize.TokenError) as e:  # (TokenError: a lambda on a last line with no newline)
        raise SourceUnavailable(str(e)) from None
    source = textwrap.dedent("".join(lines))
    if code.co_name == "<lambda>":
        node = _lambda_def(source, code)
    else:
        try:
            tree = ast.parse(source)
        except SyntaxError as e:
            raise SourceUnavailable(f"could not parse the source: {e}") from None
        node = tree.body[0] if tree.body else None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            raise SourceUnavailable("the source does not start with a function definition")
    ast.increment_lineno(node, first - 1)
    return node, filename


# inspect.findsource's test for the line a code object's definition starts on (decorators included)
_DEF_LINE = re.compile(r'^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)')


def _file_source(fn, code):
    """inspect.getsourcelines(code) and getsourcefile(code) of a function defined in a source file that is
    there: (lines, first line number, file name), found as inspect finds them, without inspect.getmodule's
    walk over every loaded module (a first conversion resolved the path of each); None otherwise (inspect
    then decides)."""
    filename = code.co_filename
    if not filename.endswith(".py") or not os.path.exists(filename):
        return None
    linecache.checkcache(filename)
    glob = getattr(fn, "__globals__", None)
    lines = linecache.getlines(filename, glob if isinstance(glob, dict) else None)
    lnum = code.co_firstlineno - 1
    if not lines or lnum >= len(lines):
        return None
    while lnum > 0 and not _DEF_LINE.match(lines[lnum]):
        lnum -= 1
    return inspect.getblock(lines[lnum:]), lnum + 1, filename


def _lambda_def(source, code):
    """Finds the one lambda in the source lines whose parameters are the function's."""
    tree = None
    text = source.strip()
    while text:
        try:
            tree = ast.parse(text)
            break
        except SyntaxError:
            text = text[:-1]  # a lambda inside a call spanning more lines than getsource returned
    if tree is None:
        raise SourceUnavailable("could not parse the lambda's source")
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             and [a.arg for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs] == params]
    if len(found) != 1:
        raise SourceUnavailable("the lambda cannot be told apart from others on its line")
    lam = found[0]
    if not _same_names(lam, code):  # getsource gave the line of an earlier lambda with the same parameters
        raise SourceUnavailable("the lambda cannot be told apart from others on its line")
    ret = ast.Return(value=lam.body)
    node = ast.FunctionDef(name="lam", args=lam.args, body=[ast.copy_location(ret, lam.body)], decorator_list=[],
                           returns=None, type_comment=None, type_params=[])
    return ast.fix_missing_locations(ast.copy_location(node, lam))


def _same_names(lam, code):
    """Whether the parsed lambda names what the live one does (globals, attributes and closure cells)."""
    try:
        module = compile(ast.fix_missing_locations(ast.Expression(body=lam)), "<lambda>", "eval")
    except (SyntaxError, ValueError):
        return False
    inner = next((c for c in module.co_consts if hasattr(c, "co_names")), None)
    if inner is None:
        return False
    return set(inner.co_names) | set(inner.co_freevars) == set(code.co_names) | set(code.co_freevars)
