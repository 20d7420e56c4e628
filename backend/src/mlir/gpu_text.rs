//! Two rewrites of printed MLIR for the CUDA pipeline ([`super::gpu`]),
//! done on the text because they only re-shape loop headers, which MLIR's
//! printer writes in one fixed form:
//!
//! - [`collapse_parallel`]: an `scf.parallel` over several dims from 0 with
//!   step 1 (what `convert-linalg-to-parallel-loops` makes) becomes a 1-D
//!   loop over their product, each index recovered by div/rem. Tiled by 256
//!   and mapped to the grid, consecutive threads then touch consecutive
//!   elements of the innermost dim, and no grid dimension other than `x`
//!   (up to 2^31 - 1 blocks; `y` and `z` stop at 65,535) carries a size.
//! - [`launches_to_loops`]: each `gpu.launch` becomes six nested `scf.for`
//!   loops over its grid and blocks, the body run as host code: the
//!   emulated CUDA library of the tests, whose kernels run on the CPU with
//!   the same indexing, bounds and launch geometry as on the GPU.
//!
//! - [`native_math_in_kernels`]: inside `gpu.module`s, the math ops the GPU
//!   has instructions for become calls of LLVM intrinsics, which NVPTX
//!   lowers to those instructions (`convert-gpu-to-nvvm` would make them
//!   calls of CUDA's libdevice, which an agc build does not need). The
//!   rewrite happens after bufferization, whose deallocation analysis
//!   rejects `llvm.call_intrinsic` (an op of unknown memory effects).
//!
//! SSA names in one function are unique (the printer numbers them per
//! isolated region), so a name can be replaced textually inside a region.

/// Whether `name` (`%c0`, `%c0_12`) is the printer's name of an index
/// constant of value `value` (the printer names `arith.constant N : index`
/// as `%cN` or `%cN_K`).
fn is_index_const(name: &str, value: u32) -> bool {
    let Some(rest) = name.strip_prefix(&format!("%c{value}")) else {
        return false;
    };
    rest.is_empty()
        || rest
            .strip_prefix('_')
            .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// The comma-separated names inside the first `(...)` after `from` in
/// `line`, and the rest of the line after the `)`.
fn paren_list<'a>(line: &'a str, from: &str) -> Option<(Vec<&'a str>, &'a str)> {
    let start = line.find(from)? + from.len();
    let open = start + line[start..].find('(')?;
    let close = open + line[open..].find(')')?;
    let items = line[open + 1..close].split(',').map(str::trim).collect();
    Some((items, &line[close + 1..]))
}

/// The header of a collapsible `scf.parallel` line: (indentation, ivs,
/// upper bounds). Collapsible: more than one dim, lower bounds 0, steps 1,
/// no reductions.
fn collapsible(line: &str) -> Option<(&str, Vec<&str>, Vec<&str>)> {
    let indent_len = line.len() - line.trim_start().len();
    let body = line.trim_start().strip_prefix("scf.parallel ")?;
    if !body.ends_with('{') || body.contains("init") || body.contains("->") {
        return None;
    }
    let (ivs, rest) = paren_list(body, "")?;
    let (lbs, rest) = paren_list(rest, "=")?;
    let (ubs, rest) = paren_list(rest, "to")?;
    let (steps, _) = paren_list(rest, "step")?;
    let n = ivs.len();
    let consistent = n > 1 && lbs.len() == n && ubs.len() == n && steps.len() == n;
    if !consistent
        || !lbs.iter().all(|l| is_index_const(l, 0))
        || !steps.iter().all(|s| is_index_const(s, 1))
    {
        return None;
    }
    Some((&line[..indent_len], ivs, ubs))
}

