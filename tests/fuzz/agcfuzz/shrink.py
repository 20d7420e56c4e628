"""Delta debugging over the Python AST of a failing program.

`shrink(source, still_fails, budget_s)` greedily applies the first edit that
keeps `still_fails(new_source)` true, and starts over, until no edit helps
or the time budget is spent. Edits, coarse to fine:

1. delete runs of statements in any body (halves, quarters, ..., single ones);
2. delete top-level definitions (never the imports or an export), and parameters of
   top-level functions with the matching arguments at every call;
3. replace an `if`/`for`/`while` by one of its bodies, drop an `else`;
4. replace an expression by one of its operands (a binary operation by a
   side, a call by an argument or a method call by its object, a subscript
   by its value, a conditional by a branch), drop a keyword argument, a
   list/tuple element (e.g. one of several results), a default;
5. replace a float literal by 1.0 or 0.5.

The predicate decides validity: a candidate must still run eagerly (the
fuzzer's oracle) and fail in agc the same way, so every accepted step is
a valid reproducer.
"""

import ast
import copy
import time


def _paths(node, path=()):
    """Every (path, node) below `node`; a path is a tuple of (field, index or None)."""
    yield path, node
    for name, value in ast.iter_fields(node):
        if isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, ast.AST):
                    yield from _paths(item, path + ((name, i),))
        elif isinstance(value, ast.AST):
            yield from _paths(value, path + ((name, None),))


def _get(tree, path):
    node = tree
    for name, i in path:
        node = getattr(node, name) if i is None else getattr(node, name)[i]
    return node


def _set(tree, path, new):
    parent = _get(tree, path[:-1])
    name, i = path[-1]
    if i is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[i] = new


def _is_export(node):
    return isinstance(node, ast.FunctionDef) and any("export" in ast.unparse(d) for d in node.decorator_list)


def _protected_expr(path, tree):
    """Expressions not to touch: annotations, decorators, assignment targets, called names."""
    for k in range(len(path)):
        name = path[k][0]
        if name in ("annotation", "decorator_list", "targets", "target", "returns"):
            return True
        if name == "func" and k == len(path) - 1:
            return True
    return False


def candidates(tree, keep):
    """Edited copies of `tree`, coarse edits first. `keep`: names of top-level defs never deleted."""
    # 1. runs of statements in any body (most of a program is dead code for the failure)
    stmt_lists = []
    for p, n in _paths(tree):
        for f in ("body", "orelse"):
            v = getattr(n, f, None)
            if isinstance(v, list) and v and isinstance(v[0], ast.stmt) and not isinstance(n, ast.Module):
                stmt_lists.append(p + ((f, None),))
    for lp in stmt_lists:
        stmts = _get(tree, lp)
        n = len(stmts)
        size = n
        while size >= 1:
            for start in range(0, n, size):
                t = copy.deepcopy(tree)
                lst = _get(t, lp)
                del lst[start:start + size]
                if not lst:
                    lst.append(ast.Pass())
                yield f"delete {size} statement(s)", t
            size //= 2
    body = tree.body
    # 2. top-level definitions, then parameters
    for i, node in enumerate(body):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "name", None) in keep or _is_export(node):
            continue
        t = copy.deepcopy(tree)
        del t.body[i]
        yield "delete top-level statement", t
    # (parameters of top-level functions, with the matching arguments at every call)
    for i, node in enumerate(body):
        if not isinstance(node, ast.FunctionDef) or _is_export(node) or node.args.vararg or node.args.kwarg:
            continue
        names = [a.arg for a in node.args.args] + [a.arg for a in node.args.kwonlyargs]
        for pname in names:
            t = copy.deepcopy(tree)
            if _drop_param(t, node.name, pname):
                yield f"drop parameter {pname} of {node.name}", t
    # 3. compound statements replaced by a body
    for lp in stmt_lists:
        stmts = _get(tree, lp)
        for i, s in enumerate(stmts):
            if isinstance(s, (ast.If, ast.For, ast.While)):
                for f in ("body", "orelse"):
                    inner = getattr(s, f)
                    if inner:
                        t = copy.deepcopy(tree)
                        lst = _get(t, lp)
                        lst[i:i + 1] = copy.deepcopy(inner)
                        yield f"inline {type(s).__name__} {f}", t
                if s.orelse:
                    t = copy.deepcopy(tree)
                    _get(t, lp)[i].orelse = []
                    yield "drop else", t
    # 4-5. expressions, outermost first
    for p, node in _paths(tree):
        if not isinstance(node, ast.expr) or _protected_expr(p, tree):
            continue
        for desc, new in _expr_edits(node):
            t = copy.deepcopy(tree)
            _set(t, p, new)
            yield desc, t
        if isinstance(node, ast.Call):
            for k in range(len(node.keywords)):
                t = copy.deepcopy(tree)
                del _get(t, p).keywords[k]
                yield "drop keyword argument", t
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) > 1:
            for k in range(len(node.elts)):
                t = copy.deepcopy(tree)
                del _get(t, p).elts[k]
                yield "drop element", t


