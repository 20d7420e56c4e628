//! Adjoints of integer-array indexing (`gather`, `scatter_add`), checked
//! against float64 central finite differences through the reference
//! interpreter, with repeated and negative indices and symbolic dims.

mod support;

use agc_ir::DType;
use support::interp::{run, T};
use support::{check_grad, f64t, module, scalarize, ty, Rng};

fn ids(shape: &[usize], v: &[i64]) -> T {
    T::new(DType::I64, shape, v.iter().map(|&x| x as f64).collect())
}

#[test]
fn gather_scatters_its_adjoint_and_repeats_accumulate() {
    let mut rng = Rng(41);
    // E[ids] with a symbolic vocabulary and 2-D ids (repeated, negative).
    let (mut m, f) = module(
        &[ty(DType::F64, &["V", "3"]), ty(DType::I64, &["B", "2"])],
        |b, p| {
            let y = b.gather(p[0], p[1], 0).unwrap();
            let z = b.mul(y, y).unwrap();
            vec![scalarize(b, z)]
        },
    );
    let e = rng.tensor(&[5, 3], -1.0, 1.0);
    check_grad(
        &mut m,
        f,
        &[0],
        &[e.clone(), ids(&[3, 2], &[0, 4, -1, 2, 0, 0])],
    );
    // take along axis 1 of a 3-D tensor.
    let (mut m, f) = module(&[f64t(&[2, 4, 3]), ty(DType::I32, &["3"])], |b, p| {
        let y = b.gather(p[0], p[1], 1).unwrap();
        let z = b.mul(y, y).unwrap();
        vec![scalarize(b, z)]
    });
    let x = rng.tensor(&[2, 4, 3], -1.0, 1.0);
    let i32s = T::new(DType::I32, &[3], vec![3.0, -4.0, 3.0]);
    check_grad(&mut m, f, &[0], &[x, i32s]);
}

#[test]
fn gather_reads_like_numpy_take() {
    let (m, f) = module(&[f64t(&[3, 2]), ty(DType::I64, &["2", "2"])], |b, p| {
        vec![b.gather(p[0], p[1], 0).unwrap()]
    });
    let x = T::new(DType::F64, &[3, 2], vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let r = run(&m, f, vec![x.clone(), ids(&[2, 2], &[2, -3, 1, 1])]).unwrap();
    assert_eq!(r[0].shape, vec![2, 2, 2]);
    assert_eq!(r[0].data, vec![4.0, 5.0, 0.0, 1.0, 2.0, 3.0, 2.0, 3.0]);
    let err = run(&m, f, vec![x, ids(&[2, 2], &[0, 3, 0, 0])]).unwrap_err();
    assert!(err.contains("out of bounds"), "{err}");
}

#[test]
fn scatter_add_passes_and_gathers_its_adjoint() {
    let mut rng = Rng(43);
    let (mut m, f) = module(
        &[f64t(&[4, 2]), f64t(&[3, 2]), ty(DType::I64, &["3"])],
        |b, p| {
            let y = b.scatter_add(p[0], p[2], p[1], 0);
            let z = b.mul(y, y).unwrap();
            vec![scalarize(b, z)]
        },
    );
    let args = [
        rng.tensor(&[4, 2], -1.0, 1.0),
        rng.tensor(&[3, 2], -1.0, 1.0),
        ids(&[3], &[1, -1, 1]),
    ];
    check_grad(&mut m, f, &[0, 1], &args);
}