/// Collapses every collapsible `scf.parallel` of `text` to one dim.
pub fn collapse_parallel(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1024);
    let mut k = 0usize;
    for line in text.lines() {
        let Some((indent, ivs, ubs)) = collapsible(line) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        k += 1;
        let (zero, one, total, lin) = (
            format!("%agc_par{k}_zero"),
            format!("%agc_par{k}_one"),
            format!("%agc_par{k}_n"),
            format!("%agc_par{k}_i"),
        );
        out.push_str(&format!("{indent}{zero} = arith.constant 0 : index\n"));
        out.push_str(&format!("{indent}{one} = arith.constant 1 : index\n"));
        let mut acc = ubs[0].to_string();
        for (j, ub) in ubs.iter().enumerate().skip(1) {
            let next = format!("%agc_par{k}_n{j}");
            out.push_str(&format!(
                "{indent}{next} = arith.muli {acc}, {ub} : index\n"
            ));
            acc = next;
        }
        out.push_str(&format!(
            "{indent}{total} = arith.addi {acc}, {zero} : index\n"
        ));
        out.push_str(&format!(
            "{indent}scf.parallel ({lin}) = ({zero}) to ({total}) step ({one}) {{\n"
        ));
        // Row-major: the last iv varies fastest.
        let mut rest = lin.clone();
        for j in (0..ivs.len()).rev() {
            if j == 0 {
                out.push_str(&format!(
                    "{indent}  {} = arith.addi {rest}, {zero} : index\n",
                    ivs[0]
                ));
                break;
            }
            out.push_str(&format!(
                "{indent}  {} = arith.remui {rest}, {} : index\n",
                ivs[j], ubs[j]
            ));
            let q = format!("%agc_par{k}_q{j}");
            out.push_str(&format!(
                "{indent}  {q} = arith.divui {rest}, {} : index\n",
                ubs[j]
            ));
            rest = q;
        }
    }
    out
}

/// The LLVM intrinsic of `math.<op>` when the GPU has an instruction for it.
pub fn gpu_native_math(op: &str) -> Option<&'static str> {
    Some(match op {
        "absf" => "fabs",
        "copysign" => "copysign",
        "roundeven" => "roundeven",
        "floor" => "floor",
        "ceil" => "ceil",
        "trunc" => "trunc",
        "sqrt" => "sqrt",
        _ => return None,
    })
}

/// `%r = math.absf %x [fastmath<..>] : f32` as an intrinsic call, when the
/// op is [`gpu_native_math`] on `f32`/`f64`.
fn native_math_line(line: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let (result, rhs) = line.trim_start().split_once(" = math.")?;
    let (op, rest) = rhs.split_once(' ')?;
    let name = gpu_native_math(op)?;
    let (operands, ty) = rest.rsplit_once(" : ")?;
    let ty = ty.trim();
    if ty != "f32" && ty != "f64" {
        return None;
    }
    let operands = operands.split(" fastmath<").next()?.trim();
    let n = operands.split(',').count();
    let types = vec![ty; n].join(", ");
    Some(format!(
        "{indent}{result} = llvm.call_intrinsic \"llvm.{name}.{ty}\"({operands}) : ({types}) -> {ty}"
    ))
}

