; A hand-written stand-in for the MLIR kernel of `y = x + b` (x: f32[B,3],
; b: f32[3]) with the MLIR C interface: it lets the ABI tests run without
; the MLIR half of the backend. Result buffers come from the runtime's
; allocator, as MLIR's memref lowering gets them.
declare ptr @_mlir_memref_to_llvm_alloc(i64)

define void @_mlir_ciface_agc_impl_add_bias(ptr %ret, ptr %x, ptr %b) {
entry:
  %xa.p = getelementptr i8, ptr %x, i64 8
  %xa = load ptr, ptr %xa.p
  %n.p = getelementptr i8, ptr %x, i64 24
  %n = load i64, ptr %n.p
  %ba.p = getelementptr i8, ptr %b, i64 8
  %ba = load ptr, ptr %ba.p
  %cnt = mul i64 %n, 3
  %bytes = mul i64 %cnt, 4
  %out = call ptr @_mlir_memref_to_llvm_alloc(i64 %bytes)
  br label %check
check:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %done = icmp uge i64 %i, %cnt
  br i1 %done, label %exit, label %body
body:
  %xp = getelementptr float, ptr %xa, i64 %i
  %xv = load float, ptr %xp
  %j = urem i64 %i, 3
  %bp = getelementptr float, ptr %ba, i64 %j
  %bv = load float, ptr %bp
  %s = fadd float %xv, %bv
  %op = getelementptr float, ptr %out, i64 %i
  store float %s, ptr %op
  %i.next = add i64 %i, 1
  br label %check
exit:
  store ptr %out, ptr %ret
  %r1 = getelementptr i8, ptr %ret, i64 8
  store ptr %out, ptr %r1
  %r2 = getelementptr i8, ptr %ret, i64 16
  store i64 0, ptr %r2
  %r3 = getelementptr i8, ptr %ret, i64 24
  store i64 %n, ptr %r3
  %r4 = getelementptr i8, ptr %ret, i64 32
  store i64 3, ptr %r4
  %r5 = getelementptr i8, ptr %ret, i64 40
  store i64 3, ptr %r5
  %r6 = getelementptr i8, ptr %ret, i64 48
  store i64 1, ptr %r6
  ret void
}
