//! The signature constants the runtime reads (`runtime/src/spec.rs`):
//!
//! ```c
//! struct TensorSpec { const char* name; int32_t code, bits; int64_t ndim; const int64_t* dims; };
//! struct FuncSpec { const char* name; int64_t nparams, nresults, nsyms;
//!                   const char* const* sym_names; const TensorSpec* params, *results;
//!                   int64_t nstate; const TensorSpec* state;     /* the context's variables */
//!                   int64_t nassigns; const int64_t* assigns;   /* those the export assigns */
//!                   const StateSpec* context_spec;              /* the library's, with a context */
//!                   const char* cpu_features;                   /* LLVM's "+avx2,..." checked per call */
//!                   const DeviceSpec* device; };                /* NULL for the CPU (see device.rs) */
//! ```
//!
//! A dim `d >= 0` is static, [`DIM_UNKNOWN`] a result dim no parameter
//! determines, any other `d < 0` symbolic dim `-1 - d` of `sym_names`.

use crate::signature::{ExportSig, TensorSig};
use agc_ir::{DType, Dim};
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, GlobalValue, PointerValue};
use inkwell::AddressSpace;

/// `agc_runtime::spec::DIM_UNKNOWN`: a result dim that is neither static
/// nor a parameter's symbolic dim (a size only the computation determines).
const DIM_UNKNOWN: i64 = i64::MIN;

/// DLPack's (type code, bits) of a dtype.
pub(crate) fn dlpack_dtype(d: DType) -> (u8, u8) {
    match d {
        DType::Bool => (6, 8),
        DType::I32 => (0, 32),
        DType::I64 => (0, 64),
        DType::F32 => (2, 32),
        DType::F64 => (2, 64),
    }
}

/// A private constant global holding `value`.
pub(crate) fn private_const<'ctx>(
    m: &Module<'ctx>,
    name: &str,
    value: &dyn BasicValue<'ctx>,
) -> GlobalValue<'ctx> {
    let g = m.add_global(value.as_basic_value_enum().get_type(), None, name);
    g.set_initializer(value);
    g.set_constant(true);
    g.set_linkage(Linkage::Private);
    g.set_unnamed_addr(true);
    g
}

/// A NUL-terminated string constant.
pub(crate) fn c_string<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    name: &str,
    s: &str,
) -> PointerValue<'ctx> {
    private_const(m, name, &ctx.const_string(s.as_bytes(), true)).as_pointer_value()
}

/// How a dim is encoded in a spec: static sizes as themselves, a symbolic
/// dim as `-1 - k` for symbolic dim `k` of the signature, else unknown.
fn encoded_dim(d: &Dim, sym_index: &dyn Fn(&str) -> Option<usize>) -> i64 {
    match d {
        Dim::Static(n) => *n,
        Dim::Sym(s) => sym_index(s).map_or(DIM_UNKNOWN, |k| -1 - k as i64),
    }
}

fn tensor_spec<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    t: &TensorSig,
    prefix: &str,
    sym_index: &dyn Fn(&str) -> Option<usize>,
) -> inkwell::values::StructValue<'ctx> {
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    let dims: Vec<_> = t
        .dims
        .iter()
        .map(|d| i64t.const_int(encoded_dim(d, sym_index) as u64, true))
        .collect();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let dims_ptr = if dims.is_empty() {
        ptr.const_null()
    } else {
        private_const(m, &format!("{prefix}.dims"), &i64t.const_array(&dims)).as_pointer_value()
    };
    let (code, bits) = dlpack_dtype(t.dtype);
    ctx.const_struct(
        &[
            c_string(ctx, m, &format!("{prefix}.name"), &t.name).into(),
            i32t.const_int(u64::from(code), false).into(),
            i32t.const_int(u64::from(bits), false).into(),
            i64t.const_int(t.dims.len() as u64, false).into(),
            dims_ptr.into(),
        ],
        false,
    )
}

/// A constant array of `TensorSpec`s named `name` (NULL when empty); a
/// `None` entry is an all-zero spec (a NULL name).
pub(crate) fn tensor_specs<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    list: &[Option<&TensorSig>],
    name: &str,
    sym_index: &dyn Fn(&str) -> Option<usize>,
) -> PointerValue<'ctx> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i64t = ctx.i64_type();
    let i32t = ctx.i32_type();
    if list.is_empty() {
        return ptr.const_null();
    }
    let tensor_ty = ctx.struct_type(
        &[
            ptr.into(),
            i32t.into(),
            i32t.into(),
            i64t.into(),
            ptr.into(),
        ],
        false,
    );
    let items: Vec<_> = list
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            Some(t) => tensor_spec(ctx, m, t, &format!("{name}{i}"), sym_index),
            None => tensor_ty.const_zero(),
        })
        .collect();
    private_const(m, name, &tensor_ty.const_array(&items)).as_pointer_value()
}

/// The constants every `FuncSpec` of a library points to.
pub(crate) struct LibraryConsts<'ctx> {
    /// The CPU features string.
    pub cpu_features: PointerValue<'ctx>,
    /// The `DeviceSpec` (NULL for the CPU).
    pub device: PointerValue<'ctx>,
}

/// Emits `sig`'s `FuncSpec` constant and returns a pointer to it.
pub(crate) fn func_spec<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    sig: &ExportSig,
    state_spec: Option<PointerValue<'ctx>>,
    library: &LibraryConsts<'ctx>,
) -> PointerValue<'ctx> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let i64t = ctx.i64_type();
    let base = format!("agc.spec.{}", sig.c_name);
    let syms = |s: &str| sig.sym_index(s);
    let array = |list: &[TensorSig], what: &str| -> PointerValue<'ctx> {
        let list: Vec<Option<&TensorSig>> = list.iter().map(Some).collect();
        tensor_specs(ctx, m, &list, &format!("{base}.{what}"), &syms)
    };
    let params = array(&sig.params, "param");
    let results = array(&sig.results, "result");
    let state = array(&sig.state, "state");
    let assigns = if sig.assigns.is_empty() {
        ptr.const_null()
    } else {
        let ks: Vec<_> = sig
            .assigns
            .iter()
            .map(|&k| i64t.const_int(k as u64, false))
            .collect();
        private_const(m, &format!("{base}.assigns"), &i64t.const_array(&ks)).as_pointer_value()
    };
    let sym_names = if sig.syms.is_empty() {
        ptr.const_null()
    } else {
        let names: Vec<_> = sig
            .syms
            .iter()
            .enumerate()
            .map(|(k, s)| c_string(ctx, m, &format!("{base}.sym{k}"), s))
            .collect();
        private_const(m, &format!("{base}.syms"), &ptr.const_array(&names)).as_pointer_value()
    };
    let spec = ctx.const_struct(
        &[
            c_string(ctx, m, &format!("{base}.name"), &sig.name).into(),
            i64t.const_int(sig.params.len() as u64, false).into(),
            i64t.const_int(sig.results.len() as u64, false).into(),
            i64t.const_int(sig.syms.len() as u64, false).into(),
            sym_names.into(),
            params.into(),
            results.into(),
            i64t.const_int(sig.state.len() as u64, false).into(),
            state.into(),
            i64t.const_int(sig.assigns.len() as u64, false).into(),
            assigns.into(),
            state_spec.unwrap_or(ptr.const_null()).into(),
            library.cpu_features.into(),
            library.device.into(),
        ],
        false,
    );
    private_const(m, &base, &spec).as_pointer_value()
}
