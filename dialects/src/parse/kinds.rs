//! An op's kind from its printed name and attributes (`{axes=[0], keepdims=false}`),
//! the inverse of `print`'s `attributes`.

use super::text::{quoted, split_top, Scan};
use crate::entities::FuncId;
use crate::ops::{ArgKind, BinaryOp, CmpOp, ConstData, OpKind, ReduceKind, SliceDim, UnaryOp};
use crate::types::{DType, Type};
use std::collections::HashMap;

/// The `key=value` attributes of `{...}` (without the braces).
fn pairs(attrs: &str) -> Scan<HashMap<&str, &str>> {
    split_top(attrs)
        .into_iter()
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("expected key=value, found '{p}'"))
        })
        .collect()
}

fn list<T: std::str::FromStr>(s: &str) -> Scan<Vec<T>> {
    let inner = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("expected a list, found '{s}'"))?;
    split_top(inner)
        .into_iter()
        .map(|x| x.parse().map_err(|_| format!("bad list element '{x}'")))
        .collect()
}

fn num<T: std::str::FromStr>(a: &HashMap<&str, &str>, key: &str) -> Scan<T> {
    let v = a
        .get(key)
        .ok_or_else(|| format!("missing attribute '{key}'"))?;
    v.parse().map_err(|_| format!("bad value '{v}' of '{key}'"))
}

fn func(a: &HashMap<&str, &str>, key: &str) -> Scan<FuncId> {
    let v = a
        .get(key)
        .ok_or_else(|| format!("missing attribute '{key}'"))?;
    v.strip_prefix("@f")
        .and_then(|n| n.parse().ok())
        .map(FuncId)
        .ok_or_else(|| format!("bad function '{v}'"))
}

/// The kind of an op named `name` with attribute text `attrs` and result types `results`.
pub fn kind(name: &str, attrs: &str, results: &[Type]) -> Scan<OpKind> {
    if let Some(u) = UnaryOp::ALL.iter().find(|u| u.name() == name) {
        return Ok(OpKind::Unary(*u));
    }
    if let Some(b) = BinaryOp::ALL.iter().find(|b| b.name() == name) {
        return Ok(OpKind::Binary(*b));
    }
    if let Some(c) = CmpOp::ALL
        .iter()
        .find(|c| name.strip_prefix("cmp.") == Some(c.name()))
    {
        return Ok(OpKind::Compare(*c));
    }
    let a = || pairs(attrs);
    if let Some(kind) = ReduceKind::ALL
        .iter()
        .find(|k| name.strip_prefix("reduce.") == Some(k.name()))
    {
        let a = a()?;
        let axes = list(a.get("axes").ok_or("missing attribute 'axes'")?)?;
        let keepdims = num(&a, "keepdims")?;
        return Ok(OpKind::Reduce {
            kind: *kind,
            axes,
            keepdims,
        });
    }
    Ok(match name {
        "const" => OpKind::Const(constant(attrs, results)?),
        "fill" => OpKind::Fill,
        "weight" => OpKind::Weight(num(&a()?, "index")?),
        "select" => OpKind::Select,
        "cast" => OpKind::Cast,
        "matmul" => OpKind::MatMul,
        "argmax" | "argmin" => {
            let a = a()?;
            let kind = if name == "argmax" {
                ArgKind::ArgMax
            } else {
                ArgKind::ArgMin
            };
            OpKind::ArgReduce {
                kind,
                axis: num(&a, "axis")?,
                keepdims: num(&a, "keepdims")?,
            }
        }
        "reshape" => OpKind::Reshape,
        "transpose" => OpKind::Transpose {
            perm: list(a()?.get("perm").ok_or("missing attribute 'perm'")?)?,
        },
        "broadcast_to" => OpKind::BroadcastTo,
        "concat" => OpKind::Concat {
            axis: num(&a()?, "axis")?,
        },
        "gather" => OpKind::Gather {
            axis: num(&a()?, "axis")?,
        },
        "scatter_add" => OpKind::ScatterAdd {
            axis: num(&a()?, "axis")?,
        },
        "dim" => OpKind::Dim {
            axis: num(&a()?, "axis")?,
        },
        "slice" => OpKind::Slice {
            dims: slices(attrs)?,
        },
        "iota" => {
            let a = a()?;
            OpKind::Iota {
                start: num(&a, "start")?,
                step: num(&a, "step")?,
            }
        }
        "return" => OpKind::Return,
        "if" => OpKind::If,
        "while" => OpKind::While,
        "yield" => OpKind::Yield,
        "condition" => OpKind::Condition,
        "call" => OpKind::Call {
            callee: func(&a()?, "callee")?,
        },
        "cont" => OpKind::MakeCont {
            func: func(&a()?, "func")?,
        },
        "apply" => OpKind::Apply,
        "cont_outputs" => OpKind::ContOutputs,
        "dyn_index" => OpKind::DynIndex {
            axes: num(&a()?, "axes")?,
        },
        "dyn_slice" => OpKind::DynSlice,
        "dyn_update" | "dyn_update_add" => OpKind::DynUpdate {
            axes: num(&a()?, "axes")?,
            accumulate: name == "dyn_update_add",
        },
        "assert" => {
            let text = attrs
                .trim()
                .strip_prefix("message=")
                .ok_or("missing attribute 'message'")?;
            OpKind::Assert {
                message: quoted(text)?.0,
            }
        }
        _ => return Err(format!("unknown op '{name}'")),
    })
}

