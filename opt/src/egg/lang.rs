//! The e-graph language: the IR's pure ops, with every value from outside
//! the region's pure dataflow (parameters, results of checked and opaque
//! ops, values of enclosing regions) as an opaque [`Op::Leaf`].
//!
//! Ops without attributes (elementwise arithmetic, `select`, `matmul`) are
//! spelled by name, so rules can be written as egg patterns
//! (`(neg (neg ?x))`); ops with attributes (constants, layout ops,
//! reductions, casts) are [`Op::Attr`], an index into the analysis' table
//! of `(kind, result type)` (see [`super::analysis`]).

use agc_ir::{BinaryOp, CmpOp, OpKind, UnaryOp};
use egg::{FromOp, Id, Language};
use std::fmt;

/// An e-node's operator.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Op {
    /// A value defined outside the region's pure dataflow: the source value's number.
    Leaf(u32),
    /// Elementwise unary op.
    Unary(UnaryOp),
    /// Elementwise binary op (numpy broadcasting).
    Binary(BinaryOp),
    /// Elementwise comparison.
    Compare(CmpOp),
    /// `np.where`.
    Select,
    /// `np.matmul`.
    MatMul,
    /// An op with attributes: index into the analysis' table.
    Attr(u32),
}

/// An e-node: an operator and its operand e-classes.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Node {
    /// What it computes.
    pub op: Op,
    /// Its operands.
    pub args: Vec<Id>,
}

impl Node {
    /// The IR op this e-node computes (not defined for a leaf, which
    /// stands for a value rather than an op).
    pub fn ir_kind(&self, eg: &super::analysis::Graph) -> OpKind {
        match self.op {
            Op::Unary(u) => OpKind::Unary(u),
            Op::Binary(b) => OpKind::Binary(b),
            Op::Compare(k) => OpKind::Compare(k),
            Op::Select => OpKind::Select,
            Op::MatMul => OpKind::MatMul,
            Op::Attr(i) => eg.analysis.attr_of(i).0.clone(),
            Op::Leaf(v) => panic!("leaf %{v} stands for a value, not an op"),
        }
    }
}

impl Language for Node {
    type Discriminant = Op;

    fn discriminant(&self) -> Op {
        self.op
    }

    fn matches(&self, other: &Self) -> bool {
        self.op == other.op && self.args.len() == other.args.len()
    }

    fn children(&self) -> &[Id] {
        &self.args
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.args
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Op::Leaf(v) => write!(f, "%{v}"),
            Op::Unary(u) => f.write_str(u.name()),
            Op::Binary(b) => f.write_str(b.name()),
            Op::Compare(c) => write!(f, "cmp.{}", c.name()),
            Op::Select => f.write_str("select"),
            Op::MatMul => f.write_str("matmul"),
            Op::Attr(i) => write!(f, "attr{i}"),
        }
    }
}

impl FromOp for Node {
    type Error = String;

    /// Parses the attribute-free operators by their IR names (for rule
    /// patterns); leaves and attribute ops are never written in patterns.
    fn from_op(op: &str, args: Vec<Id>) -> Result<Self, String> {
        let op = if let Some(u) = UnaryOp::ALL.iter().find(|u| u.name() == op) {
            Op::Unary(*u)
        } else if let Some(b) = BinaryOp::ALL.iter().find(|b| b.name() == op) {
            Op::Binary(*b)
        } else if let Some(c) = CmpOp::ALL
            .iter()
            .find(|c| op.strip_prefix("cmp.") == Some(c.name()))
        {
            Op::Compare(*c)
        } else if op == "select" {
            Op::Select
        } else if op == "matmul" {
            Op::MatMul
        } else {
            return Err(format!("'{op}' is not an attribute-free agc op"));
        };
        Ok(Node { op, args })
    }
}
