//! Sparse adjoints of gathers and accumulated adjoints threaded through the
//! continuations: a differentiated table gathered at every node of a
//! recursion, or a sequence indexed at every iteration of a loop, has one
//! adjoint buffer, made once (zeros where its accumulation starts) and
//! updated row by row in place (`dyn_update_add`): the reference
//! interpreter runs one zero fill of its type per gradient, and no sum.
//! Gradients are checked against float64 central finite differences.

mod support;

use agc_ir::{DType, FuncId, Module, TensorType, Type, UnaryOp};
use support::interp::{self, T};
use support::models::{generated_ops, three_leaves, tree_with_table};
use support::{check_grad, f64t, for_range, module, scalarize, ty, Rng};

/// Runs the last gradient function of `m` on `args`, and asserts that the
/// adjoint of type `t` is made once (a zero tensor where its accumulation
/// starts), never summed with another (no `add`), and updated in place
/// (`dyn_update_add`) by every gather; the IR has no `add` of type `t`.
fn one_buffer(m: &Module, t: &TensorType, args: &[T], gathers: usize) {
    let text = agc_ir::print::print_module(m);
    let t = Type::Tensor(t.clone()).to_string();
    let adds: Vec<_> = generated_ops(m, 0)
        .into_iter()
        .filter(|(_, op, ty)| op == "add" && ty.to_string() == t)
        .collect();
    assert!(adds.is_empty(), "sums of {t}: {adds:?}\n{text}");
    let g = m
        .funcs
        .iter()
        .rposition(|f| f.name.ends_with(".value_and_grad"))
        .expect("a gradient function");
    let (out, counts) = interp::count_ops(|| interp::run(m, FuncId(g as u32), args.to_vec()));
    out.unwrap_or_else(|e| panic!("{e}\n{text}"));
    let n = |op: &str| {
        counts
            .get(&(op.to_string(), t.clone()))
            .copied()
            .unwrap_or(0)
    };
    assert_eq!(n("fill"), 1, "zero tensors of {t} made: {counts:?}\n{text}");
    assert_eq!(n("dyn_update_add"), gathers, "{counts:?}\n{text}");
}

#[test]
fn a_table_gathered_in_a_recursion_has_one_adjoint_buffer() {
    let table = f64t(&[6, 3]);
    let mut rng = Rng(89);
    let (mut m, main) = tree_with_table(&table);
    let args = three_leaves(&mut rng, 6);
    check_grad(&mut m, main, &[0, 1], &args);
    one_buffer(&m, &table, &args, 3);
}

#[test]
fn a_sequence_indexed_in_a_loop_has_one_adjoint_buffer() {
    // for t in range(n): h = tanh(xs[t] + h @ w); loss sum(h * sin(h)).
    let xs_t = ty(DType::F64, &["T", "3"]);
    let (mut m, main) = module(
        &[xs_t.clone(), f64t(&[3]), f64t(&[3, 3]), ty(DType::I64, &[])],
        |b, p| {
            let (xs, h0, w, n) = (p[0], p[1], p[2], p[3]);
            let out = for_range(b, n, vec![h0], |b, i, s| {
                let x = b.dyn_index(xs, &[i]);
                let hw = b.matmul(s[0], w).unwrap();
                let pre = b.add(hw, x).unwrap();
                vec![b.unary(UnaryOp::Tanh, pre)]
            });
            vec![scalarize(b, out[0])]
        },
    );
    let mut rng = Rng(97);
    for n in [0, 1, 4] {
        let args = [
            rng.tensor(&[5, 3], -1.0, 1.0),
            rng.tensor(&[3], -1.0, 1.0),
            rng.tensor(&[3, 3], -0.8, 0.8),
            T::scalar(DType::I64, n as f64),
        ];
        check_grad(&mut m.clone(), main, &[0, 1, 2], &args);
    }
    let args = [
        rng.tensor(&[5, 3], -1.0, 1.0),
        rng.tensor(&[3], -1.0, 1.0),
        rng.tensor(&[3, 3], -0.8, 0.8),
        T::scalar(DType::I64, 4.0),
    ];
    check_grad(&mut m, main, &[0, 1, 2], &args);
    one_buffer(&m, &xs_t, &args, 4);
}
