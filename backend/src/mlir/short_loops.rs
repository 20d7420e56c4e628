//! Short innermost loops marked for vectorisation with masked tails.
//!
//! A tensor whose last axis is short (a classifier's 10 logits: `[200, 10]`)
//! lowers to an inner loop of 10 iterations, and LLVM's loop vectoriser
//! leaves loops of fewer than 16 known iterations scalar (its "tiny trip
//! count" rule), so an `exp` over `[200, 10]` ran one element at a time.
//! [`mark_short_loops`] gives every innermost `scf.for` of such a constant
//! trip count whose body is plain arithmetic on memref elements an
//! `llvm.loop` annotation asking for vectorisation with a predicated
//! (masked) tail: one masked vector iteration per row. The annotation
//! reaches LLVM through `convert-scf-to-cf` and `convert-cf-to-llvm`, which
//! keep LLVM-dialect attributes on the loop's back edge.

use melior::ir::attribute::AttributeLike;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationLike, OperationRef, OperationResult, WalkOrder, WalkResult};
use melior::ir::{Attribute, Module, RegionLike, ValueLike};
use melior::Context;
use mlir_sys::mlirOperationSetDiscardableAttributeByName;

/// Trip counts below this are "tiny" to LLVM's vectoriser (its default
/// `-vectorizer-min-trip-count`).
const TINY_TRIP_COUNT: i64 = 16;

/// The annotation: vectorise, tail folded by masking.
const ANNOTATION: &str = "#llvm.loop_annotation<vectorize = \
#llvm.loop_vectorize<disable = false, predicateEnable = true>, \
unroll = #llvm.loop_unroll<disable = true>>";

/// Ops a marked loop's body may hold: each vectorises on its own, so the
/// request never fails (a failed forced vectorisation is an LLVM warning).
fn vectorizable(name: &str) -> bool {
    let arith = name.starts_with("arith.")
        && !matches!(
            name,
            "arith.divsi" | "arith.divui" | "arith.remsi" | "arith.remui"
        );
    arith
        || matches!(
            name,
            "memref.load" | "memref.store" | "scf.yield" | "math.roundeven" | "math.fma"
        )
}

/// The value of an `index` constant that `v` is.
fn constant(v: melior::ir::Value) -> Option<i64> {
    let op = OperationResult::try_from(v).ok()?.owner();
    if op.name().as_string_ref().as_str() != Ok("arith.constant") {
        return None;
    }
    IntegerAttribute::try_from(op.attribute("value").ok()?)
        .ok()
        .map(|a| a.value())
}

/// Whether `op` (an `scf.for`) has a constant trip count of 2 to 15, a
/// body of [`vectorizable`] ops only (so no inner loop), and stores only at
/// indices that include its induction variable.
fn short_and_plain(op: &OperationRef) -> bool {
    let bound = |i| op.operand(i).ok().and_then(constant);
    let (Some(lo), Some(hi), Some(step)) = (bound(0), bound(1), bound(2)) else {
        return false;
    };
    let trips = if step > 0 && hi > lo {
        (hi - lo + step - 1) / step
    } else {
        0
    };
    if !(2..TINY_TRIP_COUNT).contains(&trips) {
        return false;
    }
    let Some(body) = op.region(0).ok().and_then(|r| r.first_block()) else {
        return false;
    };
    let Ok(iv) = body.argument(0) else {
        return false;
    };
    let mut plain = true;
    let mut next = body.first_operation();
    while let Some(inner) = next {
        let name = inner.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        plain &= vectorizable(name);
        if name == "memref.store" {
            // Each iteration stores its own element (not a reduction into
            // one, which the vectoriser handles better unmarked).
            plain &= inner
                .operands()
                .skip(2)
                .any(|i| i.to_raw().ptr == iv.to_raw().ptr);
        }
        next = inner.next_in_block();
    }
    plain
}

/// Marks the short plain loops of `module` (see the module doc); returns
/// how many.
pub fn mark_short_loops(context: &Context, module: &Module) -> usize {
    let Some(annotation) = Attribute::parse(context, ANNOTATION) else {
        return 0;
    };
    let mut marked = Vec::new();
    module.as_operation().walk(WalkOrder::PostOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("scf.for") && short_and_plain(&op) {
            marked.push(op.to_raw());
        }
        WalkResult::Advance
    });
    let name = melior::StringRef::new("loop_annotation");
    for &op in &marked {
        // SAFETY: a live operation of `module`; the attribute and the name
        // belong to its context.
        unsafe {
            mlirOperationSetDiscardableAttributeByName(op, name.to_raw(), annotation.to_raw())
        };
    }
    marked.len()
}

#[cfg(test)]
mod tests {
    use super::super::pipeline::{parse, MlirSession};

    /// A 200×10 elementwise loop nest, a 200×16 one, a short loop holding
    /// a call and a short reduction into one element.
    const LOOPS: &str = "\
func.func private @g(f32) -> f32
func.func @f(%a: memref<200x10xf32>, %b: memref<200x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c200 = arith.constant 200 : index
  scf.for %i = %c0 to %c200 step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<200x10xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %a[%i, %j] : memref<200x10xf32>
    }
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %b[%i, %j] : memref<200x16xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %b[%i, %j] : memref<200x16xf32>
    }
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<200x10xf32>
      %y = func.call @g(%x) : (f32) -> f32
      memref.store %y, %a[%i, %j] : memref<200x10xf32>
    }
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<200x10xf32>
      %s = memref.load %a[%i, %c0] : memref<200x10xf32>
      %y = arith.maximumf %x, %s : f32
      memref.store %y, %a[%i, %c0] : memref<200x10xf32>
    }
  }
  return
}";

    #[test]
    fn only_short_plain_innermost_loops_are_marked() {
        let s = MlirSession::new();
        let module = parse(&s, LOOPS).unwrap();
        assert_eq!(super::mark_short_loops(&s.context, &module), 1);
        let text = module.as_operation().to_string();
        let marks: Vec<usize> = text
            .match_indices("} {loop_annotation =")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(marks.len(), 1, "{text}");
        // The marked loop is the 10-element one with arithmetic only.
        let body = &text[text[..marks[0]].rfind("scf.for").unwrap()..marks[0]];
        assert!(
            body.contains("%c10") && body.contains("arith.mulf"),
            "{text}"
        );
        assert!(!body.contains("func.call"), "{text}");
    }

    #[test]
    fn marked_loops_carry_vectorize_metadata_into_llvm_ir() {
        let ctx = inkwell::context::Context::create();
        let llvm = super::super::pipeline::lower_to_llvm(
            "func.func @f(%a: tensor<200x10xf32>) -> tensor<200x10xf32> {
  %e = tensor.empty() : tensor<200x10xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\"]} ins(%a : tensor<200x10xf32>) outs(%e : tensor<200x10xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<200x10xf32>
  return %r : tensor<200x10xf32>
}",
            1,
            super::super::pipeline::Device::Cpu,
            &ctx,
        )
        .unwrap();
        let ir = llvm.print_to_string().to_string();
        assert!(ir.contains("llvm.loop.vectorize.enable"), "{ir}");
        assert!(ir.contains("llvm.loop.vectorize.predicate.enable"), "{ir}");
    }
}
