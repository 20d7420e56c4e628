//! agc runtime (under construction).
