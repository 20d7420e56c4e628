//! What a `--target cuda` library adds to its host code
//! (`runtime/src/device`):
//!
//! - the `DeviceSpec` constant every `FuncSpec` points to: the device kind
//!   and the range of host data that GPU kernels read in place;
//! - a constructor that tells the runtime the library's device
//!   (`agc_rt_device_init`) before any of its code runs;
//! - that host data in one writable section, [`DEVICE_DATA_SECTION`]: the
//!   constants and embedded weights, which the runtime registers with the
//!   driver at the first call (the linker's `__start_`/`__stop_` symbols
//!   bound it).

use crate::mlir::Device;
use crate::BackendError;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::PointerValue;
use inkwell::AddressSpace;

/// The section of the host data kernels read (a C identifier, so that the
/// linker defines `__start_`/`__stop_` symbols for it).
pub const DEVICE_DATA_SECTION: &str = "agc_device_data";

/// The `DeviceSpec` of a library for `device`: NULL for the CPU.
pub(crate) fn device_spec<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    device: Device,
) -> Result<PointerValue<'ctx>, BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let kind = match device {
        Device::Cpu => return Ok(ptr.const_null()),
        Device::Cuda => 1,
        Device::CudaEmulated => 2,
    };
    let i8t = ctx.i8_type();
    // One byte in the section, so that it exists in every CUDA library.
    let anchor = m.add_global(i8t, None, "agc.device_data_anchor");
    anchor.set_initializer(&i8t.const_zero());
    anchor.set_linkage(Linkage::Internal);
    anchor.set_section(Some(DEVICE_DATA_SECTION));
    let bound = |name: &str| {
        let g = m.add_global(i8t, None, name);
        g.set_linkage(Linkage::External);
        g.set_visibility(inkwell::GlobalVisibility::Hidden);
        g.as_pointer_value()
    };
    let begin = bound(&format!("__start_{DEVICE_DATA_SECTION}"));
    let end = bound(&format!("__stop_{DEVICE_DATA_SECTION}"));
    let spec_value = ctx.const_struct(
        &[
            ctx.i64_type().const_int(kind, false).into(),
            begin.into(),
            end.into(),
        ],
        false,
    );
    let spec = super::spec::private_const(m, "agc.device", &spec_value).as_pointer_value();
    constructor(ctx, m, spec, anchor.as_pointer_value())?;
    Ok(spec)
}

/// `static void agc.device_init(void) { agc_rt_device_init(&spec); }`, run
/// when the library is loaded (`llvm.global_ctors`); `anchor` is kept
/// alive through `llvm.used`.
fn constructor<'ctx>(
    ctx: &'ctx Context,
    m: &Module<'ctx>,
    spec: PointerValue<'ctx>,
    anchor: PointerValue<'ctx>,
) -> Result<(), BackendError> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let void = ctx.void_type();
    let init = m.add_function(
        "agc_rt_device_init",
        void.fn_type(&[ptr.into()], false),
        Some(Linkage::External),
    );
    let f = m.add_function(
        "agc.device_init",
        void.fn_type(&[], false),
        Some(Linkage::Internal),
    );
    let b = ctx.create_builder();
    b.position_at_end(ctx.append_basic_block(f, "entry"));
    b.build_call(init, &[spec.into()], "")
        .map_err(super::builder_err)?;
    b.build_return(None).map_err(super::builder_err)?;
    let entry_ty = ctx.struct_type(&[ctx.i32_type().into(), ptr.into(), ptr.into()], false);
    let entry = entry_ty.const_named_struct(&[
        ctx.i32_type().const_int(65535, false).into(),
        f.as_global_value().as_pointer_value().into(),
        ptr.const_null().into(),
    ]);
    let ctors = m.add_global(entry_ty.array_type(1), None, "llvm.global_ctors");
    ctors.set_linkage(Linkage::Appending);
    ctors.set_initializer(&entry_ty.const_array(&[entry]));
    let used = m.add_global(ptr.array_type(1), None, "llvm.used");
    used.set_linkage(Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
    used.set_initializer(&ptr.const_array(&[anchor]));
    Ok(())
}

/// Puts the constants and embedded weights of `m` (the globals that memref
/// descriptors point to) into [`DEVICE_DATA_SECTION`], as writable data:
/// registering read-only memory with the driver is not supported
/// everywhere.
pub(crate) fn place_device_data(m: &Module) {
    for g in m.get_globals() {
        let name = g.get_name().to_string_lossy();
        let data = name.starts_with("__constant_") || name.starts_with("agc_weight_");
        if data && g.get_initializer().is_some() {
            g.set_constant(false);
            g.set_section(Some(DEVICE_DATA_SECTION));
        }
    }
}

/// The PTX of every kernel module of `kernels` (the `<module>_binary`
/// strings of MLIR's `gpu-module-to-binary`), each after a line
/// `// agc kernel module: <module>`.
pub(crate) fn ptx_text(kernels: &Module) -> String {
    let mut out = String::new();
    for g in kernels.get_globals() {
        let name = g.get_name().to_string_lossy().into_owned();
        let Some(module) = name.strip_suffix("_binary") else {
            continue;
        };
        let Some(text) = g
            .get_initializer()
            .filter(|v| v.is_array_value())
            .and_then(|v| {
                v.into_array_value().as_const_string().map(|b| {
                    String::from_utf8_lossy(b.strip_suffix(&[0]).unwrap_or(b)).into_owned()
                })
            })
        else {
            continue;
        };
        out.push_str(&format!("// agc kernel module: {module}\n{text}\n"));
    }
    out
}
