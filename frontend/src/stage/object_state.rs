//! Mutable Python objects as state of staged control flow. A staged `if` or
//! loop may change the objects bound in the frame: attributes, directly
//! (`cell.h = ...`) or through a method (`cell.step(x)`), and the contents of
//! lists and dicts (`d["h"] = t`, `l[0] = t`). Which ones is seen by running
//! the region (the loop's probe, the two branches), with the contents
//! snapshotted before and put back after. A changed attribute becomes a
//! state name `obj.attr`, carried like a variable
//! ([`super::scope::Scope::get_here`] reads and writes it); a changed list or
//! dict is merged under its name.

use super::pyops;
use super::scope::Scope;
use super::value::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Whether a region left `b` where `a` was: the same staged value or list
/// object, or an equal compile-time value.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => x.value == y.value && x.origin == y.origin,
        (Value::TensorList(x), Value::TensorList(y)) => Rc::ptr_eq(x, y),
        (Value::Dict(x), Value::Dict(y)) => Rc::ptr_eq(x, y),
        (Value::BoundMethod(x), Value::BoundMethod(y)) => Rc::ptr_eq(x, y),
        (Value::Builtin(m, x), Value::Builtin(n, y)) => {
            m == n
                && match (x, y) {
                    (Some(x), Some(y)) => same(x, y),
                    (None, None) => true,
                    _ => false,
                }
        }
        (Value::Namespace(m, p), Value::Namespace(n, q)) => m == n && p == q,
        _ => !a.is_staged() && !b.is_staged() && pyops::py_eq(a, b),
    }
}

/// The attributes of the instances bound in a frame, by state name `obj.attr`.
pub type Attrs = BTreeMap<String, Value>;

/// The attributes of the instances bound in this frame now.
pub fn snapshot(scope: &Rc<Scope>) -> Attrs {
    let mut out = Attrs::new();
    for (name, v) in scope.bindings() {
        if let Value::Instance(i) = v {
            for (attr, value) in i.attrs.borrow().iter() {
                out.insert(format!("{name}.{attr}"), value.clone());
            }
        }
    }
    out
}

/// The state names whose value differs between `before` and `after`
/// (added or removed attributes included).
pub fn changed(before: &Attrs, after: &Attrs) -> Vec<String> {
    let mut names: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k).is_none_or(|b| !same(b, v)))
        .map(|(k, _)| k.clone())
        .collect();
    names.extend(before.keys().filter(|k| !after.contains_key(*k)).cloned());
    names
}

/// Puts the attributes of `before` back (attributes added since are removed).
pub fn restore(scope: &Rc<Scope>, before: &Attrs) {
    for name in snapshot(scope).keys() {
        if !before.contains_key(name) {
            scope.remove(name);
        }
    }
    for (name, v) in before {
        scope.set_local(name, v.clone());
    }
}

/// Objects bound in this frame (by name) and their contents at snapshot time.
pub type Snapshot<T> = Vec<(String, Rc<RefCell<T>>, T)>;

/// The contents of the objects bound in this frame that `pick` selects.
fn contents<T: Clone>(
    scope: &Rc<Scope>,
    pick: fn(&Value) -> Option<&Rc<RefCell<T>>>,
) -> Snapshot<T> {
    scope
        .bindings()
        .into_iter()
        .filter_map(|(name, v)| {
            let cell = pick(&v)?.clone();
            let items = cell.borrow().clone();
            Some((name, cell, items))
        })
        .collect()
}

/// The Python lists bound in this frame and their items.
fn lists(scope: &Rc<Scope>) -> Snapshot<Vec<Value>> {
    contents(scope, |v| {
        if let Value::List(l) = v {
            Some(l)
        } else {
            None
        }
    })
}

/// The dicts bound in this frame and their items.
fn dicts(scope: &Rc<Scope>) -> Snapshot<Vec<(Value, Value)>> {
    contents(scope, |v| {
        if let Value::Dict(d) = v {
            Some(d)
        } else {
            None
        }
    })
}

/// The lists and dicts of a frame, snapshotted before a region runs.
pub struct Containers {
    lists: Snapshot<Vec<Value>>,
    dicts: Snapshot<Vec<(Value, Value)>>,
}

impl Containers {
    /// Snapshots the lists and dicts bound in this frame.
    pub fn take(scope: &Rc<Scope>) -> Containers {
        Containers {
            lists: lists(scope),
            dicts: dicts(scope),
        }
    }

    /// The names whose list or dict the region changed in place (items
    /// replaced or removed, keys added), each with a copy of its contents
    /// now (a new object, unaffected by [`Containers::restore`]). A list
    /// that grew is left to the region that stages it (see [`super::lists`]).
    pub fn changed(&self) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for (name, cell, before) in &self.lists {
            let now = cell.borrow();
            if now.len() < before.len()
                || (now.len() == before.len() && now.iter().zip(before).any(|(a, b)| !same(a, b)))
            {
                out.push((
                    name.clone(),
                    Value::List(Rc::new(RefCell::new(now.clone()))),
                ));
            }
        }
        for (name, cell, before) in &self.dicts {
            let now = cell.borrow();
            if !same_keys(&now, before)
                || now.iter().zip(before).any(|((_, a), (_, b))| !same(a, b))
            {
                out.push((
                    name.clone(),
                    Value::Dict(Rc::new(RefCell::new(now.clone()))),
                ));
            }
        }
        out
    }

    /// The names of the lists the region made shorter (`pop`, `del`), with
    /// their lengths before and after.
    pub fn shrunk(&self) -> Vec<(String, usize, usize)> {
        self.lists
            .iter()
            .filter(|(_, cell, before)| cell.borrow().len() < before.len())
            .map(|(n, cell, before)| (n.clone(), before.len(), cell.borrow().len()))
            .collect()
    }

    /// The lists and their items at snapshot time.
    pub fn lists(&self) -> &Snapshot<Vec<Value>> {
        &self.lists
    }

    /// Binds each snapshotted list's name to it again (a region may have
    /// rebound the name, e.g. to a staged list an inner loop made).
    pub fn rebind_lists(&self, scope: &Rc<Scope>) {
        for (name, list, _) in &self.lists {
            scope.set_local(name, Value::List(list.clone()));
        }
    }

    /// Puts back the contents of the lists and dicts, of the lists that
    /// grew too when `grown_too`.
    pub fn restore(&self, grown_too: bool) {
        for (_, cell, items) in &self.lists {
            if grown_too || cell.borrow().len() <= items.len() {
                *cell.borrow_mut() = items.clone();
            }
        }
        for (_, cell, items) in &self.dicts {
            *cell.borrow_mut() = items.clone();
        }
    }
}

/// Whether two dicts' items have the same keys in the same order.
fn same_keys(a: &[(Value, Value)], b: &[(Value, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((k1, _), (k2, _))| pyops::py_eq(k1, k2))
}
