//! placeholder
pub use melior; pub use inkwell;
