//! Staged lists (AutoGraph's dynamically sized `TensorArray`): a Python list
//! appended to inside a staged loop becomes a buffer of items plus a rank-0
//! `i64` length. The buffer starts with room for the loop's trip count when
//! that is known (a `for` over a range or over rows), or a few items (a
//! `while`), and doubles whenever an append finds it full, so any number of
//! appends per iteration, nested loops and `while` loops all work.
//!
//! A buffer's size is a symbolic dim; each merge point (an `if` that appends
//! on one branch, a loop's state) gives it a fresh name, since the buffer may
//! have grown on the way.

use super::scope::Scope;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{BinaryOp, CmpOp, DType, Dim, OpKind, Span, TensorType, Type};
use std::cell::RefCell;
use std::rc::Rc;

/// A staged list: its buffer and its length.
pub type ListCell = Rc<RefCell<(Tensor, Tensor)>>;

/// Room a `while` loop's list starts with; also the least a full buffer grows by.
const MIN_CAPACITY: f64 = 8.0;

/// The staged lists bound in this frame and their current (buffer, length).
pub fn snapshot_tensor_lists(scope: &Rc<Scope>) -> Vec<(ListCell, (Tensor, Tensor))> {
    scope
        .bindings()
        .into_values()
        .filter_map(|v| match v {
            Value::TensorList(l) => {
                let c = l.borrow().clone();
                Some((l, c))
            }
            _ => None,
        })
        .collect()
}

/// Names bound to staged lists in this frame (state of any loop or branch that appends).
pub fn tensor_list_names(scope: &Rc<Scope>) -> Vec<String> {
    scope
        .bindings()
        .into_iter()
        .filter(|(_, v)| matches!(v, Value::TensorList(_)))
        .map(|(n, _)| n)
        .collect()
}

/// Python lists that become staged lists because a region (a loop's probe,
/// a branch) appended to them (or an inner staged loop made them staged lists): their names, items
/// before the region, and the item type.
pub fn lists_to_stage(
    s: &mut Stager,
    lists: &super::object_state::Snapshot<Vec<Value>>,
    scope: &Rc<Scope>,
    span: Span,
) -> R<Vec<(String, Vec<Value>, TensorType)>> {
    let mut out = Vec::new();
    for (name, l, before) in lists {
        let item = match scope.get_here(name) {
            Some(Value::TensorList(t)) => {
                TensorType::new(t.borrow().0.ty.dtype, t.borrow().0.ty.dims[1..].to_vec())
            }
            _ => {
                let now = l.borrow();
                if now.len() <= before.len() {
                    continue;
                }
                // Typed without staging: the item may be made of values of the region.
                let first = &now[before.len()];
                if first.has_bottom() || before.iter().any(Value::has_bottom) {
                    // Items of a recursive result not typed yet: so is the list.
                    drop(now);
                    scope.set_local(name, Value::Bottom);
                    continue;
                }
                match super::literal::literal_type(first) {
                    Some(ty) => ty,
                    None => s.to_tensor(first, None, span)?.ty,
                }
            }
        };
        out.push((name.clone(), before.clone(), item));
    }
    Ok(out)
}

impl Stager {
    /// A fresh symbolic dim, for a size that differs from path to path.
    pub fn fresh_dim(&mut self, stem: &str) -> Dim {
        self.fresh_dims += 1;
        Dim::Sym(format!("{stem}#{}", self.fresh_dims))
    }

    /// An empty staged list of `item`-typed items holding `initial` first,
    /// with room for `room` more (a rank-0 `i64`; `None`: a few).
    pub fn new_tensor_list(
        &mut self,
        initial: &[Value],
        item: &TensorType,
        room: Option<Tensor>,
        span: Span,
    ) -> R<Value> {
        let room = match room {
            Some(n) => n,
            None => self.scalar(MIN_CAPACITY, DType::I64, span)?,
        };
        let zero = self.scalar(0.0, item.dtype, span)?;
        let (item, sizes) = self.buffer_item(item, span)?;
        let mut dims = vec![Dim::Sym(format!(
            "{}.capacity",
            self.localize(&room, span)?
        ))];
        dims.extend(item.dims.iter().cloned());
        let mut operands = vec![&zero, &room];
        operands.extend(sizes.iter());
        let mut buffer = self.emit(
            OpKind::Fill,
            &operands,
            TensorType::new(item.dtype, dims),
            span,
        )?;
        if !initial.is_empty() {
            // Items already in the list come first.
            let items: Vec<Value> = initial
                .iter()
                .map(|v| self.to_tensor_as(v, item.dtype, span).map(Value::Tensor))
                .collect::<R<_>>()?;
            let head = self.stack(&items, 0, span)?;
            if let Value::Tensor(joined) =
                self.concat(&[head, Value::Tensor(buffer.clone())], 0, span)?
            {
                buffer = joined;
            }
        }
        let len = self.scalar(initial.len() as f64, DType::I64, span)?;
        Ok(Value::TensorList(Rc::new(RefCell::new((buffer, len)))))
    }

