//! The extraction cost: estimated floating-point work plus bytes written,
//! from the (symbolic) result shapes. A symbolic dim counts as
//! [`SYMBOLIC_DIM`] elements. Leaves cost nothing; views (reshape) and
//! scalars almost nothing, so extraction prefers removing work to moving it.

use super::analysis::Graph;
use super::lang::{Node, Op};
use agc_ir::{Dim, OpKind, TensorType};
use egg::{CostFunction, Id};

/// The size assumed for a symbolic dim.
pub const SYMBOLIC_DIM: f64 = 128.0;

/// A dim's size as the cost counts it: symbolic at [`SYMBOLIC_DIM`].
pub fn dim_size(d: &Dim) -> f64 {
    match d {
        Dim::Static(n) => *n as f64,
        Dim::Sym(_) => SYMBOLIC_DIM,
    }
}

/// Elements of a type, symbolic dims at [`SYMBOLIC_DIM`].
pub fn elements(t: &TensorType) -> f64 {
    t.dims.iter().map(dim_size).product()
}

/// The contracted size of a matmul whose left operand is `a` (its last dim).
pub fn contracted(a: &TensorType) -> f64 {
    a.dims.last().map_or(1.0, dim_size)
}

/// The cost of one e-node, without its operands.
pub fn own_cost(eg: &Graph, node: &Node, result: &TensorType) -> f64 {
    let n = elements(result);
    let bytes = n * result.dtype.byte_size() as f64;
    match node.op {
        Op::Leaf(_) => 0.0,
        Op::MatMul => 2.0 * n * contracted(&eg[node.args[0]].data.ty) + bytes,
        Op::Attr(i) => match &eg.analysis.attr_of(i).0 {
            OpKind::Reshape | OpKind::Dim { .. } | OpKind::Weight(_) => 1.0,
            OpKind::Const(_) => 1.0 + bytes / 64.0,
            OpKind::Reduce { .. } => elements(&eg[node.args[0]].data.ty) + bytes,
            _ => n + bytes,
        },
        Op::Unary(_) | Op::Binary(_) | Op::Compare(_) | Op::Select => n + bytes,
    }
}

/// [`own_cost`] plus the operands' costs (tree cost: a shared operand is
/// counted once per use).
pub struct WorkAndBytes<'g> {
    /// The e-graph being extracted from.
    pub eg: &'g Graph,
}

impl CostFunction<Node> for WorkAndBytes<'_> {
    type Cost = f64;

    fn cost<C>(&mut self, node: &Node, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        let result = self.result_type(node);
        let own = own_cost(self.eg, node, &result);
        node.args.iter().fold(own, |acc, a| acc + costs(*a))
    }
}

impl WorkAndBytes<'_> {
    fn result_type(&self, node: &Node) -> TensorType {
        match node.op {
            Op::Attr(i) => self.eg.analysis.attr_of(i).1.clone(),
            _ => self
                .eg
                .lookup(node.clone())
                .map(|id| self.eg[id].data.ty.clone())
                .expect("extraction costs nodes of the e-graph"),
        }
    }
}
