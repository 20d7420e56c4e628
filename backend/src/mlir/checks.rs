//! `assert`: a run-time check that fails the call with a message. The
//! message is a constant byte array in the module; when the rank-0 `bool`
//! operand is false the code calls the runtime's
//! `agc_rt_raise_message(address, length, line)` (status INVALID_ARGUMENT)
//! and goes on, as after any run-time error: the exported function then
//! returns the status and frees its results.

use super::emitter::FnEmitter;
use crate::BackendError;
use agc_ir::OpData;

/// Lowers an `assert` with `message` at source `line`.
pub fn assert(
    e: &mut FnEmitter,
    od: &OpData,
    message: &str,
    line: u32,
) -> Result<(), BackendError> {
    let cond = e.val(od.operands[0])?;
    let holds = e.assign(&format!("tensor.extract {cond}[] : tensor<i1>"));
    let fails = {
        let t = e.constant("true", "i1");
        e.assign(&format!("arith.xori {holds}, {t} : i1"))
    };
    let text = if message.is_empty() {
        "a staged check failed"
    } else {
        message
    };
    let bytes: Vec<String> = text.bytes().map(|b| b.to_string()).collect();
    let n = bytes.len();
    let global = format!("{}_msg{}", e.symbol, e.globals.len());
    e.globals.push(format!(
        "  memref.global \"private\" constant @{global} : memref<{n}xi8> = dense<[{}]>\n",
        bytes.join(", ")
    ));
    e.line(&format!("scf.if {fails} {{"));
    let g = e.assign(&format!("memref.get_global @{global} : memref<{n}xi8>"));
    let p = e.assign(&format!(
        "memref.extract_aligned_pointer_as_index {g} : memref<{n}xi8> -> index"
    ));
    let addr = e.assign(&format!("arith.index_cast {p} : index to i64"));
    let len = e.constant(&n.to_string(), "i64");
    let at = e.constant(&line.to_string(), "i64");
    e.line(&format!(
        "func.call @agc_rt_raise_message({addr}, {len}, {at}) : (i64, i64, i64) -> ()"
    ));
    e.line("}");
    Ok(())
}
