//! The numpy semantics of single ops over dense `f64` buffers (shapes,
//! broadcasting, elementwise arithmetic, reductions, layout), for the
//! interpreter's frames.

use super::T;
use crate::{ArgKind, BinaryOp, CmpOp, DType, ReduceKind, SliceDim, UnaryOp};

pub(super) type R<X> = Result<X, String>;

pub(super) fn norm(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::F32 => x as f32 as f64,
        DType::F64 => x,
        DType::I32 => x as i64 as i32 as f64,
        DType::I64 => x as i64 as f64,
        DType::Bool => (x != 0.0) as u8 as f64,
    }
}

pub(super) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

pub(super) fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        idx[i] = flat % shape[i].max(1);
        flat /= shape[i].max(1);
    }
    idx
}

pub(super) fn broadcast_shapes(a: &[usize], b: &[usize]) -> R<Vec<usize>> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let da = (i + a.len()).checked_sub(n).map_or(1, |j| a[j]);
            let db = (i + b.len()).checked_sub(n).map_or(1, |j| b[j]);
            match (da, db) {
                (x, y) if x == y => Ok(x),
                (1, y) => Ok(y),
                (x, 1) => Ok(x),
                _ => Err(format!("cannot broadcast {a:?} with {b:?}")),
            }
        })
        .collect()
}

/// `np.take(x, idx, axis)` as positions: the result shape and, per result
/// element, the flat position it reads in a tensor of `shape`.
pub(super) fn take_map(shape: &[usize], idx: &T, axis: usize) -> R<(Vec<usize>, Vec<usize>)> {
    let mut out = shape[..axis].to_vec();
    out.extend(&idx.shape);
    out.extend(&shape[axis + 1..]);
    let st = strides(shape);
    let k = idx.shape.len();
    let n: usize = out.iter().product();
    let pos = (0..n)
        .map(|f| {
            let at = unravel(f, &out);
            let i = idx.data[at[axis..axis + k]
                .iter()
                .zip(strides(&idx.shape))
                .map(|(a, s)| a * s)
                .sum::<usize>()];
            let j = index(i, shape[axis])?;
            let mut src: Vec<usize> = at[..axis].to_vec();
            src.push(j);
            src.extend(&at[axis + k..]);
            Ok(src.iter().zip(&st).map(|(a, s)| a * s).sum())
        })
        .collect::<R<Vec<usize>>>()?;
    Ok((out, pos))
}

/// The element of `t` read at output multi-index `idx` under broadcasting.
pub(super) fn at(t: &T, idx: &[usize]) -> f64 {
    let off = idx.len() - t.shape.len();
    let st = strides(&t.shape);
    let flat: usize = t
        .shape
        .iter()
        .enumerate()
        .map(|(i, &n)| if n == 1 { 0 } else { idx[off + i] * st[i] })
        .sum();
    t.data[flat]
}

pub(super) fn elementwise(dtype: DType, xs: &[&T], mut f: impl FnMut(&[f64]) -> f64) -> R<T> {
    let mut shape = Vec::new();
    for x in xs {
        shape = broadcast_shapes(&shape, &x.shape)?;
    }
    let n = shape.iter().product();
    let data = (0..n)
        .map(|k| {
            let idx = unravel(k, &shape);
            let vals: Vec<f64> = xs.iter().map(|x| at(x, &idx)).collect();
            f(&vals)
        })
        .collect();
    Ok(T::new(dtype, &shape, data))
}

pub(super) fn floor_div(a: f64, b: f64, int: bool) -> R<f64> {
    if int && b == 0.0 {
        return Err("integer division by zero".into());
    }
    Ok((a / b).floor())
}

pub(super) fn py_mod(a: f64, b: f64, int: bool) -> R<f64> {
    if int && b == 0.0 {
        return Err("integer modulo by zero".into());
    }
    let r = a % b;
    Ok(if r != 0.0 && (r < 0.0) != (b < 0.0) {
        r + b
    } else {
        r
    })
}

