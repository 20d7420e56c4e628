//! Test support for the MLIR kernel tests: build IR functions by hand,
//! compile them to a shared library (emit_module → lower_to_llvm → object
//! → `cc -shared`), call `_mlir_ciface_agc_impl_<f>` through `dlopen`, and
//! compare with numpy (run through `python3`) as the oracle.

use agc_backend::mlir::{emit_module, lower_to_llvm};
use agc_ir::{infer, DType, Dim, Function, Module, OpKind, Span, TensorType, Type, Value};
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use inkwell::OptimizationLevel;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;
use std::process::Command;

// ---------------------------------------------------------------- IR building

/// A static tensor type.
pub fn st(dtype: DType, shape: &[i64]) -> TensorType {
    TensorType::static_shape(dtype, shape)
}

/// A tensor type from dims written as strings: numbers or symbol names.
pub fn ty(dtype: DType, dims: &[&str]) -> TensorType {
    TensorType::new(
        dtype,
        dims.iter()
            .map(|d| {
                d.parse::<i64>()
                    .map(Dim::Static)
                    .unwrap_or_else(|_| Dim::Sym(d.to_string()))
            })
            .collect(),
    )
}

/// A function under construction; ops go to the cursor region (the body
/// unless [`Fb::at`] moved it).
pub struct Fb {
    /// The function.
    pub f: Function,
    cursor: agc_ir::RegionId,
}

impl Fb {
    /// A new function and its parameters.
    pub fn new(name: &str, params: &[TensorType]) -> (Fb, Vec<Value>) {
        let ps: Vec<(String, Type)> = params
            .iter()
            .enumerate()
            .map(|(i, t)| (format!("p{i}"), Type::Tensor(t.clone())))
            .collect();
        let f = Function::new(name, &ps, Span::UNKNOWN);
        let vs = f.params().to_vec();
        let cursor = f.body;
        (Fb { f, cursor }, vs)
    }

    /// A new detached region with parameters of the given types.
    pub fn region(&mut self, params: &[TensorType]) -> (agc_ir::RegionId, Vec<Value>) {
        let tys: Vec<Type> = params.iter().map(|t| Type::Tensor(t.clone())).collect();
        let r = self.f.new_region(&tys);
        (r, self.f.region(r).params.clone())
    }

    /// Moves the cursor to region `r`; returns the previous one.
    pub fn at(&mut self, r: agc_ir::RegionId) -> agc_ir::RegionId {
        std::mem::replace(&mut self.cursor, r)
    }

    /// Appends a terminator (`yield`, `condition`) to the cursor region.
    pub fn term(&mut self, kind: OpKind, vals: &[Value]) {
        self.f.append_op(
            self.cursor,
            kind,
            vals.to_vec(),
            vec![],
            vec![],
            Span::UNKNOWN,
        );
    }

    /// Appends an op with several results and regions.
    pub fn op_multi(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[TensorType],
        regions: Vec<agc_ir::RegionId>,
    ) -> Vec<Value> {
        let rt = results.iter().map(|t| Type::Tensor(t.clone())).collect();
        self.f
            .append_op(
                self.cursor,
                kind,
                operands.to_vec(),
                rt,
                regions,
                Span::UNKNOWN,
            )
            .1
    }

    /// The type of a value.
    pub fn t(&self, v: Value) -> TensorType {
        self.f.ty(v).tensor().clone()
    }

    /// Appends an op with one result of type `result`.
    pub fn op(&mut self, kind: OpKind, operands: &[Value], result: TensorType) -> Value {
        let body = self.cursor;
        self.f
            .append_op(
                body,
                kind,
                operands.to_vec(),
                vec![Type::Tensor(result)],
                vec![],
                Span::UNKNOWN,
            )
            .1[0]
    }

    /// Appends an op with one result, stamped with the source span `span`.
    pub fn op_at(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        result: TensorType,
        span: Span,
    ) -> Value {
        let body = self.cursor;
        self.f
            .append_op(
                body,
                kind,
                operands.to_vec(),
                vec![Type::Tensor(result)],
                vec![],
                span,
            )
            .1[0]
    }

