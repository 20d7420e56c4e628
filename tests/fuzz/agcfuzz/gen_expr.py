"""Typed expression generation: `ExprGen.fexpr(fn, sc, ty, d)` is source text of exactly type `ty`.

Every production either returns text whose value has exactly the requested
dtype and shape under numpy 2 (for the sizes the symbolic dims take), or
None when it does not apply; `fexpr` then tries another. Domains are kept
safe on purpose: `log` and `sqrt` see `abs(..) + c`, divisors are `abs(..) + c`,
`exp` sees a bounded argument, so the eager run is finite and well
conditioned for float32 comparisons.
"""

from .static_types import BOOL, F32, F64, FLOATS, I32, I64, NP_NAME, PYFLOAT, PYINT, Ty, promote, sub_broadcast

LITS = ["0.5", "0.25", "1.5", "2.0", "0.1", "0.75", "-0.5", "1.0", "3.0", "-1.25", "0.9"]
POS_LITS = ["0.5", "1.0", "0.25", "2.0", "1.5"]
FACTORS = {4: (2, 2), 6: (2, 3), 8: (2, 4), 9: (3, 3), 10: (2, 5), 12: (3, 4), 15: (3, 5), 16: (4, 4)}

UNARY = [
    ("np.sin({0})", 3), ("np.cos({0})", 2), ("np.tanh({0})", 4), ("np.abs({0})", 1.5), ("(-{0})", 1),
    ("np.exp(np.tanh({0}))", 1.5), ("np.exp(-np.square({0}))", 0.7), ("np.log(np.abs({0}) + {c})", 1.5),
    ("np.log(np.square({0}) + {c})", 0.7), ("np.sqrt(np.abs({0}) + {c})", 1.5), ("np.maximum({0}, 0.0)", 1),
    ("np.clip({0}, -1.0, 1.0)", 0.7), ("np.square({0})", 0.5), ("{0}.sum(axis=-1, keepdims=True)", 0.0),
]

BINARY = [("({0} + {1})", 5), ("({0} - {1})", 3), ("({0} * {1})", 4), ("({0} / (np.abs({1}) + {c}))", 1.5),
          ("np.maximum({0}, {1})", 1), ("np.minimum({0}, {1})", 1)]

REDUCE = ["sum", "mean", "max", "min"]


def weighted(rng, items):
    total = sum(w for _, w in items)
    x = rng.random() * total
    for item, w in items:
        x -= w
        if x < 0:
            return item
    return items[-1][0]


