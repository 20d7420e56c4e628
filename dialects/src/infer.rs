//! Typing rules: the result type of each op from its operand types.
//!
//! Shared by the frontend (which turns a [`TypeError`] into a diagnostic at the
//! user's span) and by the verifier (which re-derives every result type).

use crate::ops::SliceDim;
use crate::types::{DType, Dim, TensorType};
use thiserror::Error;

/// Why an op's operand types are not acceptable.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum TypeError {
    /// Shapes do not broadcast together.
    #[error("operands could not be broadcast together with shapes {0} and {1}")]
    Broadcast(String, String),
    /// A matmul whose contracted dims differ.
    #[error("matmul: shapes {0} and {1} are not aligned: {2} (dim {3}) != {4} (dim {5})")]
    MatMulAlign(String, String, String, usize, String, usize),
    /// A matmul on a rank-0 operand.
    #[error("matmul: operands must have at least one dimension, got shapes {0} and {1}")]
    MatMulScalar(String, String),
    /// An axis outside the operand's rank.
    #[error("axis {0} is out of bounds for array of dimension {1}")]
    Axis(i64, usize),
    /// The same axis twice.
    #[error("duplicate value in 'axis'")]
    DuplicateAxis,
    /// A reshape that changes the element count.
    #[error("cannot reshape array of shape {0} into shape {1}")]
    Reshape(String, String),
    /// A bad permutation.
    #[error("axes {0:?} don't match array of dimension {1}")]
    Permutation(Vec<usize>, usize),
    /// Concatenation of mismatched operands.
    #[error("all the input array dimensions except for the concatenation axis must match exactly: {0} vs {1}")]
    Concat(String, String),
    /// Operands of different ranks where equal ranks are required.
    #[error("all the input arrays must have same number of dimensions, got {0} and {1}")]
    RankMismatch(usize, usize),
    /// An op that needs one dtype got two.
    #[error("operand dtypes differ: {0} and {1}")]
    DTypeMismatch(DType, DType),
    /// An op that does not accept this dtype.
    #[error("{op} is not defined for dtype {dtype}")]
    DType {
        /// The op.
        op: String,
        /// The offending dtype.
        dtype: String,
    },
    /// Anything else, with a message.
    #[error("{0}")]
    Other(String),
}

/// numpy broadcasting of two shapes.
pub fn broadcast_dims(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, TypeError> {
    let rank = a.len().max(b.len());
    let err = || {
        TypeError::Broadcast(
            TensorType::new(DType::F32, a.to_vec()).shape_string(),
            TensorType::new(DType::F32, b.to_vec()).shape_string(),
        )
    };
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = (i + a.len()).checked_sub(rank).map(|j| &a[j]);
        let db = (i + b.len()).checked_sub(rank).map(|j| &b[j]);
        let d = match (da, db) {
            (Some(x), None) | (None, Some(x)) => x.clone(),
            (Some(x), Some(y)) if x == y => x.clone(),
            (Some(Dim::Static(1)), Some(y)) => y.clone(),
            (Some(x), Some(Dim::Static(1))) => x.clone(),
            _ => return Err(err()),
        };
        out.push(d);
    }
    Ok(out)
}

/// Broadcast of several operand shapes (elementwise ops).
pub fn broadcast_all(types: &[&TensorType]) -> Result<Vec<Dim>, TypeError> {
    let mut dims: Vec<Dim> = Vec::new();
    for t in types {
        dims = broadcast_dims(&dims, &t.dims)?;
    }
    Ok(dims)
}

/// Result type of `np.matmul(a, b)`.
pub fn matmul(a: &TensorType, b: &TensorType) -> Result<TensorType, TypeError> {
    if a.dtype != b.dtype {
        return Err(TypeError::DTypeMismatch(a.dtype, b.dtype));
    }
    if a.rank() == 0 || b.rank() == 0 {
        return Err(TypeError::MatMulScalar(a.shape_string(), b.shape_string()));
    }
    let ka = a.rank() - 1;
    let kb = if b.rank() == 1 { 0 } else { b.rank() - 2 };
    if a.dims[ka] != b.dims[kb] {
        return Err(TypeError::MatMulAlign(
            a.shape_string(),
            b.shape_string(),
            a.dims[ka].to_string(),
            ka,
            b.dims[kb].to_string(),
            kb,
        ));
    }
    let a_batch = if a.rank() > 2 {
        &a.dims[..a.rank() - 2]
    } else {
        &[][..]
    };
    let b_batch = if b.rank() > 2 {
        &b.dims[..b.rank() - 2]
    } else {
        &[][..]
    };
    let mut dims = broadcast_dims(a_batch, b_batch)
        .map_err(|_| TypeError::Broadcast(a.shape_string(), b.shape_string()))?;
    if a.rank() >= 2 {
        dims.push(a.dims[a.rank() - 2].clone());
    }
    if b.rank() >= 2 {
        dims.push(b.dims[b.rank() - 1].clone());
    }
    Ok(TensorType::new(a.dtype, dims))
}

