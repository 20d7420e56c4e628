//! Reverse-mode automatic differentiation over the agc IR.
//!
//! [`value_and_grad`] appends to a module a function that computes `f`'s
//! results and the gradient of its first result (a rank-0 float) with respect
//! to some of its parameters. The generated code is ordinary agc IR: no tape
//! type, no continuation type, nothing the backend has to learn.
//!
//! # Method
//!
//! The method follows Lantern (F. Wang, D. Zheng, J. Decker, X. Wu,
//! G. Essertel, T. Rompf, "Demystifying differentiable programming:
//! shift/reset the penultimate backpropagator", ICFP 2019): the backward pass
//! of a piece of code runs *after* the rest of the computation has returned
//! its adjoints, and the intermediates it needs live in the native call stack
//! instead of a tape. Lantern gets this from a CPS transform with delimited
//! continuations; the agc IR has no first-class continuations (yet), so each
//! construct uses the piece of that idea it needs:
//!
//! - **Straight-line code** ([`reverse`]): the forward ops are copied into the
//!   new function, then the adjoint rule of every op ([`adjoint`], one file per
//!   op family) is emitted in reverse order; adjoints of values used several
//!   times are summed ([`context::FnCx::accumulate`]). Only *active* values
//!   carry adjoints ([`activity`]): float values that depend on a
//!   differentiated parameter. Integer and bool values never do.
//! - **`if`** ([`adjoint::branch`]): the backward pass is an `if` on the same
//!   condition; each branch *recomputes* its forward ops, then runs their
//!   adjoints and yields the adjoints of the values it read from outside. The
//!   forward `if` therefore stays as the user wrote it, and nested branches cost
//!   one recomputation per nesting level.
//! - **`while`** ([`adjoint::loops`]): the loop's backward pass is a
//!   call to a generated *recursive* function `L(state, free values, adjoints
//!   of the results)`: it runs one iteration forward, calls itself for the rest
//!   of the loop (Lantern's continuation "the rest of the loop", invoked within
//!   this frame's extent), and when that returns the adjoints of the next state
//!   runs this iteration's backward pass. Each iteration's state lives in its
//!   stack frame, exactly Lantern's "the native stack holds the intermediates",
//!   so no per-iteration store is needed and loops with any trip count and any
//!   state types (including symbolic shapes) work. The continuation of the
//!   *loop itself* (the rest of the program) cannot be passed in without
//!   continuation values, so the loop runs twice: once as the plain forward
//!   `while` and once inside `L`. Stack depth grows with the trip count
//!   (one frame of `L` per iteration): the generated libraries run on a
//!   large dedicated stack and turn a too-deep recursion into an error
//!   status (DESIGN.md); `tests/e2e.rs` differentiates a loop of a million
//!   iterations through a compiled library.
//!   Why not an explicit per-iteration store: the store is a tensor with one
//!   row per iteration, and the IR can neither grow a loop-carried tensor
//!   (loop state types are fixed) nor allocate one of a size computed at run
//!   time (`fill`, `iota` and `broadcast_to` take their sizes from symbols
//!   bound to existing tensors); an allocation op with run-time sizes, or
//!   tensor lists, would allow it.
//! - **`call`** ([`adjoint::call`]): the adjoint of a call is a call of the
//!   callee's VJP function `h_vjp(params.., adjoints of the float results..)
//!   -> adjoints of the float params`, generated once per callee and cached
//!   before its body is built, so recursive functions get recursive VJPs.
//!   `h_vjp` *recomputes* the callee's forward pass (calls inside it stay plain
//!   forward calls), then runs its backward pass; a recursion of depth `d`
//!   therefore evaluates each forward call up to `d` times.
//!
//! # Rules at non-differentiable points
//!
//! `abs'(0) = 0` (`sign`, as autograd); `floor`, `ceil`, `sign`, `//`,
//! comparisons, `argmax`/`argmin`, casts to integers and indices have zero
//! gradient; `np.maximum`/`np.minimum` split the adjoint equally on ties, and
//! `max`/`min` reductions share it equally among all tied extrema (JAX's and
//! autograd's rule); `prod` is exact in the presence of zeros (no division by
//! zero); `x ** y` has zero derivative in `y` where `x == 0` and in `x` where
//! `y == 0` (JAX's rule).

pub(crate) mod activity;
pub(crate) mod adjoint;
pub(crate) mod clone;
pub(crate) mod context;
pub(crate) mod cps;
pub(crate) mod reverse;
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
/// first result (a rank-0 float tensor) with respect to the parameters `wrt`.
/// The new function has `f`'s parameters; its results are `f`'s results followed
/// by one gradient per `wrt` entry, each with the type of that parameter.
///
/// Also appends the helper functions the gradient calls (VJPs of callees,
/// backward passes of loops). Integer and bool parameters in `wrt` are an
/// error, as in JAX.
pub fn value_and_grad(m: &mut Module, f: FuncId, wrt: &[usize]) -> Result<FuncId, AdError> {
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
