//! The structural passes on IR built by hand: what is left (op names,
//! functions) and, through the reference interpreter, that the function
//! still computes the same values.

mod support;

use agc_ir::{CmpOp, DType, Export, FuncId, OpKind, ReduceKind, TensorType, UnaryOp, Value};
use agc_lowering::builder::Builder;
use agc_opt::passes::outline::{OutlineDeepRegions, MAX_LOOP_NESTING, MAX_NESTING};
use agc_opt::passes::{cse::Cse, dce::Dce, dead_functions::DeadFunctions, simplify::Simplify};
use support::{add_fn, check_same, module, op_names, run_pass, ty};

fn f64n() -> TensorType {
    ty(DType::F64, &["N"])
}

#[test]
fn dead_functions_keeps_what_exports_reach() {
    let mut m = agc_ir::Module::new("t");
    add_fn(&mut m, "unused", &[f64n()], |b, p| {
        vec![b.unary(UnaryOp::Exp, p[0])]
    });
    let helper = add_fn(&mut m, "helper", &[f64n()], |b, p| {
        vec![b.unary(UnaryOp::Sin, p[0])]
    });
    let main = add_fn(&mut m, "main", &[f64n()], |b, p| {
        b.call(helper, vec![p[0]], vec![f64n()])
    });
    m.exports.push(Export {
        func: main,
        c_name: "main".into(),
        doc: String::new(),
        assigns: vec![],
    });
    let before = m.clone();
    run_pass(&DeadFunctions, &mut m);
    let names: Vec<&str> = m.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["helper", "main"]);
    assert_eq!(m.exports[0].func, FuncId(1));
    // The call was renamed with its callee: same values.
    let args = vec![agc_ir::interp::T::new(DType::F64, &[2], vec![0.5, -1.0])];
    assert_eq!(
        agc_ir::interp::run(&before, main, args.clone()).unwrap(),
        agc_ir::interp::run(&m, FuncId(1), args).unwrap()
    );
}

#[test]
fn cse_merges_identical_ops() {
    let before = module(&[f64n()], |b, p| {
        let a = b.unary(UnaryOp::Exp, p[0]);
        let c = b.unary(UnaryOp::Exp, p[0]);
        vec![b.add(a, c).unwrap()]
    });
    let mut after = before.clone();
    run_pass(&Cse, &mut after);
    assert_eq!(op_names(&after.funcs[0]), ["add", "exp", "return"]);
    check_same(&before, &after, 300, 3);
}

#[test]
fn cse_merges_checked_ops_but_keeps_the_first() {
    // Two identical bounds-checked reads: the second reuses the first.
    let before = module(&[f64n(), ty(DType::I64, &[])], |b, p| {
        let a = b.dyn_index(p[0], &[p[1]]);
        let c = b.dyn_index(p[0], &[p[1]]);
        vec![b.add(a, c).unwrap()]
    });
    let mut after = before.clone();
    run_pass(&Cse, &mut after);
    assert_eq!(op_names(&after.funcs[0]), ["add", "dyn_index", "return"]);
    check_same(&before, &after, 300, 5);
}

/// `if p1 { exp(p0) } else { exp(p0) }`, with `exp(p0)` before the `if` when `hoisted`.
fn branches(hoisted: bool) -> agc_ir::Module {
    module(&[f64n(), ty(DType::Bool, &[])], |b, p| {
        let first = hoisted.then(|| b.unary(UnaryOp::Exp, p[0]));
        let mut arms = Vec::new();
        for _ in 0..2 {
            let r = b.f.new_region(&[]);
            let mut inner: Builder = b.at(r);
            let e = inner.unary(UnaryOp::Exp, p[0]);
            inner.terminate(OpKind::Yield, vec![e]);
            arms.push(r);
        }
        let out: Vec<Value> = b.op(OpKind::If, vec![p[1]], vec![f64n()], arms);
        vec![match first {
            Some(x) => b.add(x, out[0]).unwrap(),
            None => out[0],
        }]
    })
}

