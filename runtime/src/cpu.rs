//! The CPU check of a call: a library compiled for CPU features the running
//! CPU lacks (`--target-cpu`, `--target-features`, or a library moved to
//! an older machine) returns `UNSUPPORTED_CPU` naming them at every call,
//! instead of dying of an illegal instruction.
//!
//! The features are LLVM's (`+avx2,+fma,-avx512f`); those this runtime can
//! test are checked, the rest trusted. `AGC_CPU_MASK` (comma-separated
//! feature names) makes the check treat features as absent, to test the
//! check on a CPU that has them; the CPU's level ([`agc_rt_cpu_level`]),
//! which picks the generated kernels' variant and the GEMM's micro-kernels,
//! honours it too, so a CPU's AVX2 path can be run on a machine with AVX-512.

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

/// Whether this CPU has LLVM feature `name`; `None` for a feature not tested here.
fn detected(name: &str) -> Option<bool> {
    #[cfg(target_arch = "x86_64")]
    {
        macro_rules! features {
            ($($llvm:literal => $rust:tt),* $(,)?) => {
                match name {
                    $($llvm => Some(std::arch::is_x86_feature_detected!($rust)),)*
                    _ => None,
                }
            };
        }
        // The features LLVM's code generation uses for numeric code
        // unprompted; crypto and system instructions (aes, sha, adx, rdrand,
        // ...) only come from intrinsics, which agc does not emit.
        features! {
            "sse3" => "sse3", "ssse3" => "ssse3", "sse4.1" => "sse4.1", "sse4.2" => "sse4.2",
            "popcnt" => "popcnt", "avx" => "avx", "avx2" => "avx2", "fma" => "fma",
            "f16c" => "f16c", "bmi" => "bmi1", "bmi2" => "bmi2", "lzcnt" => "lzcnt",
            "movbe" => "movbe", "avx512f" => "avx512f", "avx512bw" => "avx512bw",
            "avx512dq" => "avx512dq", "avx512vl" => "avx512vl", "avx512cd" => "avx512cd",
            "avx512vnni" => "avx512vnni", "avx512bf16" => "avx512bf16",
            "avx512ifma" => "avx512ifma", "avx512vbmi" => "avx512vbmi",
            "avx512vbmi2" => "avx512vbmi2", "avx512bitalg" => "avx512bitalg",
            "avx512vpopcntdq" => "avx512vpopcntdq", "avx512fp16" => "avx512fp16",
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        match name {
            "neon" => Some(std::arch::is_aarch64_feature_detected!("neon")),
            "sve" => Some(std::arch::is_aarch64_feature_detected!("sve")),
            "sve2" => Some(std::arch::is_aarch64_feature_detected!("sve2")),
            "fp16" | "fullfp16" => Some(std::arch::is_aarch64_feature_detected!("fp16")),
            "dotprod" => Some(std::arch::is_aarch64_feature_detected!("dotprod")),
            _ => None,
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = name;
        None
    }
}

/// The features of `required` (an LLVM feature string) this CPU lacks,
/// counting those named in `mask` as absent.
pub fn missing(required: &str, mask: &str) -> Vec<String> {
    let masked: Vec<&str> = mask
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .collect();
    required
        .split(',')
        .filter_map(|f| f.strip_prefix('+'))
        .filter(|f| masked.contains(f) || detected(f) == Some(false))
        .map(str::to_string)
        .collect()
}

/// The features `AGC_CPU_MASK` names (read once per process).
fn mask() -> &'static str {
    static MASK: OnceLock<String> = OnceLock::new();
    MASK.get_or_init(|| std::env::var("AGC_CPU_MASK").unwrap_or_default())
}

/// Whether kernels may use LLVM feature `name`: this CPU has it and
/// `AGC_CPU_MASK` does not name it.
fn usable(name: &str) -> bool {
    detected(name) == Some(true) && missing(&format!("+{name}"), mask()).is_empty()
}

/// `Err(message)` when this CPU lacks features of the library's `required`
/// string (checked once per library and process).
///
/// # Safety
/// `required` is NULL or a NUL-terminated constant of the library.
pub unsafe fn check(required: *const c_char) -> Result<(), &'static str> {
    static VERDICT: OnceLock<Option<String>> = OnceLock::new();
    let verdict = VERDICT.get_or_init(|| {
        if required.is_null() {
            return None;
        }
        // SAFETY: NUL-terminated (caller contract).
        let required = unsafe { CStr::from_ptr(required) }.to_string_lossy();
        let missing = missing(&required, mask());
        (!missing.is_empty()).then(|| {
            format!(
                "this CPU lacks features the library was compiled for: {} (rebuild with --target-cpu/--target-features for this machine)",
                missing.join(", ")
            )
        })
    });
    match verdict {
        Some(message) => Err(message.as_str()),
        None => Ok(()),
    }
}

/// The features of x86-64 level 3 (the LLVM names this runtime tests).
const LEVEL3: &[&str] = &[
    "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi", "bmi2",
    "lzcnt", "movbe",
];
/// The features level 4 adds.
const LEVEL4: &[&str] = &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"];

/// The x86-64 level of the running CPU, `AGC_CPU_MASK` counting: 4 with
/// AVX-512 F/BW/CD/DQ/VL, 3 with AVX2/FMA/BMI2 and the rest of level 3,
/// else 0 (and 0 on other architectures). An export's trampoline calls the
/// best variant of the kernels this allows (`backend/src/multiversion.rs`),
/// and the GEMM picks its micro-kernels by it ([`crate::gemm`]). Decided at
/// the first call.
#[no_mangle]
pub extern "C" fn agc_rt_cpu_level() -> i32 {
    static LEVEL: OnceLock<i32> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let all = |names: &[&str]| names.iter().all(|f| usable(f));
        match (all(LEVEL3), all(LEVEL4)) {
            (true, true) => 4,
            (true, false) => 3,
            _ => 0,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_and_absent_features_are_missing() {
        assert_eq!(
            missing("+sse2,-avx512f,+nosuchfeature", ""),
            Vec::<String>::new()
        );
        assert_eq!(missing("+sse2,+avx2", "avx2"), vec!["avx2"]);
    }
}