/// Normalises a possibly negative axis against `rank`.
pub fn normalize_axis(axis: i64, rank: usize) -> Result<usize, TypeError> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(TypeError::Axis(axis, rank));
    }
    Ok(if axis < 0 {
        (axis + r) as usize
    } else {
        axis as usize
    })
}

/// Result dims of a reduction over `axes` (normalised, sorted, unique).
pub fn reduce(t: &TensorType, axes: &[usize], keepdims: bool) -> Vec<Dim> {
    t.dims
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keepdims) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(Dim::Static(1)),
            (true, false) => None,
        })
        .collect()
}

/// Result type of a transpose by `perm`.
pub fn transpose(t: &TensorType, perm: &[usize]) -> Result<TensorType, TypeError> {
    let mut seen = vec![false; t.rank()];
    if perm.len() != t.rank()
        || perm
            .iter()
            .any(|&p| p >= t.rank() || std::mem::replace(&mut seen[p], true))
    {
        return Err(TypeError::Permutation(perm.to_vec(), t.rank()));
    }
    Ok(TensorType::new(
        t.dtype,
        perm.iter().map(|&p| t.dims[p].clone()).collect(),
    ))
}

/// Result type of concatenating `ts` along `axis`.
pub fn concat(ts: &[&TensorType], axis: usize) -> Result<TensorType, TypeError> {
    let first = ts[0];
    let mut total: Option<i64> = Some(0);
    let mut sym_parts = Vec::new();
    for t in ts {
        if t.rank() != first.rank() {
            return Err(TypeError::RankMismatch(first.rank(), t.rank()));
        }
        if t.dtype != first.dtype {
            return Err(TypeError::DTypeMismatch(first.dtype, t.dtype));
        }
        for (i, (x, y)) in first.dims.iter().zip(&t.dims).enumerate() {
            if i != axis && x != y {
                return Err(TypeError::Concat(first.shape_string(), t.shape_string()));
            }
        }
        match &t.dims[axis] {
            Dim::Static(n) => total = total.map(|s| s + n),
            Dim::Sym(s) => sym_parts.push(s.clone()),
        }
    }
    let mut dims = first.dims.clone();
    dims[axis] = if sym_parts.is_empty() {
        Dim::Static(total.unwrap_or(0))
    } else {
        let mut name = sym_parts.join("+");
        if let Some(n) = total.filter(|&n| n != 0) {
            name = format!("{name}+{n}");
        }
        Dim::Sym(format!("({name})"))
    };
    Ok(TensorType::new(first.dtype, dims))
}

/// Result type of `np.take(x, idx, axis)`: `x.shape[:axis] + idx.shape +
/// x.shape[axis+1:]`; `idx` must be an integer tensor.
pub fn gather(x: &TensorType, idx: &TensorType, axis: usize) -> Result<TensorType, TypeError> {
    if axis >= x.rank() {
        return Err(TypeError::Axis(axis as i64, x.rank()));
    }
    if !matches!(idx.dtype, DType::I32 | DType::I64) {
        return Err(TypeError::Other(format!(
            "arrays used as indices must be of integer type, got {}",
            idx.dtype
        )));
    }
    let mut dims = x.dims[..axis].to_vec();
    dims.extend(idx.dims.iter().cloned());
    dims.extend(x.dims[axis + 1..].iter().cloned());
    Ok(TensorType::new(x.dtype, dims))
}

/// The size of `dim` after slicing it with `s`.
pub fn slice_dim(dim: &Dim, s: &SliceDim) -> Dim {
    match dim {
        Dim::Static(n) => Dim::Static(s.len_for(*n)),
        Dim::Sym(_) if s.is_full() => dim.clone(),
        // A full reversal keeps the size.
        Dim::Sym(_) if s.step == -1 && s.start.is_none() && s.stop.is_none() => dim.clone(),
        // `a:` and `:-b` trims (step 1): the size is `max(n - a - b, 0)`, named
        // so that equal trims of one dim have equal types (`x[1:] - x[:-1]`).
        Dim::Sym(name)
            if s.step == 1 && s.start.unwrap_or(0) >= 0 && s.stop.is_none_or(|e| e < 0) =>
        {
            let k = s.start.unwrap_or(0) - s.stop.unwrap_or(0);
            if k == 0 {
                dim.clone()
            } else {
                Dim::Sym(format!("({name}-{k})"))
            }
        }
        Dim::Sym(name) => {
            let part = |v: Option<i64>| v.map(|x| x.to_string()).unwrap_or_default();
            Dim::Sym(format!(
                "{name}[{}:{}:{}]",
                part(s.start),
                part(s.stop),
                s.step
            ))
        }
    }
}

