//! Reading the model and staging it, shared by `build` and `check`.

use crate::report::Reporter;
use agc_frontend::diagnostics::Diagnostic;
use agc_frontend::source::SourceFile;

/// Reads the model and stages it into IR; on failure prints the diagnostic
/// through `reporter` and returns the exit code.
pub fn stage(
    path: &std::path::Path,
    module_name: &str,
    reporter: &Reporter,
) -> Result<agc_ir::Module, u8> {
    let bytes = std::fs::read(path).map_err(|e| {
        reporter.error(Some(path), format!("cannot read the model: {e}"));
        1u8
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        // Python source is UTF-8: point at the first byte that is not.
        let at = e.utf8_error().valid_up_to();
        let byte = e.as_bytes()[at];
        let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
        let file = SourceFile::new(path.display().to_string(), lossy);
        let span = agc_ir::Span::new(at as u32, at as u32 + 1);
        let message = format!("the model is not valid UTF-8: cannot decode byte 0x{byte:02x}");
        reporter.diagnostic(&Diagnostic::error(span, message), &file);
        1u8
    })?;
    let file = SourceFile::new(path.display().to_string(), text);
    agc_frontend::stage_module(&file, module_name).map_err(|d| {
        reporter.diagnostic(&d, &file);
        d.exit_code() as u8
    })
}

/// The model's source, for a diagnostic after staging (`None` when it can
/// no longer be read as UTF-8).
pub fn read(path: &std::path::Path) -> Option<SourceFile> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(SourceFile::new(path.display().to_string(), text))
}

/// The default library name: the file stem made into a C identifier.
pub fn default_name(path: &std::path::Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "model".into());
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// SHA-256 of the model file's bytes, hex ("" when it cannot be read: staging reports that).
pub fn sha256_hex(path: &std::path::Path) -> String {
    use sha2::Digest;
    std::fs::read(path)
        .map(|bytes| {
            sha2::Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        })
        .unwrap_or_default()
}
