//! Algebra that holds for real numbers but not in IEEE arithmetic, used
//! only with `agc build --fast-math`, which lets a build assume that
//! float values are finite and not NaN, and that a few last bits may
//! change: `(a·b)/b → a`, `(a/b)·b → a`, `(a+b)−b → a`, `(a−b)+b → a`,
//! `log(exp(x)) → x`, `sqrt(x·x) → |x|`. Float dtypes only, and only where
//! the result keeps the class's type (the dropped operand broadcast
//! nothing).
//!
//! What they change, for finite inputs: `(a+b)−b` is `a` up to the rounding
//! of the sum (absolute error ≤ u·|a+b|, u the unit roundoff); the others
//! within a few units of the last place, and exactly where no
//! intermediate rounds. Where an intermediate overflows or divides by zero
//! (`exp(x)` of a large `x`, `b = 0`, `x·x` past the largest float), the
//! source gives `inf` or NaN and the rewritten program a finite value:
//! that is what `--fast-math` permits.

use super::{same_type, Rule};
use crate::egg::analysis::Graph;
use egg::{rewrite, Id, Subst, Var};

/// The family's rules.
pub fn rules() -> Vec<Rule> {
    vec![
        rewrite!("fm-mul-div"; "(div (mul ?a ?b) ?b)" => "?a" if float("?a") if same_type("?a")),
        rewrite!("fm-div-mul"; "(mul (div ?a ?b) ?b)" => "?a" if float("?a") if same_type("?a")),
        rewrite!("fm-add-sub"; "(sub (add ?a ?b) ?b)" => "?a" if float("?a") if same_type("?a")),
        rewrite!("fm-sub-add"; "(add (sub ?a ?b) ?b)" => "?a" if float("?a") if same_type("?a")),
        rewrite!("fm-log-exp"; "(log (exp ?x))" => "?x" if float("?x")),
        rewrite!("fm-sqrt-square"; "(sqrt (mul ?x ?x))" => "(abs ?x)" if float("?x")),
    ]
}

/// A condition: `?var` holds floats.
fn float(var: &str) -> impl Fn(&mut Graph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("a pattern variable");
    move |eg, _, subst| eg[subst[var]].data.ty.dtype.is_float()
}
