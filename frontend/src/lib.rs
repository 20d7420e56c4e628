//! agc frontend (under construction).
