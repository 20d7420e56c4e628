//! Sparse adjoints of gathers.
//!
//! The adjoint of `x[i]` (`dyn_index`) or `np.take(x, idx, axis)`
//! (`gather`) with respect to `x` is the result's adjoint at the indexed
//! rows and zero elsewhere. Such a contribution is kept as its rows and
//! their place ([`Rows`]) and added into the adjoint of `x` it meets, in
//! place (`dyn_update_add`, `scatter_add`): gathering a row of an embedding
//! table costs the size of the row, not of the table. Only where the
//! adjoint is needed as a tensor while no dense adjoint exists yet are the
//! rows scattered into zeros, once ([`Adj::dense`]). With the accumulated
//! adjoints of parameters threaded through the continuations (see
//! [`super::cps`]), a table gathered at every node of a recursion or every
//! iteration of a loop has one adjoint buffer, updated row by row.

use crate::builder::{BResult, Builder};
use agc_ir::{TensorType, Value};

/// Where rows go in the adjoint of the tensor they were gathered from.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// The sub-tensor at these indices of the leading axes (`dyn_index`).
    Index(Vec<Value>),
    /// Along `axis`, at the positions of the index tensor `idx` (`gather`).
    Take {
        /// The index tensor.
        idx: Value,
        /// The gathered axis.
        axis: usize,
    },
}

/// Rows of an adjoint not yet added into it.
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    /// The adjoint of the gather's result.
    pub rows: Value,
    /// Where they go.
    pub place: Place,
}

impl Rows {
    /// `base` with the rows added at their place.
    pub fn add_into(&self, b: &mut Builder, base: Value) -> Value {
        match &self.place {
            Place::Index(idx) => b.dyn_update(base, self.rows, idx, true),
            Place::Take { idx, axis } => b.scatter_add(base, *idx, self.rows, *axis),
        }
    }
}

/// One contribution to an adjoint.
#[derive(Clone, Debug)]
pub(crate) enum Contribution {
    /// A tensor of the adjoint's type.
    Dense(Value),
    /// Rows of it (zero elsewhere).
    Rows(Rows),
}

impl From<Value> for Contribution {
    fn from(g: Value) -> Self {
        Contribution::Dense(g)
    }
}

/// The adjoint of a value accumulated so far.
#[derive(Clone, Debug)]
pub(crate) enum Adj {
    /// A tensor.
    Dense(Value),
    /// Only rows so far (never empty).
    Rows(Vec<Rows>),
}

impl Adj {
    /// The adjoint made of `c` alone.
    pub fn of(c: Contribution) -> Adj {
        match c {
            Contribution::Dense(g) => Adj::Dense(g),
            Contribution::Rows(r) => Adj::Rows(vec![r]),
        }
    }

    /// The adjoint plus `c`: dense sums are `add`s (or one concatenation,
    /// for zero-padded pieces: [`super::padded`]); rows are added in place
    /// into a dense adjoint, or kept.
    pub fn add(self, c: Contribution, b: &mut Builder) -> BResult<Adj> {
        Ok(match (self, c) {
            (Adj::Dense(p), Contribution::Dense(g)) => match super::padded::add(b, p, g) {
                Some(merged) => Adj::Dense(merged),
                None => Adj::Dense(b.add(p, g)?),
            },
            (Adj::Dense(p), Contribution::Rows(r)) => Adj::Dense(r.add_into(b, p)),
            (Adj::Rows(rs), Contribution::Dense(g)) => Adj::Dense(add_all(b, &rs, g)),
            (Adj::Rows(mut rs), Contribution::Rows(r)) => {
                rs.push(r);
                Adj::Rows(rs)
            }
        })
    }

    /// True when `after` is `before` (no contribution came in between):
    /// the same tensor, or the same rows (rows are only ever appended).
    pub fn same(before: Option<&Adj>, after: Option<&Adj>) -> bool {
        match (before, after) {
            (None, None) => true,
            (Some(Adj::Dense(a)), Some(Adj::Dense(b))) => a == b,
            (Some(Adj::Rows(a)), Some(Adj::Rows(b))) => a.len() == b.len(),
            _ => false,
        }
    }

    /// The adjoint as a tensor of type `ty`: rows are scattered into zeros.
    pub fn dense(&self, b: &mut Builder, ty: &TensorType) -> Value {
        match self {
            Adj::Dense(g) => *g,
            Adj::Rows(rs) => {
                let z = b.zeros(ty);
                add_all(b, rs, z)
            }
        }
    }
}

/// `base` with every one of `rows` added.
fn add_all(b: &mut Builder, rows: &[Rows], base: Value) -> Value {
    rows.iter().fold(base, |acc, r| r.add_into(b, acc))
}
