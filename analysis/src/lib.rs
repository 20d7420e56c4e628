//! agc analysis (under construction).
