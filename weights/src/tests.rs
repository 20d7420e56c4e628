//! Reading files written here byte by byte as numpy and safetensors write them.

use super::*;

fn npy(descr: &str, fortran: bool, shape: &[u64], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let fo = if fortran { "True" } else { "False" };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': {fo}, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn npz(dir: &Path, members: &[(&str, Vec<u8>)], deflate: bool) -> PathBuf {
    let path = dir.join("w.npz");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let method = if deflate {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    for (name, bytes) in members {
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        zip.start_file(format!("{name}.npy"), opts).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
    path
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn npz_members_read_back_in_c_order() {
    let dir = tempfile::tempdir().unwrap();
    let w: Vec<f32> = (0..6).map(|i| i as f32).collect();
    // [[0, 1, 2], [3, 4, 5]] stored column-major: 0 3 1 4 2 5.
    let wf: Vec<f32> = [0, 3, 1, 4, 2, 5].iter().map(|&i| i as f32).collect();
    let b: Vec<u8> = [7i64, -1].iter().flat_map(|x| x.to_be_bytes()).collect();
    for deflate in [false, true] {
        let path = npz(
            dir.path(),
            &[
                ("W", npy("<f4", false, &[2, 3], &f32_bytes(&w))),
                ("Wf", npy("<f4", true, &[2, 3], &f32_bytes(&wf))),
                ("b", npy(">i8", false, &[2], &b)),
            ],
            deflate,
        );
        let file = WeightFile::open(&path).unwrap();
        let names: Vec<&str> = file.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["W", "Wf", "b"]);
        let wt = file.get("W").unwrap();
        assert_eq!((wt.dtype, wt.shape.clone()), (DType::F32, vec![2, 3]));
        assert_eq!(file.read(wt).unwrap(), f32_bytes(&w));
        assert_eq!(file.read(file.get("Wf").unwrap()).unwrap(), f32_bytes(&w));
        let b_le: Vec<u8> = [7i64, -1].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(file.read(file.get("b").unwrap()).unwrap(), b_le);
    }
}

#[test]
fn unsupported_dtypes_and_pickles_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for descr in ["<f2", "|O", "<u4", "|u1"] {
        let path = npz(
            dir.path(),
            &[("x", npy(descr, false, &[1], &[0; 8]))],
            false,
        );
        let err = WeightFile::open(&path).unwrap_err();
        assert!(
            matches!(
                err,
                WeightsError::Dtype { .. } | WeightsError::Malformed { .. }
            ),
            "{descr}: {err}"
        );
    }
}

fn safetensors_file(dir: &Path, header: &str, data: &[u8]) -> PathBuf {
    let path = dir.join("w.safetensors");
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn safetensors_tensors_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"__metadata__":{"k":"v"},"b":{"dtype":"I32","shape":[2],"data_offsets":[24,32]},"W":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#;
    let mut data = f32_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    data.extend([9i32, -9].iter().flat_map(|x| x.to_le_bytes()));
    let path = safetensors_file(dir.path(), header, &data);
    let file = WeightFile::open(&path).unwrap();
    let names: Vec<&str> = file.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["W", "b"]);
    assert_eq!(file.read(file.get("W").unwrap()).unwrap(), data[..24]);
    assert_eq!(file.read(file.get("b").unwrap()).unwrap(), data[24..]);
}

#[test]
fn broken_files_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bad_header = safetensors_file(
        dir.path(),
        r#"{"W":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
        &[0; 8],
    );
    assert!(matches!(
        WeightFile::open(&bad_header),
        Err(WeightsError::Malformed { .. })
    ));
    let half = safetensors_file(
        dir.path(),
        r#"{"W":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}}"#,
        &[0; 2],
    );
    assert!(matches!(
        WeightFile::open(&half),
        Err(WeightsError::Dtype { .. })
    ));
    let garbage = dir.path().join("g.npz");
    std::fs::write(&garbage, b"not a zip").unwrap();
    assert!(matches!(
        WeightFile::open(&garbage),
        Err(WeightsError::Malformed { .. })
    ));
    let missing = dir.path().join("missing.safetensors");
    assert!(matches!(
        WeightFile::open(&missing),
        Err(WeightsError::Io { .. })
    ));
    assert!(matches!(
        WeightFile::open(&dir.path().join("w.bin")),
        Err(WeightsError::UnknownFormat(_))
    ));
}
