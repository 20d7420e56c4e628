"""Statements, blocks and callables: staged and compile-time `if`/`for`/`while`, `break`/`continue`,
early `return`, lists appended in loops and stacked, helpers with defaults and keyword
arguments, classes with methods and attributes, closures and lambdas, staged recursion.

Scoping follows Python and keeps every program valid: a name bound inside a
loop body or one branch is read only inside it; a name bound in both
branches of an `if` is read afterwards; loop-carried names keep their exact
type, so staged loops have fixed-type state.
"""

from .gen_expr import weighted
from .static_types import BOOL, F32, F64, FLOATS, I32, I64, PYFLOAT, PYINT, Ty

IND = "    "


def indent(lines, k=1):
    return [IND * k + line for line in lines]


class Scope:
    """Names readable at a point: values (name or `obj.attr` text -> Ty), loop counters, callables."""

    def __init__(self, vars=None, counters=None, funcs=None, readonly=None, flags=None):
        self.vars = dict(vars or {})
        self.counters = dict(counters or {})  # counter name -> the dim it can index (None: none)
        self.funcs = dict(funcs or {})  # callable text -> Callable
        self.readonly = set(readonly or ())
        self.flags = dict(flags or {})  # compile-time bool/str names -> their possible values

    def child(self):
        return Scope(self.vars, self.counters, self.funcs, self.readonly, self.flags)


class Callable:
    """Something callable: `params` are required (name, Ty); `opts` are (name, Ty, default text, kw-only)."""

    def __init__(self, name, params, ret, opts=(), kind="helper", keywords=True):
        self.name, self.params, self.ret, self.opts, self.kind = name, list(params), ret, list(opts), kind
        self.keywords = keywords


class Fn:
    """The function being generated: its parameters' dims, staged ints, return types, limits."""

    def __init__(self, gen, name, params, ret_tys, kind, depth, extra_vars=()):
        self.name, self.kind, self.depth, self.ret_tys = name, kind, depth, list(ret_tys)
        self.dimexpr = {}
        for pname, t in list(params) + list(extra_vars):
            for j, dim in enumerate(t.shape):
                if isinstance(dim, str) and dim not in self.dimexpr:
                    self.dimexpr[dim] = f"{pname}.shape[{j}]"
        self.dims_avail = list(gen.static) + sorted(self.dimexpr)
        self.int_params = [p for p, t in params if t.dt in (I32, I64) and not t.shape]
        names = [p for p, _ in params]
        tree = getattr(gen, "tree", None)
        self.tree_emb, self.tree_idx = (tree if tree and all(n in names for n in (tree[0],) + tree[1]) else (None, None))
        self.allow_calls = depth < 2
        self.can_return = kind != "method_step"
        self.counter = 0
        self.budget = 0

    def fresh(self, base="v"):
        self.counter += 1
        return f"{base}{self.counter}"


