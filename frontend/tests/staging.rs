//! Staging tests: Python source in, IR structure or a diagnostic out.
//! (Numeric results are checked end to end against numpy in the workspace `tests/`.)

use agc_frontend::source::SourceFile;

fn stage(src: &str) -> Result<String, String> {
    let file = SourceFile::new("m.py", src);
    match agc_frontend::stage_module(&file, "m") {
        Ok(m) => {
            agc_ir::verify::verify_module(&m).map_err(|e| e.to_string())?;
            Ok(agc_ir::print::print_module(&m))
        }
        Err(d) => Err(d.render(&file)),
    }
}

fn count_ops(ir: &str, op: &str) -> usize {
    ir.lines()
        .filter(|l| {
            l.trim_start()
                .split(" = ")
                .last()
                .is_some_and(|r| r.starts_with(&format!("{op} ")) || r == op)
        })
        .count()
}

const HEADER: &str = "import agc\nimport agc.numpy as np\n";

#[test]
fn staged_if_becomes_one_if_op() {
    let ir = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.f32[3], c: agc.f32[()]):\n    if c > 0:\n        y = x * 2\n    else:\n        y = x - 1\n    return y\n"
    ))
    .unwrap();
    assert_eq!(count_ops(&ir, "if"), 1, "{ir}");
}

#[test]
fn hyperparameter_if_leaves_no_branch() {
    let ir = stage(&format!(
        "{HEADER}@agc.export(name='g', training=False)\ndef f(x: agc.f32[3], training=True):\n    if training:\n        x = x * 0.5\n    return x + 1\n"
    ))
    .unwrap();
    assert_eq!(count_ops(&ir, "if"), 0, "{ir}");
    assert_eq!(count_ops(&ir, "mul"), 0, "{ir}");
}

#[test]
fn staged_while_becomes_one_loop_with_state() {
    let ir = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.f32[3], n: agc.i64[()]):\n    i = 0\n    while i < n:\n        x = x * 2\n        i += 1\n    return x\n"
    ))
    .unwrap();
    assert_eq!(count_ops(&ir, "while"), 1, "{ir}");
    let line = ir.lines().find(|l| l.contains("= while")).unwrap();
    assert!(line.contains("f32[3]") && line.contains("i64[]"), "{line}");
}

#[test]
fn staged_for_with_break_and_early_return() {
    let ir = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.f32[\"T\", 4]):\n    acc = np.zeros(4, dtype=np.float32)\n    for row in x:\n        if np.sum(row) > 10:\n            break\n        if np.sum(row) < -10:\n            return row\n        acc = acc + row\n    return acc\n"
    ))
    .unwrap();
    assert_eq!(count_ops(&ir, "while"), 1, "{ir}");
}

#[test]
fn one_branch_definition_is_checked_at_the_use() {
    let ir = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.f32[3], c: agc.f32[()]):\n    if c > 0:\n        y = x * 2\n    return y\n"
    ))
    .unwrap();
    // The `if` yields `y` and whether it is bound; the read asserts the flag.
    let if_line = ir.lines().find(|l| l.contains("= if")).unwrap();
    assert!(
        if_line.contains("f32[3]") && if_line.contains("bool[]"),
        "{if_line}"
    );
    let assert_line = ir.lines().find(|l| l.contains("assert")).unwrap();
    assert!(
        assert_line.contains("cannot access local variable 'y'"),
        "{assert_line}"
    );
}

#[test]
fn falling_off_the_end_beside_a_staged_return_is_an_error() {
    let err = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.f32[3], c: agc.f32[()]):\n    if c > 0:\n        return x * 2\n"
    ))
    .unwrap_err();
    assert!(
        err.starts_with("m.py:5:5: error: 'f' returns a value on some paths (line 6)"),
        "{err}"
    );
}

#[test]
fn loop_state_changing_dtype_is_an_error() {
    let err = stage(&format!(
        "{HEADER}@agc.export\ndef f(x: agc.i32[3], n: agc.i64[()]):\n    i = 0\n    while i < n:\n        x = x / 2\n        i += 1\n    return x\n"
    ))
    .unwrap_err();
    assert!(
        err.contains("loop variable 'x'") && err.contains("int32") && err.contains("float64"),
        "{err}"
    );
}

#[test]
fn grad_stages_a_call_to_the_generated_gradient_function() {
    let ir = stage(&format!(
        "{HEADER}def loss(w, x):\n    return np.sum(np.tanh(x @ w) ** 2)\n\n@agc.export\ndef step(w: agc.f32[4, 3], x: agc.f32[\"B\", 4]):\n    g = agc.grad(loss)(w, x)\n    return w - 0.1 * g\n"
    ))
    .unwrap();
    // step -> loss.value_and_grad -> loss.cps (CPS form: one continuation, applied once)
    assert_eq!(count_ops(&ir, "call"), 2, "{ir}");
    assert_eq!(count_ops(&ir, "cont"), 1, "{ir}");
    assert_eq!(count_ops(&ir, "apply"), 1, "{ir}");
    assert!(ir.matches("func @").count() >= 4, "{ir}");
}

#[test]
fn grad_of_a_non_scalar_is_an_error() {
    let err = stage(&format!(
        "{HEADER}def f(x):\n    return x * 2\n\n@agc.export\ndef g(x: agc.f32[3]):\n    return agc.grad(f)(x)\n"
    ))
    .unwrap_err();
    assert!(err.contains("must return a float scalar"), "{err}");
}

const TREE_PROD: &str = "def tree_prod(vals, left, right, i):\n    if left[i] < 0:\n        return vals[i]\n    return vals[i] * tree_prod(vals, left, right, left[i]) * tree_prod(vals, left, right, right[i])\n\n@agc.export\ndef f(vals: agc.f32[\"N\"], left: agc.i64[\"N\"], right: agc.i64[\"N\"]):\n    return tree_prod(vals, left, right, 0)\n";

#[test]
fn staged_recursion_becomes_a_recursive_ir_function() {
    let ir = stage(&format!("{HEADER}{TREE_PROD}")).unwrap();
    // The export inlines the first level; the rest is one function calling itself twice.
    let funcs = ir.matches("func @").count();
    assert_eq!(funcs, 2, "{ir}");
    assert!(count_ops(&ir, "call") >= 4, "{ir}");
}
