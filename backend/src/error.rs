//! Errors of the backend. Nearly all are internal errors from the user's
//! point of view (exit code 2): the frontend has already accepted the
//! program. A build machine without a tool agc needs is the user's to fix
//! ([`BackendError::MissingTool`], exit 1).

use thiserror::Error;

/// What went wrong while turning IR into a library.
#[derive(Debug, Error)]
pub enum BackendError {
    /// MLIR rejected generated code or a pass failed.
    #[error("MLIR: {0}")]
    Mlir(String),
    /// LLVM rejected generated code (verification, target, codegen).
    #[error("LLVM: {0}")]
    Llvm(String),
    /// The system linker or archiver failed.
    #[error("link: {0}")]
    Link(String),
    /// A program agc runs to link (the C compiler driver, `ld`, `objcopy`, `ar`) is not installed.
    #[error("{0}")]
    MissingTool(String),
    /// An IR construct this backend does not lower yet.
    #[error("unsupported in the backend: {0}")]
    Unsupported(String),
    /// [`BackendError::Unsupported`] at the op made from `1` in the user's
    /// source (exit 1, reported at that `file:line:col`).
    #[error("unsupported in the backend: {0}")]
    UnsupportedAt(String, agc_ir::Span),
    /// A weight file cannot be read or no longer matches the model (exit 1).
    #[error("weights: {0}")]
    Weights(String),
    /// File system trouble in the temporary build directory.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}