    /// An elementwise op whose result type is the broadcast (dtype given).
    pub fn ew(&mut self, kind: OpKind, operands: &[Value], dtype: DType) -> Value {
        let tys: Vec<TensorType> = operands.iter().map(|&v| self.t(v)).collect();
        let refs: Vec<&TensorType> = tys.iter().collect();
        let dims = infer::broadcast_all(&refs).unwrap();
        self.op(kind, operands, TensorType::new(dtype, dims))
    }

    /// Ends the function returning `vals`, verifies it.
    pub fn ret(self, vals: &[Value]) -> Function {
        let f = self.ret_unverified(vals);
        agc_ir::verify::verify_function(&f)
            .unwrap_or_else(|e| panic!("test IR does not verify: {e}"));
        f
    }

    /// Ends the function returning `vals`, without running the IR verifier
    /// (for IR the frontend's typing rules produce but the verifier cannot
    /// prove, such as a reshape to a composite symbol `(B*3)`).
    pub fn ret_unverified(mut self, vals: &[Value]) -> Function {
        self.f.result_types = vals.iter().map(|&v| Type::Tensor(self.t(v))).collect();
        let body = self.f.body;
        self.f.append_op(
            body,
            OpKind::Return,
            vals.to_vec(),
            vec![],
            vec![],
            Span::UNKNOWN,
        );
        self.f
    }
}

// ---------------------------------------------------------------- host tensors

/// A host tensor: dtype, shape and row-major bytes.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<i64>,
    /// Row-major data.
    pub bytes: Vec<u8>,
}

impl Tensor {
    /// From f64 values converted to `dtype`.
    pub fn new(dtype: DType, shape: &[i64], vals: &[f64]) -> Tensor {
        assert_eq!(
            shape.iter().product::<i64>() as usize,
            vals.len(),
            "shape vs data"
        );
        let mut bytes = Vec::new();
        for &x in vals {
            match dtype {
                DType::Bool => bytes.push((x != 0.0) as u8),
                DType::I32 => bytes.extend((x as i32).to_le_bytes()),
                DType::I64 => bytes.extend((x as i64).to_le_bytes()),
                DType::F32 => bytes.extend((x as f32).to_le_bytes()),
                DType::F64 => bytes.extend(x.to_le_bytes()),
            }
        }
        Tensor {
            dtype,
            shape: shape.to_vec(),
            bytes,
        }
    }

    /// Deterministic pseudo-random data in [-2, 2) (ints: -5..5).
    pub fn rand(dtype: DType, shape: &[i64], seed: u64) -> Tensor {
        let n = shape.iter().product::<i64>() as usize;
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let vals: Vec<f64> = (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (s >> 11) as f64 / (1u64 << 53) as f64;
                match dtype {
                    DType::Bool => (u < 0.5) as i32 as f64,
                    DType::I32 | DType::I64 => (u * 10.0).floor() - 5.0,
                    _ => u * 4.0 - 2.0,
                }
            })
            .collect();
        Tensor::new(dtype, shape, &vals)
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product::<i64>() as usize
    }

    /// The elements as f64.
    pub fn values(&self) -> Vec<f64> {
        let sz = self.dtype.byte_size();
        self.bytes
            .chunks(sz)
            .map(|c| match self.dtype {
                DType::Bool => c[0] as f64,
                DType::I32 => i32::from_le_bytes(c.try_into().unwrap()) as f64,
                DType::I64 => i64::from_le_bytes(c.try_into().unwrap()) as f64,
                DType::F32 => f32::from_le_bytes(c.try_into().unwrap()) as f64,
                DType::F64 => f64::from_le_bytes(c.try_into().unwrap()),
            })
            .collect()
    }

    /// A numpy expression that rebuilds this tensor.
    fn numpy_literal(&self) -> String {
        let vals: Vec<String> = self
            .values()
            .iter()
            .map(|x| {
                if x.is_nan() {
                    "float('nan')".into()
                } else if x.is_infinite() {
                    format!("float('{}inf')", if *x < 0.0 { "-" } else { "" })
                } else {
                    format!("{x:?}")
                }
            })
            .collect();
        let shape: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        format!(
            "np.array([{}], dtype=np.{}).reshape(({}{}))",
            vals.join(", "),
            self.dtype.numpy_name(),
            shape.join(", "),
            if shape.len() == 1 { "," } else { "" }
        )
    }
}

// ---------------------------------------------------------------- numpy oracle

