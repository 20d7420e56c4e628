//! Sparse adjoints of gathers and accumulated adjoints threaded through the
//! continuations: a differentiated table gathered at every node of a
//! recursion, or a sequence indexed at every iteration of a loop, has one
//! adjoint buffer, made once (by the seed) and updated row by row in place
//! (`dyn_update_add`): no zero tensor or sum of its type in the generated
//! code. Gradients are checked against float64 central finite differences.

mod support;

use agc_ir::{DType, Module, TensorType, Type, UnaryOp};
use support::interp::T;
use support::models::{generated_ops, three_leaves, tree_with_table};
use support::{check_grad, f64t, for_range, module, scalarize, ty, Rng};

/// The names of the ops of the functions generated from `first` on that
/// make values of type `t`, with the function making them.
fn makers(m: &Module, first: usize, t: &TensorType) -> Vec<(String, String)> {
    generated_ops(m, first)
        .into_iter()
        .filter(|(_, op, ty)| *ty == Type::Tensor(t.clone()) && op != "return")
        .map(|(f, op, _)| (f, op))
        .collect()
}

/// Asserts the adjoint of type `t` is made once, by a seed, and only
/// updated in place or passed along.
fn one_buffer(m: &Module, first: usize, t: &TensorType) {
    let ops = makers(m, first, t);
    let text = agc_ir::print::print_module(m);
    let fills: Vec<_> = ops.iter().filter(|(_, op)| op == "fill").collect();
    assert_eq!(fills.len(), 1, "zero tensors of {t}: {fills:?}\n{text}");
    assert!(fills[0].0.contains(".seed"), "{fills:?}\n{text}");
    for (f, op) in &ops {
        assert!(
            matches!(
                op.as_str(),
                "fill" | "dyn_update_add" | "call" | "apply" | "cont_outputs" | "if"
            ),
            "{f} makes a {t} with `{op}`\n{text}"
        );
    }
    assert!(ops.iter().any(|(_, op)| op == "dyn_update_add"), "{text}");
}

#[test]
fn a_table_gathered_in_a_recursion_has_one_adjoint_buffer() {
    let table = f64t(&[6, 3]);
    let mut rng = Rng(89);
    let (mut m, main) = tree_with_table(&table);
    let first = m.funcs.len();
    check_grad(&mut m, main, &[0, 1], &three_leaves(&mut rng, 6));
    one_buffer(&m, first, &table);
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
    let first = m.funcs.len();
    let args = [
        rng.tensor(&[5, 3], -1.0, 1.0),
        rng.tensor(&[3], -1.0, 1.0),
        rng.tensor(&[3, 3], -0.8, 0.8),
        T::scalar(DType::I64, 3.0),
    ];
    check_grad(&mut m, main, &[0, 1, 2], &args);
    one_buffer(&m, first, &xs_t);
}
