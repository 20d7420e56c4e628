//! `np.matmul` as one `linalg.generic` contraction.
//!
//! The loop nest is `[batch..., m?, k, n?]`: batch dims are the broadcast
//! of both operands' leading dims (numpy rules, a static 1 reads index 0),
//! `m` exists when `a` has rank ≥ 2, `n` when `b` has rank ≥ 2, and `k` is
//! the reduction. A 1-D `a` is a row vector and a 1-D `b` a column vector
//! whose axis is dropped from the result, exactly as numpy does. The init is
//! a zero-filled `tensor.empty`; float products accumulate with
//! `fastmath<contract>` (and `reassoc` for dot products, so that they
//! vectorise).
//!
//! 2-D `f32` matmuls of at least [`GEMM_MIN_FLOPS`]/2 multiply-adds (decided
//! at run time for symbolic shapes) pack B here (hoisted out of loops when B
//! is loop-invariant) and call the runtime's blocked GEMM (see [`gemm`]).

use super::emitter::{operand, FnEmitter, GenericSpec};
use super::types::{self, elem};
use crate::BackendError;
use agc_ir::{DType, Dim, Function, OpData, OpKind, Value, ValueDef};

/// Map results for a batched operand: its leading `batch` dims right-aligned
/// against the result's `nb` batch loops, then the given trailing loops.
fn batch_map(dims: &[Dim], batch: usize, res_batch: &[Dim], trailing: &[String]) -> Vec<String> {
    let nb = res_batch.len();
    let mut m: Vec<String> = (0..batch)
        .map(|i| {
            let j = nb - batch + i;
            if dims[i] == Dim::Static(1) && res_batch[j] != Dim::Static(1) {
                "0".to_string()
            } else {
                format!("d{j}")
            }
        })
        .collect();
    m.extend(trailing.iter().cloned());
    m
}

/// A 2-D operand of a matmul read through the `transpose` that made it:
/// the transpose's source (`[cols, rows]` of the operand), when `v` is a
/// 2-D transpose. The transposed copy is then never made (it is dead once
/// every matmul reads the source).
fn transposed_source(f: &Function, v: Value) -> Option<Value> {
    let ValueDef::Result { op, .. } = f.value(v).def else {
        return None;
    };
    let od = f.op(op);
    matches!(&od.kind, OpKind::Transpose { perm } if perm[..] == [1, 0]).then(|| od.operands[0])
}

/// The fewest rows of A, and the least depth, for which the blocked GEMM
/// is used: with fewer rows packing B costs as much as the product, and with
/// less depth (an outer product) each C tile is loaded and stored for a
/// handful of FMAs.
const GEMM_MIN_EXTENT: i64 = 4;

/// Lowers a `matmul`; returns the result tensor.
pub fn emit(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let (a_ty, b_ty, out_ty) = (
        e.ty(od.operands[0]),
        e.ty(od.operands[1]),
        e.ty(od.results[0]),
    );
    // On the GPU the generic contraction is a kernel (one thread per output
    // element); the runtime's blocked GEMM is host code.
    let schedule = if e.weights.gpu {
        Some(Schedule::Generic)
    } else {
        static_schedule(e, od)
    };
    match schedule {
        Some(Schedule::Generic) => generic(e, od, None),
        Some(Schedule::Gemm) => {
            let bp = packed_b(e, od)?;
            gemm(e, od, &bp)
        }
        None => {
            // Run-time sizes: the schedule when the product is big enough.
            let m = e.dim_size(&a_ty.dims[0])?;
            let k = e.dim_size(&a_ty.dims[1])?;
            let n = e.dim_size(&b_ty.dims[1])?;
            let mk = e.arith("muli", &m, &k, "index");
            let mnk = e.arith("muli", &mk, &n, "index");
            let min = e.index_const(GEMM_MIN_FLOPS / 2);
            let enough = e.cmpi("uge", &mnk, &min, "index");
            let min_extent = e.index_const(GEMM_MIN_EXTENT);
            let rows = e.cmpi("uge", &m, &min_extent, "index");
            let depth = e.cmpi("uge", &k, &min_extent, "index");
            let wide = e.arith("andi", &rows, &depth, "i1");
            let big = e.arith("andi", &enough, &wide, "i1");
            let t = types::tensor(out_ty);
            // B packed outside the branch when its size alone makes the
            // product big enough for every M >= 1: loop-invariant-code-motion
            // can then take the packing of a loop-invariant B (weights) out of
            // the loop that multiplies by it.
            let kn = [&a_ty.dims[1], &b_ty.dims[1]]
                .iter()
                .map(|d| d.as_static())
                .try_fold(2i64, |acc, d| d.map(|n| acc.saturating_mul(n)));
            match kn {
                Some(f) if f >= GEMM_MIN_FLOPS => {
                    let bp = packed_b(e, od)?;
                    e.scf_if(&big, &t, |e| gemm(e, od, &bp), |e| generic(e, od, None))
                }
                _ => e.scf_if(
                    &big,
                    &t,
                    |e| {
                        let bp = packed_b(e, od)?;
                        gemm(e, od, &bp)
                    },
                    |e| generic(e, od, None),
                ),
            }
        }
    }
}

