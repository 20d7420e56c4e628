"""Whole programs: module constants, helpers, classes, recursive functions, and the export.

`generate(campaign_seed, index, attempt)` is deterministic: a `Program` with
its source (all top-level names prefixed `p<index>_`, so that many programs
share one module) and what the oracle needs about each export (parameter
types, integer input ranges, and for gradient exports the loss and argnums).
"""

import random
from dataclasses import dataclass, field

from .gen_expr import ExprGen, weighted
from .gen_stmt import IND, Callable, Fn, Scope, StmtGen, indent
from .static_types import F32, F64, FLOATS, I32, I64, PYFLOAT, PYINT, SPEC_NAME, Ty

HEADER = "import agc\nimport agc.numpy as np\n"

# Program mixes: statement budgets of the export and of a differentiated loss. "quick" (the pytest's)
# keeps programs shorter, so that a few hundred build in a few minutes on two cores.
MIXES = {"default": {"top": (3, 9), "loss": (2, 7)}, "quick": {"top": (2, 6), "loss": (1, 4)}}

FEATURES = ["if", "static", "loops", "lists", "returns", "helpers", "classes", "closures", "recursion", "grad"]
FEATURE_P = {"if": 0.55, "static": 0.25, "loops": 0.55, "lists": 0.25, "returns": 0.3, "helpers": 0.35,
             "classes": 0.2, "closures": 0.2, "recursion": 0.25, "grad": 0.3}


@dataclass
class ExportInfo:
    name: str
    params: list  # [(name, Ty)]
    int_ranges: dict = field(default_factory=dict)  # param -> (lo, hi) for each input set
    tree: tuple = None  # (left, right): index arrays of a random binary tree over the symbolic dim "N"
    grad: dict = None  # {"loss": name, "argnums": int|tuple, "value": bool}: results are [value] + gradients
    uses_grad: bool = False  # the export differentiates something (gradient tolerances)
    ret_tys: list = None  # declared result types (checked against the eager run)


@dataclass
class Program:
    pid: str
    campaign_seed: int
    index: int
    attempt: int
    source: str  # without HEADER
    exports: list
    features: list

    def module_source(self):
        return HEADER + "\n\n" + self.source


class Klass:
    def __init__(self, name, init, attrs, methods, step):
        self.name, self.init, self.attrs, self.methods, self.step = name, init, attrs, methods, step