    /// `l.append(x)` on a staged list.
    pub fn tensor_list_append(&mut self, l: &ListCell, x: &Value, span: Span) -> R<()> {
        let (buf, len) = l.borrow().clone();
        let x = match x {
            // A list of lists: the inner list is stacked, as np.array does.
            Value::TensorList(inner) => {
                let t = self.tensor_list_stack(inner, span)?;
                self.cast(&t, buf.ty.dtype, span)?
            }
            other => self.to_tensor_as(other, buf.ty.dtype, span)?,
        };
        let slot = TensorType::new(buf.ty.dtype, buf.ty.dims[1..].to_vec());
        let (buf, x) = if x.ty.dims == slot.dims {
            (buf, x)
        } else if super::list_items::fits(&slot, &x.ty) {
            self.fit_item(&buf, &len, &x, span)?
        } else {
            return Err(super::list_items::item_error(&slot, &x.ty, span));
        };
        let buf = self.reserve_one(&buf, &len, span)?;
        let ty = buf.ty.clone();
        let buf2 = self.emit(
            OpKind::DynUpdate {
                axes: 1,
                accumulate: false,
            },
            &[&buf, &x, &len],
            ty,
            span,
        )?;
        let len2 = match self.binary(BinaryOp::Add, &Value::Tensor(len), &Value::Int(1), span)? {
            Value::Tensor(t) => t,
            _ => {
                return Err(Diagnostic::internal(
                    span,
                    "length increment was not staged",
                ))
            }
        };
        *l.borrow_mut() = (buf2, len2);
        Ok(())
    }

    /// `buf`, or a copy with more room when its `len` items fill it: an IR
    /// `if` whose result size is a fresh symbolic dim.
    fn reserve_one(&mut self, buf: &Tensor, len: &Tensor, span: Span) -> R<Tensor> {
        let cap = self.emit(
            OpKind::Dim { axis: 0 },
            &[buf],
            TensorType::scalar(DType::I64),
            span,
        )?;
        let full = self.compare(
            CmpOp::Ge,
            &Value::Tensor(len.clone()),
            &Value::Tensor(cap.clone()),
            span,
        )?;
        let full = self.to_tensor(&full, Some(DType::Bool), span)?;
        let f = self.func_mut();
        let (grow_r, keep_r) = (f.new_region(&[]), f.new_region(&[]));
        self.in_region(grow_r, |s| {
            let least = s.scalar(MIN_CAPACITY, DType::I64, span)?;
            let room = s.binary_same(BinaryOp::Max, &cap, &least, span)?;
            let item = TensorType::new(buf.ty.dtype, buf.ty.dims[1..].to_vec());
            let Value::TensorList(more) = s.new_tensor_list(&[], &item, Some(room), span)? else {
                return Err(Diagnostic::internal(span, "a new staged list"));
            };
            let pad = more.borrow().0.clone();
            let grown = s.concat(&[Value::Tensor(buf.clone()), Value::Tensor(pad)], 0, span)?;
            let Value::Tensor(grown) = grown else {
                return Err(Diagnostic::internal(span, "buffer growth was not staged"));
            };
            s.yield_one(grow_r, &grown, span)
        })?;
        self.in_region(keep_r, |s| s.yield_one(keep_r, buf, span))?;
        let mut dims = buf.ty.dims.clone();
        dims[0] = self.fresh_dim("capacity");
        let ty = TensorType::new(buf.ty.dtype, dims);
        let cond = self.localize(&full, span)?;
        let region = self.region;
        let (_, results) = self.func_mut().append_op(
            region,
            OpKind::If,
            vec![cond],
            vec![Type::Tensor(ty.clone())],
            vec![grow_r, keep_r],
            span,
        );
        let grown = Tensor {
            value: results[0],
            ty,
            origin: self.generation,
            region,
            weak: false,
        };
        self.register_sym_sources(&grown);
        Ok(grown)
    }

    /// The items of a staged list as one tensor (`np.stack(l)`).
    pub fn tensor_list_stack(&mut self, l: &ListCell, span: Span) -> R<Tensor> {
        let (buf, len) = l.borrow().clone();
        let zero = self.scalar(0.0, DType::I64, span)?;
        let mut dims = buf.ty.dims.clone();
        let lv = self.localize(&len, span)?;
        dims[0] = Dim::Sym(format!("{}[:{lv}]", buf.ty.dims[0]));
        self.emit(
            OpKind::DynSlice,
            &[&buf, &zero, &len],
            TensorType::new(buf.ty.dtype, dims),
            span,
        )
    }
}
