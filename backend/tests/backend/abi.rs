//! The C ABI end to end: a small module (`y = x + b`, x: f32[B,3], b: f32[3])
//! is built into `libdemo.so`/`libdemo.a`/`demo.h`, then called from C and
//! C++ programs compiled with the system compilers: numbers, statuses and
//! messages, `ldd` and `nm -D`, the static archive (twice in one program),
//! valgrind over 1,000 calls and 8 threads at once.
//!
//! Every test runs twice: with the real MLIR kernels ([`agc_backend::build`])
//! and with a hand-written LLVM IR stand-in (`c/stub_kernel.ll`, through
//! `build_with_kernels`) that pins the ABI independently of the MLIR half.

use agc_backend::{build, build_with_kernels, Artifact, BuildOptions, Emit, Target};
use agc_ir::{
    BinaryOp, DType, Dim, Export, Function, Module, OpKind, ReduceKind, Span, TensorType, Type,
};
use inkwell::memory_buffer::MemoryBuffer;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const STUB: &str = include_str!("../c/stub_kernel.ll");

/// Every symbol `libdemo` exports, sorted.
const API: [&str; 7] = [
    "demo_add_bias",
    "demo_add_bias_into",
    "demo_add_bias_result_shapes",
    "demo_last_error",
    "demo_metadata",
    "demo_release",
    "demo_set_num_threads",
];

/// `y = x + b` exported as `c_name`.
fn add_bias_module(name: &str, c_name: &str) -> Module {
    let x = TensorType::new(DType::F32, vec![Dim::Sym("B".into()), Dim::Static(3)]);
    let b = TensorType::static_shape(DType::F32, &[3]);
    let mut f = Function::new(
        "add_bias",
        &[
            ("x".into(), Type::from(x.clone())),
            ("b".into(), Type::from(b)),
        ],
        Span::default(),
    );
    let (p, body) = (f.params().to_vec(), f.body);
    let (_, r) = f.append_op(
        body,
        OpKind::Binary(BinaryOp::Add),
        p,
        vec![x.clone().into()],
        vec![],
        Span::default(),
    );
    f.append_op(body, OpKind::Return, r, vec![], vec![], Span::default());
    f.result_types = vec![x.into()];
    let mut m = Module::new(name);
    let id = m.add_function(f);
    m.exports.push(Export {
        func: id,
        c_name: c_name.into(),
        doc: "Adds a bias to each row.".into(),
        assigns: vec![],
    });
    m
}

/// Where the kernels come from.
#[derive(Clone, Copy, Debug)]
enum Kernels {
    /// `agc_backend::build`: the MLIR pipeline.
    Mlir,
    /// `c/stub_kernel.ll`.
    Stub,
}

const KERNELS: [Kernels; 2] = [Kernels::Mlir, Kernels::Stub];

fn build_lib(k: Kernels, name: &str, c_name: &str, emit: Vec<Emit>) -> Vec<Artifact> {
    let opts = BuildOptions {
        name: name.into(),
        opt_level: 2,
        target: Target::Cpu,
        emit,
        ..Default::default()
    };
    let m = add_bias_module(name, c_name);
    match k {
        Kernels::Mlir => build(&m, &opts),
        Kernels::Stub => build_with_kernels(&m, &opts, None, |ctx| {
            ctx.create_module_from_ir(MemoryBuffer::create_from_memory_range_copy(
                STUB.as_bytes(),
                "stub",
            ))
            .map_err(|e| agc_backend::BackendError::Llvm(e.to_string()))
        }),
    }
    .unwrap_or_else(|e| panic!("{k:?} build: {e}"))
}

/// The directory holding `demo` and `demo2` built once for all tests: under
/// Cargo's target-scoped scratch directory, emptied at the start of each run (a
/// static temporary directory is never dropped, so one under /tmp would be left
/// behind by every run).
fn out_dir(k: Kernels) -> &'static Path {
    static DIRS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    DIRS[k as usize].get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("agc-abi-{k:?}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let emit = match k {
            Kernels::Mlir => vec![Emit::Mlir, Emit::Llvm, Emit::Asm],
            Kernels::Stub => vec![Emit::Llvm, Emit::Asm],
        };
        for (name, c_name, emit) in [("demo", "add_bias", emit), ("demo2", "add_bias", vec![])] {
            for a in build_lib(k, name, c_name, emit) {
                a.write_into(&dir).unwrap();
            }
        }
        dir
    })
}

