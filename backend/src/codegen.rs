//! LLVM's optimiser and code generator over the modules of a library, in
//! parallel: the host module (entry points and baseline kernels) on the
//! calling thread, each kernel variant ([`crate::multiversion`]) on a
//! thread of its own. An LLVM context is not thread-safe, so a variant
//! travels to its thread as bitcode and is parsed there into a context of
//! its own; the variants are independent modules (their definitions carry
//! the variant's suffix), so each compiles alone into an object of its own.

use crate::object::llvm_err;
use crate::BackendError;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{FileType, TargetMachine};

/// The machine code of one module, and its texts on request.
#[derive(Debug)]
pub struct Part {
    /// The ELF relocatable object.
    pub object: Vec<u8>,
    /// Assembly text, when requested.
    pub asm: Option<String>,
    /// Optimised LLVM IR text, when requested.
    pub llvm_ir: Option<String>,
}

/// What to produce besides the object.
#[derive(Clone, Copy, Debug)]
pub struct Texts {
    /// Assembly.
    pub asm: bool,
    /// Optimised LLVM IR.
    pub llvm_ir: bool,
}

/// Compiles `host` with `tm` here and each module of `variants` (name and
/// bitcode) on a thread of its own for the same CPU and features; the
/// parts in that order, host first.
pub fn in_parallel(
    host: &Module,
    tm: &TargetMachine,
    variants: &[(String, Vec<u8>)],
    opt_level: u8,
    texts: Texts,
) -> Result<Vec<Part>, BackendError> {
    let cpu = tm.get_cpu().to_string_lossy().into_owned();
    let features = tm.get_feature_string().to_string_lossy().into_owned();
    std::thread::scope(|s| {
        let threads: Vec<_> = variants
            .iter()
            .map(|(name, bitcode)| {
                let (cpu, features) = (&cpu, &features);
                s.spawn(move || variant(name, bitcode, cpu, features, opt_level, texts))
            })
            .collect();
        let mut parts = vec![optimise_and_emit(host, tm, opt_level, texts)?];
        for t in threads {
            let part = t
                .join()
                .map_err(|_| BackendError::Llvm("a code generation thread panicked".into()))?;
            parts.push(part?);
        }
        Ok(parts)
    })
}

/// Parses module `name` from `bitcode` into a context of this thread and
/// compiles it.
fn variant(
    name: &str,
    bitcode: &[u8],
    cpu: &str,
    features: &str,
    opt_level: u8,
    texts: Texts,
) -> Result<Part, BackendError> {
    let ctx = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(bitcode, name);
    let m = Module::parse_bitcode_from_buffer(&buffer, &ctx)
        .map_err(|e| llvm_err("reading a kernel variant", e.to_string_lossy()))?;
    let tm = crate::object::target_machine(cpu, features, opt_level)?;
    optimise_and_emit(&m, &tm, opt_level, texts)
}

/// Runs `default<O{opt_level}>` on `m` and generates its code for `tm`.
pub fn optimise_and_emit(
    m: &Module,
    tm: &TargetMachine,
    opt_level: u8,
    texts: Texts,
) -> Result<Part, BackendError> {
    let module = m.get_name().to_string_lossy().into_owned();
    crate::llvm_diagnostics::route_to_tracing(&m.get_context());
    let passes = format!("default<O{}>", opt_level.min(3));
    let optimising = std::time::Instant::now();
    m.run_passes(&passes, tm, PassBuilderOptions::create())
        .map_err(|e| llvm_err("optimising", e.to_string_lossy()))?;
    tracing::info!(ms = crate::millis(optimising), %module, %passes, "optimised an LLVM module");
    let emit = |kind: FileType| {
        tm.write_to_memory_buffer(m, kind)
            .map(|b| b.as_slice().to_vec())
            .map_err(|e| llvm_err("code generation", e.to_string_lossy()))
    };
    let generating = std::time::Instant::now();
    let object = emit(FileType::Object)?;
    tracing::info!(ms = crate::millis(generating), %module, "generated machine code");
    let asm = if texts.asm {
        Some(String::from_utf8_lossy(&emit(FileType::Assembly)?).into_owned())
    } else {
        None
    };
    let llvm_ir = texts.llvm_ir.then(|| m.print_to_string().to_string());
    Ok(Part {
        object,
        asm,
        llvm_ir,
    })
}
