//! Products composed of others in the `agc.numpy` surface: `cross`,
//! `linalg.multi_dot` and `linalg.matrix_power`, staged as numpy computes
//! them (see [`super::numpy_composite`]), so that broadcasting, run-time
//! sizes and gradients come from the ops they are made of.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Dim, Span};

/// The functions this module stages, by their `np.` name.
pub const FUNCTIONS: &[&str] = &["cross"];

impl Stager {
    /// Calls `np.<f>` for `f` in [`FUNCTIONS`] or `linalg.multi_dot` / `linalg.matrix_power`.
    pub(super) fn numpy_products(&mut self, f: &str, args: &Args) -> R<Value> {
        match f {
            "cross" => self.cross(args),
            "linalg.multi_dot" => self.multi_dot(args),
            _ => self.matrix_power(args),
        }
    }

    /// `np.cross(a, b)` of vectors of 2 or 3 components along the last axis
    /// (broadcast over the others): a vector of 3 components, or the z
    /// component alone when both have 2.
    fn cross(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        for (i, name) in [(2, "axisa"), (3, "axisb"), (4, "axisc"), (5, "axis")] {
            let last = matches!(args.get_some(i, name), None | Some(Value::Int(-1)));
            if !last {
                return Err(Diagnostic::unsupported(
                    span,
                    format!("np.cross() with {name}= other than -1 is not supported by agc"),
                ));
            }
        }
        let a = self.np1("asarray", &args.req(0, "a", "cross")?, span)?;
        let b = self.np1("asarray", &args.req(1, "b", "cross")?, span)?;
        let (na, ra) = self.components(&a, span)?;
        let (nb, rb) = self.components(&b, span)?;
        let at = |s: &mut Self, v: &Value, rank: usize, n: i64, i: i64| -> R<Option<Value>> {
            if i >= n {
                return Ok(None);
            }
            let mut items = vec![Value::slice(Value::None, Value::None); rank - 1];
            items.push(Value::Int(i));
            s.get_item(v, &Value::tuple(items), span).map(Some)
        };
        let (a0, a1, a2) = (
            at(self, &a, ra, na, 0)?,
            at(self, &a, ra, na, 1)?,
            at(self, &a, ra, na, 2)?,
        );
        let (b0, b1, b2) = (
            at(self, &b, rb, nb, 0)?,
            at(self, &b, rb, nb, 1)?,
            at(self, &b, rb, nb, 2)?,
        );
        let (a0, a1, b0, b1) = (a0.unwrap(), a1.unwrap(), b0.unwrap(), b1.unwrap());
        // x * y - z * w, where a missing third component is 0.
        let det = |s: &mut Self,
                   x: Option<&Value>,
                   y: Option<&Value>,
                   z: Option<&Value>,
                   w: Option<&Value>|
         -> R<Option<Value>> {
            let left = match (x, y) {
                (Some(x), Some(y)) => Some(s.np2("multiply", x, y, span)?),
                _ => None,
            };
            let right = match (z, w) {
                (Some(z), Some(w)) => Some(s.np2("multiply", z, w, span)?),
                _ => None,
            };
            match (left, right) {
                (Some(l), Some(r)) => s.np2("subtract", &l, &r, span).map(Some),
                (Some(l), None) => Ok(Some(l)),
                (None, Some(r)) => s.np1("negative", &r, span).map(Some),
                (None, None) => Ok(None),
            }
        };
        let z = det(self, Some(&a0), Some(&b1), Some(&a1), Some(&b0))?.expect("both products");
        if na == 2 && nb == 2 {
            return Ok(z);
        }
        let x = det(self, Some(&a1), b2.as_ref(), a2.as_ref(), Some(&b1))?;
        let y = det(self, a2.as_ref(), Some(&b0), Some(&a0), b2.as_ref())?;
        let (x, y) = (
            x.expect("one of a and b has 3"),
            y.expect("one of a and b has 3"),
        );
        // Each is a product of a component of `a` and one of `b`: one shape.
        let parts = Value::tuple(vec![x, y, z]);
        self.np("stack", vec![parts], vec![("axis", Value::Int(-1))], span)
    }