/// True for the slices an integer index becomes: `i:i+1:1`, or `-1::1`.
pub fn is_single_index(s: &SliceDim) -> bool {
    s.step == 1
        && match (s.start, s.stop) {
            (Some(a), Some(b)) => b == a + 1 && a != -1,
            (Some(-1), None) => true,
            _ => false,
        }
}

/// Result type of a basic slice (one [`SliceDim`] per axis).
pub fn slice(t: &TensorType, dims: &[SliceDim]) -> Result<TensorType, TypeError> {
    if dims.len() != t.rank() {
        return Err(TypeError::RankMismatch(t.rank(), dims.len()));
    }
    Ok(TensorType::new(
        t.dtype,
        t.dims
            .iter()
            .zip(dims)
            .map(|(d, s)| slice_dim(d, s))
            .collect(),
    ))
}

/// Splits dims into (product of static dims, sorted symbolic names); a
/// product name such as `(B*28)` counts as its factors.
pub fn factor(dims: &[Dim]) -> (i64, Vec<String>) {
    let mut prod = 1i64;
    let mut syms = Vec::new();
    for d in dims {
        match d {
            Dim::Static(n) => prod *= n,
            Dim::Sym(s) => match s
                .strip_prefix('(')
                .and_then(|x| x.strip_suffix(')'))
                .and_then(top_level_factors)
            {
                Some(parts) => {
                    for part in parts {
                        match part.parse::<i64>() {
                            Ok(n) => prod *= n,
                            Err(_) => syms.push(part.to_string()),
                        }
                    }
                }
                None => syms.push(s.clone()),
            },
        }
    }
    syms.sort();
    (prod, syms)
}

/// The factors of a product name's inside (`A*N[1:-1:3]*2`), split at `*`
/// outside brackets and parentheses; `None` unless it is a product of at
/// least two factors (a sum like `B-1` or a single name).
fn top_level_factors(inner: &str) -> Option<Vec<&str>> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '*' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            '+' | '-' if depth == 0 => return None,
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    (parts.len() > 1 && depth == 0).then_some(parts)
}

/// The canonical dim for the product of `dims` (`B*2` is `(B*2)`, `2*3` is `6`).
pub fn dim_product(dims: &[Dim]) -> Dim {
    let (prod, syms) = factor(dims);
    match (syms.len(), prod) {
        (0, n) => Dim::Static(n),
        (1, 1) => Dim::Sym(syms[0].clone()),
        (_, 1) => Dim::Sym(format!("({})", syms.join("*"))),
        (_, n) => Dim::Sym(format!("({}*{n})", syms.join("*"))),
    }
}

/// True when two types differ at most in the names of symbolic dims: equal
/// dtypes, ranks and static dims (the types of one value seen across a call
/// or region boundary, where each side names its own run-time sizes).
pub fn same_up_to_sym_names(a: &TensorType, b: &TensorType) -> bool {
    a.dtype == b.dtype
        && a.rank() == b.rank()
        && a.dims.iter().zip(&b.dims).all(|(p, q)| match (p, q) {
            (Dim::Static(m), Dim::Static(n)) => m == n,
            (Dim::Sym(_), Dim::Sym(_)) => true,
            _ => false,
        })
}

/// True when a `reshape` from `from` to `to` is well typed: same dtype, and
/// the same element count provably, or the same shape up to the names of
/// symbolic dims (a renaming).
pub fn reshape_allowed(from: &TensorType, to: &TensorType) -> bool {
    from.dtype == to.dtype && (same_up_to_sym_names(from, to) || same_numel(&from.dims, &to.dims))
}

/// True when two shapes provably hold the same number of elements.
pub fn same_numel(a: &[Dim], b: &[Dim]) -> bool {
    factor(a) == factor(b)
}