class ExprGen:
    """Mixin of `ProgramGen`: needs `self.rng`, `self.F`, and scopes/functions from `gen_stmt`."""

    # ------------------------------------------------------------ helpers

    def lit(self):
        return self.rng.choice(LITS)

    def pos(self):
        return self.rng.choice(POS_LITS)

    def dim_text(self, fn, d):
        return str(d) if isinstance(d, int) else fn.dimexpr[d]

    def shape_text(self, fn, shape):
        if not shape:
            return "()"
        return "(" + ", ".join(self.dim_text(fn, d) for d in shape) + ("," if len(shape) == 1 else "") + ")"

    def new_dim(self, fn):
        return self.rng.choice(fn.dims_avail)

    def vars_of(self, sc, pred):
        return [v for v, t in sc.vars.items() if pred(t)]

    # ------------------------------------------------------------ entry points

    def fexpr(self, fn, sc, ty, d):
        """An expression of exactly type `ty` (any dtype), at most about `d` levels deep."""
        if ty.dt == BOOL:
            return self.bexpr(fn, sc, ty.shape, d)
        if ty.dt in (PYFLOAT, PYINT):
            return self.pyexpr(sc, ty.dt, d)
        if ty.dt in (I32, I64):
            return self.iexpr(fn, sc, ty, d)
        if d <= 0 or self.rng.random() < 0.25:
            return self.leaf(fn, sc, ty)
        exact = self.vars_of(sc, lambda t: t == ty)
        prods = [
            (self.p_unary, 4), (self.p_binary, 6), (self.p_reduce, 2), (self.p_matmul, 1.5),
            (self.p_transpose, 0.8), (self.p_reshape, 0.8), (self.p_slice, 0.8), (self.p_index, 0.9),
            (self.p_expand, 0.6), (self.p_stack, 0.6), (self.p_concat, 0.4), (self.p_where, 1.0),
            (self.p_ifexp, 0.4), (self.p_cast, 0.4), (self.p_call, 2.0 if fn.allow_calls else 0.0),
            (self.p_counter_mix, 0.6), (self.p_same_shape, 1.0),
            (self.p_intpath, 0.5 if "grad" not in self.features else 0.0),
            (self.p_fmod, 0.25 if "grad" not in self.features else 0.0),
        ]
        for _ in range(10):
            prod = weighted(self.rng, prods)
            out = prod(fn, sc, ty, d)
            if out is not None:
                return out
        return self.rng.choice(exact) if exact else self.fallback(fn, sc, ty, d)

    def leaf(self, fn, sc, ty):
        """`ty` from one value in scope at small cost (the value itself, a reduction, an index, a
        transpose, a cast, a new axis); the fallback when nothing in scope is close."""
        S, rng, opts = ty.shape, self.rng, []
        for v, t in sc.vars.items():
            if t.dt not in FLOATS:
                continue
            if t == ty:
                opts.append((v, 8))
            elif t.shape == S:
                opts.append((f"{v}.astype({NP_NAME[ty.dt]})", 0.5))
            if t.dt != ty.dt:
                continue
            if t.rank == len(S) + 1:
                for k in range(t.rank):
                    if t.shape[:k] + t.shape[k + 1:] == S:
                        opts.append((f"np.{rng.choice(REDUCE)}({v}, axis={k})", 1.5))
                        dim = t.shape[k]
                        idx = str(rng.randint(-dim, dim - 1)) if isinstance(dim, int) else rng.choice(["0", "-1"])
                        opts.append((f"{v}[{', '.join([':'] * k + [idx])}]", 1))
            if t.rank == len(S) - 1:
                for k in range(len(S)):
                    if S[k] == 1 and S[:k] + S[k + 1:] == t.shape:
                        opts.append((f"np.expand_dims({v}, {k})", 0.5))
            if t.rank == len(S):
                for k in range(len(S)):
                    if S[k] == 1 and t.shape[:k] + t.shape[k + 1:] == S[:k] + S[k + 1:]:
                        opts.append((f"np.{rng.choice(REDUCE)}({v}, axis={k}, keepdims=True)", 1))
            if t.rank == 2 and S == (t.shape[1], t.shape[0]):
                opts.append((f"{v}.T", 1.5))
            if not S and t.shape:
                opts.append((f"np.{rng.choice(REDUCE)}({v})", 0.7))
            if _broadcasts_to(t.shape, S) and t.shape != S:
                opts.append((f"({v} + np.zeros({self.shape_text(fn, S)}, dtype={NP_NAME[ty.dt]}))", 0.3))
        if opts:
            return weighted(rng, opts)
        return self.fallback(fn, sc, ty, 0)

    def has(self, sc, ty):
        return any(t == ty for t in sc.vars.values())

    def prefer(self, sc, dt, options):
        """One of `options` (each a tuple whose first item is a shape), favouring shapes some value has."""
        have = {t.shape for t in sc.vars.values() if t.dt == dt}
        return weighted(self.rng, [(o, 6 if o[0] in have else 1) for o in options])

    def fallback(self, fn, sc, ty, d):
        """Exactly `ty` from whatever is in scope: a broadcast var plus zeros, a reduction, or ones."""
        S, np_dt = ty.shape, NP_NAME[ty.dt]
        subs = self.vars_of(sc, lambda t: t.dt == ty.dt and _broadcasts_to(t.shape, S))
        if subs:
            v = self.rng.choice(subs)
            if sc.vars[v].shape == S:
                return v
            return f"({v} + np.zeros({self.shape_text(fn, S)}, dtype={np_dt}))"
        same_dt = self.vars_of(sc, lambda t: t.dt == ty.dt)
        if same_dt:
            v = self.rng.choice(same_dt)
            red = f"np.{self.rng.choice(['sum', 'mean', 'max'])}({v})"
            return red if not S else f"(np.zeros({self.shape_text(fn, S)}, dtype={np_dt}) + {red})"
        floats = self.vars_of(sc, lambda t: t.dt in FLOATS)
        if floats and ty.dt in FLOATS:
            v = self.rng.choice(floats)
            red = f"np.mean({v}).astype({np_dt})"
            return red if not S else f"(np.zeros({self.shape_text(fn, S)}, dtype={np_dt}) + {red})"
        if not S:
            return f"{np_dt}({self.lit()})"
        return f"(np.ones({self.shape_text(fn, S)}, dtype={np_dt}) * {self.lit()})"

    def operand(self, fn, sc, ty, d):
        """An operand that broadcasts with an exact-`ty` operand to `ty`: a sub-shape, or a weak scalar."""
        r = self.rng.random()
        if r < 0.22:
            weak = self.vars_of(sc, lambda t: t.dt in (PYFLOAT, PYINT))
            if weak and self.rng.random() < 0.4:
                return self.rng.choice(weak)
            return self.lit()
        if r < 0.55:
            subs = {t.shape for t in sc.vars.values()
                    if t.dt == ty.dt and t.shape != ty.shape and _broadcasts_to(t.shape, ty.shape)}
            if subs and self.rng.random() < 0.75:
                return self.fexpr(fn, sc, ty.with_shape(self.rng.choice(sorted(subs, key=str))), d)
            return self.fexpr(fn, sc, ty.with_shape(sub_broadcast(self.rng, ty.shape)), d)
        return self.fexpr(fn, sc, ty, d)

    # ------------------------------------------------------------ productions (float results)

    def p_unary(self, fn, sc, ty, d):
        tmpl = weighted(self.rng, UNARY)
        return tmpl.format(self.fexpr(fn, sc, ty, d - 1), c=self.pos())

    def p_binary(self, fn, sc, ty, d):
        tmpl = weighted(self.rng, BINARY)
        a, b = self.fexpr(fn, sc, ty, d - 1), self.operand(fn, sc, ty, d - 1)
        if "np.abs({1})" in tmpl and (b in LITS or sc.vars.get(b, Ty(F32)).dt in (PYFLOAT, PYINT)):
            tmpl = "({0} / (abs({1}) + {c}))"  # np.abs would make a Python scalar a float64 array
        if self.rng.random() < 0.5:
            a, b = b, a
        return tmpl.format(a, b, c=self.pos())

    def p_where(self, fn, sc, ty, d):
        cond = self.bexpr(fn, sc, sub_broadcast(self.rng, ty.shape), d - 1)
        a, b = self.fexpr(fn, sc, ty, d - 1), self.operand(fn, sc, ty, d - 1)
        if self.rng.random() < 0.5:
            a, b = b, a
        return f"np.where({cond}, {a}, {b})"

    def p_ifexp(self, fn, sc, ty, d):
        return f"({self.fexpr(fn, sc, ty, d - 1)} if {self.cond(fn, sc, d - 1)} else {self.fexpr(fn, sc, ty, d - 1)})"

    def p_reduce(self, fn, sc, ty, d):
        op, S = self.rng.choice(REDUCE), ty.shape
        rng = self.rng
        if not S and rng.random() < 0.5:
            src_shapes = [t.shape for t in sc.vars.values() if t.dt in FLOATS and t.shape]
            if src_shapes:
                src = self.fexpr(fn, sc, ty.with_shape(rng.choice(src_shapes)), d - 1)
                return f"np.{op}({src})" if rng.random() < 0.7 else f"{src}.{op}()"
        ones = [k for k, dim in enumerate(S) if dim == 1]
        if ones and rng.random() < 0.7:
            src_shape, k = self.prefer(sc, ty.dt, [(S[:k] + (dim,) + S[k + 1:], k)
                                                  for k in ones for dim in fn.dims_avail])
            axis = k if rng.random() < 0.6 else k - len(S)
            src = self.fexpr(fn, sc, ty.with_shape(src_shape), d - 1)
            return f"np.{op}({src}, axis={axis}, keepdims=True)"
        if len(S) >= 3:
            return None
        src_shape, k = self.prefer(sc, ty.dt, [(S[:k] + (dim,) + S[k:], k)
                                              for k in range(len(S) + 1) for dim in fn.dims_avail])
        axis = k if rng.random() < 0.6 else k - len(src_shape)
        src = self.fexpr(fn, sc, ty.with_shape(src_shape), d - 1)
        if rng.random() < 0.25:
            return f"{src}.{op}(axis={axis})"
        return f"np.{op}({src}, axis={axis})"

    def p_matmul(self, fn, sc, ty, d):
        S, rng = ty.shape, self.rng
        have = {t.shape for t in sc.vars.values() if t.dt == ty.dt}
        ks = [(k, 1 + 4 * sum(s in have for s in ((k,), (S[0], k) if S else (k,), (k,) + S[-1:])))
              for k in fn.dims_avail]
        k = weighted(rng, ks)
        if len(S) == 0:
            a, b = (k,), (k,)
        elif len(S) == 1:
            a, b = ((k,), (k, S[0])) if rng.random() < 0.5 else ((S[0], k), (k,))
        elif len(S) == 2:
            a, b = (S[0], k), (k, S[1])
        elif len(S) == 3:
            a, b = (S[0], S[1], k), ((S[0], k, S[2]) if rng.random() < 0.4 else (k, S[2]))
        else:
            return None
        x, y = self.fexpr(fn, sc, ty.with_shape(a), d - 1), self.fexpr(fn, sc, ty.with_shape(b), d - 1)
        if rng.random() < 0.2:
            return f"np.matmul({x}, {y})"
        if rng.random() < 0.15 and len(a) <= 2 and len(b) <= 2:
            return f"np.dot({x}, {y})"
        return f"({x} @ {y})"

    def p_transpose(self, fn, sc, ty, d):
        S, rng = ty.shape, self.rng
        if len(S) == 2:
            src = self.fexpr(fn, sc, ty.with_shape((S[1], S[0])), d - 1)
            return rng.choice([f"{src}.T", f"np.transpose({src})", f"np.swapaxes({src}, 0, 1)"])
        if len(S) == 3:
            perm = [0, 1, 2]
            while perm == [0, 1, 2]:
                rng.shuffle(perm)
            # result axis j is source axis perm[j]: the source has S[j] at perm[j]
            src_shape = [None] * 3
            for j, p in enumerate(perm):
                src_shape[p] = S[j]
            src = self.fexpr(fn, sc, ty.with_shape(src_shape), d - 1)
            return f"np.transpose({src}, {tuple(perm)})"
        return None

    def p_reshape(self, fn, sc, ty, d):
        S, rng = ty.shape, self.rng
        options = []
        for j in range(len(S) - 1):
            if isinstance(S[j], int) and isinstance(S[j + 1], int) and S[j] > 1 and S[j + 1] > 1:
                options.append(S[:j] + (S[j] * S[j + 1],) + S[j + 2:])  # split one source dim in two
        for j, dim in enumerate(S):
            if isinstance(dim, int) and dim in FACTORS and len(S) < 3:
                options.append(S[:j] + FACTORS[dim] + S[j + 1:])  # merge two source dims
        if not options:
            return None
        have = [o for o in options if self.has(sc, ty.with_shape(o))]
        if not have and rng.random() < 0.7:
            return None
        src = self.fexpr(fn, sc, ty.with_shape(rng.choice(have or options)), d - 1)
        if len(S) == 1 and rng.random() < 0.4:
            return rng.choice([f"{src}.ravel()", f"{src}.reshape(-1)", f"np.ravel({src})"])
        dims = [self.dim_text(fn, x) for x in S]
        syms = [k for k, x in enumerate(S) if isinstance(x, str)]
        if len(syms) == 1 and rng.random() < 0.5:
            dims[syms[0]] = "-1"
        if rng.random() < 0.3:
            return f"np.reshape({src}, ({', '.join(dims)}{',' if len(dims) == 1 else ''}))"
        return f"{src}.reshape({', '.join(dims)})"

    def p_slice(self, fn, sc, ty, d):
        S, rng = ty.shape, self.rng
        axes = [j for j, x in enumerate(S) if isinstance(x, int) and x >= 1]
        if not axes:
            return None
        j = rng.choice(axes)
        m = S[j]
        style = rng.randrange(4)
        if style == 0:
            big, a = m + rng.randint(1, 3), None
            a = rng.randint(0, big - m)
            sl = f"{a}:{a + m}"
        elif style == 1:
            big = 2 * m - rng.randint(0, 1) if m > 1 else 1
            sl = "::2" if big > 1 else ":1"
        elif style == 2:
            big = m + rng.randint(1, 2)
            sl = f"-{m}:"
        else:
            big = m + rng.randint(1, 3)
            sl = f":{m}" if rng.random() < 0.5 else f":{m - big}" if m < big else ":"
        if not self.has(sc, ty.with_shape(S[:j] + (big,) + S[j + 1:])) and rng.random() < 0.7:
            return None
        src = self.fexpr(fn, sc, ty.with_shape(S[:j] + (big,) + S[j + 1:]), d - 1)
        idx = ", ".join([":"] * j + [sl])
        if j > 0 and j == len(S) - 1 and rng.random() < 0.4:
            idx = f"..., {sl}"
        return f"{src}[{idx}]"

    def p_index(self, fn, sc, ty, d):
        S, rng = ty.shape, self.rng
        if len(S) >= 3:
            return None
        j = rng.randrange(len(S) + 1)
        counters = [(c, dim) for c, dim in sc.counters.items() if dim is not None]
        dim, idx = None, None
        if counters and rng.random() < 0.5:
            idx, dim = rng.choice(counters)
        else:
            _, dim, j = self.prefer(sc, ty.dt, [(S[:jj] + (dd,) + S[jj:], dd, jj)
                                                for jj in range(len(S) + 1) for dd in fn.dims_avail])
            if isinstance(dim, int):
                idx = str(rng.randint(-dim, dim - 1))
            else:
                idx = rng.choice(["0", "-1"])
        src = self.fexpr(fn, sc, ty.with_shape(S[:j] + (dim,) + S[j:]), d - 1)
        if j == 0:
            return f"{src}[{idx}]"
        if j == len(S) and rng.random() < 0.4:
            return f"{src}[..., {idx}]"
        return f"{src}[{', '.join([':'] * j + [idx])}]"

    def p_expand(self, fn, sc, ty, d):
        S = ty.shape
        ones = [k for k, x in enumerate(S) if x == 1]
        if not ones:
            return None
        k = self.rng.choice(ones)
        src = self.fexpr(fn, sc, ty.with_shape(S[:k] + S[k + 1:]), d - 1)
        if self.rng.random() < 0.5:
            return f"np.expand_dims({src}, {k})"
        return f"{src}[{', '.join([':'] * k + ['None'])}]"

    def p_stack(self, fn, sc, ty, d):
        S = ty.shape
        ends = [j for j in (0, len(S) - 1) if S and isinstance(S[j], int) and 2 <= S[j] <= 3]
        if not ends:
            return None
        j = self.rng.choice(ends)
        inner = S[:j] + S[j + 1:]
        if not self.has(sc, ty.with_shape(inner)) and self.rng.random() < 0.7:
            return None
        parts = ", ".join(self.fexpr(fn, sc, ty.with_shape(inner), d - 1) for _ in range(S[j]))
        axis = 0 if j == 0 else -1
        return f"np.stack([{parts}], axis={axis})" if axis or self.rng.random() < 0.5 else f"np.stack([{parts}])"

    def p_concat(self, fn, sc, ty, d):
        S = ty.shape
        axes = [j for j, x in enumerate(S) if isinstance(x, int) and x >= 2]
        if not axes:
            return None
        j = self.rng.choice(axes)
        m1 = self.rng.randint(1, S[j] - 1)
        if self.rng.random() < 0.6 and not self.has(sc, ty.with_shape(S[:j] + (m1,) + S[j + 1:])):
            return None
        a = self.fexpr(fn, sc, ty.with_shape(S[:j] + (m1,) + S[j + 1:]), d - 1)
        b = self.fexpr(fn, sc, ty.with_shape(S[:j] + (S[j] - m1,) + S[j + 1:]), d - 1)
        return f"np.concatenate([{a}, {b}], axis={j})"

    def p_cast(self, fn, sc, ty, d):
        others = [t for t in (F32, F64) if t != ty.dt and any(v.dt == t for v in sc.vars.values())]
        if others and self.rng.random() < 0.6:
            src = self.fexpr(fn, sc, ty.with_dt(others[0]), d - 1)
            return f"{src}.astype({NP_NAME[ty.dt]})"
        if not ty.shape:
            ints = self.vars_of(sc, lambda t: t.dt in (I32, I64, PYINT) and not t.shape)
            if ints:
                return f"{NP_NAME[ty.dt]}({self.rng.choice(ints)})"
        return None

    def p_counter_mix(self, fn, sc, ty, d):
        """Arrays meeting integers: a Python-int loop counter (weak) or an i32 array (promotes to f64)."""
        weak = self.vars_of(sc, lambda t: t.dt == PYINT)
        if weak:
            return f"({self.fexpr(fn, sc, ty, d - 1)} * {self.rng.choice(weak)})"
        strong = self.vars_of(sc, lambda t: t.dt in (I32, I64) and not t.shape)
        if strong and ty.dt == F64:
            return f"({self.fexpr(fn, sc, ty, d - 1)} * {self.rng.choice(strong)})"
        if strong and ty.dt == F32:
            other = self.fexpr(fn, sc, ty, d - 1)
            return f"({other} * {self.rng.choice(strong)}).astype(np.float32)"
        return None

    def p_same_shape(self, fn, sc, ty, d):
        """Shape-preserving numpy: cumsum, flip, reversed slices, sort, roll; var and prod reductions."""
        rng, S = self.rng, ty.shape
        if not S:
            src_shapes = [t.shape for t in sc.vars.values() if t.dt == ty.dt and t.shape]
            if not src_shapes:
                return None
            src = self.fexpr(fn, sc, ty.with_shape(rng.choice(src_shapes)), d - 1)
            return rng.choice([f"np.var({src})", f"np.prod(np.tanh({src}) * 0.5 + 1.0)"])
        src = self.fexpr(fn, sc, ty, d - 1)
        ax = rng.randrange(len(S))
        opts = [f"np.cumsum({src}, axis={ax})", f"{src}[::-1]", f"np.roll({src}, {rng.choice([1, -1, 2])}, axis={ax})"]
        if "grad" not in self.features:  # autograd has no flip or multi-dimensional sort gradients
            opts.append(f"np.flip({src}, axis={ax})")
            opts.append(f"np.sort({src}, axis={ax - len(S) if rng.random() < 0.5 else ax})")
        return rng.choice(opts)

    def p_intpath(self, fn, sc, ty, d):
        """Through integers and back: truncating casts, floor division and modulo of negative ints."""
        rng = self.rng
        src = self.fexpr(fn, sc, ty, d - 1)
        it = rng.choice(["np.int32", "np.int64"])
        k = rng.choice([2, 3, -3])
        inner = rng.choice([f"(({src}) * 4.0).astype({it}) // {k}", f"(({src}) * 4.0).astype({it}) % {k}",
                            f"np.abs((({src}) * 3.0).astype({it}))", f"np.floor({src} * 2.0).astype({it})"])
        return f"({inner}).astype({NP_NAME[ty.dt]})"

    def p_fmod(self, fn, sc, ty, d):
        src = self.fexpr(fn, sc, ty, d - 1)
        return self.rng.choice([f"({src} % 0.75)", f"({src} // 0.5)", f"np.mod({src}, -0.75)",
                                f"np.floor_divide({src}, 0.75)"])

    def p_call(self, fn, sc, ty, d):
        return self.call_expr(fn, sc, ty, d)  # gen_stmt: helpers, closures, objects, recursion

    # ------------------------------------------------------------ bools, ints, Python scalars

    def bexpr(self, fn, sc, shape, d):
        rng = self.rng
        if d > 0 and rng.random() < 0.25:
            a, b = self.bexpr(fn, sc, shape, d - 1), self.bexpr(fn, sc, sub_broadcast(rng, shape), d - 1)
            return rng.choice([f"np.logical_and({a}, {b})", f"({a} | {b})", f"np.logical_or({a}, {b})",
                               f"({a} & {b})", f"np.logical_not({a})"])
        ty = Ty(self.F, tuple(shape))
        a = self.fexpr(fn, sc, ty, d - 1)
        b = self.operand(fn, sc, ty, d - 1) if rng.random() < 0.6 else self.lit()
        return f"({a} {rng.choice(['>', '<', '>=', '<='])} {b})"

    def iexpr(self, fn, sc, ty, d):
        """An integer array: argmax/counts for i64 scalars, the staged ints, or floats truncated."""
        rng = self.rng
        if not ty.shape:
            ints = self.vars_of(sc, lambda t: t == ty)
            floats = self.vars_of(sc, lambda t: t.dt in FLOATS and t.shape)
            r = rng.random()
            if floats and r < 0.4 and ty.dt == I64:
                v = rng.choice(floats)
                return rng.choice([f"np.argmax({v})", f"np.argmin({v})", f"np.sum({v} > 0.0)",
                                   f"np.count_nonzero({v} > {self.lit()})"])
            if ints and (r < 0.7 or "grad" in self.features):
                v = rng.choice(ints)
                return rng.choice([v, f"({v} + 1)", f"({v} * 2)", f"({v} // 2)", f"({v} - 1)"])
        src = self.fexpr(fn, sc, Ty(self.F, ty.shape), max(d - 1, 1))
        base = f"({src} * {rng.choice(['3.0', '4.0', '-2.5'])}).astype({NP_NAME[ty.dt]})"
        return rng.choice([base, f"({base} // {rng.choice([2, 3, -2])})", f"({base} % {rng.choice([2, 3, -3])})",
                           f"np.maximum({base}, 0)", f"({base} * {base} - 1)"])

    def pyexpr(self, sc, dt, d):
        weak = self.vars_of(sc, lambda t: t.dt == dt)
        if dt == PYINT:
            return self.rng.choice(weak) + " + 1" if weak and self.rng.random() < 0.5 else str(self.rng.randint(0, 3))
        if weak and self.rng.random() < 0.6:
            return f"{self.rng.choice(weak)} * {self.pos()}"
        return self.lit()

    def int_bound(self, fn, sc):
        """A loop bound or recursion depth: a run-time i32 when the function has one, else a Python int."""
        rng = self.rng
        staged = [v for v in fn.int_params if v in sc.vars]
        if staged and rng.random() < 0.8:
            n = rng.choice(staged)
            return rng.choice([n, n, f"{n} + 1", f"{n} // 2 + 1", f"{n} % 3"]), None
        return str(rng.randint(0, 4)), None

    def cond(self, fn, sc, d):
        """A staged scalar condition for `if`/`while`/`x if c else y` (may combine with and/or/not)."""
        rng = self.rng
        r = rng.random()
        if d > 0 and r < 0.15:
            a, b = self.cond(fn, sc, 0), self.cond(fn, sc, 0)
            return rng.choice([f"{a} and {b}", f"{a} or {b}", f"not ({a})"])
        counters = list(sc.counters)
        ints = [v for v in fn.int_params if v in sc.vars]
        if counters and r < 0.3:
            c = rng.choice(counters)
            return rng.choice([f"{c} > {rng.randint(0, 2)}", f"{c} % 2 == 1", f"{c} == {rng.randint(0, 2)}"])
        if ints and r < 0.45:
            n = rng.choice(ints)
            return rng.choice([f"{n} > {rng.randint(0, 3)}", f"{n} % 2 == 0", f"{n} <= {rng.randint(1, 3)}"])
        floats = self.vars_of(sc, lambda t: t.dt in FLOATS)
        if not floats:
            return rng.choice(["True", "False"])
        if rng.random() < 0.5:
            e = rng.choice(floats)
        else:
            e = self.fexpr(fn, sc, sc.vars[rng.choice(floats)], min(d, 1))
        t = sc.vars.get(e)
        if t is not None and not t.shape and rng.random() < 0.5:
            return f"{e} > {self.lit()}"
        red = rng.choice(["np.sum", "np.mean", "np.max", "np.min"])
        if rng.random() < 0.15:
            return f"np.any({e} > {self.lit()})"
        return f"{red}({e}) {rng.choice(['>', '<'])} {self.lit()}"


def _broadcasts_to(s, S):
    if len(s) > len(S):
        return False
    return all(a == b or a == 1 for a, b in zip(reversed(s), reversed(S)))
