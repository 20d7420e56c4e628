//! Negation and sign: sign flips are exact in IEEE arithmetic (rounding to
//! nearest is symmetric, and `a - b` is defined as `a + (-b)`), so these
//! rules remove negations without changing a bit, zeros' signs included.
//! (`-(a - b) → b - a` is *not* here: for `a == b` it turns `-0.0` into `0.0`.)

use super::Rule;
use egg::rewrite;

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        rewrite!("neg-neg"; "(neg (neg ?x))" => "?x"),
        rewrite!("neg-mul-neg-l"; "(neg (mul (neg ?a) ?b))" => "(mul ?a ?b)"),
        rewrite!("neg-mul-neg-r"; "(neg (mul ?a (neg ?b)))" => "(mul ?a ?b)"),
        rewrite!("mul-neg-neg"; "(mul (neg ?a) (neg ?b))" => "(mul ?a ?b)"),
        rewrite!("div-neg-neg"; "(div (neg ?a) (neg ?b))" => "(div ?a ?b)"),
        rewrite!("sub-neg"; "(sub ?a (neg ?b))" => "(add ?a ?b)"),
        rewrite!("add-neg-r"; "(add ?a (neg ?b))" => "(sub ?a ?b)"),
        rewrite!("add-neg-l"; "(add (neg ?a) ?b)" => "(sub ?b ?a)"),
    ]
}
