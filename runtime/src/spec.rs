//! The compile-time signature of an exported function, as constant data that
//! the generated host code passes to the runtime.
//!
//! The layout is part of the contract between `agc_backend::llvm` (which
//! emits these structs as LLVM constants) and this crate; every field is
//! pointer- or 64-bit-sized or a pair of `i32`s so that C, Rust and LLVM agree
//! on it without padding rules.

use crate::dlpack::DLDataType;
use std::ffi::{c_char, CStr};
use std::fmt;

/// One tensor (parameter or result) of a signature.
#[repr(C)]
#[derive(Debug)]
pub struct TensorSpec {
    /// Parameter name as written in Python (`"x"`), or `"out0"`... for results.
    pub name: *const c_char,
    /// DLPack type code.
    pub dtype_code: i32,
    /// DLPack bits per element.
    pub dtype_bits: i32,
    /// Rank.
    pub ndim: i64,
    /// `ndim` dims: `d >= 0` is a static size, [`DIM_UNKNOWN`] (results
    /// only) a size that only the computation determines, any other `d < 0`
    /// symbolic dim number `-1 - d` of [`FuncSpec::sym_names`] (a
    /// parameter's).
    pub dims: *const i64,
}

/// A result dim that no parameter's shape determines (a data-dependent
/// size): known only once the kernel has run.
pub const DIM_UNKNOWN: i64 = i64::MIN;

/// The size of declared dim `d` once the symbolic dims have the values
/// `syms` (-1: not bound): `None` for [`DIM_UNKNOWN`] or an unbound or
/// out-of-range symbolic dim.
pub fn resolve_dim(d: i64, syms: &[i64]) -> Option<i64> {
    if d >= 0 {
        return Some(d);
    }
    if d == DIM_UNKNOWN {
        return None;
    }
    let k = usize::try_from(-1 - d).ok()?;
    syms.get(k).copied().filter(|&s| s >= 0)
}

/// The signature of one exported function.
#[repr(C)]
#[derive(Debug)]
pub struct FuncSpec {
    /// Exported C name, used as the prefix of every message.
    pub name: *const c_char,
    /// Number of parameters.
    pub nparams: i64,
    /// Number of results.
    pub nresults: i64,
    /// Number of distinct symbolic dims among the parameters.
    pub nsyms: i64,
    /// `nsyms` names (`"B"`).
    pub sym_names: *const *const c_char,
    /// `nparams` parameter specs.
    pub params: *const TensorSpec,
    /// `nresults` result specs.
    pub results: *const TensorSpec,
    /// Variables of the library's context (0 without variables): the
    /// kernel takes their descriptors after the parameters'.
    pub nstate: i64,
    /// `nstate` variable specs.
    pub state: *const TensorSpec,
    /// How many variables the export assigns: the kernel returns their new
    /// values after its results.
    pub nassigns: i64,
    /// `nassigns` indices into `state`.
    pub assigns: *const i64,
    /// The library's state spec (NULL without a context): a context is the
    /// library's own when it was made from this spec.
    pub context_spec: *const crate::context::StateSpec,
    /// The CPU features the library was compiled for (LLVM's `+a,+b,-c`;
    /// NULL: not checked), the same string in every spec of a library.
    pub cpu_features: *const c_char,
    /// The library's device (NULL: the CPU), the same in every spec of a library.
    pub device: *const crate::device::DeviceSpec,
}

/// The signature `spec` of a call that starts now: this thread's error
/// state is cleared, and the CPU is checked for the library's features.
///
/// # Safety
/// `spec` is NULL or a constant signature emitted by agc.
pub unsafe fn begin<'a>(spec: *const FuncSpec) -> Result<&'a FuncSpec, i32> {
    crate::error::begin_call();
    // SAFETY: caller contract.
    let Some(spec) = (unsafe { spec.as_ref() }) else {
        return Err(crate::error::fail(
            crate::error::Status::Internal,
            "agc: missing signature",
        ));
    };
    // SAFETY: the spec's constant string.
    if let Err(message) = unsafe { crate::cpu::check(spec.cpu_features) } {
        return Err(crate::error::fail(
            crate::error::Status::UnsupportedCpu,
            format!("{}: {message}", spec.name()),
        ));
    }
    Ok(spec)
}

