//! A check of a saturated e-graph, run in debug builds (and by tests that
//! [`enable`] it): the e-nodes of every e-class are evaluated on random
//! inputs and must agree, so that a rule that unions two different values
//! (a wrong side condition, a broadcast it forgot) fails where it happened
//! instead of as a wrong number in a model.
//!
//! Each e-node of a class with more than one becomes a small IR function of
//! the region's leaves (its operands built from the extraction's choices),
//! run by the reference interpreter ([`agc_ir::interp`]) on the same random
//! finite inputs (plain symbolic dims of size 3). Exact rule sets must agree
//! bit for bit (or both be NaN); where fast-math rules ran, within a
//! relative 1e-3 (f32) or 1e-9 (f64). Where a class's forms multiply
//! matrices (a reordered chain rounds differently, and with signed inputs
//! a long chain's cancellation can leave no correct bit in either order),
//! the inputs are nonnegative, so each order is within a few roundings of
//! the exact product, and the same relative tolerance applies. A form the
//! interpreter cannot run (an unbound symbolic size, an index out of range)
//! skips its class. A class holding two leaves (two values from outside the
//! dataflow, never provably equal) fails at once.

use super::analysis::Graph;
use super::lang::{Node, Op};
use agc_ir::interp::{self, T};
use agc_ir::{DType, Dim, FuncId, Function, Module, OpKind, RegionId, Span, Type, Value};
use egg::Id;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`enable`].
static ENABLED: AtomicBool = AtomicBool::new(false);

/// Classes checked per e-graph at most (the check is for tests and debug
/// builds; a large graph is sampled in class order).
const MAX_CLASSES: usize = 200;

/// Elements a leaf or a class may have for the check to evaluate it (the
/// interpreter is slow; a model's large tensors are left to the tests).
const MAX_ELEMENTS: usize = 1 << 16;

