//! Runs the control-flow analyses over every function of every Python file
//! in the repository (models, diagnostics, the Python package): none may
//! panic, and every statement of a body must have an answer.

use agc_analysis::py::activity::parameter_names;
use agc_analysis::py::liveness::Liveness;
use agc_analysis::py::reaching::ReachingDefs;
use agc_analysis::py::walk;
use rustpython_parser::ast::{self, Stmt};
use rustpython_parser::{parse, Mode};
use std::path::{Path, PathBuf};

fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            python_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "py") {
            out.push(p);
        }
    }
}

fn check_function(args: &ast::Arguments, body: &[Stmt]) {
    let live = Liveness::analyse(body);
    let defs = ReachingDefs::analyse(body, &parameter_names(args));
    walk::all_stmts(body, false, &mut |s| {
        assert!(live.live_after(s).is_some());
        assert!(defs.reaching(s).is_some());
        if matches!(s, Stmt::While(_) | Stmt::For(_)) {
            assert!(live.live_at_loop_head(s).is_some());
        }
    });
}

/// Runs the check on a thread with a large stack: some files (the front-end
/// fuzzer's corpus: a list nested 20,000 deep) nest deeper than a test
/// thread's stack parses, as the compiler runs on a large stack too.
#[test]
fn analyses_answer_for_every_function_in_the_repository() {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(check_repository)
        .expect("a thread")
        .join()
        .expect("the check passed");
}

fn check_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests", "python", "examples", "bench"] {
        python_files(&root.join(dir), &mut files);
    }
    let mut functions = 0;
    for f in &files {
        let Ok(src) = std::fs::read_to_string(f) else {
            continue;
        };
        let Ok(ast::Mod::Module(m)) = parse(&src, Mode::Module, &f.to_string_lossy()) else {
            continue;
        };
        walk::all_stmts(&m.body, true, &mut |s| match s {
            Stmt::FunctionDef(d) => {
                check_function(&d.args, &d.body);
                functions += 1;
            }
            Stmt::AsyncFunctionDef(d) => {
                check_function(&d.args, &d.body);
                functions += 1;
            }
            _ => {}
        });
    }
    assert!(files.is_empty() || functions > 0);
}