#[test]
fn cse_respects_dominance_across_regions() {
    // Sibling branches do not dominate each other: both exps stay.
    let mut m = branches(false);
    run_pass(&Cse, &mut m);
    assert_eq!(
        op_names(&m.funcs[0]),
        ["exp", "exp", "if", "return", "yield", "yield"]
    );
    // An op before the `if` dominates both branches: theirs are merged into it.
    let before = branches(true);
    let mut after = before.clone();
    run_pass(&Cse, &mut after);
    assert_eq!(
        op_names(&after.funcs[0]),
        ["add", "exp", "if", "return", "yield", "yield"]
    );
    check_same(&before, &after, 300, 7);
}

#[test]
fn dce_removes_unused_pure_ops_and_keeps_checks() {
    let before = module(&[f64n(), ty(DType::I64, &[])], |b, p| {
        let _unused = b.unary(UnaryOp::Exp, p[0]);
        let _unused_sum = b.reduce(ReduceKind::Sum, p[0], vec![0], false);
        // May fail (index out of range): kept although unused.
        let _check = b.dyn_index(p[0], &[p[1]]);
        // May fail on an empty input: kept.
        let _max = b.reduce(ReduceKind::Max, p[0], vec![0], false);
        vec![b.unary(UnaryOp::Sin, p[0])]
    });
    let mut after = before.clone();
    run_pass(&Dce, &mut after);
    assert_eq!(
        op_names(&after.funcs[0]),
        ["dyn_index", "reduce.max", "return", "sin"]
    );
    check_same(&before, &after, 300, 11);
}

#[test]
fn simplify_builds_values_before_the_regions_that_use_them() {
    // The exp before the `if` is used only inside the branches (after CSE)
    // and by the add after it: it is built once, before the `if`.
    let before = branches(true);
    let mut after = before.clone();
    run_pass(&Cse, &mut after);
    run_pass(&Simplify::EXACT, &mut after);
    assert_eq!(
        op_names(&after.funcs[0]),
        ["add", "exp", "if", "return", "yield", "yield"]
    );
    check_same(&before, &after, 300, 13);
}

/// `if s > 40 { x * 0 } elif s > 39 { x * 1 } ... else { x }` with `levels`
/// conditions, `s = sum(x)`, nested as `elif` chains are staged.
fn elif_chain(levels: usize) -> agc_ir::Module {
    fn level(
        b: &mut agc_lowering::builder::Builder,
        x: Value,
        s: Value,
        k: usize,
        n: usize,
    ) -> Value {
        if k == n {
            return x;
        }
        let bound = b.scalar(DType::F64, 40.0 - k as f64);
        let c = b.compare(CmpOp::Gt, s, bound).unwrap();
        let then = b.f.new_region(&[]);
        let mut inner = b.at(then);
        let v = inner.mul_const(x, k as f64).unwrap();
        inner.terminate(OpKind::Yield, vec![v]);
        let other = b.f.new_region(&[]);
        let mut inner = b.at(other);
        let v = level(&mut inner, x, s, k + 1, n);
        inner.terminate(OpKind::Yield, vec![v]);
        b.op(OpKind::If, vec![c], vec![f64n()], vec![then, other])[0]
    }
    module(&[f64n()], |b, p| {
        let s = b.reduce(ReduceKind::Sum, p[0], vec![0], false);
        vec![level(b, p[0], s, 0, levels)]
    })
}

#[test]
fn outline_cuts_deep_if_chains_into_functions() {
    let before = elif_chain(80);
    let mut after = before.clone();
    run_pass(&OutlineDeepRegions, &mut after);
    // 80 levels, cut every 32: two new functions, each starting with the `if` it holds.
    assert_eq!(
        after.funcs.len(),
        3,
        "{}",
        agc_ir::print::print_module(&after)
    );
    for f in &after.funcs {
        let mut depth = 0;
        let mut r = f.body;
        while let Some(&op) = f
            .region(r)
            .ops
            .iter()
            .find(|&&op| !f.op(op).regions.is_empty())
        {
            depth += 1;
            r = *f.op(op).regions.last().unwrap();
        }
        assert!(depth <= MAX_NESTING + 1, "{}: {depth} levels", f.name);
    }
    let calls = after.funcs[0]
        .ops_within(after.funcs[0].body)
        .into_iter()
        .filter(|&op| matches!(after.funcs[0].op(op).kind, OpKind::Call { .. }))
        .count();
    assert_eq!(calls, 1);
    // Sums of 0..3 random values reach levels past the cuts.
    check_same(&before, &after, 300, 13);
}