/// Evaluates a numpy expression over named inputs with CPython + numpy.
pub fn numpy(expr: &str, inputs: &[(&str, &Tensor)]) -> Tensor {
    let mut script =
        String::from("import numpy as np, warnings\nwarnings.simplefilter('ignore')\n");
    for (name, t) in inputs {
        script.push_str(&format!("{name} = {}\n", t.numpy_literal()));
    }
    script.push_str(&format!(
        "with np.errstate(all='ignore'):\n    r = np.asarray({expr})\n\
         print(r.dtype.name)\nprint(' '.join(str(d) for d in r.shape))\n\
         print(' '.join(repr(float(x)) if r.dtype.kind == 'f' else str(int(x)) for x in r.ravel().tolist()))\n"
    ));
    let mut child = Command::new("python3")
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "numpy failed: {}\n{script}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let dtype = DType::from_name(lines.next().unwrap()).unwrap();
    let shape: Vec<i64> = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|d| d.parse().unwrap())
        .collect();
    let vals: Vec<f64> = lines
        .next()
        .unwrap_or("")
        .split_whitespace()
        .map(|x| x.parse().unwrap())
        .collect();
    Tensor::new(dtype, &shape, &vals)
}

/// Asserts that `got` equals numpy's `want` (dtype, shape, values; floats
/// to a relative tolerance, NaN equal to NaN).
pub fn assert_close(what: &str, got: &Tensor, want: &Tensor) {
    assert_eq!(got.dtype, want.dtype, "{what}: dtype");
    assert_eq!(got.shape, want.shape, "{what}: shape");
    let tol = match got.dtype {
        DType::F32 => 2e-6,
        DType::F64 => 1e-13,
        _ => 0.0,
    };
    for (i, (g, w)) in got.values().iter().zip(want.values()).enumerate() {
        let ok = (g.is_nan() && w.is_nan()) || g == &w || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(
            ok,
            "{what}: element {i}: got {g}, numpy {w}\n got  {:?}\n want {:?}",
            got.values(),
            want.values()
        );
    }
}

// ---------------------------------------------------------------- compile + call

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
}

/// A compiled test library.
pub struct Lib {
    /// Where the object and library live.
    pub dir: tempfile::TempDir,
    handle: *mut c_void,
    /// The MLIR text it was built from.
    pub mlir: String,
    /// Functions it was built from (for result types).
    funcs: Vec<Function>,
}

/// Compiles `funcs` into an object file at `dir/k.o` for the host CPU, or
/// for baseline x86-64 when `baseline` (valgrind knows no AVX-512); returns
/// the MLIR text.
pub fn compile_object(funcs: &[Function], dir: &Path, baseline: bool) -> String {
    let mut m = Module::new("t");
    for f in funcs {
        m.add_function(f.clone());
    }
    let mlir = emit_module(&m, &agc_backend::mlir::EmitOptions::default())
        .expect("emit_module")
        .text;
    std::fs::write(dir.join("k.mlir"), &mlir).unwrap();
    // AGC_MLIR_DUMP=<dir>: keep the MLIR of every test module for mlir-opt.
    if let Some(d) = std::env::var_os("AGC_MLIR_DUMP") {
        let name = funcs.first().map_or("empty", |f| f.name.as_str());
        std::fs::write(Path::new(&d).join(format!("{name}.mlir")), &mlir).unwrap();
    }
    let ctx = inkwell::context::Context::create();
    // AGC_MLIR_OPT=<n>: the opt level given to lower_to_llvm (default 2).
    let opt = std::env::var("AGC_MLIR_OPT")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let module = lower_to_llvm(&mlir, opt, agc_backend::mlir::Device::Cpu, &ctx)
        .unwrap_or_else(|e| panic!("{e}\n--- MLIR ---\n{mlir}"));
    Target::initialize_native(&InitializationConfig::default()).unwrap();
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).unwrap();
    let (host_cpu, host_features) = (
        TargetMachine::get_host_cpu_name(),
        TargetMachine::get_host_cpu_features(),
    );
    let tm = target
        .create_target_machine(
            &triple,
            if baseline {
                "x86-64"
            } else {
                host_cpu.to_str().unwrap()
            },
            if baseline {
                ""
            } else {
                host_features.to_str().unwrap()
            },
            OptimizationLevel::Default,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .unwrap();
    module.set_triple(&triple);
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    module
        .verify()
        .unwrap_or_else(|e| panic!("LLVM verify: {e}"));
    module
        .run_passes(
            "default<O2>",
            &tm,
            inkwell::passes::PassBuilderOptions::create(),
        )
        .unwrap();
    tm.write_to_file(&module, FileType::Object, &dir.join("k.o"))
        .unwrap();
    mlir
}

