//! The backward pass of a list of source ops: their adjoint rules in reverse
//! order, each contribution added to the adjoint of its operand.
//!
//! Requires the forward values of the ops (in `Scope::fwd`, visible from the
//! region being built) and the adjoints of the values they feed (in
//! `Scope::adj`). Ops none of whose results has an adjoint are skipped, so
//! only the part of the program between the active parameters and the
//! differentiated output is differentiated.

use super::adjoint::{self, branch, call, loops, Rule, RuleError};
use super::context::{internal, FnCx, Scope};
use super::AdError;
use crate::builder::Builder;
use agc_ir::{OpId, OpKind, RegionId};

/// Emits at the end of `region` the backward pass of source `ops` (no terminator).
pub(crate) fn reverse_ops(
    cx: &mut FnCx,
    region: RegionId,
    ops: &[OpId],
    sc: &mut Scope,
) -> Result<(), AdError> {
    for &op in ops.iter().rev() {
        let src = cx.src;
        let od = src.op(op);
        if od.results.iter().all(|r| !sc.adj.contains_key(r)) {
            continue;
        }
        match od.kind {
            OpKind::If => branch::reverse_if(cx, region, op, sc)?,
            OpKind::While => loops::reverse_while(cx, region, op, sc)?,
            OpKind::Call { .. } => call::reverse_call(cx, region, op, sc)?,
            _ => {
                let span = od.span;
                let x = od
                    .operands
                    .iter()
                    .map(|&v| cx.fwd(sc, v, span))
                    .collect::<Result<Vec<_>, _>>()?;
                let y = cx.fwd(sc, od.results[0], span)?;
                let g = cx
                    .adj(region, span, sc, od.results[0])
                    .expect("an op with an adjoint");
                let want = od.operands.iter().map(|&v| cx.needs_adj(v)).collect();
                let b = Builder::new(&mut *cx.dst, region, span);
                let mut rule = Rule {
                    b,
                    x,
                    y,
                    g,
                    want,
                    mcx: &mut *cx.mcx,
                };
                let grads = adjoint::apply(&od.kind, &mut rule).map_err(|e| match e {
                    RuleError::Type(e) => internal(format!("{}: {e}", od.kind.name()), span),
                    RuleError::Unsupported(what) => {
                        AdError::new(format!("{what} is not supported yet"), span)
                    }
                })?;
                for (&v, d) in od.operands.iter().zip(grads) {
                    if let Some(d) = d {
                        cx.accumulate(region, span, sc, v, d)?;
                    }
                }
            }
        }
    }
    Ok(())
}