/// How a product runs, when its static shapes decide it.
enum Schedule {
    /// The generic contraction.
    Generic,
    /// The runtime's blocked GEMM.
    Gemm,
}

/// The schedule of `od` if the shapes decide it at compile time: the
/// generic contraction for anything but a 2-D `f32` product, for a thin
/// product (fewer than [`GEMM_MIN_EXTENT`] rows or depth) and for one
/// below [`GEMM_MIN_FLOPS`]; the GEMM above it; `None` when run-time sizes
/// decide.
fn static_schedule(e: &FnEmitter, od: &OpData) -> Option<Schedule> {
    let (a_ty, b_ty, out_ty) = (
        e.ty(od.operands[0]),
        e.ty(od.operands[1]),
        e.ty(od.results[0]),
    );
    if a_ty.rank() != 2 || b_ty.rank() != 2 || out_ty.dtype != DType::F32 {
        return Some(Schedule::Generic);
    }
    let thin = [&a_ty.dims[0], &a_ty.dims[1]]
        .iter()
        .any(|d| d.as_static().is_some_and(|n| n < GEMM_MIN_EXTENT));
    if thin {
        return Some(Schedule::Generic);
    }
    let static_flops = [&a_ty.dims[0], &a_ty.dims[1], &b_ty.dims[1]]
        .iter()
        .map(|d| d.as_static())
        .try_fold(2i64, |acc, d| d.map(|n| acc.saturating_mul(n)))?;
    Some(if static_flops >= GEMM_MIN_FLOPS {
        Schedule::Gemm
    } else {
        Schedule::Generic
    })
}

/// The product `add` can accumulate into its other operand (see
/// [`accumulate`]), and that operand: a `matmul` that nothing else reads, of
/// the add's result type (no broadcasting), with a number dtype, that takes
/// the generic contraction.
pub fn accumulated_product<'f>(e: &FnEmitter<'f>, add: &OpData) -> Option<(&'f OpData, Value)> {
    let out_ty = e.ty(add.results[0]);
    if out_ty.dtype == DType::Bool || add.operands.iter().any(|&v| e.ty(v) != out_ty) {
        return None;
    }
    let f: &'f Function = e.f;
    (0..2).find_map(|i| {
        let v = add.operands[i];
        let mm = f.def_op(v)?;
        (mm.kind == OpKind::MatMul
            && e.use_count(v) == 1
            && matches!(static_schedule(e, mm), Some(Schedule::Generic)))
        .then_some((mm, add.operands[1 - i]))
    })
}

/// `acc + A·B` (the product `mm` and the accumulator `acc` of
/// [`accumulated_product`]) as one contraction whose init is `acc`:
/// bufferization writes it in `acc`'s buffer when `acc` dies here, so the
/// sum takes one pass over the result instead of a zero fill, the product
/// and the add. The product's own zero-initialised contraction, emitted
/// where the product is, is then dead and canonicalization removes it.
pub fn accumulate(e: &mut FnEmitter, mm: &OpData, acc: Value) -> Result<String, BackendError> {
    let acc = e.val(acc)?;
    generic(e, mm, Some(&acc))
}