/// `start:stop:step` per axis, empty bounds for `None`.
fn slices(attrs: &str) -> Scan<Vec<SliceDim>> {
    split_top(attrs)
        .into_iter()
        .map(|s| {
            let parts: Vec<&str> = s.split(':').collect();
            let [start, stop, step] = parts[..] else {
                return Err(format!("bad slice '{s}'"));
            };
            let bound = |b: &str| -> Scan<Option<i64>> {
                if b.is_empty() {
                    Ok(None)
                } else {
                    b.parse()
                        .map(Some)
                        .map_err(|_| format!("bad slice bound '{b}'"))
                }
            };
            let step = step
                .parse()
                .map_err(|_| format!("bad slice step '{step}'"))?;
            Ok(SliceDim {
                start: bound(start)?,
                stop: bound(stop)?,
                step,
            })
        })
        .collect()
}

/// A constant's data: `[a,b,..]` or `splat=x`, its variant from the result dtype.
fn constant(attrs: &str, results: &[Type]) -> Scan<ConstData> {
    let t = results
        .first()
        .and_then(Type::as_tensor)
        .ok_or("a constant has one tensor result")?;
    let elems: Vec<&str> = match attrs.trim().strip_prefix("splat=") {
        Some(x) => {
            let n = t.static_numel().ok_or("a splat constant of static shape")?;
            vec![x.trim(); n as usize]
        }
        None => {
            let inner = attrs
                .trim()
                .strip_prefix('[')
                .and_then(|r| r.strip_suffix(']'));
            split_top(inner.ok_or_else(|| format!("bad constant '{attrs}'"))?)
        }
    };
    let bad = |x: &str| format!("bad {} element '{x}'", t.dtype);
    Ok(match t.dtype {
        DType::F32 | DType::F64 => ConstData::Float(
            elems
                .iter()
                .map(|x| x.parse().map_err(|_| bad(x)))
                .collect::<Scan<_>>()?,
        ),
        DType::I32 | DType::I64 => ConstData::Int(
            elems
                .iter()
                .map(|x| x.parse().map_err(|_| bad(x)))
                .collect::<Scan<_>>()?,
        ),
        DType::Bool => ConstData::Bool(
            elems
                .iter()
                .map(|x| x.parse().map_err(|_| bad(x)))
                .collect::<Scan<_>>()?,
        ),
    })
}
