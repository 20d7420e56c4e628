//! Values of the staging interpreter: compile-time Python objects, and staged
//! tensors (IR values). Every construct dispatches on these.

use super::scope::Scope;
use agc_ir::{DType, Dim, TensorType};
use rustpython_parser::ast;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A staged tensor: an IR value and its type.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// The IR value.
    pub value: agc_ir::Value,
    /// Its type.
    pub ty: TensorType,
    /// Which function staged it: 0 for module-level (compile-time) arrays,
    /// which are copied into each export that uses them.
    pub origin: u32,
    /// The region it was staged in (it is visible there and in nested regions).
    pub region: agc_ir::RegionId,
    /// A staged Python number (a loop counter over a staged range, and
    /// arithmetic on it): it promotes like a Python scalar (NEP 50), not
    /// like an array.
    pub weak: bool,
}

impl Tensor {
    /// The same value marked as a staged Python number.
    pub fn into_weak(mut self) -> Tensor {
        self.weak = self.ty.rank() == 0;
        self
    }
}

/// A user-defined function or lambda, closed over its defining scope.
#[derive(Debug)]
pub struct Closure {
    /// Name (`<lambda>` for lambdas).
    pub name: String,
    /// Parameters.
    pub args: &'static ast::Arguments,
    /// Body statements (a lambda's body is `lambda_body`).
    pub body: &'static [ast::Stmt],
    /// A lambda's expression.
    pub lambda_body: Option<&'static ast::Expr>,
    /// Default values of positional parameters (aligned to the end of `posonlyargs + args`).
    pub defaults: Vec<Value>,
    /// Default values of keyword-only parameters, by name.
    pub kw_defaults: HashMap<String, Value>,
    /// Evaluated annotations by parameter name.
    pub annotations: HashMap<String, Value>,
    /// The scope it was defined in.
    pub env: Rc<Scope>,
    /// Names local to the body (Python's scoping rule).
    pub locals: Rc<std::collections::BTreeSet<String>>,
    /// Where it was defined.
    pub span: agc_ir::Span,
    /// Docstring, if any.
    pub doc: String,
}

/// A user-defined class.
#[derive(Debug)]
pub struct Class {
    /// Name.
    pub name: String,
    /// Base classes, for attribute lookup.
    pub bases: Vec<Rc<Class>>,
    /// Class attributes and methods.
    pub attrs: RefCell<HashMap<String, Value>>,
}

impl Class {
    /// Looks up an attribute through the bases (depth-first, left to right).
    pub fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.attrs.borrow().get(name) {
            return Some(v.clone());
        }
        self.bases.iter().find_map(|b| b.lookup(name))
    }

    /// True if `self` is `other` or derives from it.
    pub fn is_subclass_of(self: &Rc<Self>, other: &Rc<Class>) -> bool {
        Rc::ptr_eq(self, other) || self.bases.iter().any(|b| b.is_subclass_of(other))
    }
}

/// An instance of a user-defined class.
#[derive(Debug)]
pub struct Instance {
    /// Its class.
    pub class: Rc<Class>,
    /// Instance attributes.
    pub attrs: RefCell<HashMap<String, Value>>,
}

/// A namespace object: `np`, `agc`, `math`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Namespace {
    /// `agc`
    Agc,
    /// `agc.numpy` or `numpy`
    Numpy,
    /// `numpy.random` etc.: recognised so the error names it.
    NumpyOther,
    /// `math`
    Math,
    /// `operator`
    Operator,
    /// `functools`
    Functools,
    /// `collections`
    Collections,
    /// A module we do not model (`os`, ...); any use is an error.
    Opaque,
}

/// A Python `slice` object.
#[derive(Clone, Debug)]
pub struct SliceValue {
    /// `start`
    pub start: Value,
    /// `stop`
    pub stop: Value,
    /// `step`
    pub step: Value,
}