/// The smallest matmul (in flops, `2·M·N·K`) that takes the blocked GEMM:
/// measured (with the earlier MLIR schedule), the generic contraction is as
/// fast only below about 16×16×16.
pub const GEMM_MIN_FLOPS: i64 = 2 * 16 * 16 * 16;

/// Columns of B's packed panels: the runtime's `gemm::NR`.
pub const NR: i64 = 16;

/// The runtime's GEMM (`runtime/src/gemm.rs`), for the module header.
pub const RUNTIME_DECLS: &str =
    "  func.func private @agc_rt_sgemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, memref<?x?x16xf32>, memref<?x?xf32>)
  func.func private @agc_rt_pack_b(memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, memref<?x?x16xf32>)
";

/// How [`gemm`] passes A, and [`pack_b_by_runtime`] B: any strides and offset (the runtime reads them),
/// so that a view (`xs[k]`) is read in place.
const A_MEMREF: &str = "memref<?x?xf32, strided<[?, ?], offset: ?>>";

/// The buffer of 2-D tensor `t` (of type `ty`) as an [`A_MEMREF`], read by
/// the call of read id `id` (see `FnEmitter::read_buffer`).
fn read_strided(e: &mut FnEmitter, t: &str, ty: &agc_ir::TensorType, id: &str) -> String {
    let m = types::strided_memref(ty);
    let read = e.read_buffer(t, id, &types::tensor(ty), &m);
    e.cast_memref(&read, &m, A_MEMREF)
}

/// `C[M,N] = A[M,K] · B[K,N]` in `f32` by the runtime's blocked GEMM, given
/// B's packed panels `bp`: the runtime packs A, picks the micro-kernel for
/// the CPU it runs on and spreads the blocks over its threads.
///
/// A (or the source of its transpose, read in place) and the panels are
/// passed as memrefs, so that bufferization keeps their buffers alive and
/// unwritten until the call; C is a fresh buffer the call fills.
pub fn gemm(e: &mut FnEmitter, od: &OpData, bp: &str) -> Result<String, BackendError> {
    let out_ty = e.ty(od.results[0]);
    let a_src = transposed_source(e.f, od.operands[0]);
    let a_val = a_src.unwrap_or(od.operands[0]);
    let (a, a_ty) = (e.val(a_val)?, e.ty(a_val));
    let mut dynamic = Vec::new();
    for d in &out_ty.dims {
        if matches!(d, Dim::Sym(_)) {
            dynamic.push(e.dim_size(d)?);
        }
    }
    let out_t = types::tensor(out_ty);
    // Pinned: A and the panels are read where the product is (see
    // `FnEmitter::pinned`).
    let c = e.pinned(std::slice::from_ref(&out_t), |e| {
        let id = e.read_id();
        let dyn2 = "memref<?x?xf32>";
        let am = read_strided(e, &a, a_ty, &id);
        let pm = format!("memref<?x?x{NR}xf32>");
        let bpm = e.read_buffer(bp, &id, &format!("tensor<?x?x{NR}xf32>"), &pm);
        let cm_ty = types::memref(out_ty);
        let cm = e.assign(&format!("memref.alloc({}) : {cm_ty}", dynamic.join(", ")));
        let cm_dyn = e.cast_memref(&cm, &cm_ty, dyn2);
        let transposed = e.constant(if a_src.is_some() { "1" } else { "0" }, "i64");
        e.line(&format!(
            "func.call @agc_rt_sgemm({am}, {transposed}, {bpm}, {cm_dyn}) : ({A_MEMREF}, i64, {pm}, {dyn2}) -> ()"
        ));
        Ok(vec![e.assign(&format!(
            "bufferization.to_tensor {cm} restrict writable : {cm_ty} to {out_t}"
        ))])
    })?;
    Ok(c.into_iter().next().unwrap_or_default())
}

