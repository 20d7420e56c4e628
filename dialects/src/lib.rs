//! The agc IR: a Rust-native, typed SSA IR over tensors.
//!
//! The central type is [`Function`]: arenas of values ([`Value`]), ops
//! ([`OpId`]) and regions ([`RegionId`]), each op stamped with the user's
//! [`Span`]. Values are tensors ([`TensorType`]: a [`DType`] and static or
//! symbolic [`Dim`]s); a scalar is a rank-0 tensor. After AD, values may
//! also be continuations ([`ContType`]): closures over a function of the
//! module and captured values, applied once. Control flow is
//! structured: ops own regions, and there are no phis. A [`Module`] holds
//! functions and the exported entry points.
//!
//! Invariants are listed on [`function`] and checked by [`verify`], which
//! re-derives every result type with the rules in [`infer`] (the same rules
//! the frontend uses to type what it stages). [`print`] gives the text of
//! `agc build --emit ir`.

pub mod entities;
pub mod function;
pub mod infer;
pub mod interp;
pub mod ops;
pub mod parse;
pub mod print;
pub mod span;
pub mod types;
pub mod verify;

pub use entities::{FuncId, OpId, RegionId, Value};
pub use function::{
    Export, Function, Module, OpData, RegionData, ValueData, ValueDef, VariableDecl, WeightDecl,
};
pub use ops::{ArgKind, BinaryOp, CmpOp, ConstData, OpKind, ReduceKind, SliceDim, UnaryOp};
pub use span::Span;
pub use types::{ContType, DType, Dim, TensorType, Type};