#[test]
fn outline_leaves_shallow_regions_alone() {
    let before = elif_chain(MAX_NESTING);
    let mut after = before.clone();
    run_pass(&OutlineDeepRegions, &mut after);
    assert_eq!(after.funcs.len(), 1);
    assert_eq!(
        agc_ir::print::print_module(&after),
        agc_ir::print::print_module(&before)
    );
}

/// `depth` nested loops `for _ in range(2)` around `x = x * 0.5 + 1`, as
/// the IR text the front end stages for them.
fn loop_nest(depth: usize) -> agc_ir::Module {
    fn level(k: usize, depth: usize, x: String, next: &mut usize, out: &mut String) -> String {
        let mut fresh = || {
            *next += 1;
            format!("%{next}")
        };
        if k == depth {
            let (half, one, mul, add) = (fresh(), fresh(), fresh(), fresh());
            out.push_str(&format!(
                "{half} = const {{[0.5]}} : f32[]\n{mul} = mul {x}, {half} : f32[N]\n\
                 {one} = const {{[1]}} : f32[]\n{add} = add {mul}, {one} : f32[N]\n"
            ));
            return add;
        }
        let (i, y, a, b, test, c, d, step) = (
            fresh(),
            fresh(),
            fresh(),
            fresh(),
            fresh(),
            fresh(),
            fresh(),
            fresh(),
        );
        out.push_str(&format!(
            "{i}, {y} = while %1, {x} : i64[], f32[N]\n\
             ^({a}: i64[], {b}: f32[N]) {{\n{test} = cmp.lt {a}, %3 : bool[]\n\
             condition {test}, {a}, {b}\n}}\n^({c}: i64[], {d}: f32[N]) {{\n"
        ));
        let inner = level(k + 1, depth, d, next, out);
        out.push_str(&format!(
            "{step} = add {c}, %2 : i64[]\nyield {step}, {inner}\n}}\n"
        ));
        y
    }
    let mut body = String::new();
    let mut next = 100;
    let result = level(0, depth, "%0".into(), &mut next, &mut body);
    let text = format!(
        "module @nest {{\n  export @nest = nest\nfunc @nest(%0: f32[N]) -> (f32[N]) {{\n\
         %1 = const {{[0]}} : i64[]\n%2 = const {{[1]}} : i64[]\n\
         %3 = const {{[2]}} : i64[]\n{body}return {result}\n}}\n}}\n"
    );
    agc_ir::parse::parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The deepest nesting of `while` ops in `f`.
fn loop_depth(f: &agc_ir::Function, r: agc_ir::RegionId) -> usize {
    f.region(r)
        .ops
        .iter()
        .map(|&op| {
            let inner = f.op(op).regions.iter().map(|&r| loop_depth(f, r)).max();
            inner.unwrap_or(0) + usize::from(f.op(op).kind == OpKind::While)
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn outline_cuts_deep_loop_nests_into_functions() {
    let before = loop_nest(MAX_LOOP_NESTING + 4);
    let mut after = before.clone();
    run_pass(&OutlineDeepRegions, &mut after);
    // The loop inside 8 loops and the 3 in it move to a function of their own.
    let depths: Vec<usize> = after.funcs.iter().map(|f| loop_depth(f, f.body)).collect();
    assert_eq!(
        depths,
        [MAX_LOOP_NESTING, 4],
        "{}",
        agc_ir::print::print_module(&after)
    );
    check_same(&before, &after, 6, 17);
}

#[test]
fn outline_leaves_shallow_loop_nests_alone() {
    let before = loop_nest(MAX_LOOP_NESTING);
    let mut after = before.clone();
    run_pass(&OutlineDeepRegions, &mut after);
    assert_eq!(
        agc_ir::print::print_module(&after),
        agc_ir::print::print_module(&before)
    );
}
