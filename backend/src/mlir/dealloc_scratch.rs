//! The scratch arrays of lowered deallocations on the stack.
//!
//! Where ownership-based deallocation cannot tell statically which of the
//! buffers leaving a scope alias one another (the results of calls, of
//! `scf.if` and of loops), `bufferization-lower-deallocations` lowers
//! `bufferization.dealloc` to a call of a generated `@dealloc_helper` that
//! compares base pointers at run time. The helper takes five arrays (the
//! buffers, the retained buffers, their conditions, and two arrays of
//! results), which the lowering allocates with `memref.alloc` around every
//! call: five heap blocks per site, a dozen or more per function call of a
//! differentiated loop or recursion, where the work itself may allocate two.
//!
//! [`stack_dealloc_scratch`] turns them into `memref.alloca`s at the entry
//! of the enclosing function, one per function, argument position and type
//! (sites run one after another, so they can share them, and the arrays are
//! written before every call), and drops their `memref.dealloc`s. A
//! function's frame grows by the largest arrays of its sites (tens of
//! bytes); nothing is allocated in a loop body, so the stack does not grow
//! with a trip count.

use melior::dialect::memref;
use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::r#type::MemRefType;
use melior::ir::ValueLike;
use melior::ir::{Location, Module, Type};
use melior::Context;
use mlir_sys::{
    mlirBlockInsertOwnedOperation, mlirIdentifierStr, mlirOpResultGetOwner, mlirOperationDestroy,
    mlirOperationGetName, mlirOperationGetNumOperands, mlirOperationGetOperand,
    mlirOperationGetParentOperation, mlirOperationGetRegion, mlirOperationGetResult,
    mlirOperationRemoveFromParent, mlirRegionGetFirstBlock, mlirValueGetType, mlirValueIsAOpResult,
    mlirValueReplaceAllUsesOfWith, MlirOperation, MlirValue,
};
use std::collections::HashMap;

/// The function `bufferization-lower-deallocations` generates.
const HELPER: &str = "dealloc_helper";

/// The name of an operation.
fn name_of(op: MlirOperation) -> String {
    // SAFETY: a live operation; the identifier's string is owned by the context.
    unsafe {
        let s = mlirIdentifierStr(mlirOperationGetName(op));
        String::from_utf8_lossy(std::slice::from_raw_parts(s.data as *const u8, s.length))
            .into_owned()
    }
}

/// The operation defining `v` when it is a result named `name`.
fn defined_by(v: MlirValue, name: &str) -> Option<MlirOperation> {
    // SAFETY: a live value of the module.
    let op = unsafe { mlirValueIsAOpResult(v).then(|| mlirOpResultGetOwner(v))? };
    (name_of(op) == name).then_some(op)
}

/// The `func.func` whose body holds `op` directly (no GPU op in between).
fn enclosing_function(op: MlirOperation) -> Option<MlirOperation> {
    let mut at = op;
    loop {
        // SAFETY: a live operation; a null parent ends the walk.
        at = unsafe { mlirOperationGetParentOperation(at) };
        if at.ptr.is_null() {
            return None;
        }
        match name_of(at).as_str() {
            "func.func" => return Some(at),
            n if n.starts_with("gpu.") => return None,
            _ => {}
        }
    }
}

/// A scratch array: the `memref.alloc` feeding argument `slot` of a helper
/// call in `function`.
struct Scratch {
    function: MlirOperation,
    slot: usize,
    alloc: MlirOperation,
}

/// The scratch arrays of every helper call in `module`, and the
/// `memref.dealloc`s of the module with the buffer each frees.
fn collect(module: &Module) -> (Vec<Scratch>, Vec<(MlirOperation, MlirValue)>) {
    let (mut scratch, mut deallocs) = (Vec::new(), Vec::new());
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let raw = op.to_raw();
        match op.name().as_string_ref().as_str() {
            Ok("memref.dealloc") => {
                // SAFETY: a dealloc has one operand.
                deallocs.push((raw, unsafe { mlirOperationGetOperand(raw, 0) }));
            }
            Ok("func.call") => {
                let helper = op
                    .attribute("callee")
                    .is_ok_and(|c| c.to_string() == format!("@{HELPER}"));
                if let (true, Some(function)) = (helper, enclosing_function(raw)) {
                    for (slot, arg) in op.operands().enumerate() {
                        let alloc = defined_by(arg.to_raw(), "memref.cast")
                            // SAFETY: a cast has one operand.
                            .map(|cast| unsafe { mlirOperationGetOperand(cast, 0) })
                            .and_then(|v| defined_by(v, "memref.alloc"))
                            .filter(|&a| unsafe { mlirOperationGetNumOperands(a) } == 0);
                        if let Some(alloc) = alloc {
                            scratch.push(Scratch {
                                function,
                                slot,
                                alloc,
                            });
                        }
                    }
                }
            }
            _ => {}
        }
        WalkResult::Advance
    });
    (scratch, deallocs)
}

