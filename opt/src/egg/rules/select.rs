//! `np.where`: selections that pick one value whatever the condition, a
//! negated condition, and a selection nested under the same condition.
//! A selection moves values without computing, so every rule is exact
//! (NaN payloads and zeros' signs included). Each rule applies only where
//! its result has the matched e-class's type: dropping a selection (or the
//! operand that broadcast it) must not change the shape.

use super::{same_type, splat_of, Rule};
use crate::egg::analysis::Graph;
use agc_ir::infer::broadcast_all;
use egg::{rewrite, Id, Subst, Var};

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        rewrite!("select-same"; "(select ?c ?x ?x)" => "?x" if same_type("?x")),
        rewrite!("select-true"; "(select ?c ?a ?b)" => "?a"
            if splat_of("?c", 1.0) if same_type("?a")),
        rewrite!("select-false"; "(select ?c ?a ?b)" => "?b"
            if splat_of("?c", 0.0) if same_type("?b")),
        rewrite!("select-not"; "(select (not ?c) ?a ?b)" => "(select ?c ?b ?a)"),
        rewrite!("select-nested-then"; "(select ?c (select ?c ?a ?b) ?d)" => "(select ?c ?a ?d)"
            if selects_to_class_type(["?c", "?a", "?d"])),
        rewrite!("select-nested-else"; "(select ?c ?a (select ?c ?b ?d))" => "(select ?c ?a ?d)"
            if selects_to_class_type(["?c", "?a", "?d"])),
    ]
}

/// A condition: `select(vars..)` has the matched class's type (its
/// operands broadcast to the class's shape, its values of the class's dtype).
fn selects_to_class_type(vars: [&str; 3]) -> impl Fn(&mut Graph, Id, &Subst) -> bool {
    let vars: Vec<Var> = vars
        .iter()
        .map(|v| v.parse().expect("a pattern variable"))
        .collect();
    move |eg, class, subst| {
        let tys: Vec<_> = vars.iter().map(|v| &eg[subst[*v]].data.ty).collect();
        let want = &eg[class].data.ty;
        tys[1].dtype == want.dtype && broadcast_all(&tys).is_ok_and(|d| d == want.dims)
    }
}
