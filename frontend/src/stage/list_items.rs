//! Items of staged lists whose size is only known at run time: rows built
//! by an inner staged loop (`rows.append(np.stack(row))`, or the inner list
//! itself), slices with run-time bounds, arrays sized by a staged integer.
//!
//! Such an item's sizes are named inside the loop body, so the buffer made
//! before the loop cannot have them: its item dims get names of their own,
//! with size 0. An append of an item whose dims differ from the buffer's
//! only in those names makes a buffer of the item's sizes when the list is
//! still empty, checks at run time that the item has the buffer's item
//! sizes (numpy's stack fails on ragged items too), and renames the item's
//! dims to the buffer's.

use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, DType, Dim, OpKind, Span, TensorType, Type};

/// The stem of the names of item dims sized by a list's first append.
pub const ITEM_STEM: &str = "item";

/// True for an item dim sized by a list's first append (it changes in a
/// loop that appends the first item).
pub fn sized_by_append(d: &Dim) -> bool {
    matches!(d, Dim::Sym(n) if n.strip_prefix(ITEM_STEM).is_some_and(|rest| rest.starts_with('#')))
}

/// True if an item of type `item` can go into a buffer of items of type
/// `slot` after a run-time size check: the same dtype and rank, and equal
/// dims except where both are symbolic.
pub fn fits(slot: &TensorType, item: &TensorType) -> bool {
    slot.dtype == item.dtype
        && slot.rank() == item.rank()
        && slot
            .dims
            .iter()
            .zip(&item.dims)
            .all(|(a, b)| a == b || (matches!(a, Dim::Sym(_)) && matches!(b, Dim::Sym(_))))
}

impl Stager {
    /// The item type of a new buffer made here, and the run-time sizes of
    /// its symbolic dims (in order): a dim whose size cannot be had here
    /// gets a fresh name of size 0 (the first append sizes it).
    pub(super) fn buffer_item(
        &mut self,
        item: &TensorType,
        span: Span,
    ) -> R<(TensorType, Vec<Tensor>)> {
        let mut dims = Vec::new();
        let mut sizes = Vec::new();
        for d in &item.dims {
            match d {
                Dim::Static(_) => dims.push(d.clone()),
                Dim::Sym(_) => match self.sym_value(d, span) {
                    Ok(n) => {
                        dims.push(d.clone());
                        sizes.push(n);
                    }
                    Err(_) => {
                        dims.push(self.fresh_dim(ITEM_STEM));
                        sizes.push(self.scalar(0.0, DType::I64, span)?);
                    }
                },
            }
        }
        Ok((TensorType::new(item.dtype, dims), sizes))
    }

    /// `buf` ready to take `x` (see [`fits`]) and `x` with the buffer's item
    /// dims: a buffer of `x`'s sizes if the list (of `len` items) is empty,
    /// and a run-time check that the sizes agree.
    pub(super) fn fit_item(
        &mut self,
        buf: &Tensor,
        len: &Tensor,
        x: &Tensor,
        span: Span,
    ) -> R<(Tensor, Tensor)> {
        let dim = |s: &mut Stager, t: &Tensor, axis: usize| {
            s.emit(
                OpKind::Dim { axis },
                &[t],
                TensorType::scalar(DType::I64),
                span,
            )
        };
        let empty = super::tensor::staged(
            self.compare(CmpOp::Eq, &Value::Tensor(len.clone()), &Value::Int(0), span)?,
            span,
        )?;
        let f = self.func_mut();
        let (fresh_r, keep_r) = (f.new_region(&[]), f.new_region(&[]));
        self.in_region(fresh_r, |s| {
            let mut sizes = vec![dim(s, buf, 0)?];
            for (axis, d) in x.ty.dims.iter().enumerate() {
                if matches!(d, Dim::Sym(_)) {
                    sizes.push(dim(s, x, axis)?);
                }
            }
            let zero = s.scalar(0.0, buf.ty.dtype, span)?;
            let mut operands = vec![&zero];
            operands.extend(sizes.iter());
            let mut dims = vec![buf.ty.dims[0].clone()];
            dims.extend(x.ty.dims.iter().cloned());
            let fresh = s.emit(
                OpKind::Fill,
                &operands,
                TensorType::new(buf.ty.dtype, dims),
                span,
            )?;
            s.yield_one(fresh_r, &fresh, span)
        })?;
        self.in_region(keep_r, |s| s.yield_one(keep_r, buf, span))?;
        // Every symbolic dim of the result may differ from path to path.
        let mut dims = vec![self.fresh_dim("capacity")];
        for (a, b) in buf.ty.dims[1..].iter().zip(&x.ty.dims) {
            dims.push(if a == b {
                a.clone()
            } else {
                self.fresh_dim(ITEM_STEM)
            });
        }
        let ty = TensorType::new(buf.ty.dtype, dims);
        let cond = self.localize(&empty, span)?;
        let region = self.region;
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::If,
            vec![cond],
            vec![Type::Tensor(ty.clone())],
            vec![fresh_r, keep_r],
            span,
        );
        let buf = Tensor {
            value: results[0],
            ty,
            origin: self.generation,
            region,
            weak: false,
        };
        self.register_sym_sources(&buf);
        let mut same: Option<Tensor> = None;
        for (axis, (a, b)) in buf.ty.dims[1..].iter().zip(&x.ty.dims).enumerate() {
            if a == b {
                continue;
            }
            let (n, m) = (dim(self, &buf, axis + 1)?, dim(self, x, axis)?);
            let eq = self.emit(
                OpKind::Compare(CmpOp::Eq),
                &[&n, &m],
                TensorType::scalar(DType::Bool),
                span,
            )?;
            same = Some(match same {
                None => eq,
                Some(prev) => self.binary_same(BinaryOp::And, &prev, &eq, span)?,
            });
        }
        if let Some(same) = same {
            self.check(&same, "ValueError: all input arrays must have the same shape (the items of a list differ in size)".into(), span)?;
        }
        let x = self.reshape_to(x, buf.ty.dims[1..].to_vec(), span)?;
        Ok((buf, x))
    }

    /// Ends `region` yielding `t`.
    pub(super) fn yield_one(&mut self, region: agc_ir::RegionId, t: &Tensor, span: Span) -> R<()> {
        let v = self.localize(t, span)?;
        self.func_mut()
            .append_op(region, OpKind::Yield, vec![v], vec![], vec![], span);
        Ok(())
    }
}

/// The error for an item that does not fit a staged list's items.
pub fn item_error(slot: &TensorType, item: &TensorType, span: Span) -> Diagnostic {
    Diagnostic::error(
        span,
        format!(
            "a staged list of {} items cannot take an item of shape {}",
            slot.shape_string(),
            item.shape_string()
        ),
    )
}
