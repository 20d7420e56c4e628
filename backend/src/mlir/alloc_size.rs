//! The byte size of a new tensor, checked before it is allocated.
//!
//! A tensor whose sizes are known only at run time (an outer product of
//! three large vectors, `np.ones((n, m))`) may need more bytes than a 64-bit
//! size holds: MLIR's allocation lowering multiplies the sizes without
//! looking, and a wrapped product would allocate a small block that the
//! kernel then writes past. Before every such `tensor.empty` the code
//! multiplies the element size by each run-time size with
//! `arith.mului_extended` and, when a size is negative or the product leaves
//! the signed 64-bit range, calls the runtime's `agc_rt_fail_shape`, which
//! abandons the call with `OUT_OF_MEMORY` (or `INVALID_ARGUMENT` for a
//! negative size) and a message giving the shape. A check is emitted once
//! per shape in a block: later tensors of the same sizes in it need none.

use super::emitter::FnEmitter;
use agc_ir::{Dim, TensorType};

/// The runtime function called on a size that cannot be allocated:
/// `(element bytes, rank, the first four sizes)`.
pub const RUNTIME_DECLS: &str =
    "  func.func private @agc_rt_fail_shape(i64, i64, i64, i64, i64, i64)\n";

/// Sizes the failure message shows (the runtime prints `...` after them).
const SHOWN: usize = 4;

/// Emits the check of a new tensor of `ty` with the run-time `sizes` (one
/// `index` per dim). Nothing is emitted when every dim is static, or when
/// the same sizes and element size were checked before in an enclosing block.
pub fn check(e: &mut FnEmitter, ty: &TensorType, sizes: &[String]) {
    if !ty.dims.iter().any(|d| matches!(d, Dim::Sym(_))) {
        return;
    }
    let elem = ty.dtype.byte_size() as i64;
    let key: Vec<String> = ty
        .dims
        .iter()
        .zip(sizes)
        .map(|(d, s)| match d {
            Dim::Static(n) => n.to_string(),
            Dim::Sym(_) => s.clone(),
        })
        .collect();
    if !e.note_once(format!("alloc_size {elem} {}", key.join(" "))) {
        return;
    }
    let static_bytes = ty.dims.iter().try_fold(elem, |acc, d| match d {
        Dim::Static(n) => acc.checked_mul(*n),
        Dim::Sym(_) => Some(acc),
    });
    let mut bytes = e.constant(&static_bytes.unwrap_or(i64::MAX).to_string(), "i64");
    let zero = e.constant("0", "i64");
    let mut bad = e.constant("false", "i1");
    let mut shown = Vec::new();
    for (d, size) in ty.dims.iter().zip(sizes) {
        let s = e.assign(&format!("arith.index_cast {size} : index to i64"));
        if shown.len() < SHOWN {
            shown.push(s.clone());
        }
        if matches!(d, Dim::Static(_)) {
            continue;
        }
        let negative = e.cmpi("slt", &s, &zero, "i64");
        let r = e.fresh("prod");
        e.line(&format!("{r}:2 = arith.mului_extended {bytes}, {s} : i64"));
        let high = e.cmpi("ne", &format!("{r}#1"), &zero, "i64");
        bad = e.arith("ori", &bad, &negative, "i1");
        bad = e.arith("ori", &bad, &high, "i1");
        bytes = format!("{r}#0");
    }
    let wrapped = e.cmpi("slt", &bytes, &zero, "i64");
    bad = e.arith("ori", &bad, &wrapped, "i1");
    while shown.len() < SHOWN {
        shown.push(zero.clone());
    }
    let elem_c = e.constant(&elem.to_string(), "i64");
    let rank = e.constant(&ty.dims.len().to_string(), "i64");
    e.line(&format!("scf.if {bad} {{"));
    e.enter();
    e.line(&format!(
        "func.call @agc_rt_fail_shape({elem_c}, {rank}, {}) : (i64, i64, i64, i64, i64, i64) -> ()",
        shown.join(", ")
    ));
    e.leave();
    e.line("}");
}

#[cfg(test)]
mod tests {
    use crate::mlir::emitter::FnEmitter;
    use crate::mlir::function::{chain_function, emit_function};
    use agc_ir::{BinaryOp, DType, Dim, Function, Span, TensorType};

    /// `x * x` for an `x` of `dims`.
    fn square(dims: Vec<Dim>) -> String {
        let t = TensorType::new(DType::F64, dims);
        emit_function(&chain_function(BinaryOp::Mul, &t, 1, false)).unwrap()
    }

    #[test]
    fn run_time_sizes_are_checked_before_the_tensor_is_made() {
        let text = square(vec![
            Dim::Sym("A".into()),
            Dim::Static(3),
            Dim::Sym("B".into()),
        ]);
        // 8-byte elements times the static 3: 24 bytes per (A, B) element.
        assert!(text.contains("arith.constant 24 : i64"), "{text}");
        assert_eq!(text.matches("arith.mului_extended").count(), 2, "{text}");
        let check = text.find("func.call @agc_rt_fail_shape").expect("a check");
        let empty = text.find("tensor.empty").expect("a tensor");
        assert!(check < empty, "the check comes first:\n{text}");
    }

    #[test]
    fn a_shape_is_checked_once_per_block() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("N".into())]);
        // Long enough for three fused groups, each a tensor of the same shape.
        let n = 2 * crate::mlir::fusion::MAX_MEMBERS + 1;
        let text = emit_function(&chain_function(BinaryOp::Mul, &t, n, false)).unwrap();
        assert_eq!(text.matches("tensor.empty").count(), 3, "{text}");
        assert_eq!(
            text.matches("func.call @agc_rt_fail_shape").count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn a_check_in_a_branch_covers_neither_its_sibling_nor_what_follows() {
        let f = Function::new("f", &[], Span::UNKNOWN);
        let mut e = FnEmitter::new(&f);
        e.line("scf.if %c {");
        e.enter();
        assert!(e.note_once("shape".into()));
        assert!(!e.note_once("shape".into()), "the same block");
        e.enter();
        assert!(!e.note_once("shape".into()), "a nested block");
        e.leave();
        e.leave();
        e.line("} else {");
        e.enter();
        assert!(e.note_once("shape".into()), "the sibling branch");
        e.leave();
        e.line("}");
        assert!(e.note_once("shape".into()), "after the if");
        assert!(!e.note_once("shape".into()));
    }

    #[test]
    fn static_shapes_need_no_check() {
        let text = square(vec![Dim::Static(4), Dim::Static(3)]);
        assert!(!text.contains("agc_rt_fail_shape"), "{text}");
    }
}
