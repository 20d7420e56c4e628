//! Spelling of agc types and literals in MLIR text.
//!
//! Tensors become ranked builtin tensors (`tensor<?x784xf32>`): a static dim
//! prints as its size, a symbolic one as `?`; `bool` is `i1`. Float literals
//! are printed as hexadecimal bit patterns, which MLIR accepts for float
//! types and which round-trip exactly (NaN and infinities included).

use agc_ir::{DType, Dim, TensorType};

/// The MLIR element type of a dtype (`bool` is `i1`).
pub fn elem(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "i1",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::F32 => "f32",
        DType::F64 => "f64",
    }
}

/// The shape part of a tensor type: `?x784x` (empty for rank 0).
pub fn shape_prefix(dims: &[Dim]) -> String {
    dims.iter()
        .map(|d| match d {
            Dim::Static(n) => format!("{n}x"),
            Dim::Sym(_) => "?x".to_string(),
        })
        .collect()
}

/// The MLIR type of a tensor: `tensor<?x784xf32>`, `tensor<i64>` for rank 0.
pub fn tensor(t: &TensorType) -> String {
    format!("tensor<{}{}>", shape_prefix(&t.dims), elem(t.dtype))
}

/// The identity-layout memref type of a tensor: `memref<?x784xf32>`.
pub fn memref(t: &TensorType) -> String {
    format!("memref<{}{}>", shape_prefix(&t.dims), elem(t.dtype))
}

/// The MLIR type of a value at buffer level: the identity-layout memref of
/// a tensor, `i64` (its environment record's address) for a continuation.
pub fn value_memref(t: &agc_ir::Type) -> String {
    match t.as_tensor() {
        Some(t) => memref(t),
        None => "i64".to_string(),
    }
}

/// The memref type of a tensor's buffer at any strides and offset:
/// `memref<?x784xf32, strided<[?, ?], offset: ?>>`.
pub fn strided_memref(t: &TensorType) -> String {
    strided_at_any_offset(t, &vec!["?".to_string(); t.rank()])
}

/// The memref type of `t` with the given strides at a dynamic offset.
fn strided_at_any_offset(t: &TensorType, strides: &[String]) -> String {
    format!(
        "memref<{}{}, strided<[{}], offset: ?>>",
        shape_prefix(&t.dims),
        elem(t.dtype),
        strides.join(", ")
    )
}

/// The memref type in which a called function takes a tensor parameter.
/// Of a static shape: row-major strides at any offset
/// (`memref<200x784xf32, strided<[784, 1], offset: ?>>`), so that a
/// contiguous view (`xs[k]`, a slice of leading rows) is passed as it is
/// instead of copied. Of a symbolic shape: the identity layout (MLIR cannot
/// state row-major strides it does not know; a view is copied).
pub fn param_memref(t: &TensorType) -> String {
    let Some(sizes) = t
        .dims
        .iter()
        .map(Dim::as_static)
        .collect::<Option<Vec<i64>>>()
    else {
        return memref(t);
    };
    let mut strides = vec![1i64; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(sizes[i + 1]);
    }
    let strides: Vec<String> = strides.iter().map(i64::to_string).collect();
    strided_at_any_offset(t, &strides)
}

/// A tensor type of the given dims and dtype.
pub fn tensor_of(dtype: DType, dims: &[Dim]) -> String {
    format!("tensor<{}{}>", shape_prefix(dims), elem(dtype))
}

/// A scalar literal of `dtype` holding `x` (converted the numpy way), as
/// the attribute text before `: type`.
pub fn scalar_lit(dtype: DType, x: f64) -> String {
    match dtype {
        DType::Bool => if x != 0.0 { "true" } else { "false" }.to_string(),
        DType::I32 => format!("{}", x as i32),
        DType::I64 => format!("{}", x as i64),
        DType::F32 => format!("0x{:08X}", (x as f32).to_bits()),
        DType::F64 => format!("0x{:016X}", x.to_bits()),
    }
}

/// The zero literal of a dtype (`false` for bool).
pub fn zero_lit(dtype: DType) -> String {
    if dtype.is_float() {
        scalar_lit(dtype, 0.0)
    } else {
        int_lit(dtype, 0)
    }
}

/// An integer literal of an integer or bool dtype.
pub fn int_lit(dtype: DType, x: i64) -> String {
    match dtype {
        DType::Bool => if x != 0 { "true" } else { "false" }.to_string(),
        DType::I32 => format!("{}", x as i32),
        _ => format!("{x}"),
    }
}

/// The smallest value of a dtype (`-inf` for floats): the identity of max.
pub fn lowest_lit(dtype: DType) -> String {
    match dtype {
        DType::Bool => "false".into(),
        DType::I32 => i32::MIN.to_string(),
        DType::I64 => i64::MIN.to_string(),
        DType::F32 | DType::F64 => scalar_lit(dtype, f64::NEG_INFINITY),
    }
}

/// The largest value of a dtype (`+inf` for floats): the identity of min.
pub fn highest_lit(dtype: DType) -> String {
    match dtype {
        DType::Bool => "true".into(),
        DType::I32 => i32::MAX.to_string(),
        DType::I64 => i64::MAX.to_string(),
        DType::F32 | DType::F64 => scalar_lit(dtype, f64::INFINITY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_literals_spell_as_mlir() {
        let t = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(784)]);
        assert_eq!(tensor(&t), "tensor<?x784xf32>");
        assert_eq!(tensor(&TensorType::scalar(DType::Bool)), "tensor<i1>");
        assert_eq!(scalar_lit(DType::F32, 1.0), "0x3F800000");
        assert_eq!(
            scalar_lit(DType::F64, f64::NEG_INFINITY),
            "0xFFF0000000000000"
        );
        assert_eq!(scalar_lit(DType::I32, -3.0), "-3");
        assert_eq!(lowest_lit(DType::I64), "-9223372036854775808");
    }
}
