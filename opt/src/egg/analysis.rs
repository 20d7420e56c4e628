//! The e-class analysis: every e-class's tensor type (all its members are
//! one value, so one type) and, when known, the one value all its elements
//! hold (`splat`, from constants, fills and their broadcasts), which the
//! identity rules test.
//!
//! The analysis also owns the table of attribute ops ([`super::lang::Op::Attr`]):
//! their kind with attributes and result type, interned so that equal ops
//! are one e-node.

use super::lang::{Node, Op};
use agc_ir::{infer, ConstData, DType, OpKind, TensorType};
use egg::{Analysis, DidMerge, EGraph, Id};
use std::collections::HashMap;

/// The e-graph of one region.
pub type Graph = EGraph<Node, Types>;

/// Analysis state: the attribute-op table and the leaves' types.
#[derive(Default)]
pub struct Types {
    attrs: Vec<(OpKind, TensorType)>,
    attr_ids: HashMap<String, u32>,
    leaves: HashMap<u32, TensorType>,
}

/// What is known of an e-class.
#[derive(Clone, Debug)]
pub struct Data {
    /// Its type.
    pub ty: TensorType,
    /// The value of every element, when it is a known splat.
    pub splat: Option<f64>,
}

impl Types {
    /// The e-node of a leaf: source value number `v` of type `ty`.
    pub fn leaf(&mut self, v: u32, ty: TensorType) -> Node {
        self.leaves.insert(v, ty);
        Node {
            op: Op::Leaf(v),
            args: Vec::new(),
        }
    }

    /// The e-node of an attribute op `kind` with result type `ty`.
    pub fn attr(&mut self, kind: OpKind, ty: TensorType, args: Vec<Id>) -> Node {
        let key = format!("{kind:?}:{ty}");
        let next = self.attrs.len() as u32;
        let i = *self.attr_ids.entry(key).or_insert(next);
        if i == next {
            self.attrs.push((kind, ty));
        }
        Node {
            op: Op::Attr(i),
            args,
        }
    }

    /// The kind and result type of attribute op `i`.
    pub fn attr_of(&self, i: u32) -> &(OpKind, TensorType) {
        &self.attrs[i as usize]
    }
}

/// The splat value of constant data: every element equal, at least one.
fn const_splat(data: &ConstData) -> Option<f64> {
    if data.is_empty() || !data.is_splat() {
        return None;
    }
    Some(match data {
        ConstData::Float(v) => v[0],
        ConstData::Int(v) => v[0] as f64,
        ConstData::Bool(v) => f64::from(u8::from(v[0])),
    })
}

impl Analysis<Node> for Types {
    type Data = Data;

    fn make(eg: &mut Graph, node: &Node, _id: Id) -> Data {
        let arg = |i: usize| &eg[node.args[i]].data;
        let ill = |e: infer::TypeError| -> TensorType {
            panic!("a rewrite built an ill-typed {node}: {e}")
        };
        let (ty, splat) = match node.op {
            Op::Leaf(v) => (eg.analysis.leaves[&v].clone(), None),
            Op::Attr(i) => {
                let (kind, ty) = eg.analysis.attr_of(i);
                let splat = match kind {
                    OpKind::Const(data) => const_splat(data),
                    OpKind::Fill | OpKind::BroadcastTo | OpKind::Reshape => arg(0).splat,
                    _ => None,
                };
                (ty.clone(), splat)
            }
            Op::Unary(_) => (arg(0).ty.clone(), None),
            Op::Binary(_) => {
                let dims = infer::broadcast_dims(&arg(0).ty.dims, &arg(1).ty.dims);
                let ty = dims.map_or_else(ill, |d| TensorType::new(arg(0).ty.dtype, d));
                (ty, None)
            }
            Op::Compare(_) => {
                let dims = infer::broadcast_dims(&arg(0).ty.dims, &arg(1).ty.dims);
                (
                    dims.map_or_else(ill, |d| TensorType::new(DType::Bool, d)),
                    None,
                )
            }
            Op::Select => {
                let ts = [&arg(0).ty, &arg(1).ty, &arg(2).ty];
                let dims = infer::broadcast_all(&ts);
                (
                    dims.map_or_else(ill, |d| TensorType::new(arg(1).ty.dtype, d)),
                    None,
                )
            }
            Op::MatMul => (
                infer::matmul(&arg(0).ty, &arg(1).ty).unwrap_or_else(ill),
                None,
            ),
        };
        Data { ty, splat }
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        debug_assert_eq!(a.ty, b.ty, "an e-class holds values of two types");
        match (a.splat, b.splat) {
            (None, Some(s)) => {
                a.splat = Some(s);
                DidMerge(true, false)
            }
            (Some(_), None) => DidMerge(false, true),
            _ => DidMerge(false, false),
        }
    }
}