fn c_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c")
}

/// Runs a command, returning stdout; panics with its output when it fails.
fn sh(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}{}",
        out.status,
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// Compiles `abi_test.c` against `lib` (`-ldemo` or the archive); returns the program.
fn compile_c(k: Kernels, exe: &str, link_static: bool) -> PathBuf {
    let dir = out_dir(k);
    let out = dir.join(exe);
    let mut cmd = Command::new("cc");
    cmd.args([
        "-std=c99",
        "-Wall",
        "-Werror",
        "-O1",
        "-g",
        "-DLIB_HEADER=\"demo.h\"",
        "-I",
    ])
    .arg(dir)
    .arg(c_dir().join("abi_test.c"))
    .arg("-o")
    .arg(&out);
    if link_static {
        cmd.arg(dir.join("libdemo.a")).args(["-lm", "-lpthread"]);
    } else {
        cmd.arg("-L")
            .arg(dir)
            .arg("-ldemo")
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg("-lpthread");
    }
    sh(&mut cmd);
    out
}

fn shared_exe(k: Kernels) -> &'static Path {
    static EXES: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    EXES[k as usize].get_or_init(|| compile_c(k, "abi_shared", false))
}

#[test]
fn artifacts_are_complete() {
    for k in KERNELS {
        let dir = out_dir(k);
        for f in ["libdemo.so", "libdemo.a", "demo.h", "demo.ll", "demo.s"] {
            assert!(dir.join(f).exists(), "{f}");
        }
        if let Kernels::Mlir = k {
            let mlir = std::fs::read_to_string(dir.join("demo.mlir")).unwrap();
            assert!(mlir.contains("agc_impl_add_bias"), "{mlir}");
        }
        let h = std::fs::read_to_string(dir.join("demo.h")).unwrap();
        assert!(
            h.contains("int demo_add_bias(const DLTensor* x, const DLTensor* b, DLTensor** out0);")
        );
        assert!(h.contains("Adds a bias to each row."));
    }
}

#[test]
fn c_program_gets_numbers_and_messages() {
    for k in KERNELS {
        sh(Command::new(shared_exe(k)).arg("check"));
    }
}

#[test]
fn cpp_program_uses_the_header() {
    for k in KERNELS {
        let dir = out_dir(k);
        let exe = dir.join("abi_cpp");
        sh(Command::new("c++")
            .args([
                "-std=c++17",
                "-Wall",
                "-Werror",
                "-DLIB_HEADER=\"demo.h\"",
                "-I",
            ])
            .arg(dir)
            .arg(c_dir().join("abi_test.cpp"))
            .arg("-o")
            .arg(&exe)
            .arg("-L")
            .arg(dir)
            .arg("-ldemo")
            .arg(format!("-Wl,-rpath,{}", dir.display())));
        sh(&mut Command::new(exe));
    }
}

#[test]
fn shared_library_depends_on_libc_only_and_exports_the_api() {
    for k in KERNELS {
        let so = out_dir(k).join("libdemo.so");
        let ldd = sh(Command::new("ldd").arg(&so));
        for line in ldd.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let ok = [
                "linux-vdso",
                "libc.so",
                "libm.so",
                "libgcc_s.so",
                "ld-linux",
            ]
            .iter()
            .any(|p| line.contains(p));
            assert!(ok, "unexpected dependency: {line}");
        }
        let nm = sh(Command::new("nm")
            .args(["-D", "--defined-only", "--format=posix"])
            .arg(&so));
        let mut syms: Vec<&str> = nm
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        syms.sort();
        assert_eq!(syms, API);
    }
}