/// Moves the helper calls' scratch arrays of `module` (of `context`) to the
/// stack (see the module doc); returns how many `memref.alloc`s it replaced.
pub fn stack_dealloc_scratch(context: &Context, module: &Module) -> usize {
    let (scratch, deallocs) = collect(module);
    // SAFETY (whole loop): live operations of `module`; each one destroyed
    // here is removed from its block first and never used again.
    unsafe {
        let freed: std::collections::HashSet<_> = scratch
            .iter()
            .map(|s| mlirOperationGetResult(s.alloc, 0).ptr)
            .collect();
        for &(op, buffer) in &deallocs {
            if freed.contains(&buffer.ptr) {
                mlirOperationRemoveFromParent(op);
                mlirOperationDestroy(op);
            }
        }
        let mut slots = HashMap::new();
        for s in &scratch {
            let buffer = mlirOperationGetResult(s.alloc, 0);
            let ty = mlirValueGetType(buffer);
            let key = (s.function.ptr, s.slot, ty.ptr);
            let stack = match slots.get(&key) {
                Some(&stack) => stack,
                None => {
                    let Ok(memref_type) = MemRefType::try_from(Type::from_raw(ty)) else {
                        continue;
                    };
                    let alloca = memref::alloca(
                        context,
                        memref_type,
                        &[],
                        &[],
                        None,
                        Location::unknown(context),
                    )
                    .into_raw();
                    let entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(s.function, 0));
                    mlirBlockInsertOwnedOperation(entry, 0, alloca);
                    let stack: MlirValue = mlirOperationGetResult(alloca, 0);
                    slots.insert(key, stack);
                    stack
                }
            };
            mlirValueReplaceAllUsesOfWith(buffer, stack);
            mlirOperationRemoveFromParent(s.alloc);
            mlirOperationDestroy(s.alloc);
        }
    }
    scratch.len()
}

#[cfg(test)]
mod tests {
    use super::super::pipeline::{bufferize, parse, MlirSession};
    use melior::ir::operation::OperationLike;

    /// A function returning one of two buffers that a call made: which of
    /// them to free is known only at run time, so deallocation calls the
    /// helper.
    const PICK: &str = "\
func.func @two(%x: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.fill ins(%x : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%x : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
func.func @pick(%c: i1, %x: f32) -> tensor<4xf32> {
  %a, %b = call @two(%x) : (f32) -> (tensor<4xf32>, tensor<4xf32>)
  %r = scf.if %c -> tensor<4xf32> {
    scf.yield %a : tensor<4xf32>
  } else {
    scf.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}";

    /// The lines of function `name` in `text`.
    fn body<'t>(text: &'t str, name: &str) -> Vec<&'t str> {
        text.lines()
            .skip_while(|l| !l.contains(&format!("func.func @{name}(")))
            .take_while(|l| *l != "  }")
            .collect()
    }

    #[test]
    fn the_helper_arrays_become_entry_allocas_and_their_deallocs_go() {
        let s = MlirSession::new();
        let mut module = parse(&s, PICK).unwrap();
        bufferize(&s, &mut module, 1, "").unwrap();
        assert!(module.as_operation().verify());
        let text = module.as_operation().to_string();
        let pick = body(&text, "pick");
        assert!(
            pick.iter().any(|l| l.contains("call @dealloc_helper")),
            "{text}"
        );
        // The buffers of `@two` are still heap blocks; the scratch arrays are not.
        let heap: Vec<_> = pick
            .iter()
            .filter(|l| l.contains("memref.alloc("))
            .collect();
        assert!(heap.is_empty(), "{heap:?}");
        let stack: Vec<_> = pick
            .iter()
            .filter(|l| l.contains("memref.alloca("))
            .collect();
        assert_eq!(stack.len(), 5, "{text}");
        // At the top of the function, before any other op.
        assert!(
            pick[1..=5].iter().all(|l| l.contains("memref.alloca(")),
            "{text}"
        );
        assert!(
            !pick
                .iter()
                .any(|l| l.contains("memref.dealloc")
                    && (l.contains("xindex>") || l.contains("xi1>")))
        );
        assert!(body(&text, "two")
            .iter()
            .any(|l| l.contains("memref.alloc(")));
    }

    #[test]
    fn two_sites_in_one_function_share_the_arrays() {
        // One site in each branch of the outer `scf.if`.
        let branch = |arg: &str| {
            format!(
                "%a, %b = func.call @two({arg}) : (f32) -> (tensor<4xf32>, tensor<4xf32>)\n    \
                 %p = scf.if %d -> tensor<4xf32> {{\n      scf.yield %a : tensor<4xf32>\n    }} else {{\n      \
                 scf.yield %b : tensor<4xf32>\n    }}\n    scf.yield %p : tensor<4xf32>"
            )
        };
        let twice = format!(
            "{}\nfunc.func @pick(%c: i1, %d: i1, %x: f32, %y: f32) -> tensor<4xf32> {{\n  \
             %r = scf.if %c -> tensor<4xf32> {{\n    {}\n  }} else {{\n    {}\n  }}\n  \
             return %r : tensor<4xf32>\n}}",
            &PICK[..PICK.find("func.func @pick").unwrap()],
            branch("%x"),
            branch("%y")
        );
        let s = MlirSession::new();
        let mut module = parse(&s, &twice).unwrap();
        bufferize(&s, &mut module, 0, "").unwrap();
        assert!(module.as_operation().verify());
        let text = module.as_operation().to_string();
        let pick = body(&text, "pick");
        let sites = pick
            .iter()
            .filter(|l| l.contains("call @dealloc_helper"))
            .count();
        assert!(sites >= 2, "{text}");
        let stack = pick.iter().filter(|l| l.contains("memref.alloca(")).count();
        assert!(
            (5..5 * sites).contains(&stack),
            "{stack} allocas for {sites} sites:\n{text}"
        );
    }
}
