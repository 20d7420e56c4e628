//! Scopes: module globals, function frames and class bodies, with Python's
//! lookup order (local, enclosing functions, globals, builtins).

use super::value::Value;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// The prefix of the state names `__agc_var#<k>` that hold the current
/// value of variable `k` while an export is staged: bound in the module
/// scope from any frame, so that staged control flow carries them like the
/// frame's own variables.
pub const VARIABLE_STATE: &str = "__agc_var#";

/// What a scope belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ScopeKind {
    /// The module's globals.
    Module,
    /// A function call's frame.
    Function,
    /// A class body (invisible to the methods defined in it).
    Class,
}

/// Where a name lookup failed.
#[derive(Debug, PartialEq, Eq)]
pub enum LookupError {
    /// Not bound anywhere.
    Undefined,
    /// Local to the function but not yet assigned.
    Unbound,
}

/// A scope: its bindings and the scope it is nested in.
#[derive(Debug)]
pub struct Scope {
    /// Kind.
    pub kind: ScopeKind,
    vars: RefCell<HashMap<String, Value>>,
    /// Names that are local to this function (assigned anywhere in it).
    locals: Rc<BTreeSet<String>>,
    /// Names declared `global` here.
    globals: BTreeSet<String>,
    /// Enclosing scope (for functions: the defining scope).
    pub parent: Option<Rc<Scope>>,
}

impl Scope {
    /// The module scope.
    pub fn module() -> Rc<Scope> {
        Rc::new(Scope {
            kind: ScopeKind::Module,
            vars: RefCell::default(),
            locals: Rc::default(),
            globals: BTreeSet::new(),
            parent: None,
        })
    }

    /// A new function frame or class body inside `parent`.
    pub fn child(
        kind: ScopeKind,
        parent: Rc<Scope>,
        locals: Rc<BTreeSet<String>>,
        globals: BTreeSet<String>,
    ) -> Rc<Scope> {
        Rc::new(Scope {
            kind,
            vars: RefCell::default(),
            locals,
            globals,
            parent: Some(parent),
        })
    }

    /// The module scope at the root of the chain.
    pub fn root(self: &Rc<Self>) -> Rc<Scope> {
        let mut s = self.clone();
        while let Some(p) = s.parent.clone() {
            s = p;
        }
        s
    }

    /// Looks a name up the Python way (class bodies are skipped from nested functions).
    pub fn lookup(self: &Rc<Self>, name: &str) -> Result<Value, LookupError> {
        if self.globals.contains(name) {
            return self.root().get_here(name).ok_or(LookupError::Undefined);
        }
        if let Some(v) = self.get_here(name) {
            return Ok(v);
        }
        if self.kind == ScopeKind::Function && self.locals.contains(name) {
            return Err(LookupError::Unbound);
        }
        let mut cur = self.parent.clone();
        while let Some(s) = cur {
            if s.kind != ScopeKind::Class {
                if let Some(v) = s.get_here(name) {
                    return Ok(v);
                }
            }
            cur = s.parent.clone();
        }
        Err(LookupError::Undefined)
    }

    /// The module scope at the root of the chain, by reference.
    fn module_scope(&self) -> &Scope {
        let mut s = self;
        while let Some(p) = &s.parent {
            s = p;
        }
        s
    }

    /// The binding in this very scope. A state name `obj.attr` (staged
    /// control flow carries the attributes its body assigns like variables)
    /// is the attribute of the instance bound to `obj` here; the state name
    /// of an `agc.Variable` ([`VARIABLE_STATE`]) is bound in the module scope.
    pub fn get_here(&self, name: &str) -> Option<Value> {
        if name.starts_with(VARIABLE_STATE) && self.parent.is_some() {
            return self.module_scope().get_here(name);
        }
        match name.split_once('.') {
            Some((base, attr)) => match self.vars.borrow().get(base) {
                Some(Value::Instance(i)) => i.attrs.borrow().get(attr).cloned(),
                _ => None,
            },
            None => self.vars.borrow().get(name).cloned(),
        }
    }

    /// Binds a name (in the module scope if declared `global`, in the
    /// nearest enclosing function that binds it if not local here: `nonlocal`).
    pub fn set(self: &Rc<Self>, name: &str, value: Value) {
        if self.globals.contains(name) {
            self.root()
                .vars
                .borrow_mut()
                .insert(name.to_string(), value);
            return;
        }
        if self.kind == ScopeKind::Function && !self.locals.contains(name) {
            let mut cur = self.parent.clone();
            while let Some(s) = cur {
                if s.kind == ScopeKind::Function && s.get_here(name).is_some() {
                    s.vars.borrow_mut().insert(name.to_string(), value);
                    return;
                }
                cur = s.parent.clone();
            }
        }
        self.vars.borrow_mut().insert(name.to_string(), value);
    }

    /// Binds a name in this very scope (the interpreter's own bookkeeping
    /// names, and state names `obj.attr`: see [`Scope::get_here`]).
    pub fn set_local(&self, name: &str, value: Value) {
        if name.starts_with(VARIABLE_STATE) && self.parent.is_some() {
            return self.module_scope().set_local(name, value);
        }
        match name.split_once('.') {
            Some((base, attr)) => {
                if let Some(Value::Instance(i)) = self.vars.borrow().get(base) {
                    i.attrs.borrow_mut().insert(attr.to_string(), value);
                }
            }
            None => {
                self.vars.borrow_mut().insert(name.to_string(), value);
            }
        }
    }

    /// Removes a binding (`del x`), or an attribute for a state name `obj.attr`.
    pub fn remove(&self, name: &str) -> bool {
        if name.starts_with(VARIABLE_STATE) && self.parent.is_some() {
            return self.module_scope().remove(name);
        }
        match name.split_once('.') {
            Some((base, attr)) => match self.vars.borrow().get(base) {
                Some(Value::Instance(i)) => i.attrs.borrow_mut().remove(attr).is_some(),
                _ => false,
            },
            None => self.vars.borrow_mut().remove(name).is_some(),
        }
    }

    /// The names a lookup from here can find (for "did you mean"), without
    /// the compiler's own state names.
    pub fn visible_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut cur = Some(self);
        while let Some(s) = cur {
            names.extend(
                s.vars
                    .borrow()
                    .keys()
                    .filter(|k| k.chars().all(|c| c.is_alphanumeric() || c == '_'))
                    .cloned(),
            );
            cur = s.parent.as_deref();
        }
        names
    }

    /// All bindings of this scope (for class bodies).
    pub fn bindings(&self) -> HashMap<String, Value> {
        self.vars.borrow().clone()
    }
}