#[test]
fn static_archive_links_with_lm_and_twice_in_one_program() {
    for k in KERNELS {
        let exe = compile_c(k, "abi_static", true);
        sh(Command::new(&exe).arg("check"));
        sh(Command::new(&exe).arg("threads"));
        let dir = out_dir(k);
        let nm = sh(Command::new("nm")
            .args(["--defined-only", "--extern-only", "--format=posix"])
            .arg(dir.join("libdemo.a")));
        let globals: Vec<&str> = nm
            .lines()
            .filter(|l| !l.ends_with(':') && !l.is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(globals.iter().all(|s| API.contains(s)), "{globals:?}");
        let two = dir.join("two_libs");
        sh(Command::new("cc")
            .arg("-I")
            .arg(dir)
            .arg(c_dir().join("two_libs.c"))
            .arg(dir.join("libdemo.a"))
            .arg(dir.join("libdemo2.a"))
            .arg("-lm")
            .arg("-o")
            .arg(&two));
        sh(&mut Command::new(two));
    }
}

#[test]
fn threads_call_at_once() {
    for k in KERNELS {
        sh(Command::new(shared_exe(k)).arg("threads"));
    }
}

#[test]
fn valgrind_finds_no_leak_or_error() {
    for k in KERNELS {
        if Command::new("valgrind").arg("--version").output().is_err() {
            eprintln!("valgrind not installed: skipped");
            return;
        }
        let vg = |args: &[&str]| {
            sh(Command::new("valgrind")
                .args([
                    "-q",
                    "--leak-check=full",
                    "--show-leak-kinds=definite,indirect,possible",
                    "--errors-for-leak-kinds=definite,indirect,possible",
                    "--error-exitcode=9",
                ])
                .arg(shared_exe(k))
                .args(args));
        };
        vg(&["loop", "1000"]);
        vg(&["threads"]);
    }
}

/// `stats(x: f64[N,M], s: f64[()], mask: bool[N,M])` returning
/// `(where(mask, x * s, x), that.sum(1), x.shape[0], x)`.
fn stats_module() -> Module {
    let (n, m) = (Dim::Sym("N".into()), Dim::Sym("M".into()));
    let xt = TensorType::new(DType::F64, vec![n.clone(), m.clone()]);
    let st = TensorType::scalar(DType::F64);
    let mt = TensorType::new(DType::Bool, vec![n.clone(), m]);
    let params = [
        ("x".into(), Type::from(xt.clone())),
        ("s".into(), st.into()),
        ("mask".into(), mt.into()),
    ];
    let mut f = Function::new("stats", &params, Span::default());
    let (p, body) = (f.params().to_vec(), f.body);
    let sp = Span::default();
    let (_, xs) = f.append_op(
        body,
        OpKind::Binary(BinaryOp::Mul),
        vec![p[0], p[1]],
        vec![xt.clone().into()],
        vec![],
        sp,
    );
    let (_, y) = f.append_op(
        body,
        OpKind::Select,
        vec![p[2], xs[0], p[0]],
        vec![xt.clone().into()],
        vec![],
        sp,
    );
    let rt = TensorType::new(DType::F64, vec![n]);
    let reduce = OpKind::Reduce {
        kind: ReduceKind::Sum,
        axes: vec![1],
        keepdims: false,
    };
    let (_, r) = f.append_op(
        body,
        reduce,
        vec![y[0]],
        vec![rt.clone().into()],
        vec![],
        sp,
    );
    let it = TensorType::scalar(DType::I64);
    let (_, d) = f.append_op(
        body,
        OpKind::Dim { axis: 0 },
        vec![p[0]],
        vec![it.clone().into()],
        vec![],
        sp,
    );
    f.append_op(
        body,
        OpKind::Return,
        vec![y[0], r[0], d[0], p[0]],
        vec![],
        vec![],
        sp,
    );
    f.result_types = vec![xt.clone().into(), rt.into(), it.into(), xt.into()];
    let mut module = Module::new("multi");
    let id = module.add_function(f);
    module.exports.push(Export {
        func: id,
        c_name: "stats".into(),
        doc: String::new(),
        assigns: vec![],
    });
    module
}

#[test]
fn several_results_scalars_bools_and_aliases() {
    let dir = out_dir(Kernels::Mlir);
    let opts = BuildOptions {
        name: "multi".into(),
        opt_level: 2,
        target: Target::Cpu,
        emit: vec![],
        ..Default::default()
    };
    for a in build(&stats_module(), &opts).unwrap_or_else(|e| panic!("build: {e}")) {
        a.write_into(dir).unwrap();
    }
    let exe = dir.join("multi_test");
    sh(Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-I"])
        .arg(dir)
        .arg(c_dir().join("multi_test.c"))
        .arg(dir.join("libmulti.a"))
        .arg("-lm")
        .arg("-o")
        .arg(&exe));
    let vg = Command::new("valgrind").arg("--version").output().is_ok();
    if vg {
        sh(Command::new("valgrind")
            .args(["-q", "--leak-check=full", "--error-exitcode=9"])
            .arg(&exe));
    } else {
        sh(&mut Command::new(&exe));
    }
}
