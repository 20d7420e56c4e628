//! Ops that make values from attributes: `const`, `iota` and `dim`.
//!
//! A constant is an `arith.constant dense<...>`: a splat prints its one
//! element, other float and int data a hexadecimal little-endian blob
//! (exact and fast to parse, which matters for weights), bool data nested
//! `true`/`false` lists. A zero-element constant is a `tensor.empty`.

use super::emitter::{identity_map, operand, FnEmitter, GenericSpec};
use super::scalar;
use super::types::{self, elem};
use crate::BackendError;
use agc_ir::{ConstData, DType, Dim, OpData, TensorType};
use std::fmt::Write;

/// Lowers a `const`; returns the result tensor.
pub fn constant(e: &mut FnEmitter, od: &OpData, data: &ConstData) -> Result<String, BackendError> {
    let ty = e.ty(od.results[0]);
    if data.is_empty() {
        return e.empty(ty);
    }
    let data = data.cast(ty.dtype);
    let t = types::tensor(ty);
    let body = if data.is_splat() {
        splat_literal(&data, ty.dtype)
    } else {
        match &data {
            ConstData::Bool(v) => nested_bools(v, &ty.dims),
            _ => hex_blob(&data, ty.dtype),
        }
    };
    Ok(e.assign(&format!("arith.constant dense<{body}> : {t}")))
}

/// The one element of splat `data` (already of `dtype`) as a literal.
fn splat_literal(data: &ConstData, dtype: DType) -> String {
    match data {
        ConstData::Float(v) => types::scalar_lit(dtype, v[0]),
        ConstData::Int(v) => types::int_lit(dtype, v[0]),
        ConstData::Bool(v) => types::int_lit(DType::Bool, v[0] as i64),
    }
}

/// The element of `v` as a scalar `arith.constant` when `v` is a non-empty
/// splat `const` (the scalar of `x * 0.5`), for a fused body to use in place
/// of reading a broadcast tensor: a constant operand LLVM cannot hoist out
/// of the loop costs a load per element.
pub fn splat_scalar(e: &mut FnEmitter, v: agc_ir::Value) -> Option<String> {
    let od = e.f.def_op(v)?;
    let agc_ir::OpKind::Const(data) = &od.kind else {
        return None;
    };
    if data.is_empty() || !data.is_splat() {
        return None;
    }
    let dtype = e.ty(v).dtype;
    let lit = splat_literal(&data.cast(dtype), dtype);
    Some(e.constant(&lit, elem(dtype)))
}

/// `"0x..."`: the elements' little-endian bytes.
fn hex_blob(data: &ConstData, dtype: DType) -> String {
    let mut s = String::from("\"0x");
    let mut put = |bytes: &[u8]| {
        for b in bytes {
            write!(s, "{b:02X}").unwrap();
        }
    };
    match (data, dtype) {
        (ConstData::Float(v), DType::F32) => v.iter().for_each(|&x| put(&(x as f32).to_le_bytes())),
        (ConstData::Float(v), _) => v.iter().for_each(|&x| put(&x.to_le_bytes())),
        (ConstData::Int(v), DType::I32) => v.iter().for_each(|&x| put(&(x as i32).to_le_bytes())),
        (ConstData::Int(v), _) => v.iter().for_each(|&x| put(&x.to_le_bytes())),
        (ConstData::Bool(v), _) => v.iter().for_each(|&x| put(&[x as u8])),
    }
    s.push('"');
    s
}

/// Nested `[[true, false], ...]` lists following the static shape.
fn nested_bools(v: &[bool], dims: &[Dim]) -> String {
    match dims.split_first() {
        None => types::int_lit(DType::Bool, v[0] as i64),
        Some((d, rest)) => {
            let n = d.as_static().unwrap_or(1).max(1) as usize;
            let chunk = v.len() / n;
            let items: Vec<String> = (0..n)
                .map(|i| nested_bools(&v[i * chunk..(i + 1) * chunk], rest))
                .collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Lowers an `iota` (`start + i * step` cast to the result dtype).
pub fn iota(e: &mut FnEmitter, od: &OpData, start: f64, step: f64) -> Result<String, BackendError> {
    super::elementwise::bind_sizes(e, od, 0)?;
    let ty = e.ty(od.results[0]);
    let init = e.empty(ty)?;
    let spec = GenericSpec {
        iterators: vec!["parallel"],
        ins: vec![],
        outs: vec![operand(&init, ty, identity_map(1))],
    };
    let dtype = ty.dtype;
    let integral = start.fract() == 0.0 && step.fract() == 0.0 && !dtype.is_float();
    let r = e.generic(&spec, |e, _| {
        let i = e.assign("linalg.index 0 : index");
        let i64v = e.assign(&format!("arith.index_cast {i} : index to i64"));
        let v = if integral {
            let st = e.constant(&(step as i64).to_string(), "i64");
            let s0 = e.constant(&(start as i64).to_string(), "i64");
            let p = e.arith("muli", &i64v, &st, "i64");
            let v = e.arith("addi", &s0, &p, "i64");
            scalar::cast(e, DType::I64, dtype, &v)
        } else {
            let f = e.assign(&format!("arith.sitofp {i64v} : i64 to f64"));
            let st = e.constant(&types::scalar_lit(DType::F64, step), "f64");
            let s0 = e.constant(&types::scalar_lit(DType::F64, start), "f64");
            let p = e.arith("mulf", &f, &st, "f64");
            let v = e.arith("addf", &s0, &p, "f64");
            scalar::cast(e, DType::F64, dtype, &v)
        };
        Ok(vec![v])
    })?;
    Ok(r.into_iter().next().unwrap())
}

/// Lowers a `dim` (the run-time size of an axis, a rank-0 `i64`).
pub fn dim(e: &mut FnEmitter, od: &OpData, axis: usize) -> Result<String, BackendError> {
    let in_ty: &TensorType = e.ty(od.operands[0]);
    let n = e.dim_size(&in_ty.dims[axis])?;
    let v = e.assign(&format!("arith.index_cast {n} : index to i64"));
    Ok(e.assign(&format!(
        "tensor.from_elements {v} : tensor<{}>",
        elem(DType::I64)
    )))
}