/// Writes agc's runtime archive (which kernels call to raise errors) into
/// `dir`; returns its path.
pub fn runtime_archive(dir: &Path) -> std::path::PathBuf {
    let rt = dir.join("libagc_runtime.a");
    std::fs::write(&rt, agc_backend::link::RUNTIME_ARCHIVE).unwrap();
    rt
}

/// Compiles `funcs` into a shared library and opens it.
pub fn build(funcs: Vec<Function>) -> Lib {
    let dir = tempfile::tempdir().unwrap();
    let mlir = compile_object(&funcs, dir.path(), false);
    let so = dir.path().join("libk.so");
    let st = Command::new("cc")
        .arg("-shared")
        .arg("-o")
        .arg(&so)
        .arg(dir.path().join("k.o"))
        .arg(runtime_archive(dir.path()))
        .arg("-lm")
        .status()
        .unwrap();
    assert!(st.success(), "cc -shared failed");
    let path = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: plain dlopen of a library we just linked.
    let handle = unsafe {
        dlopen(path.as_ptr(), 2 /* RTLD_NOW */)
    };
    if handle.is_null() {
        panic!("dlopen: {:?}", unsafe {
            std::ffi::CStr::from_ptr(dlerror())
        });
    }
    Lib {
        dir,
        handle,
        mlir,
        funcs,
    }
}

// SAFETY: a dlopen handle may be used from any thread; the kernels are
// thread-safe.
unsafe impl Send for Lib {}
// SAFETY: as above.
unsafe impl Sync for Lib {}

/// A memref descriptor as 8-byte words: allocated, aligned, offset, sizes, strides.
fn descriptor(t: &Tensor) -> Vec<u64> {
    let mut d = vec![t.bytes.as_ptr() as u64, t.bytes.as_ptr() as u64, 0];
    d.extend(t.shape.iter().map(|&s| s as u64));
    let mut strides = vec![1i64; t.shape.len()];
    for i in (0..t.shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * t.shape[i + 1];
    }
    d.extend(strides.iter().map(|&s| s as u64));
    d
}

type P = *mut u64;

