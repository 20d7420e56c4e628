//! IR text round-trips: for every model of the repository's tests,
//! benchmarks and examples that stages, the staged IR and the IR after
//! every pass of the pipeline print, parse (and verify) and print to the
//! same text, value numbers included; the `--emit opt-ir` text (statistics
//! in comments) parses to the optimised module.

use agc_frontend::source::SourceFile;
use agc_ir::parse::parse_module;
use agc_ir::print::print_module;
use agc_opt::opt_ir::print_with_stats;
use agc_opt::pipeline::{all_passes, run, Options};
use std::path::{Path, PathBuf};

fn models() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository");
    let mut paths = Vec::new();
    for dir in ["tests/models", "tests/grad_models", "examples"] {
        let entries = std::fs::read_dir(repo.join(dir)).expect("a model folder");
        paths.extend(entries.map(|e| e.expect("an entry").path()));
    }
    for w in std::fs::read_dir(repo.join("bench/workloads")).expect("the workloads") {
        paths.push(w.expect("an entry").path().join("agc_model.py"));
    }
    paths.retain(|p| p.extension().is_some_and(|e| e == "py") && p.is_file());
    paths.sort();
    paths
}

fn round_trip(text: &str, what: &str) {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    if let Err(e) = agc_ir::verify::verify_module(&m) {
        panic!("{what}: the parsed module does not verify: {e}");
    }
    let again = print_module(&m);
    if again != text {
        let line = text.lines().zip(again.lines()).position(|(a, b)| a != b);
        panic!("{what}: printed text differs from the parsed text at line {line:?}");
    }
}

#[test]
fn every_staged_and_optimised_module_round_trips() {
    // Every saturated e-graph checked too, as in debug builds.
    agc_opt::egg::check::enable(true);
    let mut checked = 0;
    for path in models() {
        let source = std::fs::read_to_string(&path).expect("a readable model");
        let file = SourceFile::new(path.display().to_string(), source);
        let Ok(mut m) = agc_frontend::stage_module(&file, "m") else {
            continue; // a model of a diagnostics test
        };
        round_trip(&print_module(&m), &format!("{} (staged)", path.display()));
        let options = Options {
            opt_level: 2,
            verify_each: true,
            print_after: all_passes().iter().map(|(n, _)| n.to_string()).collect(),
            fast_math: false,
            estimates: false,
        };
        let report = run(&mut m, &options).expect("the pipeline runs");
        for (pass, text) in &report.printed {
            round_trip(text, &format!("{} (after {pass})", path.display()));
        }
        // `--emit opt-ir`: the same module, statistics in comments.
        let annotated = print_with_stats(&m, &report);
        let parsed = parse_module(&annotated)
            .unwrap_or_else(|e| panic!("{} (opt-ir): {e}\n{annotated}", path.display()));
        assert_eq!(
            print_module(&parsed),
            print_module(&m),
            "{}",
            path.display()
        );
        assert!(annotated.starts_with("module @") && annotated.contains("\n// @"));
        checked += 1;
    }
    assert!(checked > 300, "only {checked} models staged");
}

#[test]
fn one_pass_free_values_agree_with_the_walk_of_each_op() {
    let mut region_ops = 0;
    for path in models() {
        let source = std::fs::read_to_string(&path).expect("a readable model");
        let file = SourceFile::new(path.display().to_string(), source);
        let Ok(mut m) = agc_frontend::stage_module(&file, "m") else {
            continue;
        };
        let options = Options {
            opt_level: 2,
            verify_each: false,
            print_after: Vec::new(),
            fast_math: false,
            estimates: false,
        };
        run(&mut m, &options).expect("the pipeline runs");
        for f in &m.funcs {
            let free = f.free_values_of_region_ops();
            for op in f.ops_within(f.body) {
                let od = f.op(op);
                if od.regions.is_empty() {
                    assert!(!free.contains_key(&op));
                    continue;
                }
                assert_eq!(
                    free[&op],
                    f.free_values(&od.regions),
                    "{} @{}",
                    path.display(),
                    f.name
                );
                region_ops += 1;
            }
        }
    }
    assert!(region_ops > 1000, "only {region_ops} region ops");
}
