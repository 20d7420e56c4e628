//! Exact algebraic identities with constants: `x * 1`, `1 * x`, `x / 1`,
//! `x - 0.0` and `x + (-0.0)` are `x` (for every `x`, `-0.0` and NaN
//! included), when `x` already has the result's type (the constant does
//! not broadcast it). `x + 0.0` is not: it turns `-0.0` into `0.0`.

use super::{same_type, splat_of, Rule};
use egg::rewrite;

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        rewrite!("mul-one-r"; "(mul ?x ?c)" => "?x" if splat_of("?c", 1.0) if same_type("?x")),
        rewrite!("mul-one-l"; "(mul ?c ?x)" => "?x" if splat_of("?c", 1.0) if same_type("?x")),
        rewrite!("div-one"; "(div ?x ?c)" => "?x" if splat_of("?c", 1.0) if same_type("?x")),
        rewrite!("sub-zero"; "(sub ?x ?c)" => "?x" if splat_of("?c", 0.0) if same_type("?x")),
        rewrite!("add-negzero-r"; "(add ?x ?c)" => "?x" if splat_of("?c", -0.0) if same_type("?x")),
        rewrite!("add-negzero-l"; "(add ?c ?x)" => "?x" if splat_of("?c", -0.0) if same_type("?x")),
    ]
}
