//! From the object to `lib<NAME>.so` and `lib<NAME>.a`, with the runtime
//! (`libagc_runtime.a`, embedded in this crate by `build.rs`) linked in.
//!
//! - The shared library exports exactly the API symbols (a version script;
//!   `--exclude-libs,ALL` keeps the runtime's and Rust std's symbols out too)
//!   and depends only on libc, libm and libgcc_s.
//! - The static archive holds one object: the kernel object and the runtime
//!   members it needs, partially linked (`ld -r`, with `--gc-sections` rooted
//!   at the API) and then localized with `objcopy --keep-global-symbols`, so
//!   that two agc archives (each with its own runtime copy) link into one
//!   program without clashes. A C program links it with
//!   `cc main.c libNAME.a -lm` (glibc ≥ 2.34; older ones also need
//!   `-lpthread -ldl`); the driver adds libgcc_s for unwinding support.
//!
//! Tools: `$CC` (default `cc`), `ld`, `objcopy` and `ar` from the system.

use crate::BackendError;
use std::path::Path;
use std::process::Command;

/// The runtime static library, compiled by `build.rs`.
pub const RUNTIME_ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libagc_runtime.a"));

/// Runs a tool, turning a failure into a [`BackendError::Link`] with its stderr.
fn run(cmd: &mut Command) -> Result<(), BackendError> {
    tracing::debug!(?cmd, "running");
    let out = cmd.output().map_err(|e| {
        let program = cmd.get_program().to_string_lossy().to_string();
        if e.kind() == std::io::ErrorKind::NotFound {
            BackendError::MissingTool(format!(
                "cannot find '{program}', which agc runs to link the library: install gcc and binutils (Debian: apt-get install gcc binutils), or set CC to a C compiler"
            ))
        } else {
            BackendError::Link(format!("cannot run {program}: {e}"))
        }
    })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(BackendError::Link(format!(
            "{:?} failed ({}): {}",
            cmd.get_program(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )))
    }
}

fn c_compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// The linked libraries of the objects (written to `dir`), exporting `api`.
#[derive(Debug)]
pub struct Libraries {
    /// `lib<NAME>.so`.
    pub shared: Vec<u8>,
    /// `lib<NAME>.a`.
    pub archive: Vec<u8>,
}

/// Links `objects` (the host module's, then the kernel variants') with the
/// runtime into both library forms, using `dir` for intermediate files.
pub fn link(
    dir: &Path,
    name: &str,
    objects: &[Vec<u8>],
    api: &[String],
) -> Result<Libraries, BackendError> {
    let mut objs = Vec::with_capacity(objects.len());
    for (k, object) in objects.iter().enumerate() {
        let obj = dir.join(if k == 0 {
            format!("{name}.o")
        } else {
            format!("{name}.{k}.o")
        });
        std::fs::write(&obj, object)?;
        objs.push(obj);
    }
    let rt = dir.join("libagc_runtime.a");
    std::fs::write(&rt, RUNTIME_ARCHIVE)?;
    Ok(Libraries {
        shared: shared(dir, name, &objs, &rt, api)?,
        archive: archive(dir, name, &objs, &rt, api)?,
    })
}

fn shared(
    dir: &Path,
    name: &str,
    objs: &[std::path::PathBuf],
    rt: &Path,
    api: &[String],
) -> Result<Vec<u8>, BackendError> {
    let script = dir.join("exports.map");
    let globals: String = api.iter().map(|s| format!("    {s};\n")).collect();
    std::fs::write(
        &script,
        format!("{{\n  global:\n{globals}  local: *;\n}};\n"),
    )?;
    let so = dir.join(format!("lib{name}.so"));
    run(Command::new(c_compiler())
        .arg("-shared")
        .arg("-o")
        .arg(&so)
        .args(objs)
        .arg(rt)
        // SONAME lib<NAME>.so (CONTRACT section 3): what `-lNAME` records as
        // the dependency. glibc matches a SONAME only against a request by
        // bare name, so two builds of one model opened by path (`dlopen`,
        // `agc.load`) stay two libraries.
        .arg(format!("-Wl,-soname,lib{name}.so"))
        .args([
            "-Wl,--gc-sections",
            "-Wl,--exclude-libs,ALL",
            "-Wl,--as-needed",
            "-Wl,-z,noexecstack",
            // The runtime's worker threads run the library's code for the
            // life of the process: a dlclose must not unmap it under them.
            "-Wl,-z,nodelete",
            "-Wl,-O1",
            "-s",
        ])
        .arg(format!("-Wl,--version-script={}", script.display()))
        .arg("-lm"))?;
    Ok(std::fs::read(so)?)
}

fn archive(
    dir: &Path,
    name: &str,
    objs: &[std::path::PathBuf],
    rt: &Path,
    api: &[String],
) -> Result<Vec<u8>, BackendError> {
    let combined = dir.join(format!("{name}.combined.o"));
    let mut ld = Command::new("ld");
    ld.arg("-r").arg("--gc-sections");
    for s in api {
        ld.arg(format!("--require-defined={s}"));
    }
    run(ld.arg("-o").arg(&combined).args(objs).arg(rt))?;
    let keep = dir.join("keep.txt");
    std::fs::write(&keep, api.join("\n") + "\n")?;
    // Rust std's objects embed LLVM bitcode (`.llvmbc`), which nobody needs
    // and which older LLVM linker plugins choke on.
    run(Command::new("objcopy")
        .arg(format!("--keep-global-symbols={}", keep.display()))
        .args([
            "--strip-debug",
            "--remove-section=.llvmbc",
            "--remove-section=.llvmcmd",
        ])
        .arg(&combined))?;
    let a = dir.join(format!("lib{name}.a"));
    run(Command::new("ar").arg("rcsD").arg(&a).arg(&combined))?;
    Ok(std::fs::read(a)?)
}