/// A compile-time Python value or a staged tensor.
#[derive(Clone, Debug)]
pub enum Value {
    /// `None`
    None,
    /// `bool`
    Bool(bool),
    /// `int` (64-bit)
    Int(i64),
    /// `float`
    Float(f64),
    /// `str`
    Str(Rc<str>),
    /// `tuple`
    Tuple(Rc<Vec<Value>>),
    /// `list` (mutable, shared)
    List(Rc<RefCell<Vec<Value>>>),
    /// `dict` (insertion-ordered)
    Dict(Rc<RefCell<Vec<(Value, Value)>>>),
    /// `slice`
    Slice(Rc<SliceValue>),
    /// `...`
    Ellipsis,
    /// A user function or lambda.
    Function(Rc<Closure>),
    /// A method bound to its receiver.
    BoundMethod(Rc<(Value, Value)>),
    /// A built-in function or a library function, by qualified name (`len`, `np.exp`, `tensor.reshape`).
    Builtin(Rc<str>, Option<Box<Value>>),
    /// A user class.
    Class(Rc<Class>),
    /// An instance of a user class.
    Instance(Rc<Instance>),
    /// A module-like namespace.
    Namespace(Namespace, Rc<str>),
    /// A numpy dtype object (`np.float32`), also callable as a scalar constructor.
    DType(DType),
    /// `agc.f32`: subscript it to get a [`Value::Spec`].
    SpecFactory(DType),
    /// `agc.f32["B", 784]`: a parameter annotation.
    Spec(TensorType),
    /// A size only known at run time (a symbolic dim of a staged tensor).
    SymInt(Dim),
    /// A staged tensor.
    Tensor(Tensor),
    /// `range(start, stop, step)` with a run-time bound (drives a staged loop).
    StagedRange(Rc<(Value, Value, i64)>),
    /// A list appended to inside a staged loop: a buffer whose first axis
    /// is the capacity, and the run-time length (rank-0 `i64`).
    TensorList(Rc<RefCell<(Tensor, Tensor)>>),
    /// The result of a recursive call while its function's result type is
    /// still being discovered: absorbs every operation on it.
    Bottom,
    /// `zip(a, b, ...)`, `enumerate(t, start)` or `enumerate(zip(...))` over
    /// tensors with a run-time first axis: drives a staged `for`.
    StagedIter(Rc<StagedRows>),
    /// A variable left undefined on some path of staged control flow; any
    /// use is an error carrying this explanation.
    Undefined(Rc<str>),
    /// A Python iterator (`iter(x)`, a generator expression, `map`, `zip`, ...).
    Iterator(Rc<RefCell<PyIter>>),
    /// A `collections.namedtuple` class.
    TupleClass(Rc<TupleClass>),
    /// An instance of a `collections.namedtuple` class: a tuple whose items
    /// are also attributes.
    NamedTuple(Rc<TupleClass>, Rc<Vec<Value>>),
    /// A variable bound on some run-time paths only (assigned in one branch
    /// of a staged `if`, or only inside a staged loop): reading it checks
    /// at run time that the path taken bound it, as CPython would.
    MaybeBound(Rc<MaybeBound>),
    /// An `agc.Variable`: state of the module, by index into
    /// [`super::Stager::variables`]. Tensor operations read its current value.
    Variable(usize),
}

/// A value bound where a staged flag holds (see [`Value::MaybeBound`]).
#[derive(Clone, Debug)]
pub struct MaybeBound {
    /// The value, where bound (a placeholder elsewhere).
    pub value: Value,
    /// Rank-0 `bool`: whether the path taken bound it.
    pub bound: Tensor,
}

/// A `collections.namedtuple` class.
#[derive(Debug)]
pub struct TupleClass {
    /// Name.
    pub name: String,
    /// Field names, in order.
    pub fields: Vec<String>,
    /// Default values of the last fields.
    pub defaults: Vec<Value>,
}

/// What an iterator walks.
#[derive(Clone, Debug)]
pub enum IterSource {
    /// The items of a compile-time sequence (a list is read live, as Python does).
    Items(Value),
    /// The rows (first axis) of a staged tensor.
    Rows(Tensor),
}

/// A Python iterator: its source and how far it got.
#[derive(Debug)]
pub struct PyIter {
    /// What it walks.
    pub source: IterSource,
    /// Items already produced.
    pub pos: usize,
    /// The function (generation) and region it was made in: advancing it
    /// anywhere else (inside a staged `if` or loop) would make its position
    /// depend on run-time values.
    pub home: (u32, agc_ir::RegionId),
}

/// The kind of a sequence value: what a merged or rebuilt sequence becomes.
#[derive(Clone, Debug)]
pub enum SeqKind {
    /// `tuple`
    Tuple,
    /// `list`
    List,
    /// An instance of this namedtuple class.
    Named(Rc<TupleClass>),
}

impl SeqKind {
    /// The kind of a tuple, list or namedtuple.
    pub fn of(v: &Value) -> Option<SeqKind> {
        match v {
            Value::Tuple(_) => Some(SeqKind::Tuple),
            Value::List(_) => Some(SeqKind::List),
            Value::NamedTuple(c, _) => Some(SeqKind::Named(c.clone())),
            _ => None,
        }
    }

    /// A sequence of this kind holding `items`.
    pub fn build(&self, items: Vec<Value>) -> Value {
        match self {
            SeqKind::Tuple => Value::tuple(items),
            SeqKind::List => Value::list(items),
            SeqKind::Named(c) => Value::NamedTuple(c.clone(), Rc::new(items)),
        }
    }
}

/// The rows of tensors with the same run-time first axis, walked together
/// by a staged `for` (`for row in t`, `zip`, `enumerate`).
#[derive(Clone, Debug)]
pub struct StagedRows {
    /// The tensors, one row of each per iteration.
    pub tensors: Vec<Tensor>,
    /// Each item is the tuple of the rows (`zip`), not the one row.
    pub zipped: bool,
    /// Each item is `(start + i, rows)` (`enumerate`).
    pub enumerate_from: Option<i64>,
}

