//! Compiles the runtime crate (`../runtime/src/lib.rs`) into
//! `$OUT_DIR/libagc_runtime.a`, which `src/link.rs` embeds with
//! `include_bytes!` so that the `agc` binary is self-contained.
//!
//! Rust std's objects carry embedded bitcode (`.llvmbc`) and debug info that
//! no generated library needs: `objcopy` drops them (22 MB → 4 MB); without
//! `objcopy` the archive is embedded as is.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let src = manifest.join("../runtime/src");
    println!("cargo:rerun-if-changed={}", src.display());
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let status = Command::new(rustc)
        .args([
            "--crate-type",
            "staticlib",
            "--crate-name",
            "agc_runtime",
            "--edition",
            "2021",
        ])
        .args([
            "-C",
            "opt-level=2",
            "-C",
            "panic=abort",
            "-C",
            "debuginfo=0",
        ])
        .arg(src.join("lib.rs"))
        .arg("-o")
        .arg(out.join("libagc_runtime.a"))
        .status()
        .expect("could not run rustc for the agc runtime");
    assert!(status.success(), "compiling the agc runtime failed");
    let stripped = Command::new("objcopy")
        .args([
            "--remove-section=.llvmbc",
            "--remove-section=.llvmcmd",
            "--strip-debug",
        ])
        .arg(out.join("libagc_runtime.a"))
        .status();
    if !matches!(stripped, Ok(s) if s.success()) {
        println!("cargo:warning=objcopy could not strip libagc_runtime.a; embedding it unstripped");
    }
}
