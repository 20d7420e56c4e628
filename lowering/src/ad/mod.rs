//! Reverse-mode automatic differentiation over the agc IR, in
//! continuation-passing style.
//!
//! [`value_and_grad`] appends to a module a function that computes `f`'s
//! results and the gradient of its first result (a float with one element: a
//! scalar, or an array of shape `(1, .., 1)` as autograd allows) with respect
//! to some of its parameters. The generated code is agc IR whose
//! continuations are first-class values (`cont<(args) -> (adjoints)>`, made
//! by `cont`, invoked by `apply`, their outputs read by `cont_outputs`);
//! the backend closure-converts them into an environment record in the
//! frame of the function that makes them.
//!
//! # Method
//!
//! The method is Lantern's (F. Wang, D. Zheng, J. Decker, X. Wu,
//! G. Essertel, T. Rompf, "Demystifying differentiable programming:
//! shift/reset the penultimate backpropagator", ICFP 2019): the backward pass
//! of a piece of code runs *after* the rest of the computation has returned
//! its adjoints, and the intermediates it needs live in the native call stack
//! instead of a tape.
//!
//! - **Functions** ([`cps`]): `f` becomes `f.cps(params.., k) -> adjoints of
//!   the params`: forward, `apply k` to the results (the rest of the
//!   program, forward and backward, which returns their adjoints), backward.
//!   An op list is split at each op that needs the rest of the program (a
//!   call that computes adjoints, a loop with active state, an `if`
//!   reading active values): what follows becomes a continuation function closed
//!   over the values it reads and the outer continuation, and the call
//!   receives it. `value_and_grad` applies `f.cps` to a seed continuation
//!   that returns `1` and hands the results back. Recursion therefore runs
//!   each forward op once: a callee's frame is still live when the rest of
//!   the program has run, and its backward pass reads its own
//!   intermediates.
//! - **`if`** reading active values: both branches get the same
//!   continuation and yield the adjoints of the values they read from
//!   outside.
//! - **`while`** ([`adjoint::loops`]): a generated recursive function
//!   `L(state, free values, k)` runs one iteration forward, the loop body
//!   in CPS form with the continuation "the rest of the loop" (which calls
//!   `L` for the next state), and where the loop exits applies `k`, the
//!   continuation of what follows the loop; each iteration's backward pass
//!   runs as the frames return. The loop runs once, inside `L`. Stack
//!   depth grows with the trip count (and, for recursion, with the number
//!   of calls): the generated libraries run on a large dedicated stack and
//!   turn a too-deep recursion into an error status (DESIGN.md);
//!   `tests/e2e.rs` differentiates a loop of a million iterations through
//!   a compiled library, `tests/test_deep_calls.py` one of 10^7.
//! - **Direct style** ([`direct`]): code that calls a gradient function is
//!   differentiated through a direct-style twin of it (continuations carry
//!   no adjoints), where an `if` recomputes its branches in the backward
//!   pass ([`adjoint::branch`]), a loop runs again inside the backward form
//!   of `L`, and a call's adjoint is the callee's VJP, which recomputes it.
//! - **Straight-line code** ([`reverse`]): the forward ops are copied, then
//!   the adjoint rule of every op ([`adjoint`], one file per op family) is
//!   emitted in reverse order; adjoints of values used several times are
//!   summed ([`context::FnCx::accumulate`]).
//! - **Accumulated adjoints** ([`cps`], [`sparse`]): a continuation
//!   returns the adjoints of the parameters accumulated by the rest of the
//!   program, which the function it was passed to adds its own
//!   contributions to and returns (Lantern's mutable cells, passed along);
//!   the adjoint of a gather is kept as rows and added in place. A table
//!   gathered at every node of a recursion has one adjoint buffer. The
//!   zero-padded adjoints of slices of one value are merged into one
//!   concatenation ([`padded`]) instead of added.
//! - **Activity** ([`activity`]): only *active* values carry adjoints:
//!   floats that depend on a differentiated parameter and that the
//!   differentiated result depends on. Every function is generated per
//!   [`activity::Spec`] (which parameters need adjoints, which results
//!   receive them), so a call differentiates its callee only for the
//!   adjoints its call site needs: an argument passed down a recursion but
//!   not differentiated gets none, nor does a result nobody reads, and the
//!   continuations carry and return only the adjoints of active values.
//!   Integer and bool values never carry adjoints.
//!
//! # Rules at non-differentiable points
//!
//! `abs'(0) = 0` (`sign`, as autograd); `floor`, `ceil`, `sign`, `//`,
//! comparisons, `argmax`/`argmin`, casts to integers and indices have zero
//! gradient; `np.maximum`/`np.minimum` split the adjoint equally on ties, and
//! `max`/`min` reductions share it equally among all tied extrema (JAX's and
//! autograd's rule); `prod` is exact in the presence of zeros (no division by
//! zero); `x ** y` has zero derivative in `y` where `x == 0` and in `x` where
//! `y == 0` (JAX's rule), in every order of derivative.

pub(crate) mod activity;
pub(crate) mod adjoint;
pub(crate) mod clone;
pub(crate) mod context;
pub(crate) mod continuation;
pub(crate) mod cps;
pub(crate) mod dim_witness;
pub(crate) mod direct;
pub(crate) mod functions;
pub(crate) mod padded;
pub(crate) mod reverse;
pub(crate) mod sparse;
pub(crate) mod top;

use agc_ir::{FuncId, Module, Span};
use thiserror::Error;

/// Why a function cannot be differentiated, with the source span of the op
/// (or function) it concerns; the frontend turns it into a diagnostic.
#[derive(Debug, Error, Clone, PartialEq)]
#[error("{message}")]
pub struct AdError {
    /// What is wrong, phrased for the user.
    pub message: String,
    /// Where.
    pub span: Span,
}

impl AdError {
    /// An error at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        AdError {
            message: message.into(),
            span,
        }
    }
}

/// Appends to `m` a function computing `f`'s results and the gradient of its
/// first result (a float tensor of one element) with respect to the parameters `wrt`.
/// The new function has `f`'s parameters; its results are `f`'s results followed
/// by one gradient per `wrt` entry, each with the type of that parameter.
///
/// Also appends the helper functions the gradient calls (VJPs of callees,
/// backward passes of loops). Integer and bool parameters in `wrt` are an
/// error, as in JAX.
pub fn value_and_grad(m: &mut Module, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
    direct::use_direct_gradients(m, f)?;
    let (id, new) = {
        let mut mcx = context::ModCx::new(m);
        let id = mcx.value_and_grad(f, wrt)?;
        (id, mcx.finish())
    };
    if cfg!(debug_assertions) {
        let mut all = m.clone();
        all.funcs.extend(new.iter().cloned());
        agc_ir::verify::verify_module(&all)
            .map_err(|e| context::internal(e.to_string(), all.func(f).span))?;
    }
    for func in new {
        m.add_function(func);
    }
    Ok(id)
}