    /// Identity matrices of size `m` (a compile-time or run-time size) in the
    /// dtype and (stacked) shape of `a`: `equal.outer(arange(m), arange(m))`,
    /// which, unlike `np.eye`, takes a run-time `m`.
    pub(super) fn identity_like(&mut self, a: &Value, m: &Value, span: Span) -> R<Value> {
        let ix = self.np1("arange", m, span)?;
        let eye = self.ufunc_method(
            "equal",
            "outer",
            &Args::positional(vec![ix.clone(), ix], span),
        )?;
        let dtype = Value::DType(self.to_tensor(a, None, span)?.ty.dtype);
        let eye = self.np("asarray", vec![eye], vec![("dtype", dtype)], span)?;
        let zeros = self.np1("zeros_like", a, span)?;
        self.np2("add", &zeros, &eye, span)
    }

    /// The number of components (2 or 3, the last axis) and the rank of a
    /// `cross` operand.
    fn components(&mut self, v: &Value, span: Span) -> R<(i64, usize)> {
        let t = self.to_tensor(v, None, span)?;
        match t.ty.dims.last() {
            Some(Dim::Static(n @ (2 | 3))) => Ok((*n, t.ty.rank())),
            Some(Dim::Sym(_)) => Err(Diagnostic::unsupported(
                span,
                "np.cross(): the vectors' last axis must have a static size (2 or 3)",
            )),
            _ => Err(Diagnostic::raises(
                span,
                "ValueError",
                "incompatible dimensions for cross product\n(dimension must be 2 or 3)",
            )),
        }
    }

    /// `np.linalg.multi_dot(arrays)`: `dot` of the arrays from the left (a
    /// 1-d first or last array is a row or column vector, as in numpy; the
    /// order of the products may differ from numpy's, not the values beyond
    /// rounding).
    fn multi_dot(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let arrays = super::pyops::iterate(&args.req(0, "arrays", "multi_dot")?, span)?;
        if arrays.len() < 2 {
            return Err(Diagnostic::raises(
                span,
                "ValueError",
                "Expecting at least two arrays.",
            ));
        }
        let last = arrays.len() - 1;
        for (i, v) in arrays.iter().enumerate() {
            let rank = self.to_tensor(v, None, span)?.ty.rank();
            let ok = if i == 0 || i == last {
                rank == 1 || rank == 2
            } else {
                rank == 2
            };
            if !ok {
                return Err(Diagnostic::raises(
                    span,
                    "LinAlgError",
                    format!("{rank}-dimensional array given. Array must be two-dimensional"),
                ));
            }
        }
        let mut acc = arrays[0].clone();
        for next in &arrays[1..] {
            acc = self.np2("dot", &acc, next, span)?;
        }
        Ok(acc)
    }

    /// `np.linalg.matrix_power(a, n)` for a compile-time `n >= 0`: numpy's
    /// products in numpy's order (`(a @ a) @ a` for 3; otherwise squarings,
    /// the result multiplied by the power of each set bit of `n`), the
    /// identity for `n = 0`.
    fn matrix_power(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let a = self.np1("asarray", &args.req(0, "a", "matrix_power")?, span)?;
        let n = args.req(1, "n", "matrix_power")?.as_int().ok_or_else(|| {
            Diagnostic::unsupported(
                span,
                "np.linalg.matrix_power(): n must be a compile-time int",
            )
        })?;
        let t = self.to_tensor(&a, None, span)?;
        let rank = t.ty.rank();
        if rank < 2 || t.ty.dims[rank - 1] != t.ty.dims[rank - 2] {
            return Err(Diagnostic::raises(
                span,
                "LinAlgError",
                format!("{rank}-dimensional array given. Array must be at least two-dimensional and the last two dimensions must be square"),
            ));
        }
        if n < 0 {
            return Err(Diagnostic::unsupported(
                span,
                "np.linalg.matrix_power() with a negative power (an inverse) is not supported by agc",
            ));
        }
        if n == 3 {
            // numpy's order for 3: (a @ a) @ a.
            let square = self.np2("matmul", &a, &a, span)?;
            return self.np2("matmul", &square, &a, span);
        }
        if n == 0 {
            let size = self.np1("shape", &a, span)?;
            let m = self.get_item(&size, &Value::Int(-1), span)?;
            return self.identity_like(&a, &m, span);
        }
        let (mut n, mut z, mut result): (i64, Option<Value>, Option<Value>) = (n, None, None);
        while n > 0 {
            z = Some(match z {
                None => a.clone(),
                Some(z) => self.np2("matmul", &z, &z, span)?,
            });
            let bit = n % 2;
            n /= 2;
            if bit == 1 {
                let z = z.clone().expect("set above");
                result = Some(match result {
                    None => z,
                    Some(r) => self.np2("matmul", &r, &z, span)?,
                });
            }
        }
        Ok(result.expect("n > 0 has a set bit"))
    }
}
