//! Attributes of Python objects as state of staged control flow. A staged
//! `if` or loop may assign attributes of the objects bound in the frame,
//! directly (`cell.h = ...`) or through a method (`cell.step(x)`). Which ones
//! is seen by running the region (the loop's probe, the two branches): an
//! attribute that changed becomes a state name `obj.attr`, carried like a
//! variable ([`super::scope::Scope::get_here`] reads and writes it).

use super::pyops;
use super::scope::Scope;
use super::value::Value;
use std::collections::BTreeMap;
use std::rc::Rc;

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
    let same = |a: &Value, b: &Value| match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => x.value == y.value && x.origin == y.origin,
        (Value::TensorList(x), Value::TensorList(y)) => Rc::ptr_eq(x, y),
        _ => !a.is_staged() && !b.is_staged() && pyops::py_eq(a, b),
    };
    let mut names: Vec<String> = after.iter().filter(|(k, v)| before.get(*k).is_none_or(|b| !same(b, v))).map(|(k, _)| k.clone()).collect();
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