/// Turns the check on (or off) in release builds too, for the whole process.
pub fn enable(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether saturated e-graphs are checked: in debug builds, or when enabled.
pub fn wanted() -> bool {
    cfg!(debug_assertions) || ENABLED.load(Ordering::Relaxed)
}

/// Checks `eg` (see the module doc), `best` being the extraction's choice
/// per class and `exact` whether every rule that ran is exact. Panics on a
/// class whose forms disagree.
pub fn check_classes(eg: &Graph, best: &HashMap<Id, Node>, exact: bool) {
    let mut leaves: Vec<(Id, u32)> = eg
        .classes()
        .flat_map(|c| c.nodes.iter().map(move |n| (c.id, n)))
        .filter_map(|(id, n)| match n.op {
            Op::Leaf(v) => Some((id, v)),
            _ => None,
        })
        .collect();
    leaves.sort_by_key(|&(_, v)| v);
    // Two values from outside the dataflow are never provably equal: a
    // class holding two leaves is a wrong union (the evaluation below would
    // not see it, both forms reading one parameter).
    let mut leaf_of: HashMap<Id, u32> = HashMap::new();
    for &(class, v) in &leaves {
        if let Some(first) = leaf_of.insert(eg.find(class), v) {
            panic!("e-class {class} holds two different leaves, %{first} and %{v}");
        }
    }
    // Plain symbolic dims (size 3 here) and at most MAX_ELEMENTS elements.
    let plain = |t: &agc_ir::TensorType| {
        let mut n = 1usize;
        t.dims.iter().all(|d| match d {
            Dim::Static(k) => {
                n = n.saturating_mul(*k as usize);
                n <= MAX_ELEMENTS
            }
            Dim::Sym(s) => {
                n = n.saturating_mul(3);
                s.chars().all(|c| c.is_alphanumeric() || c == '_')
            }
        })
    };
    if !leaves.iter().all(|(id, _)| plain(&eg[*id].data.ty)) {
        return;
    }
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    // Signed inputs, and nonnegative ones for forms that multiply matrices
    // (see the module doc).
    let inputs: [Vec<T>; 2] = [false, true].map(|nonnegative| {
        leaves
            .iter()
            .map(|(id, _)| random(&mut rng, &eg[*id].data.ty, nonnegative))
            .collect()
    });
    // The forms' parameters: the leaves.
    let params: Vec<(String, Type)> = leaves
        .iter()
        .map(|(id, v)| (format!("l{v}"), Type::Tensor(eg[*id].data.ty.clone())))
        .collect();
    let mut classes: Vec<Id> = eg
        .classes()
        .filter(|c| c.nodes.len() > 1)
        .map(|c| c.id)
        .collect();
    classes.sort();
    for class in classes.into_iter().take(MAX_CLASSES) {
        if !plain(&eg[class].data.ty) {
            continue;
        }
        let Some(forms) = eg[class]
            .nodes
            .iter()
            .map(|n| form(eg, best, &leaves, &params, n, class))
            .collect::<Option<Vec<Function>>>()
        else {
            continue;
        };
        let matmul = forms.iter().any(multiplies_matrices);
        let tolerant = !exact || matmul;
        let values: Option<Vec<T>> = forms
            .into_iter()
            .map(|f| {
                let mut m = Module::new("check");
                m.add_function(f);
                let out = interp::run(&m, FuncId(0), inputs[usize::from(matmul)].clone());
                out.ok().and_then(|mut o| o.pop())
            })
            .collect();
        let Some(values) = values else {
            continue;
        };
        for other in &values[1..] {
            if !agree(&values[0], other, tolerant) {
                panic!(
                    "e-class {class} ({}) holds different values: {:?} and {:?} from forms {:?}",
                    eg[class].data.ty, values[0].data, other.data, eg[class].nodes
                );
            }
        }
    }
}

/// The function of the region's leaves (`params`, one per leaf) computing
/// `node` of `class`, its operands by `best`; `None` when an operand class
/// has no choice.
fn form(
    eg: &Graph,
    best: &HashMap<Id, Node>,
    leaves: &[(Id, u32)],
    params: &[(String, Type)],
    node: &Node,
    class: Id,
) -> Option<Function> {
    let mut f = Function::new("form", params, Span::UNKNOWN);
    f.result_types = vec![Type::Tensor(eg[class].data.ty.clone())];
    let body = f.body;
    // One leaf per class (check_classes made sure).
    let mut built: HashMap<Id, Value> = leaves
        .iter()
        .zip(f.params().to_vec())
        .map(|((id, _), p)| (eg.find(*id), p))
        .collect();
    let v = emit(eg, best, &mut f, body, node, class, &mut built)?;
    f.append_op(body, OpKind::Return, vec![v], vec![], vec![], Span::UNKNOWN);
    Some(f)
}

/// Whether `f` has a matmul.
fn multiplies_matrices(f: &Function) -> bool {
    f.ops_within(f.body)
        .into_iter()
        .any(|op| f.op(op).kind == OpKind::MatMul)
}

/// Appends `node` (of `class`) to `at`, its operands by `best`; returns its value.
fn emit(
    eg: &Graph,
    best: &HashMap<Id, Node>,
    f: &mut Function,
    at: RegionId,
    node: &Node,
    class: Id,
    built: &mut HashMap<Id, Value>,
) -> Option<Value> {
    if let Op::Leaf(_) = node.op {
        return built.get(&eg.find(class)).copied();
    }
    let mut args = Vec::with_capacity(node.args.len());
    for &a in &node.args {
        let a = eg.find(a);
        let v = match built.get(&a) {
            Some(v) => *v,
            None => {
                let v = emit(eg, best, f, at, best.get(&a)?, a, built)?;
                built.insert(a, v);
                v
            }
        };
        args.push(v);
    }
    let ty = Type::Tensor(eg[class].data.ty.clone());
    let (_, r) = f.append_op(at, node.ir_kind(eg), args, vec![ty], vec![], Span::UNKNOWN);
    Some(r[0])
}

/// A random tensor of `ty`: finite floats in [-4, 4) (in [0, 1) when
/// `nonnegative`), small integers, random booleans.
fn random(state: &mut u64, ty: &agc_ir::TensorType, nonnegative: bool) -> T {
    let shape: Vec<usize> = ty
        .dims
        .iter()
        .map(|d| d.as_static().map_or(3, |n| n as usize))
        .collect();
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|_| {
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            let u = (*state >> 11) as f64 / (1u64 << 53) as f64;
            match ty.dtype {
                DType::Bool => f64::from(u8::from(u < 0.5)),
                d if d.is_float() && nonnegative => u,
                d if d.is_float() => u * 8.0 - 4.0,
                _ => (u * 9.0).floor() - 4.0,
            }
        })
        .collect();
    T::new(ty.dtype, &shape, data)
}

/// Whether two results agree: same shape, and equal bits or both NaN
/// (within the module doc's relative tolerance when `tolerant`).
fn agree(a: &T, b: &T, tolerant: bool) -> bool {
    let rel = if a.dtype == DType::F32 { 1e-3 } else { 1e-9 };
    a.shape == b.shape
        && a.data.iter().zip(&b.data).all(|(x, y)| {
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (tolerant && (x - y).abs() <= rel * x.abs().max(y.abs()))
        })
}