pub(super) fn unary(u: UnaryOp, x: f64) -> f64 {
    match u {
        UnaryOp::Neg => -x,
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Abs => x.abs(),
        UnaryOp::Sin => x.sin(),
        UnaryOp::Cos => x.cos(),
        UnaryOp::Floor => x.floor(),
        UnaryOp::Ceil => x.ceil(),
        UnaryOp::Not => (x == 0.0) as u8 as f64,
        UnaryOp::Sign if x.is_nan() => x,
        UnaryOp::Sign => (x > 0.0) as i8 as f64 - (x < 0.0) as i8 as f64,
        UnaryOp::Asin => x.asin(),
        UnaryOp::Acos => x.acos(),
        UnaryOp::Atan => x.atan(),
        UnaryOp::Round => x.round_ties_even(),
    }
}

/// numpy's `left_shift`/`right_shift` of integers of `dtype`: a shift outside
/// `[0, bits)` gives 0 (right shift of a negative: -1); `<<` wraps.
fn shift(op: BinaryOp, a: i64, b: i64, dtype: DType) -> f64 {
    let bits = if dtype == DType::I32 { 32 } else { 64 };
    let inside = (0..bits).contains(&b);
    let r = match (op, inside) {
        (BinaryOp::Shl, true) if dtype == DType::I32 => {
            i64::from((a as i32).wrapping_shl(b as u32))
        }
        (BinaryOp::Shl, true) => a.wrapping_shl(b as u32),
        (BinaryOp::Shl, false) => 0,
        (_, true) => a >> b,
        (_, false) => -i64::from(a < 0),
    };
    r as f64
}

pub(super) fn binary(op: BinaryOp, a: f64, b: f64, dtype: DType) -> R<f64> {
    let int = !dtype.is_float();
    Ok(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::FloorDiv => floor_div(a, b, int)?,
        BinaryOp::Mod => py_mod(a, b, int)?,
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Max if a.is_nan() || b.is_nan() => f64::NAN,
        BinaryOp::Min if a.is_nan() || b.is_nan() => f64::NAN,
        BinaryOp::Max => a.max(b),
        BinaryOp::Min => a.min(b),
        BinaryOp::And => (a as i64 & b as i64) as f64,
        BinaryOp::Or => (a as i64 | b as i64) as f64,
        BinaryOp::Xor => (a as i64 ^ b as i64) as f64,
        BinaryOp::Shl | BinaryOp::Shr => shift(op, a as i64, b as i64, dtype),
        BinaryOp::Atan2 => a.atan2(b),
        // Rust's `%` is C's fmod for floats and truncating for integers.
        BinaryOp::FMod if int => match b as i64 {
            0 => 0.0,
            d => (a as i64).wrapping_rem(d) as f64,
        },
        BinaryOp::FMod => a % b,
    })
}

pub(super) fn compare(c: CmpOp, a: f64, b: f64) -> f64 {
    (match c {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }) as u8 as f64
}

pub(super) fn matmul(a: &T, b: &T) -> R<T> {
    let a2 = if a.shape.len() == 1 {
        T {
            shape: vec![1, a.shape[0]],
            ..a.clone()
        }
    } else {
        a.clone()
    };
    let b2 = if b.shape.len() == 1 {
        T {
            shape: vec![b.shape[0], 1],
            ..b.clone()
        }
    } else {
        b.clone()
    };
    let (ra, rb) = (a2.shape.len(), b2.shape.len());
    let (n, k, k2, m) = (
        a2.shape[ra - 2],
        a2.shape[ra - 1],
        b2.shape[rb - 2],
        b2.shape[rb - 1],
    );
    if k != k2 {
        return Err(format!("matmul: {k} != {k2}"));
    }
    let batch = broadcast_shapes(&a2.shape[..ra - 2], &b2.shape[..rb - 2])?;
    let nb: usize = batch.iter().product();
    let mut data = Vec::with_capacity(nb * n * m);
    for bi in 0..nb {
        let bidx = unravel(bi, &batch);
        let pick = |t: &T, i: usize, j: usize| {
            let mut idx = bidx.clone();
            idx.extend([i, j]);
            at(t, &idx)
        };
        for i in 0..n {
            for j in 0..m {
                data.push((0..k).map(|l| pick(&a2, i, l) * pick(&b2, l, j)).sum());
            }
        }
    }
    let mut shape = batch;
    if a.shape.len() > 1 {
        shape.push(n);
    }
    if b.shape.len() > 1 {
        shape.push(m);
    }
    Ok(T::new(a.dtype, &shape, data))
}