impl Lib {
    /// Asserts that the kernel object leaves undefined only libc/libm
    /// symbols and agc's runtime (`agc_rt_*`, the allocator's
    /// `_mlir_memref_to_llvm_*`, its `memrefCopy`): no MLIR runtime library.
    pub fn assert_needs_only_libc_and_libm(&self) {
        let out = Command::new("nm")
            .arg("--undefined-only")
            .arg(self.dir.path().join("k.o"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let libm = [
            "tanh", "exp", "log", "fmod", "pow", "sin", "cos", "sqrt", "floor", "ceil",
        ];
        let libc = [
            "malloc",
            "free",
            "memcpy",
            "memset",
            "memmove",
            "__cxa_finalize",
            "_ITM_",
            "__gmon_start__",
        ];
        for line in text.lines() {
            let sym = line.split_whitespace().last().unwrap_or("");
            let base = sym.split('@').next().unwrap();
            let ok = libc.iter().any(|a| base.starts_with(a))
                || base.starts_with("agc_rt_")
                || base.starts_with("_mlir_memref_to_llvm_")
                // Defined by agc's runtime (runtime/src/memref_copy.rs).
                || base == "memrefCopy"
                || libm
                    .iter()
                    .any(|m| base == *m || base.strip_suffix('f') == Some(*m));
            assert!(ok, "unexpected undefined symbol {sym}\n{text}");
        }
    }

    /// Calls `_mlir_ciface_agc_impl_<name>` and returns its results, or
    /// the status and message the kernel raised (its results are freed
    /// either way).
    pub fn try_call(&self, name: &str, args: &[&Tensor]) -> Result<Vec<Tensor>, (i32, String)> {
        let sym = |s: &str| {
            let c = CString::new(s).unwrap();
            // SAFETY: symbol lookup in our library (the runtime is linked in).
            let p = unsafe { dlsym(self.handle, c.as_ptr()) };
            assert!(!p.is_null(), "missing symbol {s}");
            p
        };
        // SAFETY: runtime functions `int32_t f(void)` and `const char* f(void)`.
        let (take, last) = unsafe {
            (
                std::mem::transmute::<*mut c_void, extern "C" fn() -> i32>(sym(
                    "agc_rt_take_status",
                )),
                std::mem::transmute::<*mut c_void, extern "C" fn() -> *const c_char>(sym(
                    "agc_rt_last_error",
                )),
            )
        };
        take();
        let r = self.call(name, args);
        match take() {
            0 => Ok(r),
            st => {
                // SAFETY: the runtime returns a valid C string.
                let msg = unsafe { std::ffi::CStr::from_ptr(last()) };
                Err((st, msg.to_string_lossy().into_owned()))
            }
        }
    }

    /// Calls `_mlir_ciface_agc_impl_<name>` and returns its results (owned
    /// copies; the library's buffers are checked for identity layout and freed).
    pub fn call(&self, name: &str, args: &[&Tensor]) -> Vec<Tensor> {
        let f = self
            .funcs
            .iter()
            .find(|f| f.name == name)
            .expect("no such function");
        let sym = CString::new(format!("_mlir_ciface_agc_impl_{name}")).unwrap();
        // SAFETY: symbol lookup in our library.
        let fp = unsafe { dlsym(self.handle, sym.as_ptr()) };
        assert!(!fp.is_null(), "missing symbol {sym:?}");
        let mut descs: Vec<Vec<u64>> = args.iter().map(|t| descriptor(t)).collect();
        let rtys: Vec<TensorType> = f.result_types.iter().map(|t| t.tensor().clone()).collect();
        let words: usize = rtys.iter().map(|t| 3 + 2 * t.rank()).sum();
        let mut ret = vec![0u64; words];
        let mut ptrs: Vec<P> = descs.iter_mut().map(|d| d.as_mut_ptr()).collect();
        let r = ret.as_mut_ptr();
        // SAFETY: the generated entry point takes `ret` then one descriptor
        // pointer per parameter, all as pointers.
        unsafe {
            match ptrs.len() {
                0 => std::mem::transmute::<*mut c_void, extern "C" fn(P)>(fp)(r),
                1 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P)>(fp)(r, ptrs[0]),
                2 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P, P)>(fp)(
                    r, ptrs[0], ptrs[1],
                ),
                3 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P, P, P)>(fp)(
                    r, ptrs[0], ptrs[1], ptrs[2],
                ),
                4 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P, P, P, P)>(fp)(
                    r, ptrs[0], ptrs[1], ptrs[2], ptrs[3],
                ),
                5 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P, P, P, P, P)>(fp)(
                    r, ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4],
                ),
                6 => std::mem::transmute::<*mut c_void, extern "C" fn(P, P, P, P, P, P, P)>(fp)(
                    r, ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4], ptrs[5],
                ),
                n => panic!("{n} arguments not supported by the test harness"),
            }
        }
        ptrs.clear();
        let mut out = Vec::new();
        let mut at = 0;
        for t in &rtys {
            let rank = t.rank();
            let d = &ret[at..at + 3 + 2 * rank];
            at += 3 + 2 * rank;
            let shape: Vec<i64> = d[3..3 + rank].iter().map(|&s| s as i64).collect();
            let strides: Vec<i64> = d[3 + rank..].iter().map(|&s| s as i64).collect();
            let n: i64 = shape.iter().product();
            let mut expect = 1i64;
            for i in (0..rank).rev() {
                if shape[i] > 1 {
                    assert_eq!(
                        strides[i], expect,
                        "result strides {strides:?} of shape {shape:?} are not row-major"
                    );
                }
                expect *= shape[i];
            }
            assert_eq!(d[2], 0, "result offset");
            assert!(d[0] != 0, "null allocated pointer");
            let sz = t.dtype.byte_size();
            // SAFETY: the result buffer holds n elements at `aligned`.
            let bytes =
                unsafe { std::slice::from_raw_parts(d[1] as *const u8, n as usize * sz).to_vec() };
            out.push(Tensor {
                dtype: t.dtype,
                shape,
                bytes,
            });
        }
        // Distinct result buffers (no aliasing), then free them all.
        let allocs: Vec<u64> = {
            let mut at = 0;
            rtys.iter()
                .map(|t| {
                    let a = ret[at];
                    at += 3 + 2 * t.rank();
                    a
                })
                .collect()
        };
        for (i, a) in allocs.iter().enumerate() {
            assert!(
                !allocs[..i].contains(a),
                "results {i} aliases an earlier result"
            );
            for t in args {
                assert_ne!(*a, t.bytes.as_ptr() as u64, "a result aliases an argument");
            }
            let release = CString::new("_mlir_memref_to_llvm_free").unwrap();
            // SAFETY: the runtime's allocator, linked into our library.
            let release = unsafe { dlsym(self.handle, release.as_ptr()) };
            assert!(!release.is_null(), "missing the runtime's allocator");
            // SAFETY: `void f(void*)`; the caller owns each result's `allocated` pointer.
            unsafe {
                std::mem::transmute::<*mut c_void, extern "C" fn(*mut c_void)>(release)(
                    *a as *mut c_void,
                )
            };
        }
        out
    }
}