class ProgramGen(ExprGen, StmtGen):
    def __init__(self, rng, prefix, mix="default"):
        self.rng, self.P = rng, prefix
        self.top_budget = MIXES[mix]["top"]
        self.loss_budget = MIXES[mix]["loss"]
        self.F = F32 if rng.random() < 0.6 else F64
        self.static = sorted(rng.sample([2, 3, 4, 5], rng.randint(2, 3)))
        self.sym = ["B"] if rng.random() < 0.7 else (["B", "T"] if rng.random() < 0.5 else [])
        self.features = {f for f in FEATURES if rng.random() < FEATURE_P[f]}
        self.top = []  # module-level chunks (lists of lines), in order of creation
        self.consts = []
        self.helpers = []
        self.ntop = 0
        self.tree = None

    # ------------------------------------------------------------ module level

    def fresh_top(self, base):
        self.ntop += 1
        return f"{self.P}_{base}{self.ntop}"

    def emit(self, lines):
        self.top.append(lines)

    def module_const(self):
        name = f"{self.P.upper()}_FLAG{len(self.consts) + 1}"
        self.consts.append(f"{name} = {self.rng.choice(['True', 'False'])}")
        return name

    def rand_shape(self, rank):
        dims = []
        for k in range(rank):
            if self.sym and (k == 0 and self.rng.random() < 0.6 or self.rng.random() < 0.15):
                dims.append(self.rng.choice(self.sym))
            else:
                dims.append(self.rng.choice(self.static))
        return tuple(dims)

    def covering_params(self, fn, sc, ret, want):
        """Parameter types for a new function returning `ret`: `want` of them, from the caller's
        scope, such that every symbolic dim of `ret` is some parameter's dim."""
        rng = self.rng
        floats = [t for t in sc.vars.values() if t.dt in FLOATS and all(
            not isinstance(d, str) or d in fn.dimexpr for d in t.shape)]
        tys = [ret if rng.random() < 0.6 or not floats else rng.choice(floats)]
        while len(tys) < want and floats:
            tys.append(rng.choice(floats))
        missing = {d for d in ret.shape if isinstance(d, str)} - {d for t in tys for d in t.shape}
        if missing:
            tys[0] = ret
        return tys

    # ------------------------------------------------------------ helpers

    def new_helper(self, fn, sc, ret):
        rng = self.rng
        name = self.fresh_top("h")
        tys = self.covering_params(fn, sc, ret, rng.randint(1, 3))
        pnames = ["a", "b", "c"][: len(tys)]
        params = list(zip(pnames, tys))
        opts = [("scale", Ty(PYFLOAT), self.pos(), False)]
        if rng.random() < 0.4:
            opts.append(("shift", Ty(PYFLOAT), "0.0", True))
        flag = None
        if rng.random() < 0.3:
            flag = ("mode", rng.choice([["tanh", "sin"], [True, False]]))
        staged_int = None
        if fn.int_params and rng.random() < 0.25:
            staged_int = ("m", Ty(I32))
            params.append(staged_int)
        sub = Fn(self, name, params, [ret], "helper", fn.depth + 1)
        sub.budget = rng.randint(0, 3)
        hsc = Scope({p: t for p, t in params})
        for p, t, _, _ in opts:
            hsc.vars[p] = t
        sig = ", ".join(pnames + ([staged_int[0]] if staged_int else []))
        sig += f", scale={opts[0][2]}"
        kwonly = [o for o in opts if o[3]]
        if flag:
            dflt = flag[1][0]
            sig += f", {flag[0]}={dflt!r}"
            hsc.flags[flag[0]] = flag[1]
        if kwonly:
            sig += ", *, " + ", ".join(f"{p}={d}" for p, _, d, _ in kwonly)
        body = self.block(sub, hsc, sub.budget, 0, False)
        ret_text = self.fexpr(sub, hsc, ret, 2)
        if kwonly:
            ret_text = f"{ret_text} + shift"
        self.emit([f"def {name}({sig}):"] + indent(body + [f"return {ret_text}"]) + [""])
        all_opts = list(opts) + ([(flag[0], None, repr(flag[1][0]), False)] if flag else [])
        c = Callable(name, params, ret, [o for o in all_opts if o[1] is not None], "helper")
        if flag:
            c.opts.append((flag[0], Ty("flag"), repr(flag[1][0]), False))
            c.flag_values = flag[1]
        self.helpers.append(c)
        return c

    def new_recursive(self, fn, sc, ret):
        """A function whose recursion depth is a run-time int (when the caller has one)."""
        rng = self.rng
        name = self.fresh_top("rec")
        extra = None
        if rng.random() < 0.4:
            extra = self.covering_params(fn, sc, ret, 2)[1]
        bound, _ = self.int_bound(fn, sc)
        staged = [p for p in fn.int_params if bound.startswith(p)]
        kty = sc.vars[staged[0]] if staged else Ty(PYINT)
        params = [("x", ret), ("k", kty)] + ([("y", extra)] if extra else [])
        sub = Fn(self, name, params, [ret], "rec", fn.depth + 1)
        rsc = Scope({p: t for p, t in params})
        rsc.vars["alpha"] = Ty(PYFLOAT)
        rsc.readonly |= {"k", "alpha"}
        sub.int_params = [p for p in sub.int_params if p != "k"]
        stop = "k <= 0"
        if rng.random() < 0.25:
            stop = f"k <= 0 or np.sum(np.abs(x)) < {rng.choice(['0.1', '0.5'])}"
        base = self.fexpr(sub, rsc, ret, 1)
        rsc0 = rsc.child()  # the parameters only, for the mutual partner's body
        sub.budget = rng.randint(0, 2)
        body = self.block(sub, rsc, sub.budget, 1, False)
        ykw = ", y=y" if extra else ""
        ypos = ", y" if extra else ""

        def step_arg(scope=rsc):
            return self.rng.choice([f"x * alpha + {self.lit()}", "np.tanh(x)", f"np.sin(x) * {self.pos()}",
                                    f"x * {self.rng.choice(['0.5', '0.9'])}", self.fexpr(sub, scope, ret, 1)])

        style = rng.randrange(7)
        if style == 6:  # mutual recursion: name calls name_b calls name
            other = name + "b"
            rec = f"{other}({step_arg()}, k - 1{ypos})"
            back = f"{name}({step_arg(rsc0)}, k - 1{ypos})"
            self.emit([f"def {other}(x, k{', y' if extra else ''}, alpha={self.pos()}):",
                       IND + "if k <= 0:", IND * 2 + f"return {self.fexpr(sub, rsc0, ret, 1)}",
                       IND + f"return {self.fexpr(sub, rsc0, ret, 1)} * 0.25 + {back}", ""])
        elif style == 0:
            rec = f"{name}({step_arg()}, k - 1{ypos}, alpha=alpha)"
        elif style == 1:
            rec = f"{name}(x={step_arg()}, k=k - 1{ykw})"
        elif style == 2:
            rec = f"{self.fexpr(sub, rsc, ret, 1)} * 0.5 + {name}({step_arg()}, k - 1{ypos})"
        elif style == 3:
            rec = f"{name}({step_arg()}, k - 1{ypos}) + {name}({step_arg()}, k - 2{ypos}) * 0.5"
        elif style == 4:
            rec = f"{name}({step_arg()}, k=k - 1, alpha=alpha{ykw})"
        else:
            rec = f"np.tanh({name}({step_arg()}, k - 1{ypos}, alpha))"
        self.emit([f"def {name}(x, k{', y' if extra else ''}, alpha={self.pos()}):",
                   IND + f"if {stop}:", IND * 2 + f"return {base}"] + indent(body + [f"return {rec}"]) + [""])
        c = Callable(name, [("x", ret)], ret, kind="rec")
        c.params.append(("k", Ty("depth", (bound,))))
        if extra:
            c.params.append(("y", extra))
        return c

    def new_tree(self, fn, sc):
        """A recursion over a binary tree given as run-time index arrays (-1 marks a leaf), as
        TreeLSTM-style models do: the depth and shape of the recursion are run-time data."""
        rng = self.rng
        name = self.fresh_top("tree")
        emb_name, (L, R) = fn.tree_emb, fn.tree_idx
        ety = sc.vars[emb_name]
        row = ety.with_shape(ety.shape[1:])
        params = [("i", Ty(I64)), ("left", sc.vars[L]), ("right", sc.vars[R]), ("emb", ety)]
        sub = Fn(self, name, params, [row], "rec", fn.depth + 1)
        tsc = Scope({p: t for p, t in params})
        tsc.readonly |= {"i", "left", "right", "emb"}
        leaf = rng.choice(["np.tanh(emb[i])", "emb[i]", "np.sin(emb[i]) * 0.5"])
        tsc.vars["a"], tsc.vars["b"], tsc.vars["e"] = row, row, row
        combine = self.fexpr(sub, tsc, row, 2)
        call = rng.choice([f"{name}(left[i], left, right, emb)", f"{name}(left[i], left, right, emb=emb)"])
        callr = call.replace("left[i]", "right[i]", 1)
        self.emit([f"def {name}(i, left, right, emb):", IND + "if left[i] < 0:", IND * 2 + f"return {leaf}",
                   IND + f"a = {call}", IND + f"b = {callr}", IND + "e = emb[i]",
                   IND + f"return np.tanh({combine} * 0.5 + a * 0.25 + b * 0.25)", ""])
        return f"{name}(0, {L}, {R}, {emb_name})", row

    def new_class(self, fn, sc, ret=None):
        rng = self.rng
        name = f"{self.P.upper()}Cls{self.ntop + 1}"
        self.ntop += 1
        tys = self.covering_params(fn, sc, ret or self.pick_ty(fn, sc), 2)
        ret = ret or tys[0]
        attrs = [("w", tys[0]), ("b", tys[1])] if len(tys) > 1 else [("w", tys[0])]
        vty = self.rng.choice([t for _, t in attrs])
        init = Callable(name, [(a, t) for a, t in attrs], None, [("scale", Ty(PYFLOAT), self.pos(), False)])
        lines = [f"class {name}:", IND + f"def __init__(self, {', '.join(a for a, _ in attrs)}, scale={init.opts[0][2]}):"]
        lines += [IND * 2 + f"self.{a} = {a}" for a, _ in attrs] + [IND * 2 + "self.scale = scale", ""]
        extra = [(f"self.{a}", t) for a, t in attrs]
        msc = Scope({f"self.{a}": t for a, t in attrs})
        msc.vars["self.scale"] = Ty(PYFLOAT)
        msc.vars["v"] = vty
        sub = Fn(self, "apply", [("v", vty)], [ret], "method", fn.depth + 1, extra_vars=extra)
        sub.budget = rng.randint(0, 2)
        body = self.block(sub, msc, sub.budget, 1, False)
        mname = "apply" if rng.random() < 0.7 else "__call__"
        lines += [IND + f"def {mname}(self, v):"] + indent(body + [f"return {self.fexpr(sub, msc, ret, 2)}"], 2)
        method = Callable(mname, [("v", vty)], ret, kind="method", keywords=mname == "apply")
        step = None
        if rng.random() < 0.4:
            a, t = rng.choice(attrs)
            ssc = Scope({f"self.{x}": tt for x, tt in attrs})
            ssc.vars["self.scale"] = Ty(PYFLOAT)
            ssc.vars["v"] = t
            ssub = Fn(self, "step", [("v", t)], [], "method_step", fn.depth + 1, extra_vars=extra)
            upd = self.fexpr(ssub, ssc, t, 2)
            lines += ["", IND + "def step(self, v):", IND * 2 + f"self.{a} = self.{a} * self.scale + {upd}"]
            step = Callable("step", [("v", t)], None, kind="method")
        self.emit(lines + [""])
        k = Klass(name, init, attrs, [method], step)
        if mname == "__call__":
            method.name = ""  # obj(...) calls it
        return k

    # ------------------------------------------------------------ exports

    def export_params(self):
        rng = self.rng
        n = rng.randint(1, 3)
        params = []
        for k in range(n):
            rank = weighted(rng, [(0, 0.6), (1, 3), (2, 3.5), (3, 1)])
            params.append((f"x{k}", Ty(self.F, self.rand_shape(rank))))
        if all(not t.shape for _, t in params):
            params[0] = ("x0", Ty(self.F, self.rand_shape(2)))
        if self.F == F32 and rng.random() < 0.1:
            params.append((f"x{n}", Ty(F64, self.rand_shape(1))))
        ints = {}
        self.tree = None
        if "recursion" in self.features and rng.random() < 0.3:
            d = rng.choice(self.static)
            params.append(("emb", Ty(self.F, ("N", d))))
            params += [("left", Ty(I64, ("N",))), ("right", Ty(I64, ("N",)))]
            self.tree = ("emb", ("left", "right"))
        if rng.random() < 0.6 or "recursion" in self.features:
            params.append(("n", Ty(I32 if rng.random() < 0.8 else I64)))
            ints["n"] = [(0, 4), (1, 5)]
        return params, ints

    def ret_types(self, params):
        rng = self.rng
        floats = [t for _, t in params if t.dt in FLOATS]
        out = []
        for _ in range(1 if rng.random() < 0.65 else 2):
            r = rng.random()
            if r < 0.6:
                out.append(rng.choice(floats).with_dt(self.F))
            elif r < 0.85:
                out.append(Ty(self.F))
            else:
                dims = sorted({d for _, t in params for d in t.shape}, key=str)
                out.append(Ty(self.F, tuple(rng.choice(dims) for _ in range(rng.randint(1, 2)))))
        if rng.random() < 0.07:
            out.append(Ty(rng.choice([I64, I64, I32]), rng.choice([(), (), floats[0].shape])))
        return out

    def forward_export(self, name, params):
        rng = self.rng
        rets = self.ret_types(params)
        fn = Fn(self, name, params, rets, "export", 0)
        sc = Scope({p: t for p, t in params})
        static = None
        if rng.random() < 0.1:
            static = ("training", [True, False])
            sc.flags["training"] = static[1]
            self.features.add("static")
        fn.budget = rng.randint(*self.top_budget)
        body = self.block(fn, sc, fn.budget, 0, False)
        body.append(self.ret_line(fn, sc, final=True))
        sig = ", ".join(f"{p}: {spec(t)}" for p, t in params)
        decos = ["@agc.export"]
        names = [name]
        if static:
            sig += ", training=False"
            names = [f"{name}_t", f"{name}_e"]
            decos = [f'@agc.export(name="{names[0]}", training=True)', f'@agc.export(name="{names[1]}", training=False)']
        self.emit(decos + [f"def {name}({sig}):"] + indent(body) + [""])
        return names, rets

    def grad_export(self, name, params):
        rng = self.rng
        floats = [k for k, (_, t) in enumerate(params) if t.dt == self.F]
        loss = self.fresh_top("loss")
        lfn = Fn(self, loss, params, [Ty(self.F)], "loss", 0)
        lsc = Scope({p: t for p, t in params})
        lfn.budget = rng.randint(*self.loss_budget)
        body = self.block(lfn, lsc, lfn.budget, 0, False)
        tail = [t for v, t in lsc.vars.items() if t.dt == self.F]
        red = rng.choice(["np.sum", "np.mean"])
        final_ty = rng.choice(tail)
        final = self.with_live(lsc, final_ty, self.fexpr(lfn, lsc, final_ty, 2))
        body.append(f"return {red}({final})" if rng.random() < 0.8 else f"return {red}(np.square({final}))")
        self.emit([f"def {loss}({', '.join(p for p, _ in params)}):"] + indent(body) + [""])
        k = rng.randint(1, len(floats))
        nums = sorted(rng.sample(floats, k))
        if rng.random() < 0.3:
            rng.shuffle(nums)
        argnums = nums[0] if len(nums) == 1 and rng.random() < 0.6 else tuple(nums)
        args = ", ".join(p for p, _ in params)
        style = rng.random()
        info = {"loss": loss, "argnums": argnums, "value": False}
        if style < 0.5:
            lines = [f"return agc.grad({loss}, argnums={argnums!r})({args})"]
            if argnums == 0 and rng.random() < 0.5:
                lines = [f"return agc.grad({loss})({args})"]
        elif style < 0.8:
            info["value"] = True
            lines = [f"value, grads = agc.value_and_grad({loss}, argnums={argnums!r})({args})", "return value, grads"]
        elif style < 0.9:
            # gradient descent steps inside the export: the grad inside a (staged or unrolled) loop
            j = nums[0]
            wname = params[j][0]
            gargs = ", ".join("w" if i == j else p for i, (p, _) in enumerate(params))
            bound = "n" if "n" in dict(params) else "3"
            lines = ["w = " + wname, f"for _ in range({bound}):",
                     IND + f"w = w - 0.1 * agc.grad({loss}, argnums={j})({gargs})", "return w"]
            info = None
        else:
            j = nums[0]
            wname = params[j][0]
            largs = ", ".join("w" if i == j else p for i, (p, _) in enumerate(params))
            lines = [f"return agc.grad(lambda w: {loss}({largs}))({wname})"]
            info = {"loss": loss, "argnums": j, "value": False}
        sig = ", ".join(f"{p}: {spec(t)}" for p, t in params)
        self.emit(["@agc.export", f"def {name}({sig}):"] + indent(lines) + [""])
        return info


def spec(t):
    dims = ", ".join(repr(d) for d in t.shape)
    return f"agc.{SPEC_NAME[t.dt]}[{dims if t.shape else '()'}]"


def program_rng(campaign_seed, index, attempt):
    return random.Random(f"agc-fuzz/{campaign_seed}/{index}/{attempt}")


def generate(campaign_seed, index, attempt=0, mix="default"):
    rng = program_rng(campaign_seed, index, attempt)
    prefix = f"p{index}"
    g = ProgramGen(rng, prefix, mix)
    params, ints = g.export_params()
    name = f"{prefix}_f"
    exports = []
    if "grad" in g.features:
        info = g.grad_export(name, params)
        exports.append(ExportInfo(name, params, ints, grad=info, uses_grad=True, tree=g.tree and g.tree[1]))
    else:
        names, rets = g.forward_export(name, params)
        exports += [ExportInfo(n, params, ints, ret_tys=rets, tree=g.tree and g.tree[1]) for n in names]
    chunks = ([g.consts + [""]] if g.consts else []) + g.top
    source = "\n".join(line for chunk in chunks for line in chunk)
    return Program(f"{campaign_seed}-{index}", campaign_seed, index, attempt, source, exports, sorted(g.features))
