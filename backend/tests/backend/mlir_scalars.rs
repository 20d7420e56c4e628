//! Rank-0 values crossing calls and continuations: the emitted MLIR gives
//! them no heap buffer. The input is the IR `agc build --emit opt-ir` prints
//! for the gradient of a recursion over `left[node]` (`ir/walk_grad.ir`):
//! `dyn_index` reads an index scalar, the recursive call takes it, and a
//! continuation captures it.

use agc_backend::mlir::{emit_module, EmitOptions};

const WALK_GRAD: &str = include_str!("../ir/walk_grad.ir");

fn mlir() -> String {
    let m = agc_ir::parse::parse_module(WALK_GRAD).expect("the IR parses");
    emit_module(&m, &EmitOptions::default())
        .expect("the module emits")
        .text
}

#[test]
fn an_index_read_is_a_scalar_not_a_rank0_tensor_yielded_by_an_if() {
    let text = mlir();
    let rank0_ifs = text
        .lines()
        .filter(|l| l.contains("scf.if") && l.contains("-> (tensor<i64>)"));
    assert_eq!(rank0_ifs.count(), 0, "{text}");
}

#[test]
fn a_call_takes_a_rank0_argument_from_a_stack_slot() {
    let text = mlir();
    let slots: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_suffix(" = memref.alloca() : memref<i64>"))
        .collect();
    assert!(!slots.is_empty(), "{text}");
    for slot in &slots {
        let stored = text
            .lines()
            .any(|l| l.contains("memref.store") && l.contains(&format!("{slot}[] : memref<i64>")));
        assert!(stored, "{slot} is never written: {text}");
    }
    let rank0_reads = text
        .lines()
        .filter(|l| l.contains("bufferization.to_buffer") && l.contains(": tensor<i64> to"));
    assert_eq!(rank0_reads.count(), 0, "{text}");
}

#[test]
fn a_continuation_captures_a_rank0_value_in_its_record() {
    let text = mlir();
    // Not the address of a buffer holding it: the element itself.
    let rank0_addresses = text
        .lines()
        .filter(|l| l.contains("extract_aligned_pointer_as_index") && l.contains("memref<i64"));
    assert_eq!(rank0_addresses.count(), 0, "{text}");
}