/// Rewrites the native math ops inside every `gpu.module` of `text`.
pub fn native_math_in_kernels(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut module_indent: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        match &module_indent {
            None if trimmed.starts_with("gpu.module ") => {
                module_indent = Some(indent.to_string());
            }
            Some(mi) if trimmed == "}" && indent == mi => module_indent = None,
            Some(_) => {
                if let Some(l) = native_math_line(line) {
                    out.push_str(&l);
                    out.push('\n');
                    continue;
                }
            }
            None => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// One `gpu.launch` header: the block and thread ids, and the grid and
/// block sizes as `(name bound in the body, value)` pairs.
struct Launch<'a> {
    ids: Vec<&'a str>,
    sizes: Vec<(&'a str, &'a str)>,
}

/// Parses `gpu.launch blocks(%a, %b, %c) in (%x = %1, ...) threads(...) in (...) {`.
fn launch_header<'a>(line: &'a str) -> Option<Launch<'a>> {
    let body = line.trim_start().strip_prefix("gpu.launch ")?;
    if !body.trim_end().ends_with('{') || body.contains("async") || body.contains("dynamic_shared")
    {
        return None;
    }
    let (block_ids, rest) = paren_list(body, "blocks")?;
    let (grid, rest) = paren_list(rest, "in")?;
    let (thread_ids, rest) = paren_list(rest, "threads")?;
    let (block, _) = paren_list(rest, "in")?;
    let pair = |s: &&'a str| -> Option<(&'a str, &'a str)> {
        let (a, b) = s.split_once('=')?;
        Some((a.trim(), b.trim()))
    };
    let sizes: Option<Vec<_>> = grid.iter().chain(&block).map(pair).collect();
    let ids: Vec<&str> = block_ids.into_iter().chain(thread_ids).collect();
    let sizes = sizes?;
    (ids.len() == 6 && sizes.len() == 6).then_some(Launch { ids, sizes })
}