/// [`begin`] for a call that runs the kernel: also starts the call on the
/// library's device ([`crate::device::enter`]).
///
/// # Safety
/// As [`begin`].
pub unsafe fn begin_run<'a>(spec: *const FuncSpec) -> Result<&'a FuncSpec, i32> {
    // SAFETY: caller contract.
    let spec = unsafe { begin(spec) }?;
    // SAFETY: the spec's device constant.
    match unsafe { crate::device::enter(spec.device, &spec.name()) } {
        0 => Ok(spec),
        status => Err(status),
    }
}

/// A name in a spec, read from its C string only when formatted: a call
/// that succeeds pays nothing for the names its messages would use.
#[derive(Clone, Copy)]
pub struct SpecName(pub(crate) *const c_char);

impl fmt::Display for SpecName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_null() {
            return f.write_str("?");
        }
        // SAFETY: specs are constants emitted by agc with NUL-terminated strings.
        f.write_str(&unsafe { CStr::from_ptr(self.0) }.to_string_lossy())
    }
}

/// A slice from a spec's pointer and count (empty when NULL or non-positive).
///
/// # Safety
/// `p` points to `n` valid elements when `n > 0`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, n: i64) -> &'a [T] {
    match usize::try_from(n) {
        // SAFETY: guaranteed by the caller.
        Ok(n) if n > 0 && !p.is_null() => unsafe { std::slice::from_raw_parts(p, n) },
        _ => &[],
    }
}

impl FuncSpec {
    /// The exported name.
    pub fn name(&self) -> SpecName {
        SpecName(self.name)
    }

    /// The parameter specs.
    pub fn params(&self) -> &[TensorSpec] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.params, self.nparams) }
    }

    /// The result specs.
    pub fn results(&self) -> &[TensorSpec] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.results, self.nresults) }
    }

    /// The variable specs.
    pub fn state(&self) -> &[TensorSpec] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.state, self.nstate) }
    }

    /// The indices of the variables the export assigns.
    pub fn assigns(&self) -> &[i64] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.assigns, self.nassigns) }
    }

    /// The allocated pointers of the parameters' and the variables' descriptors in `descs`.
    ///
    /// # Safety
    /// `descs` holds every parameter's and variable's descriptor, in order.
    pub unsafe fn param_buffers(&self, descs: *const i64) -> impl Iterator<Item = i64> + '_ {
        self.params()
            .iter()
            .chain(self.state())
            .scan(0usize, move |off, p| {
                // SAFETY: within `descs` (caller contract).
                let a = unsafe { *descs.add(*off) };
                *off += crate::import::descriptor_words(p.rank());
                Some(a)
            })
    }

    /// The name of symbolic dim `k`.
    pub fn sym_name(&self, k: usize) -> String {
        // SAFETY: the spec is a well-formed constant.
        let names = unsafe { slice(self.sym_names, self.nsyms) };
        names
            .get(k)
            .map_or_else(|| format!("_{k}"), |&p| SpecName(p).to_string())
    }
}

impl TensorSpec {
    /// The tensor's name.
    pub fn name(&self) -> SpecName {
        SpecName(self.name)
    }

    /// The declared dims (see [`TensorSpec::dims`]).
    pub fn dims(&self) -> &[i64] {
        // SAFETY: the spec is a well-formed constant.
        unsafe { slice(self.dims, self.ndim) }
    }

    /// The declared dtype.
    pub fn dtype(&self) -> DLDataType {
        DLDataType {
            code: self.dtype_code as u8,
            bits: self.dtype_bits as u8,
            lanes: 1,
        }
    }

    /// The declared rank.
    pub fn rank(&self) -> usize {
        usize::try_from(self.ndim).unwrap_or(0)
    }