/// Resolves numpy reshape arguments (`None` = `-1`) against `from`.
/// Symbolic dims are matched by name: `(B, 28, 28) -> (B, -1)` gives `(B, 784)`.
pub fn reshape_dims(from: &TensorType, target: &[Option<Dim>]) -> Result<Vec<Dim>, TypeError> {
    let err = || {
        let spelled: Vec<String> = target
            .iter()
            .map(|d| d.as_ref().map_or("-1".into(), |d| d.to_string()))
            .collect();
        TypeError::Reshape(from.shape_string(), format!("({})", spelled.join(", ")))
    };
    let unknown = target.iter().filter(|d| d.is_none()).count();
    if unknown > 1 {
        return Err(TypeError::Other(
            "can only specify one unknown dimension".into(),
        ));
    }
    let known: Vec<Dim> = target.iter().flatten().cloned().collect();
    let (from_prod, mut from_syms) = factor(&from.dims);
    let (to_prod, to_syms) = factor(&known);
    if unknown == 0 {
        return if same_numel(&from.dims, &known) {
            Ok(known)
        } else {
            Err(err())
        };
    }
    for s in &to_syms {
        match from_syms.iter().position(|x| x == s) {
            Some(i) => {
                from_syms.remove(i);
            }
            None => return Err(err()),
        }
    }
    if to_prod == 0 || from_prod % to_prod != 0 {
        return Err(err());
    }
    let mut rest: Vec<Dim> = from_syms.into_iter().map(Dim::Sym).collect();
    rest.push(Dim::Static(from_prod / to_prod));
    let inferred = dim_product(&rest);
    Ok(target
        .iter()
        .map(|d| d.clone().unwrap_or_else(|| inferred.clone()))
        .collect())
}

/// Which operand dtypes an elementwise op accepts, and its result dtype.
pub fn check_dtype(op: &str, dtype: DType, allowed: &[DType]) -> Result<(), TypeError> {
    if allowed.contains(&dtype) {
        Ok(())
    } else {
        Err(TypeError::DType {
            op: op.into(),
            dtype: dtype.numpy_name().into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(dims: &[Dim]) -> TensorType {
        TensorType::new(DType::F32, dims.to_vec())
    }
    fn s(n: &str) -> Dim {
        Dim::Sym(n.into())
    }
    use Dim::Static as S;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(
            broadcast_dims(&[S(3), S(1)], &[S(4)]).unwrap(),
            vec![S(3), S(4)]
        );
        assert_eq!(
            broadcast_dims(&[s("B"), S(4)], &[S(1), S(4)]).unwrap(),
            vec![s("B"), S(4)]
        );
        assert!(broadcast_dims(&[S(3)], &[S(4)]).is_err());
        assert!(broadcast_dims(&[s("B")], &[s("T")]).is_err());
    }

    #[test]
    fn matmul_shapes_follow_numpy() {
        let r = matmul(&t(&[s("B"), S(784)]), &t(&[S(784), S(10)])).unwrap();
        assert_eq!(r.dims, vec![s("B"), S(10)]);
        assert_eq!(
            matmul(&t(&[S(3)]), &t(&[S(3), S(5)])).unwrap().dims,
            vec![S(5)]
        );
        assert_eq!(
            matmul(&t(&[S(4), S(3)]), &t(&[S(3)])).unwrap().dims,
            vec![S(4)]
        );
        assert_eq!(
            matmul(&t(&[S(3)]), &t(&[S(3)])).unwrap().dims,
            Vec::<Dim>::new()
        );
        assert_eq!(
            matmul(&t(&[S(2), S(4), S(3)]), &t(&[S(3), S(5)]))
                .unwrap()
                .dims,
            vec![S(2), S(4), S(5)]
        );
        assert!(matmul(&t(&[S(4), S(3)]), &t(&[S(4), S(3)])).is_err());
    }

    #[test]
    fn reshape_infers_unknown_dim_through_symbols() {
        let from = t(&[s("B"), S(28), S(28)]);
        assert_eq!(
            reshape_dims(&from, &[Some(s("B")), None]).unwrap(),
            vec![s("B"), S(784)]
        );
        assert_eq!(
            reshape_dims(&from, &[None, Some(S(28))]).unwrap()[0],
            Dim::Sym("(B*28)".into())
        );
        assert!(reshape_dims(&t(&[S(6)]), &[Some(S(4)), None]).is_err());
        assert_eq!(
            reshape_dims(&t(&[S(6)]), &[Some(S(2)), None]).unwrap(),
            vec![S(2), S(3)]
        );
    }

    #[test]
    fn products_split_only_at_top_level_stars() {
        assert_eq!(
            factor(&[s("(N[1:-1:3]*3)")]),
            (3, vec!["N[1:-1:3]".to_string()])
        );
        assert_eq!(
            factor(&[s("(A*N[a*b:c])"), S(2)]),
            (2, vec!["A".to_string(), "N[a*b:c]".to_string()])
        );
        assert_eq!(factor(&[s("(B-1)")]), (1, vec!["(B-1)".to_string()]));
        assert_eq!(dim_product(&[s("N[::2]"), S(2)]), s("(N[::2]*2)"));
        assert!(same_numel(
            &[s("N[::2]"), S(2), S(3)],
            &[s("(N[::2]*2)"), S(3)]
        ));
    }
}
