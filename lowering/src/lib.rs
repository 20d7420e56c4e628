//! agc lowering (under construction).