// ---------------------------------------------------------------- valgrind

/// Compiles `funcs` for baseline x86-64, links them with a C driver that
/// makes each call of `calls` (function name, inputs) `iterations` times
/// and frees every result, and runs it under valgrind; panics on a leak, a
/// double free or an invalid access. Skips (returns false) without valgrind.
pub fn run_under_valgrind(
    funcs: &[Function],
    calls: &[(&str, Vec<Tensor>)],
    iterations: usize,
) -> bool {
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("valgrind not installed; skipping");
        return false;
    }
    let dir = tempfile::tempdir().unwrap();
    compile_object(funcs, dir.path(), true);
    let ctype = |d: DType| match d {
        DType::Bool => "uint8_t",
        DType::I32 => "int32_t",
        DType::I64 => "int64_t",
        DType::F32 => "float",
        DType::F64 => "double",
    };
    let mut decls = String::new();
    let mut body = String::new();
    let mut declared = std::collections::HashSet::new();
    for (ci, (name, args)) in calls.iter().enumerate() {
        let f = funcs
            .iter()
            .find(|f| f.name == *name)
            .expect("no such function");
        if declared.insert(name.to_string()) {
            let ps: Vec<&str> = std::iter::once("int64_t *")
                .chain(args.iter().map(|_| "int64_t *"))
                .collect();
            decls.push_str(&format!(
                "void _mlir_ciface_agc_impl_{name}({});\n",
                ps.join(", ")
            ));
        }
        body.push_str("  {\n");
        let mut argnames = Vec::new();
        for (ai, t) in args.iter().enumerate() {
            let vals: Vec<String> = t.values().iter().map(|v| format!("{v:?}")).collect();
            let n = t.numel().max(1);
            let data = if vals.is_empty() {
                "0".to_string()
            } else {
                vals.join(", ")
            };
            body.push_str(&format!(
                "    static {} d{ci}_{ai}[{n}] = {{{data}}};\n",
                ctype(t.dtype)
            ));
            let mut desc = vec![
                format!("(int64_t)d{ci}_{ai}"),
                format!("(int64_t)d{ci}_{ai}"),
                "0".into(),
            ];
            desc.extend(t.shape.iter().map(|s| s.to_string()));
            let mut stride = 1i64;
            let mut strides = vec![0i64; t.shape.len()];
            for i in (0..t.shape.len()).rev() {
                strides[i] = stride;
                stride *= t.shape[i];
            }
            desc.extend(strides.iter().map(|s| s.to_string()));
            body.push_str(&format!(
                "    int64_t a{ai}[{}] = {{{}}};\n",
                desc.len(),
                desc.join(", ")
            ));
            argnames.push(format!("a{ai}"));
        }
        let mut at = 0;
        let mut frees = String::new();
        for t in &f.result_types {
            frees.push_str(&format!(
                "      _mlir_memref_to_llvm_free((void *)ret[{at}]);\n"
            ));
            at += 3 + 2 * t.tensor().rank();
        }
        body.push_str(&format!(
            "    for (int it = 0; it < {iterations}; it++) {{\n      int64_t ret[{}];\n      _mlir_ciface_agc_impl_{name}(ret{}{});\n{frees}    }}\n  }}\n",
            at.max(1),
            if argnames.is_empty() { "" } else { ", " },
            argnames.join(", ")
        ));
    }
    let driver = format!(
        "#include <stdint.h>\n#include <stdlib.h>\n#include <stdio.h>\nvoid _mlir_memref_to_llvm_free(void *);\n{decls}int main(void) {{\n{body}  puts(\"ok\");\n  return 0;\n}}\n"
    );
    std::fs::write(dir.path().join("drv.c"), &driver).unwrap();
    let exe = dir.path().join("drv");
    let st = Command::new("cc")
        .args(["-g", "-o"])
        .arg(&exe)
        .arg(dir.path().join("drv.c"))
        .arg(dir.path().join("k.o"))
        .arg(runtime_archive(dir.path()))
        .arg("-lm")
        .status()
        .unwrap();
    assert!(st.success(), "driver does not compile:\n{driver}");
    assert_valgrind_clean(&exe, dir.path(), "all");
    true
}