impl Value {
    /// The Python type name, for messages.
    pub fn type_name(&self) -> String {
        match self {
            Value::None => "NoneType".into(),
            Value::Bool(_) => "bool".into(),
            Value::Int(_) => "int".into(),
            Value::Float(_) => "float".into(),
            Value::Str(_) => "str".into(),
            Value::Tuple(_) => "tuple".into(),
            Value::List(_) => "list".into(),
            Value::Dict(_) => "dict".into(),
            Value::Slice(_) => "slice".into(),
            Value::Ellipsis => "ellipsis".into(),
            Value::Function(_) => "function".into(),
            Value::BoundMethod(_) => "method".into(),
            Value::Builtin(..) => "builtin_function".into(),
            Value::Class(_) => "type".into(),
            Value::Instance(i) => i.class.name.clone(),
            Value::Namespace(..) => "module".into(),
            Value::DType(_) => "dtype".into(),
            Value::SpecFactory(_) => "agc dtype".into(),
            Value::Spec(_) => "agc tensor spec".into(),
            Value::SymInt(_) => "int (run-time size)".into(),
            Value::Tensor(t) => format!("staged tensor {}", t.ty),
            Value::Undefined(_) => "undefined".into(),
            Value::MaybeBound(m) => m.value.type_name(),
            Value::StagedRange(_) => "range".into(),
            Value::StagedIter(_) => "iterator".into(),
            Value::Bottom => "recursive result".into(),
            Value::TensorList(_) => "list (staged)".into(),
            Value::Iterator(_) => "iterator".into(),
            Value::TupleClass(_) => "type".into(),
            Value::NamedTuple(c, _) => c.name.clone(),
            Value::Variable(_) => "agc.Variable".into(),
        }
    }

    /// The slice `start:stop` (no step; `Value::None` for an open end).
    pub fn slice(start: Value, stop: Value) -> Value {
        Value::Slice(Rc::new(SliceValue {
            start,
            stop,
            step: Value::None,
        }))
    }

    /// A tuple from a vector.
    pub fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items))
    }

    /// A list from a vector.
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(Rc::new(RefCell::new(items)))
    }

    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Rc::from(s))
    }

    /// True for staged values (tensors, run-time sizes, staged lists).
    pub fn is_staged(&self) -> bool {
        matches!(
            self,
            Value::Tensor(_) | Value::SymInt(_) | Value::TensorList(_)
        )
    }

    /// True if this is, or (in a sequence or dict) holds, [`Value::Bottom`].
    pub fn has_bottom(&self) -> bool {
        match self {
            Value::Bottom => true,
            Value::Tuple(t) | Value::NamedTuple(_, t) => t.iter().any(Value::has_bottom),
            Value::List(l) => l.borrow().iter().any(Value::has_bottom),
            Value::Dict(d) => d.borrow().iter().any(|(_, v)| v.has_bottom()),
            _ => false,
        }
    }

    /// True if this is, or (in a sequence or dict) holds, the list or dict
    /// `container` itself: storing this in `container` would make a cycle.
    pub fn reaches(&self, container: &Value) -> bool {
        let same = match (self, container) {
            (Value::List(a), Value::List(b)) => Rc::ptr_eq(a, b),
            (Value::Dict(a), Value::Dict(b)) => Rc::ptr_eq(a, b),
            _ => false,
        };
        same || match self {
            Value::Tuple(t) | Value::NamedTuple(_, t) => t.iter().any(|v| v.reaches(container)),
            Value::List(l) => l.borrow().iter().any(|v| v.reaches(container)),
            Value::Dict(d) => d
                .borrow()
                .iter()
                .any(|(k, v)| k.reaches(container) || v.reaches(container)),
            _ => false,
        }
    }

    /// Checks that storing this in `container` (a list or dict) makes no
    /// cycle: CPython allows `L.append(L)`; agc's compile-time values must
    /// stay acyclic, so it is an error at the statement.
    pub fn check_acyclic_in(&self, container: &Value, span: agc_ir::Span) -> super::R<()> {
        if self.reaches(container) {
            return Err(crate::diagnostics::Diagnostic::unsupported(
                span,
                format!(
                    "a {} that contains itself (directly or through other lists, tuples or dicts) is not supported",
                    container.type_name()
                ),
            ));
        }
        Ok(())
    }

    /// The compile-time integer, if this is one (bools count, as in Python).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::Bool(b) => Some(*b as i64),
            Value::SymInt(Dim::Static(n)) => Some(*n),
            _ => None,
        }
    }

    /// The compile-time number as f64, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(f) => Some(*f),
            _ => self.as_int().map(|i| i as f64),
        }
    }
}
