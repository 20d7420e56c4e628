//! IR → MLIR → LLVM IR (under construction).