/// B of `A · B` packed into the column panels `Bp[ceil(N/NR)][K][NR]` that
/// [`gemm`] streams (zero-padded past `N`): a weight's panels made at build
/// or context creation; for a B that is invariant in the loop around the
/// product, panels packed by tensor code that loop-invariant-code-motion
/// hoists out of the loop; otherwise by the runtime, on the thread pool
/// ([`pack_b_by_runtime`]).
fn packed_b(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let b = transposed_source(e.f, od.operands[1]).unwrap_or(od.operands[1]);
    if super::weight::packed_operand(e.f, od.operands[1]).is_some() || e.loop_invariant(b) {
        pack_b(e, od)
    } else {
        pack_b_by_runtime(e, od)
    }
}

/// B's panels (see [`packed_b`]) from the runtime's `agc_rt_pack_b`, which
/// reads B (or the source of its transpose) in place at any strides.
fn pack_b_by_runtime(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let b_ty = e.ty(od.operands[1]);
    let b_src = transposed_source(e.f, od.operands[1]);
    let src = b_src.unwrap_or(od.operands[1]);
    let (b, src_ty) = (e.val(src)?, e.ty(src));
    let k = e.dim_size(&b_ty.dims[0])?;
    let n = e.dim_size(&b_ty.dims[1])?;
    let cnr = e.index_const(NR);
    let panels = e.arith("ceildivui", &n, &cnr, "index");
    let pt = format!("tensor<?x?x{NR}xf32>");
    let pm = format!("memref<?x?x{NR}xf32>");
    let bp = e.pinned(std::slice::from_ref(&pt), |e| {
        let id = e.read_id();
        let bm = read_strided(e, &b, src_ty, &id);
        let out = e.assign(&format!("memref.alloc({panels}, {k}) : {pm}"));
        let transposed = e.constant(if b_src.is_some() { "1" } else { "0" }, "i64");
        e.line(&format!(
            "func.call @agc_rt_pack_b({bm}, {transposed}, {out}) : ({A_MEMREF}, i64, {pm}) -> ()"
        ));
        Ok(vec![e.assign(&format!(
            "bufferization.to_tensor {out} restrict writable : {pm} to {pt}"
        ))])
    })?;
    Ok(bp.into_iter().next().unwrap_or_default())
}

/// B packed by tensor code (see [`packed_b`]).
fn pack_b(e: &mut FnEmitter, od: &OpData) -> Result<String, BackendError> {
    let b_ty = e.ty(od.operands[1]);
    let nr = NR;
    if let Some(p) = super::weight::packed_operand(e.f, od.operands[1]) {
        // A weight: packed once, at build time or when a context is created.
        let (k, n) = (b_ty.dims[0].as_static(), b_ty.dims[1].as_static());
        if let (Some(k), Some(n)) = (k, n) {
            let ty = super::weight::panels_type(k, n, nr);
            return Ok(super::weight::packed_view(e, p, &ty));
        }
    }
    let b_src = transposed_source(e.f, od.operands[1]);
    let b = e.val(b_src.unwrap_or(od.operands[1]))?;
    let bt = types::tensor(e.ty(b_src.unwrap_or(od.operands[1])));
    let k = e.dim_size(&b_ty.dims[0])?;
    let n = e.dim_size(&b_ty.dims[1])?;
    let c0 = e.index_const(0);
    let c1 = e.index_const(1);
    let cnr = e.index_const(nr);
    let zero = e.constant(&types::scalar_lit(DType::F32, 0.0), "f32");
    let vt = format!("vector<{nr}xf32>");
    let pt = format!("tensor<?x?x{nr}xf32>");
    let panels = e.arith("ceildivui", &n, &cnr, "index");
    let bp0 = e.assign(&format!("tensor.empty({panels}, {k}) : {pt}"));
    let (j, kk, t, r) = (e.fresh("j"), e.fresh("k"), e.fresh("t"), e.fresh("bp"));
    e.line(&format!(
        "{r} = scf.for {j} = {c0} to {panels} step {c1} iter_args({t} = {bp0}) -> ({pt}) {{"
    ));
    e.enter();
    let col = e.arith("muli", &j, &cnr, "index");
    let (t2, r2) = (e.fresh("t"), e.fresh("bpk"));
    e.line(&format!(
        "{r2} = scf.for {kk} = {c0} to {k} step {c1} iter_args({t2} = {t}) -> ({pt}) {{"
    ));
    e.enter();
    let w = match b_src {
        None => {
            let v = e.assign(&format!(
                "vector.transfer_read {b}[{kk}, {col}], {zero} : {bt}, {vt}"
            ));
            e.assign(&format!(
                "vector.transfer_write {v}, {t2}[{j}, {kk}, {c0}] {{in_bounds = [true]}} : {vt}, {pt}"
            ))
        }
        // B = Sᵀ: the panel row is a column of S, read element by element
        // (zero past N).
        Some(_) => {
            let (l, t3, r3) = (e.fresh("l"), e.fresh("t"), e.fresh("bpl"));
            e.line(&format!(
                "{r3} = scf.for {l} = {c0} to {cnr} step {c1} iter_args({t3} = {t2}) -> ({pt}) {{"
            ));
            e.enter();
            let col_l = e.arith("addi", &col, &l, "index");
            let inside = e.cmpi("ult", &col_l, &n, "index");
            let (b2, bt2) = (b.clone(), bt.clone());
            let x = e.scf_if(
                &inside,
                "f32",
                |e| Ok(e.assign(&format!("tensor.extract {b2}[{col_l}, {kk}] : {bt2}"))),
                |_| Ok(zero.clone()),
            )?;
            let t4 = e.assign(&format!(
                "tensor.insert {x} into {t3}[{j}, {kk}, {l}] : {pt}"
            ));
            e.line(&format!("scf.yield {t4} : {pt}"));
            e.leave();
            e.line("}");
            r3
        }
    };
    e.line(&format!("scf.yield {w} : {pt}"));
    e.leave();
    e.line("}");
    e.line(&format!("scf.yield {r2} : {pt}"));
    e.leave();
    e.line("}");
    Ok(r)
}

