//! Adjoints of integer-array indexing: `gather` scatters its adjoint into
//! zeros of the source's type with `scatter_add` (repeated indices
//! accumulate); `scatter_add` passes its adjoint to the base and gathers
//! it for the updates. Indices get no adjoint.

use super::{Grads, Rule, RuleError};
use agc_ir::OpKind;

/// Rules of the gather family.
pub(crate) fn apply(r: &mut Rule, kind: &OpKind) -> Result<Grads, RuleError> {
    let (idx, g) = (r.x[1], r.g);
    match *kind {
        OpKind::Gather { axis } => {
            let x = r.x[0];
            let dx = r.when(0, |r| {
                let z = r.b.zeros(&r.ty(x));
                Ok(r.b.scatter_add(z, idx, g, axis))
            })?;
            Ok(vec![dx, None])
        }
        OpKind::ScatterAdd { axis } => {
            let dbase = r.when(0, |_| Ok(g))?;
            let dupd = r.when(2, |r| Ok(r.b.gather(g, idx, axis)?))?;
            Ok(vec![dbase, None, dupd])
        }
        _ => Err(RuleError::Unsupported(format!(
            "`{}` is not a gather op",
            kind.name()
        ))),
    }
}