/// Replaces the SSA name `from` by `to` in `line` (whole names only).
fn rename(line: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(i) = rest.find(from) {
        let after = &rest[i + from.len()..];
        let whole = !after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.');
        out.push_str(&rest[..i]);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Replaces every `gpu.launch` of `text` by host loops over its grid and
/// blocks (see the module doc). `None` when a launch has a form this
/// rewrite does not know.
pub fn launches_to_loops(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len() + 4096);
    let mut i = 0;
    let mut k = 0usize;
    while i < lines.len() {
        let line = lines[i];
        if !line.trim_start().starts_with("gpu.launch ") {
            out.push_str(line);
            out.push('\n');
            i += 1;
            continue;
        }
        let launch = launch_header(line)?;
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        // The launch's closing brace, maybe followed by its attributes.
        let end = (i + 1..lines.len()).find(|&j| {
            lines[j]
                .strip_prefix(close.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(" {"))
        })?;
        k += 1;
        let (zero, one) = (format!("%agc_emu{k}_zero"), format!("%agc_emu{k}_one"));
        out.push_str(&format!("{indent}{zero} = arith.constant 0 : index\n"));
        out.push_str(&format!("{indent}{one} = arith.constant 1 : index\n"));
        // Outermost first: blocks z, y, x, then threads z, y, x.
        for &d in &[2usize, 1, 0, 5, 4, 3] {
            let (_, bound) = launch.sizes[d];
            out.push_str(&format!(
                "{indent}scf.for {} = {zero} to {bound} step {one} {{\n",
                launch.ids[d]
            ));
        }
        for body_line in &lines[i + 1..end] {
            if body_line.trim() == "gpu.terminator" {
                continue;
            }
            let mut l = body_line.to_string();
            for (name, value) in &launch.sizes {
                l = rename(&l, name, value);
            }
            out.push_str(&l);
            out.push('\n');
        }
        for _ in 0..6 {
            out.push_str(&close);
            out.push('\n');
        }
        i = end + 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2d_parallel_loop_becomes_1d_with_row_major_indices() {
        let text = "    scf.parallel (%arg2, %arg3) = (%c0, %c0_1) to (%dim, %c64) step (%c1, %c1) {\n      memref.store %x, %m[%arg2, %arg3] : memref<?x64xf32>\n      scf.reduce\n    }\n";
        let out = collapse_parallel(text);
        assert!(out.contains("scf.parallel (%agc_par1_i) = (%agc_par1_zero) to (%agc_par1_n) step (%agc_par1_one) {"), "{out}");
        assert!(
            out.contains("%agc_par1_n1 = arith.muli %dim, %c64 : index"),
            "{out}"
        );
        assert!(
            out.contains("%arg3 = arith.remui %agc_par1_i, %c64 : index"),
            "{out}"
        );
        assert!(
            out.contains("%agc_par1_q1 = arith.divui %agc_par1_i, %c64 : index"),
            "{out}"
        );
        assert!(
            out.contains("%arg2 = arith.addi %agc_par1_q1, %agc_par1_zero : index"),
            "{out}"
        );
        assert!(out.contains("memref.store %x, %m[%arg2, %arg3]"), "{out}");
    }

    #[test]
    fn loops_with_steps_bounds_or_reductions_stay() {
        for line in [
            "scf.parallel (%a, %b) = (%c0, %c1) to (%n, %m) step (%c1, %c1) {",
            "scf.parallel (%a, %b) = (%c0, %c0) to (%n, %m) step (%c2, %c1) {",
            "scf.parallel (%a) = (%c0) to (%n) step (%c1) {",
            "%r = scf.parallel (%a, %b) = (%c0, %c0) to (%n, %m) step (%c1, %c1) init (%z) -> f32 {",
        ] {
            assert_eq!(collapse_parallel(line), format!("{line}\n"));
        }
    }

    #[test]
    fn a_launch_becomes_six_host_loops() {
        let text = "    gpu.launch blocks(%arg4, %arg5, %arg6) in (%arg10 = %8, %arg11 = %c1_2, %arg12 = %c1_2) threads(%arg7, %arg8, %arg9) in (%arg13 = %c256, %arg14 = %c1_2, %arg15 = %c1_2) {\n      %0 = arith.muli %arg4, %arg13 : index\n      %1 = arith.addi %0, %arg7 : index\n      memref.store %v, %m[%1] : memref<?xf32>\n      gpu.terminator\n    } {SCFToGPU_visited}\n    return\n";
        let out = launches_to_loops(text).unwrap();
        assert!(
            out.contains("scf.for %arg6 = %agc_emu1_zero to %c1_2 step %agc_emu1_one {"),
            "{out}"
        );
        assert!(
            out.contains("scf.for %arg4 = %agc_emu1_zero to %8 step %agc_emu1_one {"),
            "{out}"
        );
        assert!(
            out.contains("scf.for %arg7 = %agc_emu1_zero to %c256 step %agc_emu1_one {"),
            "{out}"
        );
        assert!(
            out.contains("%0 = arith.muli %arg4, %c256 : index"),
            "{out}"
        );
        assert!(!out.contains("gpu."), "{out}");
        assert_eq!(out.matches("    }\n").count(), 6, "{out}");
        assert!(out.ends_with("    return\n"), "{out}");
    }

    #[test]
    fn native_math_in_kernels_becomes_intrinsics_and_host_math_stays() {
        let text = "  func.func @f(%x: f32) -> f32 {\n    %0 = math.absf %x : f32\n    return %0 : f32\n  }\n  gpu.module @k {\n    gpu.func @k(%a: f32, %b: f64) kernel {\n      %0 = math.absf %a : f32\n      %1 = math.copysign %a, %a fastmath<contract> : f32\n      %2 = math.sqrt %b : f64\n      %3 = math.exp %a : f32\n      gpu.return\n    }\n  }\n";
        let out = native_math_in_kernels(text);
        assert!(out.contains("    %0 = math.absf %x : f32\n"), "{out}");
        assert!(
            out.contains("      %0 = llvm.call_intrinsic \"llvm.fabs.f32\"(%a) : (f32) -> f32\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "%1 = llvm.call_intrinsic \"llvm.copysign.f32\"(%a, %a) : (f32, f32) -> f32"
            ),
            "{out}"
        );
        assert!(
            out.contains("%2 = llvm.call_intrinsic \"llvm.sqrt.f64\"(%b) : (f64) -> f64"),
            "{out}"
        );
        assert!(out.contains("%3 = math.exp %a : f32"), "{out}");
    }

    #[test]
    fn renaming_respects_whole_names() {
        assert_eq!(
            rename("%arg1, %arg10 %arg1_2 %arg1", "%arg1", "%x"),
            "%x, %arg10 %arg1_2 %x"
        );
    }
}