/// The generic contraction (any rank and dtype), accumulating into `init`
/// (a tensor of the result type) when given, else into zeros.
fn generic(e: &mut FnEmitter, od: &OpData, init: Option<&str>) -> Result<String, BackendError> {
    let (a_ty, b_ty, out_ty) = (
        e.ty(od.operands[0]),
        e.ty(od.operands[1]),
        e.ty(od.results[0]),
    );
    let (ra, rb) = (a_ty.rank(), b_ty.rank());
    let a_batch = ra.saturating_sub(2);
    let b_batch = rb.saturating_sub(2);
    let nb = a_batch.max(b_batch);
    let res_batch = &out_ty.dims[..nb];
    let mut next = nb;
    let mut loop_var = || {
        let v = format!("d{next}");
        next += 1;
        v
    };
    // 2-D operands made by a transpose are read through it (a swapped map).
    let a_src = (ra == 2)
        .then(|| transposed_source(e.f, od.operands[0]))
        .flatten();
    let b_src = (rb == 2)
        .then(|| transposed_source(e.f, od.operands[1]))
        .flatten();
    // The innermost loop walks memory contiguously: `n` (rows of `b` and
    // of the result) when `b` is row-major, else `k` (dot products).
    let k_inner = b_src.is_some();
    let m = (ra >= 2).then(&mut loop_var);
    let (k, n) = if k_inner {
        let n = (rb >= 2).then(&mut loop_var);
        (loop_var(), n)
    } else {
        let k = loop_var();
        (k, (rb >= 2).then(&mut loop_var))
    };
    let k_dim: usize = k[1..].parse().expect("loop names are d<N>");
    let loops = next;

    let mut a_tail: Vec<String> = m.iter().cloned().collect();
    a_tail.push(k.clone());
    let mut b_tail = vec![k];
    b_tail.extend(n.iter().cloned());
    if a_src.is_some() {
        a_tail.reverse();
    }
    if b_src.is_some() {
        b_tail.reverse();
    }
    let a_map = batch_map(&a_ty.dims, a_batch, res_batch, &a_tail);
    let b_map = batch_map(&b_ty.dims, b_batch, res_batch, &b_tail);
    let mut c_map: Vec<String> = (0..nb).map(|i| format!("d{i}")).collect();
    c_map.extend(m.iter().cloned());
    c_map.extend(n.iter().cloned());
    let a_in = a_src.unwrap_or(od.operands[0]);
    let b_in = b_src.unwrap_or(od.operands[1]);

    let init = match init {
        Some(acc) => acc.to_string(),
        None => e.filled(out_ty, &types::scalar_lit(out_ty.dtype, 0.0))?,
    };
    let mut iterators = vec!["parallel"; loops];
    iterators[k_dim] = "reduction";
    let spec = GenericSpec {
        iterators,
        ins: vec![
            operand(&e.val(a_in)?, e.ty(a_in), a_map),
            operand(&e.val(b_in)?, e.ty(b_in), b_map),
        ],
        outs: vec![operand(&init, out_ty, c_map)],
    };
    let dtype = out_ty.dtype;
    // With `k` innermost (dot products), the sum may be
    // reassociated into vector partial sums, as BLAS's `sdot` does.
    let add_flags = if n.is_none() || k_inner {
        "contract,reassoc"
    } else {
        "contract"
    };
    let r = e.generic(&spec, |e, args| {
        let t = elem(dtype);
        let (x, y, acc) = (&args[0], &args[1], &args[2]);
        let s = match dtype {
            DType::F32 | DType::F64 => {
                let p = e.assign(&format!("arith.mulf {x}, {y} fastmath<contract> : {t}"));
                e.assign(&format!(
                    "arith.addf {acc}, {p} fastmath<{add_flags}> : {t}"
                ))
            }
            DType::I32 | DType::I64 => {
                let p = e.arith("muli", x, y, t);
                e.arith("addi", acc, &p, t)
            }
            DType::Bool => {
                let p = e.arith("andi", x, y, t);
                e.arith("ori", acc, &p, t)
            }
        };
        Ok(vec![s])
    })?;
    Ok(r.into_iter().next().unwrap())
}