class StmtGen:
    """Mixin of `ProgramGen`: blocks and statements; `call_expr` for the expression generator."""

    # ------------------------------------------------------------ blocks

    def block(self, fn, sc, n, nest, loop, prefer_update=False):
        lines = []
        for _ in range(n):
            if nest == 0:  # the budget counts top-level statements; nested blocks are short anyway
                if fn.budget <= 0:
                    break
                fn.budget -= 1
            lines += self.stmt(fn, sc, nest, loop, prefer_update)
        return lines

    def stmt(self, fn, sc, nest, loop, prefer_update):
        f = self.features
        deep = nest < 2
        kinds = [
            ("assign", 4), ("update", 6 if prefer_update else 3),
            ("if", 2 if deep and "if" in f else 0), ("static_if", 0.6 if deep and "static" in f else 0),
            ("for", 1.5 if deep and "loops" in f else 0), ("while", 1 if deep and "loops" in f else 0),
            ("list", 0.9 if deep and "lists" in f else 0),
            ("break", 1.2 if loop and "loops" in f else 0), ("continue", 0.6 if loop and "loops" in f else 0),
            ("return", 0.6 if fn.can_return and fn.ret_tys and "returns" in f else 0),
            ("object", 0.6 if fn.allow_calls and "classes" in f else 0),
            ("closure", 0.6 if fn.allow_calls and "closures" in f else 0),
            ("augassign", 0.3 if "grad" not in f else 0),  # autograd boxes cannot be updated in place
            ("weak", 0.7 if nest == 0 and "loops" in f else 0.1),
            ("setitem", 0.6 if deep and "loops" in f and "grad" not in f else 0),
            ("tree", 2.0 if fn.tree_emb and not getattr(fn, "tree_done", False) else 0),
        ]
        kind = weighted(self.rng, kinds)
        return getattr(self, "s_" + kind)(fn, sc, nest, loop)

    def assignable(self, fn, sc):
        return [v for v, t in sc.vars.items()
                if v not in sc.readonly and v not in sc.counters and not v.startswith("self.")
                or (v.startswith("self.") and fn.kind == "method_step")]

    def pick_ty(self, fn, sc):
        """A type for a new value: mostly one already in scope, sometimes a new shape from the dims."""
        floats = [t for t in sc.vars.values() if t.dt in FLOATS]
        if floats and self.rng.random() < 0.85:
            return self.rng.choice(floats)
        rank = weighted(self.rng, [(0, 2), (1, 3), (2, 3), (3, 0.5)])
        return Ty(self.F, tuple(self.rng.choice(fn.dims_avail) for _ in range(rank)))

    # ------------------------------------------------------------ simple statements

    def s_assign(self, fn, sc, nest, loop):
        ty = self.pick_ty(fn, sc)
        name = fn.fresh()
        text = self.fexpr(fn, sc, ty, self.rng.randint(1, 3))
        sc.vars[name] = ty
        return [f"{name} = {text}"]

    def s_tree(self, fn, sc, nest, loop):
        fn.tree_done = True
        call, ty = self.new_tree(fn, sc)
        name = fn.fresh()
        sc.vars[name] = ty
        return [f"{name} = {call}"]

    def s_weak(self, fn, sc, nest, loop):
        """A Python-number accumulator (`s = 0`, `t = 0.0`) for loops to update."""
        if self.rng.random() < 0.5:
            name = fn.fresh("s")
            sc.vars[name] = Ty(PYINT)
            return [f"{name} = {self.rng.choice(['0', '0', '1'])}"]
        name = fn.fresh("t")
        sc.vars[name] = Ty(PYFLOAT)
        return [f"{name} = {self.rng.choice(['0.0', '1.0', '0.5'])}"]

    def s_setitem(self, fn, sc, nest, loop):
        """A fresh buffer filled row by row (`buf[i] = ...`) or column by column, in a loop."""
        rng = self.rng
        rows = [t for t in sc.vars.values() if t.dt in FLOATS and t.shape]
        if not rows:
            return self.s_assign(fn, sc, nest, loop)
        ty = rng.choice(rows).with_dt(self.F)
        buf, i = fn.fresh("buf"), fn.fresh("i")
        col = ty.rank >= 2 and isinstance(ty.shape[1], int) and rng.random() < 0.3
        axis = 1 if col else 0
        dim = ty.shape[axis]
        body_sc = sc.child()
        body_sc.counters[i] = dim
        body_sc.vars[i] = Ty(PYINT)
        body_sc.readonly.add(i)
        # The other statements of the body do not see the buffer: a view of it kept in a variable
        # (x = buf[::-1]) would change with the next item assignment in numpy, while agc documents
        # item assignment as rebinding the array (README). The assigned value may read it.
        body = self.block(fn, body_sc, rng.randint(0, 1), nest + 1, True, prefer_update=True)
        val_sc = body_sc.child()
        val_sc.vars[buf] = ty
        val_sc.readonly.add(buf)
        inner = ty.with_shape(ty.shape[:axis] + ty.shape[axis + 1:])
        value = self.fexpr(fn, val_sc, inner, 2)
        target = f"{buf}[:, {i}]" if col else f"{buf}[{i}]"
        if rng.random() < 0.3:
            value = f"{target} * 0.5 + {value}"
        lines = [f"{buf} = np.zeros({self.shape_text(fn, ty.shape)}, dtype={'np.float32' if ty.dt == F32 else 'np.float64'})",
                 f"for {i} in range({self.dim_text(fn, dim)}):"]
        lines += indent(body + [f"{target} = {value}"])
        sc.vars[buf] = ty
        return lines

    def s_update(self, fn, sc, nest, loop):
        weak = [v for v in self.assignable(fn, sc) if sc.vars[v].dt in (PYINT, PYFLOAT)]
        if weak and (loop or self.rng.random() < 0.2) and self.rng.random() < 0.45:
            v = self.rng.choice(weak)
            ints = [c for c in sc.counters] + ["1", "2"]
            if sc.vars[v].dt == PYINT:
                return [f"{v} = {v} + {self.rng.choice(ints)}"]
            return [self.rng.choice([f"{v} = {v} * 0.5 + 1.0", f"{v} = {v} + {self.rng.choice(ints)}",
                                     f"{v} = {v} + 0.25"])]
        targets = [v for v in self.assignable(fn, sc) if sc.vars[v].dt in FLOATS]
        if not targets:
            return self.s_assign(fn, sc, nest, loop)
        v = self.rng.choice(targets)
        ty = sc.vars[v]
        r = self.rng.random()
        e = self.fexpr(fn, sc, ty, self.rng.randint(1, 2))
        if r < 0.35:
            text = f"np.tanh({v} * {self.lit()} + {e})"
        elif r < 0.6:
            text = f"{v} * {self.rng.choice(['0.5', '0.9', '0.75'])} + {e}"
        elif r < 0.75:
            text = f"{v} + {self.rng.choice(['0.1', '0.25', '0.5'])} * np.sin({e})"
        else:
            text = e
        return [f"{v} = {text}"]

    def s_augassign(self, fn, sc, nest, loop):
        ty = self.pick_ty(fn, sc)
        name = fn.fresh("acc")
        init = f"np.zeros({self.shape_text(fn, ty.shape)}, dtype={'np.float32' if ty.dt == F32 else 'np.float64'})"
        op = self.rng.choice(["+=", "-=", "*="])
        if op == "*=":
            init = init.replace("np.zeros", "np.ones")
        sc.vars[name] = ty
        return [f"{name} = {init}", f"{name} {op} {self.fexpr(fn, sc, ty, 2)}"]

    def ret_line(self, fn, sc, final=False):
        vals = [self.fexpr(fn, sc, t, self.rng.randint(1, 2)) for t in fn.ret_tys]
        if final:
            vals = [self.with_live(sc, t, v) for t, v in zip(fn.ret_tys, vals)]
        return "return " + ", ".join(vals)

    def with_live(self, sc, ty, text):
        """`text` plus a small multiple of other values in scope, so that what the body computed
        (loop-carried state, branch results, counters) reaches the result."""
        if ty.dt not in FLOATS:
            return text
        terms = []
        for v, t in sc.vars.items():
            if v in text or v.startswith("self."):
                continue
            if t.dt in (PYINT, PYFLOAT):
                terms.append(v)
            elif t.dt == ty.dt and t.shape and all(a == b or a == 1 for a, b in zip(reversed(t.shape), reversed(ty.shape))) \
                    and len(t.shape) <= len(ty.shape):
                terms.append(v)
            elif t.dt == ty.dt:
                terms.append(f"np.{self.rng.choice(['mean', 'sum', 'max'])}({v})")
        self.rng.shuffle(terms)
        terms = terms[: self.rng.randint(1, 4)]
        if not terms:
            return text
        return f"{text} + {self.rng.choice(['0.1', '0.25', '0.5'])} * ({' + '.join(terms)})"

    def s_return(self, fn, sc, nest, loop):
        cond = self.cond(fn, sc, 1)
        body = self.block(fn, sc.child(), self.rng.randint(0, 1), nest + 1, loop)
        return [f"if {cond}:"] + indent(body + [self.ret_line(fn, sc)])

    def s_break(self, fn, sc, nest, loop):
        return [f"if {self.cond(fn, sc, 1)}:", IND + "break"]

    def s_continue(self, fn, sc, nest, loop):
        inner = sc.child()
        body = self.block(fn, inner, self.rng.randint(0, 1), nest + 1, loop, prefer_update=True)
        return [f"if {self.cond(fn, sc, 1)}:"] + indent(body + ["continue"])

    # ------------------------------------------------------------ branches

    def s_if(self, fn, sc, nest, loop):
        cond = self.cond(fn, sc, 1)
        return self._branches(fn, sc, nest, loop, f"if {cond}:")

    def s_static_if(self, fn, sc, nest, loop):
        if sc.flags and self.rng.random() < 0.7:
            name = self.rng.choice(sorted(sc.flags))
            val = self.rng.choice(sc.flags[name])
            head = f"if {name}:" if isinstance(val, bool) else f"if {name} == {val!r}:"
        else:
            const = self.module_const()
            head = f"if {const}:" if self.rng.random() < 0.7 else f"if not {const}:"
        return self._branches(fn, sc, nest, loop, head)

    def _branches(self, fn, sc, nest, loop, head):
        rng = self.rng
        both = None
        if rng.random() < 0.5:
            both = (fn.fresh(), self.pick_ty(fn, sc))
        then_sc, else_sc = sc.child(), sc.child()
        then = self._branch_body(fn, then_sc, nest, loop, both)
        lines = [head] + indent(then)
        if both or rng.random() < 0.6:
            lines += ["else:"] + indent(self._branch_body(fn, else_sc, nest, loop, both))
        else:
            else_sc = sc.child()
        self._merge(sc, then_sc, else_sc)
        return lines

    def _branch_body(self, fn, bsc, nest, loop, both):
        lines = []
        if both:
            name, ty = both
            lines.append(f"{name} = {self.fexpr(fn, bsc, ty, 2)}")
            bsc.vars[name] = ty
        lines += self.block(fn, bsc, self.rng.randint(1, 2), nest + 1, loop, prefer_update=True)
        return lines or ["pass"]

    def _merge(self, sc, a, b):
        """After an if: names bound in both branches with one type are readable; others are not."""
        for name, t in a.vars.items():
            if name not in sc.vars and b.vars.get(name) == t:
                sc.vars[name] = t

    # ------------------------------------------------------------ loops

    def loop_head(self, fn, sc):
        """`for ... in ...:` text, the counter name and the dim it can index (or None)."""
        rng = self.rng
        i = fn.fresh("i")
        r = rng.random()
        rows = [v for v, t in sc.vars.items() if t.dt in FLOATS and t.shape]
        outer = [c for c in sc.counters]
        if outer and rng.random() < 0.2:
            c = rng.choice(outer)
            return f"for {i} in range({c} + 1):", i, None, None
        if r < 0.35 and fn.int_params:
            bound, _ = self.int_bound(fn, sc)
            if rng.random() < 0.2:
                return f"for {i} in range(1, {bound}):", i, None, None
            return f"for {i} in range({bound}):", i, None, None
        if r < 0.65 and rows:
            v = rng.choice(rows)
            t = sc.vars[v]
            j = rng.randrange(t.rank) if rng.random() < 0.3 else 0
            dim = t.shape[j]
            if rng.random() < 0.15:
                return f"for {i} in reversed(range({v}.shape[{j}])):", i, dim, None
            return f"for {i} in range({v}.shape[{j}]):", i, dim, None
        if r < 0.8 and rows:
            v = rng.choice(rows)
            t = sc.vars[v]
            row = fn.fresh("row")
            if rng.random() < 0.5:
                return f"for {i}, {row} in enumerate({v}):", i, t.shape[0], (row, Ty(t.dt, t.shape[1:]))
            return f"for {row} in {v}:", None, None, (row, Ty(t.dt, t.shape[1:]))
        k = rng.choice([d for d in fn.dims_avail if isinstance(d, int)] or [3])
        return f"for {i} in range({k}):", i, k, None

    def s_for(self, fn, sc, nest, loop):
        head, i, dim, row = self.loop_head(fn, sc)
        body_sc = sc.child()
        if i:
            body_sc.counters[i] = dim
            body_sc.vars[i] = Ty(PYINT)
            body_sc.readonly.add(i)
        if row:
            body_sc.vars[row[0]] = row[1]
            body_sc.readonly.add(row[0])
        body = self.block(fn, body_sc, self.rng.randint(1, 3), nest + 1, True, prefer_update=True)
        return [head] + indent(body or ["pass"])

    def s_while(self, fn, sc, nest, loop):
        rng = self.rng
        j = fn.fresh("j")
        bound, _ = self.int_bound(fn, sc)
        body_sc = sc.child()
        body_sc.counters[j] = None
        body_sc.vars[j] = Ty(PYINT)
        body_sc.readonly.add(j)
        cond = f"{j} < {bound}"
        if rng.random() < 0.3:
            cond = f"{cond} and {self.cond(fn, body_sc, 0)}"
        lines = [f"{j} = 0"]
        if rng.random() < 0.15:
            body = self.block(fn, body_sc, rng.randint(1, 2), nest + 1, True, prefer_update=True)
            lines += ["while True:"] + indent([f"if {j} >= {bound}:", IND + "break", f"{j} = {j} + 1"] + body)
        else:
            body = self.block(fn, body_sc, rng.randint(1, 3), nest + 1, True, prefer_update=True)
            lines += [f"while {cond}:"] + indent([f"{j} = {j} + 1"] + body)
        sc.vars[j] = Ty(PYINT)  # bound on every path: readable after the loop
        sc.readonly.add(j)
        return lines

    def s_list(self, fn, sc, nest, loop):
        rng = self.rng
        ty = self.pick_ty(fn, sc)
        acc = fn.fresh("acc")
        lines = [f"{acc} = [{self.fexpr(fn, sc, ty, 1)}]" if rng.random() < 0.8 else f"{acc} = []"]
        nonempty = lines[0] != f"{acc} = []"
        if rng.random() < 0.75:
            head, i, dim, row = self.loop_head(fn, sc)
            if not nonempty and "range(" in head and "reversed" not in head:
                head, dim = head.replace("range(", "range(1 + ", 1), None
        else:
            j = fn.fresh("j")
            bound, _ = self.int_bound(fn, sc)
            lines.append(f"{j} = 0")
            head, i, dim, row = f"while {j} < {bound}:", None, None, None
        body_sc = sc.child()
        if i:
            body_sc.counters[i] = dim
            body_sc.vars[i] = Ty(PYINT)
            body_sc.readonly.add(i)
        if row:
            body_sc.vars[row[0]] = row[1]
            body_sc.readonly.add(row[0])
        body = []
        if head.startswith("while"):
            body.append(f"{j} = {j} + 1")
            body_sc.vars[j] = Ty(PYINT)
            body_sc.readonly.add(j)
        body += self.block(fn, body_sc, rng.randint(0, 2), nest + 1, True, prefer_update=True)
        append = f"{acc}.append({self.fexpr(fn, body_sc, ty, 2)})"
        if nonempty and rng.random() < 0.25:
            body += [f"if {self.cond(fn, body_sc, 0)}:", IND + append]
        else:
            body.append(append)
        body += self.block(fn, body_sc, rng.randint(0, 1), nest + 1, True, prefer_update=True)
        lines += [head] + indent(body)
        out = fn.fresh()
        ax = rng.choice([0, -1]) if ty.shape else 0
        stacked = f"np.stack({acc})" if rng.random() < 0.5 else f"np.stack({acc}, axis={ax})"
        if "axis=-1" in stacked:
            lines.append(f"{out} = np.{rng.choice(['sum', 'mean', 'max'])}({stacked}, axis=-1)")
        else:
            lines.append(rng.choice([f"{out} = np.{rng.choice(['sum', 'mean', 'max', 'min'])}({stacked}, axis=0)",
                                     f"{out} = {stacked}[-1]", f"{out} = {acc}[-1]", f"{out} = {stacked}[0]"]))
        sc.vars[out] = ty
        if rng.random() < 0.2:
            k = fn.fresh("k")
            lines.append(f"{k} = len({acc})")
            sc.vars[k] = Ty(PYINT)
            sc.readonly.add(k)
        return lines

    # ------------------------------------------------------------ objects and closures

    def s_object(self, fn, sc, nest, loop):
        if len(self.top) >= 4:
            return self.s_assign(fn, sc, nest, loop)
        cls = self.new_class(fn, sc)
        obj = fn.fresh("o")
        args = self.call_args(fn, sc, cls.init, 1)
        lines = [f"{obj} = {cls.name}({args})"]
        for attr, t in cls.attrs:
            sc.vars[f"{obj}.{attr}"] = t
        for m in cls.methods:
            text = method_text(obj, m)
            sc.funcs[text] = Callable(text, m.params, m.ret, m.opts, "method", keywords=m.keywords)
        if cls.step is not None:
            arg = self.fexpr(fn, sc, cls.step.params[0][1], 1)
            lines.append(f"{obj}.step({arg})")
        return lines

    def s_closure(self, fn, sc, nest, loop):
        rng = self.rng
        ty = self.pick_ty(fn, sc)
        pty = self.pick_ty(fn, sc) if rng.random() < 0.5 else ty
        g = fn.fresh("g")
        r = rng.random()
        if r < 0.35:  # a lambda over the enclosing values
            inner = sc.child()
            inner.vars["u"] = pty
            inner.readonly |= set(sc.vars) | {"u"}
            body = self.fexpr(fn, inner, ty, 2)
            sc.funcs[g] = Callable(g, [("u", pty)], ty, kind="lambda")
            return [f"{g} = lambda u: {body}"]
        if r < 0.7:  # a nested def closing over the enclosing values (read when called)
            inner = sc.child()
            inner.vars["u"] = pty
            inner.vars["c"] = Ty(PYFLOAT)
            inner.readonly |= set(sc.vars)
            sub = Fn(self, g, [("u", pty)], [ty], "closure", fn.depth + 1)
            sub.dimexpr = {**fn.dimexpr, **sub.dimexpr}
            sub.dims_avail = fn.dims_avail
            sub.int_params = list(fn.int_params)
            sub.budget = rng.randint(0, 2)
            body = self.block(sub, inner, sub.budget, 1, False)
            c = self.pos()
            sc.funcs[g] = Callable(g, [("u", pty)], ty, [("c", Ty(PYFLOAT), c, False)], "closure")
            return [f"def {g}(u, c={c}):"] + indent(body + [f"return {self.fexpr(sub, inner, ty, 2)}"])
        # a module-level factory returning a closure over its arguments
        cap_ty = self.pick_ty(fn, sc)
        if {d for d in ty.shape if isinstance(d, str)} - {d for t in (cap_ty, pty) for d in t.shape}:
            cap_ty = ty  # the closure's result dims must be readable from what it closes over
        make = self.fresh_top("make")
        msc = Scope({"a": cap_ty, "u": pty, "c": Ty(PYFLOAT)}, readonly={"a", "c"})
        sub = Fn(self, make, [("a", cap_ty), ("u", pty)], [ty], "closure", fn.depth + 1)
        body = self.fexpr(sub, msc, ty, 3)
        self.emit([f"def {make}(a, c=0.5):", IND + "def inner(u):", IND * 2 + f"return {body}",
                   IND + "return inner", ""])
        cap = self.fexpr(fn, sc, cap_ty, 1)
        call = f"{make}({cap})" if rng.random() < 0.5 else f"{make}({cap}, c={self.pos()})"
        sc.funcs[g] = Callable(g, [("u", pty)], ty, kind="closure", keywords=True)
        return [f"{g} = {call}"]

    # ------------------------------------------------------------ calls

    def call_args(self, fn, sc, c, d):
        """Argument text for Callable `c`: positional or keyword (any order), defaults passed or not."""
        rng = self.rng
        req = [(p, self.arg_text(fn, sc, c, t, d)) for p, t in c.params]
        opt = [(p, self.arg_text(fn, sc, c, t, 0), kw) for p, t, dv, kw in c.opts if rng.random() < 0.5]
        if not c.keywords:
            return ", ".join(a for _, a in req)
        k = len(req) if rng.random() < 0.6 else rng.randint(0, len(req))
        pos = [a for _, a in req[:k]]
        kws = [f"{p}={a}" for p, a in req[k:]]
        passed_all_before = k == len(req)
        for idx, (p, a, kwonly) in enumerate(opt):
            if passed_all_before and not kwonly and not kws and rng.random() < 0.3 and idx == 0 \
                    and c.opts and c.opts[0][0] == p:
                pos.append(a)
            else:
                kws.append(f"{p}={a}")
        rng.shuffle(kws)
        return ", ".join(pos + kws)

    def arg_text(self, fn, sc, c, t, d):
        if t.dt == "depth":  # a recursion depth: the bound chosen with the function
            return t.shape[0]
        if t.dt == "flag":
            return repr(self.rng.choice(c.flag_values))
        if t.dt in (PYFLOAT, PYINT):
            return dflt_like(self.rng, t, None)
        return self.fexpr(fn, sc, t, d)

    def call_expr(self, fn, sc, ty, d):
        rng = self.rng
        f = self.features
        local = [c for c in sc.funcs.values() if c.ret == ty]
        if local and rng.random() < 0.6:
            c = rng.choice(local)
            return f"{c.name}({self.call_args(fn, sc, c, d - 1)})"
        reuse = [c for c in self.helpers if c.ret == ty and all(_derivable(fn, t) for _, t in c.params)]
        if reuse and rng.random() < 0.3:
            c = rng.choice(reuse)
            return f"{c.name}({self.call_args(fn, sc, c, d - 1)})"
        if len(self.top) >= 4:  # enough module-level functions for one program
            return None
        kinds = [("helper", 3 if "helpers" in f else 0), ("rec", 3 if "recursion" in f else 0),
                 ("method", 1 if "classes" in f else 0)]
        if not any(w for _, w in kinds):
            return None
        kind = weighted(rng, kinds)
        if kind == "helper":
            c = self.new_helper(fn, sc, ty)
        elif kind == "rec":
            c = self.new_recursive(fn, sc, ty)
        else:
            cls = self.new_class(fn, sc, ret=ty)
            m = cls.methods[0]
            obj = f"{cls.name}({self.call_args(fn, sc, cls.init, 0)})"
            return f"{method_text(obj, m)}({self.call_args(fn, sc, m, d - 1)})"
        return f"{c.name}({self.call_args(fn, sc, c, d - 1)})"


def method_text(obj, m):
    return f"{obj}.{m.name}" if m.name else obj


def dflt_like(rng, t, default):
    if t.dt == PYINT:
        return str(rng.randint(0, 3))
    return rng.choice(["0.5", "0.25", "1.5", "-0.5", "2.0"])


def _derivable(fn, t):
    return all(not isinstance(d, str) or d in fn.dimexpr for d in t.shape)


__all__ = ["BOOL", "Callable", "F64", "Fn", "Scope", "StmtGen", "I32", "indent"]