    /// The declared shape in numpy's spelling: `(B, 784)`, `(3,)`, `()`.
    pub fn shape_string(&self, func: &FuncSpec) -> String {
        let dims: Vec<String> = self
            .dims()
            .iter()
            .map(|&d| {
                if d >= 0 {
                    d.to_string()
                } else {
                    func.sym_name((-1 - d) as usize)
                }
            })
            .collect();
        tuple_string(&dims)
    }
}

/// `(a, b)`, `(a,)` or `()`.
pub fn tuple_string(items: &[String]) -> String {
    match items {
        [one] => format!("({one},)"),
        _ => format!("({})", items.join(", ")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A spec built in Rust for the unit tests: owns its strings and arrays.
    pub struct OwnedSpec {
        _strings: Vec<std::ffi::CString>,
        _dims: Vec<Vec<i64>>,
        _syms: Vec<*const c_char>,
        _tensors: Vec<Vec<TensorSpec>>,
        /// The spec itself.
        pub spec: Box<FuncSpec>,
    }

    fn leak_str(strings: &mut Vec<std::ffi::CString>, s: &str) -> *const c_char {
        strings.push(std::ffi::CString::new(s).unwrap());
        strings.last().unwrap().as_ptr()
    }

    /// `params`/`results`: (name, (code, bits), dims); dims as in [`TensorSpec::dims`].
    pub fn make(
        name: &str,
        syms: &[&str],
        params: &[(&str, (i32, i32), Vec<i64>)],
        results: &[(&str, (i32, i32), Vec<i64>)],
    ) -> OwnedSpec {
        let mut strings = Vec::new();
        let mut dims_store = Vec::new();
        let fname = leak_str(&mut strings, name);
        let sym_ptrs: Vec<*const c_char> = syms.iter().map(|s| leak_str(&mut strings, s)).collect();
        let mut tensors = Vec::new();
        for list in [params, results] {
            let mut v = Vec::new();
            for (n, (code, bits), dims) in list {
                let np = leak_str(&mut strings, n);
                dims_store.push(dims.clone());
                let d = dims_store.last().unwrap();
                v.push(TensorSpec {
                    name: np,
                    dtype_code: *code,
                    dtype_bits: *bits,
                    ndim: d.len() as i64,
                    dims: d.as_ptr(),
                });
            }
            tensors.push(v);
        }
        let spec = Box::new(FuncSpec {
            name: fname,
            nparams: params.len() as i64,
            nresults: results.len() as i64,
            nsyms: syms.len() as i64,
            sym_names: sym_ptrs.as_ptr(),
            params: tensors[0].as_ptr(),
            results: tensors[1].as_ptr(),
            nstate: 0,
            state: std::ptr::null(),
            nassigns: 0,
            assigns: std::ptr::null(),
            context_spec: std::ptr::null(),
            cpu_features: std::ptr::null(),
            device: std::ptr::null(),
        });
        OwnedSpec {
            _strings: strings,
            _dims: dims_store,
            _syms: sym_ptrs,
            _tensors: tensors,
            spec,
        }
    }

    #[test]
    fn dims_resolve_through_the_symbolic_dims() {
        let syms = [7, -1];
        assert_eq!(resolve_dim(3, &syms), Some(3));
        assert_eq!(resolve_dim(-1, &syms), Some(7));
        assert_eq!(resolve_dim(-2, &syms), None);
        assert_eq!(resolve_dim(-3, &syms), None);
        assert_eq!(resolve_dim(DIM_UNKNOWN, &syms), None);
    }

    #[test]
    fn shape_strings() {
        let s = make(
            "f",
            &["B"],
            &[("x", (2, 32), vec![-1, 784]), ("b", (2, 32), vec![3])],
            &[],
        );
        let p = s.spec.params();
        assert_eq!(p[0].shape_string(&s.spec), "(B, 784)");
        assert_eq!(p[1].shape_string(&s.spec), "(3,)");
        assert_eq!(tuple_string(&[]), "()");
    }
}