#[cfg(test)]
mod tests {
    use super::super::function::emit_function;
    use agc_ir::{BinaryOp, DType, Dim, Function, OpKind, Span, TensorType, Type, Value};

    fn t(dims: &[i64]) -> Type {
        TensorType::new(DType::F32, dims.iter().map(|&d| Dim::Static(d)).collect()).into()
    }

    /// `acc + x @ y` (acc `[3,5]`, x `[3,1]`, y `[1,5]`), returning also the
    /// product when `share` (a second use of it).
    fn add_of_product(share: bool) -> Function {
        let params = [("acc", t(&[3, 5])), ("x", t(&[3, 1])), ("y", t(&[1, 5]))];
        let params: Vec<(String, Type)> = params
            .iter()
            .map(|(n, t)| (n.to_string(), t.clone()))
            .collect();
        let mut f = Function::new("f", &params, Span::UNKNOWN);
        let (body, p): (_, Vec<Value>) = (f.body, f.params().to_vec());
        let op = |f: &mut Function, kind, operands| {
            f.append_op(
                body,
                kind,
                operands,
                vec![t(&[3, 5])],
                vec![],
                Span::UNKNOWN,
            )
            .1[0]
        };
        let mm = op(&mut f, OpKind::MatMul, vec![p[1], p[2]]);
        let sum = op(&mut f, OpKind::Binary(BinaryOp::Add), vec![p[0], mm]);
        let rets = if share { vec![sum, mm] } else { vec![sum] };
        f.result_types = rets.iter().map(|&v| f.ty(v).clone()).collect();
        f.append_op(body, OpKind::Return, rets, vec![], vec![], Span::UNKNOWN);
        f
    }

    #[test]
    fn an_add_of_a_thin_product_accumulates_into_the_other_operand() {
        let text = emit_function(&add_of_product(false)).unwrap();
        assert!(text.contains("outs(%arg0 : tensor<3x5xf32>)"), "{text}");
        let adds = text.lines().filter(|l| l.contains("arith.addf"));
        assert!(
            adds.clone().all(|l| l.contains("fastmath<contract")),
            "only the contractions add: {text}"
        );
    }

    #[test]
    fn a_product_read_twice_is_not_accumulated() {
        let text = emit_function(&add_of_product(true)).unwrap();
        assert!(!text.contains("outs(%arg0"), "{text}");
        assert!(
            text.lines()
                .any(|l| l.contains("arith.addf") && !l.contains("fastmath")),
            "a separate add: {text}"
        );
    }
}
