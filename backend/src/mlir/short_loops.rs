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
//!
//! The same walk marks the innermost loops that call out-of-line
//! approximations (`@agc_approx_*`, see [`super::approx`]) for vectorisation
//! 16 lanes wide: LLVM's cost model does not weigh a call's vector variant
//! against the scalar calls, so unmarked it leaves such loops scalar. The
//! vector call then covers 16 elements; the remainder calls the scalar
//! function.

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

/// The annotation of loops calling approximations: vectorise, 16 lanes.
const APPROX_ANNOTATION: &str = "#llvm.loop_annotation<vectorize = \
#llvm.loop_vectorize<disable = false, width = 16 : i32>>";

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

/// The constant trip count of `op` (an `scf.for`), if it has one.
fn trip_count(op: &OperationRef) -> Option<i64> {
    let bound = |i| op.operand(i).ok().and_then(constant);
    let (lo, hi, step) = (bound(0)?, bound(1)?, bound(2)?);
    Some(if step > 0 && hi > lo {
        (hi - lo + step - 1) / step
    } else {
        0
    })
}

/// What the body of an `scf.for` holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Body {
    /// [`vectorizable`] ops only (so no inner loop), storing only at indices
    /// that include the induction variable.
    Plain,
    /// The same, and calls of out-of-line approximations.
    CallsApproximations,
    /// Anything else.
    Other,
}

/// What `op` (an `scf.for`)'s body holds.
fn body_of(op: &OperationRef) -> Body {
    let Some(body) = op.region(0).ok().and_then(|r| r.first_block()) else {
        return Body::Other;
    };
    let Ok(iv) = body.argument(0) else {
        return Body::Other;
    };
    let mut kind = Body::Plain;
    let mut next = body.first_operation();
    while let Some(inner) = next {
        let name = inner.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if name == "func.call" && calls_approximation(&inner) {
            kind = Body::CallsApproximations;
        } else if !vectorizable(name) {
            return Body::Other;
        }
        // Each iteration stores its own element (not a reduction into
        // one, which the vectoriser handles better unmarked).
        if name == "memref.store"
            && !inner
                .operands()
                .skip(2)
                .any(|i| i.to_raw().ptr == iv.to_raw().ptr)
        {
            return Body::Other;
        }
        next = inner.next_in_block();
    }
    kind
}

/// Whether `call` (a `func.call`) calls an out-of-line approximation.
fn calls_approximation(call: &OperationRef) -> bool {
    call.attribute("callee")
        .ok()
        .and_then(|a| melior::ir::attribute::FlatSymbolRefAttribute::try_from(a).ok())
        .is_some_and(|callee| callee.value().starts_with(super::approx::SYMBOL_PREFIX))
}

/// The annotation for `op` (an `scf.for`), if it gets one: short and plain,
/// or calling approximations.
fn annotation_for(op: &OperationRef) -> Option<&'static str> {
    match body_of(op) {
        Body::Plain => trip_count(op)
            .is_some_and(|n| (2..TINY_TRIP_COUNT).contains(&n))
            .then_some(ANNOTATION),
        Body::CallsApproximations => Some(APPROX_ANNOTATION),
        Body::Other => None,
    }
}

/// Marks the short plain loops of `module`, and the loops calling
/// approximations (see the module doc); returns how many.
pub fn mark_short_loops(context: &Context, module: &Module) -> usize {
    let mut marked = Vec::new();
    module.as_operation().walk(WalkOrder::PostOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("scf.for") {
            if let Some(annotation) = annotation_for(&op) {
                marked.push((op.to_raw(), annotation));
            }
        }
        WalkResult::Advance
    });
    let parsed: Vec<_> = [ANNOTATION, APPROX_ANNOTATION]
        .into_iter()
        .filter_map(|text| Some((text, Attribute::parse(context, text)?)))
        .collect();
    let name = melior::StringRef::new("loop_annotation");
    for &(op, text) in &marked {
        let Some(&(_, annotation)) = parsed.iter().find(|(t, _)| *t == text) else {
            continue;
        };
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

    /// Marks the loops of module `text`; the printed module and the body
    /// of its one marked loop.
    fn the_one_marked_loop(text: &str) -> (String, String) {
        let s = MlirSession::new();
        let module = parse(&s, text).unwrap();
        assert_eq!(super::mark_short_loops(&s.context, &module), 1);
        let text = module.as_operation().to_string();
        let marks: Vec<usize> = text
            .match_indices("} {loop_annotation =")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(marks.len(), 1, "{text}");
        let body = text[text[..marks[0]].rfind("scf.for").unwrap()..marks[0]].to_string();
        (text, body)
    }

    #[test]
    fn only_short_plain_innermost_loops_are_marked() {
        // The marked loop is the 10-element one with arithmetic only.
        let (text, body) = the_one_marked_loop(LOOPS);
        assert!(
            body.contains("%c10") && body.contains("arith.mulf"),
            "{text}"
        );
        assert!(!body.contains("func.call"), "{text}");
    }

    /// A loop calling an out-of-line approximation, one calling it beside a
    /// reduction into one element, and one calling another function.
    const CALLS: &str = "\
func.func private @agc_approx_exp_f32(f32) -> f32
func.func private @g(f32) -> f32
func.func @f(%a: memref<300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  scf.for %j = %c0 to %c300 step %c1 {
    %x = memref.load %a[%j] : memref<300xf32>
    %y = func.call @agc_approx_exp_f32(%x) : (f32) -> f32
    memref.store %y, %a[%j] : memref<300xf32>
  }
  scf.for %j = %c0 to %c300 step %c1 {
    %x = memref.load %a[%j] : memref<300xf32>
    %s = memref.load %a[%c0] : memref<300xf32>
    %y = func.call @agc_approx_exp_f32(%x) : (f32) -> f32
    %z = arith.addf %s, %y : f32
    memref.store %z, %a[%c0] : memref<300xf32>
  }
  scf.for %j = %c0 to %c300 step %c1 {
    %x = memref.load %a[%j] : memref<300xf32>
    %y = func.call @g(%x) : (f32) -> f32
    memref.store %y, %a[%j] : memref<300xf32>
  }
  return
}";

    #[test]
    fn loops_calling_approximations_are_marked_16_lanes_wide() {
        let (text, body) = the_one_marked_loop(CALLS);
        assert!(
            body.contains("@agc_approx_exp_f32") && !body.contains("arith.addf"),
            "{text}"
        );
        assert!(text.contains("width = 16"), "{text}");
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