def _drop_param(tree, fname, pname):
    """Remove parameter `pname` of top-level function `fname` and its arguments at every call by name."""
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == fname)
    a = fn.args
    pos = [x.arg for x in a.args]
    if pname in pos:
        k = pos.index(pname)
        first_default = len(a.args) - len(a.defaults)
        if k < first_default and a.defaults and k != len(pos) - 1 and len(pos) - 1 >= first_default:
            pass
        if k >= first_default:
            del a.defaults[k - first_default]
        elif a.defaults and first_default - 1 < k:
            return False
        del a.args[k]
    else:
        k = None
        j = [x.arg for x in a.kwonlyargs].index(pname)
        del a.kwonlyargs[j]
        del a.kw_defaults[j]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == fname:
            if k is not None and k < len(node.args):
                if any(isinstance(x, ast.Starred) for x in node.args):
                    return False
                del node.args[k]
            node.keywords = [kw for kw in node.keywords if kw.arg != pname]
    return True


def _expr_edits(node):
    subs = []
    if isinstance(node, ast.BinOp):
        subs = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp):
        subs = [node.operand]
    elif isinstance(node, ast.Call):
        subs = [a for a in node.args if not isinstance(a, ast.Starred)]
        if isinstance(node.func, ast.Attribute) and not _is_module_attr(node.func):
            subs.append(node.func.value)
    elif isinstance(node, ast.IfExp):
        subs = [node.body, node.orelse]
    elif isinstance(node, ast.Subscript):
        subs = [node.value]
    elif isinstance(node, ast.Attribute) and node.attr == "T":
        subs = [node.value]
    elif isinstance(node, ast.BoolOp):
        subs = list(node.values)
    elif isinstance(node, ast.Compare):
        subs = []
    elif isinstance(node, ast.Constant) and isinstance(node.value, float) and node.value not in (1.0, 0.5):
        return [("simplify constant", ast.Constant(1.0)), ("simplify constant", ast.Constant(0.5))]
    return [(f"replace {type(node).__name__} by an operand", copy.deepcopy(s)) for s in subs
            if isinstance(s, ast.expr)]


def _is_module_attr(attr):
    """`np.tanh` and friends: the object is a module, not a value."""
    return isinstance(attr.value, ast.Name) and attr.value.id in ("np", "agc")


def shrink(source, still_fails, keep=(), budget_s=120.0, max_tests=600, log=None):
    """The smallest source found for which `still_fails` holds (the input source if none)."""
    tree = ast.parse(source)
    best = ast.unparse(tree)
    seen = {best}
    deadline = time.monotonic() + budget_s
    tests = 0
    improved = True
    while improved and time.monotonic() < deadline and tests < max_tests:
        improved = False
        for desc, cand in candidates(tree, set(keep)):
            if time.monotonic() >= deadline or tests >= max_tests:
                break
            try:
                src = ast.unparse(ast.fix_missing_locations(cand))
            except Exception:  # noqa: BLE001 - an edit that does not unparse
                continue
            if src in seen or len(src) >= len(best):
                continue
            seen.add(src)
            tests += 1
            if still_fails(src):
                if log:
                    log(f"shrink: {desc}: {len(best)} -> {len(src)} chars")
                tree, best, improved = cand, src, True
                break
    return best, tests