/// Runs `exe` (in `dir`) under valgrind memcheck, counting the leak kinds
/// `errors_for` (`all`, or e.g. `definite,indirect`) as errors, and asserts
/// it is clean and printed `ok`; returns what it printed.
pub fn assert_valgrind_clean(
    exe: &std::path::Path,
    dir: &std::path::Path,
    errors_for: &str,
) -> String {
    let out = Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--show-leak-kinds=all",
            "--error-exitcode=9",
            "-q",
        ])
        .arg(format!("--errors-for-leak-kinds={errors_for}"))
        .arg(exe)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("ok"),
        "valgrind reported problems:\n{text}"
    );
    text
}

// ---------------------------------------------------------------- the C ABI

/// `DLTensor` as `dlpack.h` lays it out.
#[repr(C)]
struct DlTensor {
    data: *mut c_void,
    device: [i32; 2],
    ndim: i32,
    dtype: [u8; 4],
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

/// A library built through the whole backend ([`agc_backend::build`]) and
/// called through its C ABI.
pub struct AbiLib {
    /// Where the library lives.
    pub dir: tempfile::TempDir,
    handle: *mut c_void,
    name: String,
    module: Module,
}

/// Builds `funcs` into `lib<name>.so` exporting each function of `exports`
/// (by function name, under the same C name) and opens it.
pub fn build_abi(name: &str, funcs: Vec<Function>, exports: &[&str]) -> AbiLib {
    build_abi_with_lines(name, funcs, exports, Vec::new())
}

/// [`build_abi`] of a module whose source lines start at `line_starts`.
pub fn build_abi_with_lines(
    name: &str,
    funcs: Vec<Function>,
    exports: &[&str],
    line_starts: Vec<u32>,
) -> AbiLib {
    let mut m = Module::new(name);
    m.line_starts = line_starts;
    for f in funcs {
        m.add_function(f);
    }
    for e in exports {
        let id = m
            .funcs
            .iter()
            .position(|f| f.name == *e)
            .expect("no such function");
        m.exports.push(agc_ir::Export {
            func: agc_ir::FuncId(id as u32),
            c_name: e.to_string(),
            doc: String::new(),
            assigns: vec![],
        });
    }
    let opts = agc_backend::BuildOptions {
        name: name.into(),
        opt_level: 2,
        target: agc_backend::Target::Cpu,
        emit: vec![],
        ..Default::default()
    };
    let arts = agc_backend::build(&m, &opts).unwrap_or_else(|e| panic!("build: {e}"));
    let dir = tempfile::tempdir().unwrap();
    for a in &arts {
        a.write_into(dir.path()).unwrap();
    }
    let so = dir.path().join(format!("lib{name}.so"));
    let path = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: plain dlopen of a library we just built.
    let handle = unsafe { dlopen(path.as_ptr(), 2) };
    assert!(!handle.is_null(), "dlopen {so:?}");
    AbiLib {
        dir,
        handle,
        name: name.into(),
        module: m,
    }
}

// SAFETY: the library handle may be used from any thread (the exported
// functions are thread-safe by contract).
unsafe impl Send for AbiLib {}
// SAFETY: as above.
unsafe impl Sync for AbiLib {}

impl AbiLib {
    fn sym(&self, s: &str) -> *mut c_void {
        let c = CString::new(s).unwrap();
        // SAFETY: symbol lookup in our library.
        let p = unsafe { dlsym(self.handle, c.as_ptr()) };
        assert!(!p.is_null(), "missing symbol {s}");
        p
    }

