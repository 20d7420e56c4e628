//! `np.linalg.cholesky` of matrices of a static size (stacks of them too):
//! the lower factor `L` of `a = L Lᵀ`, built a column at a time from the
//! lower triangle of `a` (what LAPACK's `potrf` reads), as whole-matrix ops
//! of the supported surface, so it runs on any batch size and
//! differentiates as written. A matrix that is not positive definite is
//! numpy's `LinAlgError` ("Matrix is not positive definite"), an error
//! status at run time.

use super::args::Args;
use super::value::Value;
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::Span;

impl Stager {
    /// `np.linalg.cholesky(a, /, *, upper=False)`: `L`, or `Lᵀ` with `upper`.
    pub(super) fn cholesky(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        args.check("cholesky", 1, &["a", "upper"])?;
        let upper = match args.kw.iter().find(|(k, _)| k == "upper") {
            None => false,
            Some((_, v)) => super::pyops::truthy(v).ok_or_else(|| {
                Diagnostic::unsupported(
                    span,
                    "np.linalg.cholesky(): 'upper' must be known at compile time",
                )
            })?,
        };
        let a = self.np1("asarray", &args.req(0, "a", "cholesky")?, span)?;
        let (a, n) = self.square_float(&a, "cholesky", span)?;
        let l = self.cholesky_lower(&a, n, span)?;
        if upper {
            let axes = vec![l, Value::Int(-1), Value::Int(-2)];
            return self.np("swapaxes", axes, Vec::new(), span);
        }
        Ok(l)
    }

    /// The lower Cholesky factor of `a` (`(..., n, n)`), column by column:
    /// `L[j, j] = sqrt(a[j, j] - Σ L[j, :j]²)`, and below it
    /// `L[i, j] = (a[i, j] - Σ L[i, :j] L[j, :j]) / L[j, j]`.
    fn cholesky_lower(&mut self, a: &Value, n: i64, span: Span) -> R<Value> {
        let rank = self.to_tensor(a, None, span)?.ty.rank();
        let all = || Value::slice(Value::None, Value::None);
        let index = |lead: Vec<Value>| {
            let mut items = vec![all(); rank - lead.len()];
            items.extend(lead);
            Value::tuple(items)
        };
        let idx = self.np1("arange", &Value::Int(n), span)?;
        let mut l = self.np1("zeros_like", a, span)?;
        let mut positive = Vec::new();
        for j in 0..n {
            let jv = Value::Int(j);
            let row_j = self.get_item(&l, &index(vec![jv.clone(), all()]), span)?;
            let squares = self.np2("multiply", &row_j, &row_j, span)?;
            let done = self.np("sum", vec![squares], vec![("axis", Value::Int(-1))], span)?;
            let a_jj = self.get_item(a, &index(vec![jv.clone(), jv.clone()]), span)?;
            let d = self.np2("subtract", &a_jj, &done, span)?;
            let ok = self.np2("greater", &d, &Value::Float(0.0), span)?;
            positive.push(ok.clone());
            // Where the check fails the call, any finite value will do.
            let safe = self.np("where", vec![ok, d, Value::Float(1.0)], Vec::new(), span)?;
            let l_jj = self.np1("sqrt", &safe, span)?;
            // Σ_k L[i, k] L[j, k] for every row i.
            let row_j = self.np2("expand_dims", &row_j, &Value::Int(-2), span)?;
            let products = self.np2("multiply", &l, &row_j, span)?;
            let dots = self.np("sum", vec![products], vec![("axis", Value::Int(-1))], span)?;
            let a_col = self.get_item(a, &index(vec![jv.clone()]), span)?;
            let rest = self.np2("subtract", &a_col, &dots, span)?;
            let l_jj_col = self.np2("expand_dims", &l_jj, &Value::Int(-1), span)?;
            let below = self.np2("divide", &rest, &l_jj_col, span)?;
            let (is_below, is_j) = (
                self.np2("greater", &idx, &jv, span)?,
                self.np2("equal", &idx, &jv, span)?,
            );
            let on_diagonal = self.np(
                "where",
                vec![is_j, l_jj_col, Value::Float(0.0)],
                Vec::new(),
                span,
            )?;
            let column = self.np(
                "where",
                vec![is_below, below, on_diagonal],
                Vec::new(),
                span,
            )?;
            let column = self.np2("expand_dims", &column, &Value::Int(-1), span)?;
            let in_column_j = self.np2("equal", &idx, &jv, span)?;
            l = self.np("where", vec![in_column_j, column, l], Vec::new(), span)?;
        }
        if !positive.is_empty() {
            let all_positive = self.np1("stack", &Value::tuple(positive), span)?;
            let ok = self.np1("all", &all_positive, span)?;
            let ok = super::tensor::staged(ok, span)?;
            self.check(
                &ok,
                "LinAlgError: Matrix is not positive definite".into(),
                span,
            )?;
        }
        Ok(l)
    }
}