pub(super) fn reduce(x: &T, kind: ReduceKind, axes: &[usize], keepdims: bool) -> T {
    let out_full: Vec<usize> = x
        .shape
        .iter()
        .enumerate()
        .map(|(i, &n)| if axes.contains(&i) { 1 } else { n })
        .collect();
    let n_out: usize = out_full.iter().product();
    let init = match kind {
        ReduceKind::Sum => 0.0,
        ReduceKind::Prod => 1.0,
        ReduceKind::Max => f64::NEG_INFINITY,
        ReduceKind::Min => f64::INFINITY,
    };
    let mut acc = vec![init; n_out];
    let ost = strides(&out_full);
    for (k, &v) in x.data.iter().enumerate() {
        let idx = unravel(k, &x.shape);
        let o: usize = idx
            .iter()
            .enumerate()
            .map(|(i, &j)| if axes.contains(&i) { 0 } else { j * ost[i] })
            .sum();
        acc[o] = match kind {
            ReduceKind::Sum => acc[o] + v,
            ReduceKind::Prod => acc[o] * v,
            ReduceKind::Max => {
                if v.is_nan() || v > acc[o] {
                    v
                } else {
                    acc[o]
                }
            }
            ReduceKind::Min => {
                if v.is_nan() || v < acc[o] {
                    v
                } else {
                    acc[o]
                }
            }
        };
    }
    let shape: Vec<usize> = if keepdims {
        out_full
    } else {
        x.shape
            .iter()
            .enumerate()
            .filter(|(i, _)| !axes.contains(i))
            .map(|(_, &n)| n)
            .collect()
    };
    T::new(x.dtype, &shape, acc)
}

pub(super) fn arg_reduce(x: &T, kind: ArgKind, axis: usize, keepdims: bool) -> T {
    let n = x.shape[axis];
    let mut shape = x.shape.clone();
    shape[axis] = 1;
    let st = strides(&x.shape);
    let count: usize = shape.iter().product();
    let data = (0..count)
        .map(|k| {
            let base: usize = unravel(k, &shape).iter().zip(&st).map(|(i, s)| i * s).sum();
            let mut best = 0;
            for j in 1..n {
                let (v, b) = (x.data[base + j * st[axis]], x.data[base + best * st[axis]]);
                if (kind == ArgKind::ArgMax && v > b) || (kind == ArgKind::ArgMin && v < b) {
                    best = j;
                }
            }
            best as f64
        })
        .collect();
    if !keepdims {
        shape.remove(axis);
    }
    T::new(DType::I64, &shape, data)
}

pub(super) fn transpose(x: &T, perm: &[usize]) -> T {
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape[p]).collect();
    let st = strides(&x.shape);
    let data = (0..x.data.len())
        .map(|k| {
            let idx = unravel(k, &shape);
            x.data[idx
                .iter()
                .enumerate()
                .map(|(i, &j)| j * st[perm[i]])
                .sum::<usize>()]
        })
        .collect();
    T::new(x.dtype, &shape, data)
}

/// Gathers `x` along each axis at the given positions.
pub(super) fn gather(x: &T, picks: &[Vec<usize>]) -> T {
    let shape: Vec<usize> = picks.iter().map(Vec::len).collect();
    let st = strides(&x.shape);
    let n = shape.iter().product();
    let data = (0..n)
        .map(|k| {
            x.data[unravel(k, &shape)
                .iter()
                .enumerate()
                .map(|(i, &j)| picks[i][j] * st[i])
                .sum::<usize>()]
        })
        .collect();
    T::new(x.dtype, &shape, data)
}

pub(super) fn slice_positions(s: &SliceDim, n: usize) -> Vec<usize> {
    let (start, _) = s.bounds_for(n as i64);
    (0..s.len_for(n as i64))
        .map(|j| (start + j * s.step) as usize)
        .collect()
}

pub(super) fn index(i: f64, n: usize) -> R<usize> {
    let j = if i < 0.0 { i + n as f64 } else { i };
    if j < 0.0 || j >= n as f64 {
        return Err(format!("index {i} is out of bounds for axis with size {n}"));
    }
    Ok(j as usize)
}