    /// Calls the exported function `name`: its results, or the status and
    /// `<NAME>_last_error()` (checking that every result pointer stayed NULL).
    pub fn call(&self, name: &str, args: &[&Tensor]) -> Result<Vec<Tensor>, (i32, String)> {
        let f = self
            .module
            .funcs
            .iter()
            .find(|f| f.name == name)
            .expect("no such function");
        let rtys: Vec<TensorType> = f.result_types.iter().map(|t| t.tensor().clone()).collect();
        let code = |d: DType| match d {
            DType::Bool => [6u8, 8, 1, 0],
            DType::I32 => [0, 32, 1, 0],
            DType::I64 => [0, 64, 1, 0],
            DType::F32 => [2, 32, 1, 0],
            DType::F64 => [2, 64, 1, 0],
        };
        let mut shapes: Vec<Vec<i64>> = args.iter().map(|t| t.shape.clone()).collect();
        let mut ins: Vec<DlTensor> = args
            .iter()
            .zip(shapes.iter_mut())
            .map(|(t, shape)| DlTensor {
                data: t.bytes.as_ptr() as *mut c_void,
                device: [1, 0],
                ndim: t.shape.len() as i32,
                dtype: code(t.dtype),
                shape: shape.as_mut_ptr(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            })
            .collect();
        let mut outs: Vec<*mut DlTensor> = vec![std::ptr::null_mut(); rtys.len()];
        let mut ptrs: Vec<*mut c_void> =
            ins.iter_mut().map(|t| t as *mut _ as *mut c_void).collect();
        ptrs.extend(outs.iter_mut().map(|o| o as *mut _ as *mut c_void));
        let fp = self.sym(&format!("{}_{name}", self.name));
        type V = *mut c_void;
        // SAFETY: an exported function takes one pointer per parameter and result.
        let st = unsafe {
            match ptrs.as_slice() {
                [a] => std::mem::transmute::<V, extern "C" fn(V) -> i32>(fp)(*a),
                [a, b] => std::mem::transmute::<V, extern "C" fn(V, V) -> i32>(fp)(*a, *b),
                [a, b, c] => {
                    std::mem::transmute::<V, extern "C" fn(V, V, V) -> i32>(fp)(*a, *b, *c)
                }
                [a, b, c, d] => {
                    std::mem::transmute::<V, extern "C" fn(V, V, V, V) -> i32>(fp)(*a, *b, *c, *d)
                }
                [a, b, c, d, e] => std::mem::transmute::<V, extern "C" fn(V, V, V, V, V) -> i32>(
                    fp,
                )(*a, *b, *c, *d, *e),
                [a, b, c, d, e, g] => std::mem::transmute::<
                    V,
                    extern "C" fn(V, V, V, V, V, V) -> i32,
                >(fp)(*a, *b, *c, *d, *e, *g),
                _ => panic!("{} pointers not supported by the test harness", ptrs.len()),
            }
        };
        // SAFETY: `<NAME>_last_error` and `<NAME>_release` of an agc library.
        let (last, release) = unsafe {
            (
                std::mem::transmute::<V, extern "C" fn() -> *const c_char>(
                    self.sym(&format!("{}_last_error", self.name)),
                ),
                std::mem::transmute::<V, extern "C" fn(*mut DlTensor)>(
                    self.sym(&format!("{}_release", self.name)),
                ),
            )
        };
        if st != 0 {
            assert!(outs.iter().all(|o| o.is_null()), "results set on failure");
            // SAFETY: a valid C string.
            let msg = unsafe { std::ffi::CStr::from_ptr(last()) };
            return Err((st, msg.to_string_lossy().into_owned()));
        }
        let mut res = Vec::new();
        for (o, t) in outs.iter().zip(&rtys) {
            // SAFETY: a live result tensor, compact row-major.
            unsafe {
                let shape = std::slice::from_raw_parts((**o).shape, (**o).ndim as usize).to_vec();
                let n: i64 = shape.iter().product();
                let bytes = std::slice::from_raw_parts(
                    (**o).data as *const u8,
                    n as usize * t.dtype.byte_size(),
                )
                .to_vec();
                res.push(Tensor {
                    dtype: t.dtype,
                    shape,
                    bytes,
                });
                release(*o);
            }
        }
        Ok(res)
    }
}
