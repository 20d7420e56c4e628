//! DLPack's `DLTensor`, laid out exactly as in `dlpack.h` (v0.8 to v1.x).

use std::ffi::c_void;

/// `kDLCPU`: the only device the CPU target accepts.
pub const DEVICE_CPU: i32 = 1;
/// `kDLInt`.
pub const CODE_INT: u8 = 0;
/// `kDLUInt`.
pub const CODE_UINT: u8 = 1;
/// `kDLFloat`.
pub const CODE_FLOAT: u8 = 2;
/// `kDLBool` (DLPack ≥ 0.8), 8 bits per element.
pub const CODE_BOOL: u8 = 6;

/// `DLDevice`: where the data lives.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// `DLDeviceType` (an `int`-sized C enum); 1 is the CPU.
    pub device_type: i32,
    /// Ordinal of the device.
    pub device_id: i32,
}

/// `DLDataType`: element type code, bits per lane, lanes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// `DLDataTypeCode`.
    pub code: u8,
    /// Bits per element.
    pub bits: u8,
    /// Vector lanes; 1 for every dtype agc supports.
    pub lanes: u16,
}

/// `DLTensor`: a borrowed view of an n-d array.
#[repr(C)]
#[derive(Debug)]
pub struct DLTensor {
    /// Base pointer of the data (before `byte_offset`).
    pub data: *mut c_void,
    /// Device of the data.
    pub device: DLDevice,
    /// Number of dims.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` sizes.
    pub shape: *mut i64,
    /// `ndim` strides in elements, or NULL for compact row-major.
    pub strides: *mut i64,
    /// Offset of the first element from `data`, in bytes.
    pub byte_offset: u64,
}

/// The numpy name of a DLPack dtype, if agc knows it (`float32`, ...).
pub fn numpy_name(dt: DLDataType) -> Option<&'static str> {
    if dt.lanes != 1 {
        return None;
    }
    Some(match (dt.code, dt.bits) {
        (CODE_BOOL, 8) => "bool",
        (CODE_INT, 8) => "int8",
        (CODE_INT, 16) => "int16",
        (CODE_INT, 32) => "int32",
        (CODE_INT, 64) => "int64",
        (CODE_UINT, 8) => "uint8",
        (CODE_UINT, 16) => "uint16",
        (CODE_UINT, 32) => "uint32",
        (CODE_UINT, 64) => "uint64",
        (CODE_FLOAT, 16) => "float16",
        (CODE_FLOAT, 32) => "float32",
        (CODE_FLOAT, 64) => "float64",
        _ => return None,
    })
}

/// A dtype for messages: its numpy name, or its raw DLPack fields.
pub fn dtype_string(dt: DLDataType) -> String {
    match numpy_name(dt) {
        Some(n) => n.to_string(),
        None => format!(
            "dtype(code={}, bits={}, lanes={})",
            dt.code, dt.bits, dt.lanes
        ),
    }
}

/// Whether `actual` is acceptable where `expected` is declared. A bool
/// parameter also accepts `uint8`-coded bools from older DLPack exporters.
pub fn dtype_matches(expected: DLDataType, actual: DLDataType) -> bool {
    actual == expected
        || (expected.code == CODE_BOOL
            && actual
                == DLDataType {
                    code: CODE_UINT,
                    bits: 8,
                    lanes: 1,
                })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_dlpack_h() {
        assert_eq!(std::mem::size_of::<DLTensor>(), 48);
        assert_eq!(std::mem::offset_of!(DLTensor, ndim), 16);
        assert_eq!(std::mem::offset_of!(DLTensor, dtype), 20);
        assert_eq!(std::mem::offset_of!(DLTensor, shape), 24);
        assert_eq!(std::mem::offset_of!(DLTensor, byte_offset), 40);
    }

    #[test]
    fn names() {
        assert_eq!(
            dtype_string(DLDataType {
                code: 2,
                bits: 32,
                lanes: 1
            }),
            "float32"
        );
        assert_eq!(
            dtype_string(DLDataType {
                code: 9,
                bits: 3,
                lanes: 1
            }),
            "dtype(code=9, bits=3, lanes=1)"
        );
        let b = DLDataType {
            code: CODE_BOOL,
            bits: 8,
            lanes: 1,
        };
        assert!(dtype_matches(
            b,
            DLDataType {
                code: CODE_UINT,
                bits: 8,
                lanes: 1
            }
        ));
    }
}
