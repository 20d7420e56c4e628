//! Adjoints of integer-array indexing: `gather` contributes its adjoint as
//! rows of the source's adjoint, added with `scatter_add` (repeated indices
//! accumulate; see [`super::super::sparse`]); `scatter_add` passes its
//! adjoint to the base and gathers it for the updates. Indices get no
//! adjoint.

use super::super::sparse::{Contribution, Place, Rows};
use super::{Grads, Rule, RuleError};
use agc_ir::OpKind;

/// Rules of the gather family.
pub(crate) fn apply(r: &mut Rule, kind: &OpKind) -> Result<Grads, RuleError> {
    let (idx, g) = (r.x[1], r.g);
    match *kind {
        OpKind::Gather { axis } => {
            let dx = r.want[0].then_some(Contribution::Rows(Rows {
                rows: g,
                place: Place::Take { idx, axis },
            }));
            Ok(vec![dx, None])
        }
        OpKind::ScatterAdd { axis } => {
            let dbase = r.when(0, |_| Ok(g))?;
            let dupd = r.when(2, |r| Ok(r.b.gather(g, idx, axis)?))?;
            Ok(vec![dbase, None, dupd]
                .into_iter()
                .map(|d| d.map(Contribution::Dense))
                .collect())
        }
        _ => Err(RuleError::Unsupported(format!(
            "`{}` is not a gather op",
            kind.name()
        ))),
    }
}
