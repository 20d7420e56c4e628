//! `--target-cpu` and `--target-features` checked against the names LLVM
//! knows (listed at build time from `llc -mcpu=help`, see `build.rs`):
//! LLVM itself only warns about an unknown name and builds for a generic
//! CPU (or stops with "LLVM ERROR"), which a user would not notice or
//! understand. `native` stands for the build machine's CPU.

include!(concat!(env!("OUT_DIR"), "/target_names.rs"));

/// LLVM's (CPU names, feature names) for the architecture of `triple`
/// (`None`: not a target agc lists, or the lists could not be read).
fn names(triple: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    let arch = triple.split('-').next().unwrap_or("");
    let lists = match arch {
        "x86_64" | "amd64" => (X86_64_CPUS, X86_64_FEATURES),
        "aarch64" | "arm64" => (AARCH64_CPUS, AARCH64_FEATURES),
        _ => return None,
    };
    (!lists.0.is_empty()).then_some(lists)
}

/// ` (did you mean 'x'?)` for the known name closest to `name`, when one is close.
fn suggestion(name: &str, known: &[&str]) -> String {
    known
        .iter()
        .map(|k| (strsim::levenshtein(name, k), k))
        .filter(|(d, _)| *d <= 2.max(name.len() / 3))
        .min()
        .map_or_else(String::new, |(_, k)| format!(" (did you mean '{k}'?)"))
}

/// Checks a `--target-cpu` name for `triple`; the error says why.
pub fn check_cpu(triple: &str, cpu: &str) -> Result<(), String> {
    let Some((cpus, _)) = names(triple) else {
        return Ok(());
    };
    if cpu == "native" || cpus.contains(&cpu) {
        return Ok(());
    }
    Err(format!(
        "--target-cpu: unknown CPU '{cpu}' for {triple}{} (`llc -mtriple={triple} -mcpu=help` lists them)",
        suggestion(cpu, cpus)
    ))
}

/// Checks a `--target-features` list (`+avx2,-avx512f`: each feature with
/// its sign) for `triple`; the error names the first bad entry.
pub fn check_features(triple: &str, features: &str) -> Result<(), String> {
    let Some((_, known)) = names(triple) else {
        return Ok(());
    };
    for entry in features.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some(name) = entry.strip_prefix(['+', '-']) else {
            return Err(format!(
                "--target-features: '{entry}' needs a sign: '+{entry}' to enable the feature, '-{entry}' to disable it"
            ));
        };
        if !known.contains(&name) {
            return Err(format!(
                "--target-features: unknown feature '{name}' for {triple}{}",
                suggestion(name, known)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llvm_names_are_accepted_and_others_refused_with_a_suggestion() {
        let t = "x86_64-pc-linux-gnu";
        for cpu in ["x86-64-v3", "znver4", "sapphirerapids", "generic", "native"] {
            check_cpu(t, cpu).unwrap();
        }
        let e = check_cpu(t, "znver9").unwrap_err();
        assert!(
            e.contains("unknown CPU 'znver9'") && e.contains("did you mean 'znver"),
            "{e}"
        );
        check_cpu("aarch64-linux-gnu", "neoverse-v2").unwrap();
        assert!(check_cpu("aarch64-linux-gnu", "znver4").is_err());
        check_features(t, "+avx2,+fma,-avx512f").unwrap();
        let e = check_features(t, "+avx2,+avx9").unwrap_err();
        assert!(e.contains("unknown feature 'avx9'"), "{e}");
        assert!(check_features(t, "avx2")
            .unwrap_err()
            .contains("needs a sign"));
    }
}
