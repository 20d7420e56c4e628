//! Python iterators: `iter()`, `next()`, generator expressions and the
//! iterators `map`, `filter`, `zip`, `enumerate` and `reversed` return.
//!
//! An iterator walks compile-time items (all made at once: a generator's
//! body has no side effects agc could observe later) or the rows of a staged
//! tensor, one `t[k]` per `next()`. Its position is a compile-time count, so
//! it may only be advanced in the function and region it was made in: inside
//! a staged `if` or loop, how far it got would depend on run-time values.

use super::args::Args;
use super::pyops;
use super::value::{IterSource, PyIter, SliceValue, Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{CmpOp, Dim, Span};
use std::cell::RefCell;
use std::rc::Rc;

impl Stager {
    /// A new iterator over `source`, at its start, at home where staging is now.
    pub fn new_iterator(&self, source: IterSource) -> Value {
        Value::Iterator(Rc::new(RefCell::new(PyIter {
            source,
            pos: 0,
            home: (self.generation, self.region),
        })))
    }

    /// An iterator over compile-time `items`.
    pub fn iterator_over(&self, items: Vec<Value>) -> Value {
        self.new_iterator(IterSource::Items(Value::tuple(items)))
    }

    /// `iter(v)`.
    pub fn iter_builtin(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        if args.pos.len() != 1 || !args.kw.is_empty() {
            return Err(Diagnostic::unsupported(span, "iter() takes one iterable (the two-argument form iter(callable, sentinel) is not supported)"));
        }
        let v = &args.pos[0];
        Ok(match v {
            Value::Iterator(_) => v.clone(),
            Value::Tensor(t) if t.ty.rank() == 0 => return Err(Diagnostic::error(span, "iteration over a 0-d array")),
            Value::Tensor(t) => self.new_iterator(IterSource::Rows(t.clone())),
            Value::TensorList(l) => {
                let rows = self.tensor_list_stack(l, span)?;
                self.new_iterator(IterSource::Rows(rows))
            }
            Value::List(_) => self.new_iterator(IterSource::Items(v.clone())),
            Value::Instance(i) if i.class.lookup("__iter__").is_some() => {
                let m = self.get_attr(v, "__iter__", span)?;
                self.call(&m, Args::positional(vec![], span))?
            }
            Value::StagedRange(_) | Value::StagedIter(_) => {
                return Err(Diagnostic::unsupported(
                    span,
                    "iter() of a range or zip/enumerate with a run-time length is not supported; iterate it with `for`",
                ))
            }
            other => {
                let items = pyops::iterate(other, span)?;
                self.iterator_over(items)
            }
        })
    }

    /// `next(it)` and `next(it, default)`.
    pub fn next_builtin(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let it = args.req(0, "iterator", "next")?;
        let default = args.get(1, "default");
        let cell = match &it {
            Value::Iterator(c) => c.clone(),
            Value::Instance(i) if i.class.lookup("__next__").is_some() => {
                let m = self.get_attr(&it, "__next__", span)?;
                return self.call(&m, Args::positional(vec![], span));
            }
            other => {
                return Err(Diagnostic::error(
                    span,
                    format!("'{}' object is not an iterator", other.type_name()),
                ))
            }
        };
        self.check_home(&cell, "next()", span)?;
        let (source, pos) = {
            let b = cell.borrow();
            (b.source.clone(), b.pos)
        };
        let exhausted =
            || Diagnostic::raises(span, "StopIteration", "next() of an exhausted iterator");
        match source {
            IterSource::Items(items) => {
                let all = pyops::iterate(&items, span)?;
                match all.get(pos) {
                    Some(v) => {
                        cell.borrow_mut().pos += 1;
                        Ok(v.clone())
                    }
                    None => default.ok_or_else(exhausted),
                }
            }
            IterSource::Rows(t) => match &t.ty.dims[0] {
                Dim::Static(n) if pos as i64 >= *n => default.ok_or_else(exhausted),
                Dim::Static(_) => {
                    cell.borrow_mut().pos += 1;
                    self.get_item(&Value::Tensor(t), &Value::Int(pos as i64), span)
                }
                Dim::Sym(_) => {
                    cell.borrow_mut().pos += 1;
                    self.next_row(&t, pos, default, span)
                }
            },
        }
    }

    /// Row `pos` of `t`, whose length is known at run time only: past the
    /// end it is `default`, or without one the call fails (the index is out of range).
    fn next_row(&mut self, t: &Tensor, pos: usize, default: Option<Value>, span: Span) -> R<Value> {
        let index = Value::Int(pos as i64);
        let Some(default) = default else {
            return self
                .dyn_index(t, std::slice::from_ref(&index), span)
                .map(Value::Tensor);
        };
        let n = super::methods::dim_value(&t.ty.dims[0]);
        let more = self.compare(CmpOp::Lt, &index, &n, span)?;
        let more = self.to_tensor(&more, None, span)?;
        let row = |s: &mut Stager| {
            s.dyn_index(t, std::slice::from_ref(&index), span)
                .map(Value::Tensor)
        };
        self.staged_choice(
            more,
            row,
            move |_| Ok(default),
            "next() of rows and its default",
            span,
        )
    }

    /// What is left of an iterator, as an iterable (a tuple, or the
    /// remaining rows of a tensor); the iterator is then exhausted.
    pub fn drain_iterator(&mut self, cell: &Rc<RefCell<PyIter>>, span: Span) -> R<Value> {
        self.check_home(cell, "iterating", span)?;
        let (source, pos) = {
            let b = cell.borrow();
            (b.source.clone(), b.pos)
        };
        let rest = match source {
            IterSource::Items(_) => {
                Value::tuple(pyops::iterate(&Value::Iterator(cell.clone()), span)?)
            }
            IterSource::Rows(t) if pos == 0 => Value::Tensor(t),
            IterSource::Rows(t) => match t.ty.dims[0] {
                Dim::Static(n) if pos as i64 >= n => Value::tuple(vec![]),
                _ => {
                    let tail = SliceValue {
                        start: Value::Int(pos as i64),
                        stop: Value::None,
                        step: Value::None,
                    };
                    self.get_item(&Value::Tensor(t), &Value::Slice(Rc::new(tail)), span)?
                }
            },
        };
        let home = cell.borrow().home;
        *cell.borrow_mut() = PyIter {
            source: IterSource::Items(Value::tuple(vec![])),
            pos: 0,
            home,
        };
        Ok(rest)
    }

    /// Rejects advancing an iterator outside the function and region it was made in.
    fn check_home(&self, cell: &Rc<RefCell<PyIter>>, what: &str, span: Span) -> R<()> {
        if cell.borrow().home == (self.generation, self.region) {
            return Ok(());
        }
        Err(Diagnostic::unsupported(
            span,
            format!("{what} of an iterator made outside this staged `if` or loop: how far it gets would depend on run-time values; make the iterator inside it, or use a list"),
        ))
    }
}
