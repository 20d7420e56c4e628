//! Copying source ops into the function being built (the forward pass and
//! its recomputations).

use super::context::{internal, FnCx, Scope};
use super::AdError;
use agc_ir::{Function, OpId, RegionId, Type, Value};
use std::collections::HashMap;

/// The ops of source region `r` without its terminator, and the terminator's operands.
pub(crate) fn split_region(f: &Function, r: RegionId) -> (Vec<OpId>, Vec<Value>) {
    let ops = &f.region(r).ops;
    match ops.split_last() {
        Some((&term, body)) => (body.to_vec(), f.op(term).operands.clone()),
        None => (Vec::new(), Vec::new()),
    }
}

/// Copies source `ops` (in order, nested regions included) to the end of
/// `region`, mapping operands through `sc.fwd` and recording the results there.
pub(crate) fn clone_ops(
    cx: &mut FnCx,
    region: RegionId,
    ops: &[OpId],
    sc: &mut Scope,
) -> Result<(), AdError> {
    clone_into(cx.src, cx.dst, region, ops, &mut sc.fwd)
}

fn clone_into(
    src: &Function,
    dst: &mut Function,
    region: RegionId,
    ops: &[OpId],
    map: &mut HashMap<Value, Value>,
) -> Result<(), AdError> {
    for &op in ops {
        let od = src.op(op);
        let operands = od
            .operands
            .iter()
            .map(|v| {
                map.get(v)
                    .copied()
                    .ok_or_else(|| internal(format!("{v} used before its copy"), od.span))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut regions = Vec::new();
        for &r in &od.regions {
            let params: Vec<Type> = src
                .region(r)
                .params
                .iter()
                .map(|p| src.ty(*p).clone())
                .collect();
            let nr = dst.new_region(&params);
            for (p, q) in src
                .region(r)
                .params
                .iter()
                .zip(dst.region(nr).params.clone())
            {
                map.insert(*p, q);
            }
            clone_into(src, dst, nr, &src.region(r).ops.clone(), map)?;
            regions.push(nr);
        }
        let types = od.results.iter().map(|v| src.ty(*v).clone()).collect();
        let (_, results) =
            dst.append_op(region, od.kind.clone(), operands, types, regions, od.span);
        for (r, n) in od.results.iter().zip(results) {
            map.insert(*r, n);
        }
    }
    Ok(())
}
