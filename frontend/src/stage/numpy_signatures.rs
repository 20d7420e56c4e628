//! numpy's own signatures of the `np.<f>` agc supports (generated from numpy
//! 2.4.6 by `scripts/gen_numpy_signatures.py`; do not edit by hand), so
//! that a call numpy rejects (a misspelt keyword, too many arguments) is
//! rejected here too instead of being staged with the argument ignored.

/// The parameters of one numpy function.
pub struct Signature {
    /// The function, `np.<name>`.
    pub name: &'static str,
    /// Parameter names that may be passed by keyword.
    pub params: &'static [&'static str],
    /// How many arguments may be passed by position (`None`: any number).
    pub max_positional: Option<usize>,
    /// The function takes `**kwargs`: any keyword.
    pub any_keyword: bool,
}

/// Every signature, sorted by name.
#[rustfmt::skip]
pub const SIGNATURES: &[Signature] = &[
    Signature { name: "abs", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "absolute", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "add", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "all", params: &["a", "axis", "out", "keepdims", "where"], max_positional: Some(4), any_keyword: false },
    Signature { name: "amax", params: &["a", "axis", "out", "keepdims", "initial", "where"], max_positional: Some(6), any_keyword: false },
    Signature { name: "amin", params: &["a", "axis", "out", "keepdims", "initial", "where"], max_positional: Some(6), any_keyword: false },
    Signature { name: "any", params: &["a", "axis", "out", "keepdims", "where"], max_positional: Some(4), any_keyword: false },
    Signature { name: "arange", params: &["stop", "step", "dtype", "device", "like"], max_positional: Some(3), any_keyword: false },
    Signature { name: "arccos", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "arcsin", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "arctan", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "arctan2", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "argmax", params: &["a", "axis", "out", "keepdims"], max_positional: Some(3), any_keyword: false },
    Signature { name: "argmin", params: &["a", "axis", "out", "keepdims"], max_positional: Some(3), any_keyword: false },
    Signature { name: "argsort", params: &["a", "axis", "kind", "order", "stable"], max_positional: Some(4), any_keyword: false },
    Signature { name: "around", params: &["a", "decimals", "out"], max_positional: Some(3), any_keyword: false },
    Signature { name: "array", params: &["object", "dtype", "copy", "order", "subok", "ndmin", "ndmax", "like"], max_positional: Some(2), any_keyword: false },
    Signature { name: "array_split", params: &["ary", "indices_or_sections", "axis"], max_positional: Some(3), any_keyword: false },
    Signature { name: "asarray", params: &["a", "dtype", "order", "device", "copy", "like"], max_positional: Some(3), any_keyword: false },
    Signature { name: "bitwise_and", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "bitwise_invert", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "bitwise_left_shift", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "bitwise_not", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "bitwise_or", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "bitwise_right_shift", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "bitwise_xor", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "broadcast_to", params: &["array", "shape", "subok"], max_positional: Some(3), any_keyword: false },
    Signature { name: "ceil", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "clip", params: &["a", "a_min", "a_max", "out", "min", "max"], max_positional: Some(4), any_keyword: true },
    Signature { name: "concatenate", params: &["axis", "out", "dtype", "casting"], max_positional: Some(3), any_keyword: false },
    Signature { name: "cos", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "cosh", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "count_nonzero", params: &["a", "axis", "keepdims"], max_positional: Some(2), any_keyword: false },
    Signature { name: "cumprod", params: &["a", "axis", "dtype", "out"], max_positional: Some(4), any_keyword: false },
    Signature { name: "cumsum", params: &["a", "axis", "dtype", "out"], max_positional: Some(4), any_keyword: false },
    Signature { name: "diag", params: &["v", "k"], max_positional: Some(2), any_keyword: false },
    Signature { name: "diagonal", params: &["a", "offset", "axis1", "axis2"], max_positional: Some(4), any_keyword: false },
    Signature { name: "divide", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "dot", params: &["a", "b", "out"], max_positional: Some(3), any_keyword: false },
    Signature { name: "einsum", params: &["out", "optimize"], max_positional: None, any_keyword: true },
    Signature { name: "empty", params: &["shape", "dtype", "order", "device", "like"], max_positional: Some(3), any_keyword: false },
    Signature { name: "empty_like", params: &["dtype", "order", "subok", "shape", "device"], max_positional: Some(5), any_keyword: false },
    Signature { name: "equal", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "exp", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "exp2", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "expand_dims", params: &["a", "axis"], max_positional: Some(2), any_keyword: false },
    Signature { name: "expm1", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "eye", params: &["N", "M", "k", "dtype", "order", "device", "like"], max_positional: Some(5), any_keyword: false },
    Signature { name: "flip", params: &["m", "axis"], max_positional: Some(2), any_keyword: false },
    Signature { name: "floor", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "floor_divide", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "full", params: &["shape", "fill_value", "dtype", "order", "device", "like"], max_positional: Some(4), any_keyword: false },
    Signature { name: "full_like", params: &["a", "fill_value", "dtype", "order", "subok", "shape", "device"], max_positional: Some(6), any_keyword: false },
    Signature { name: "greater", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "greater_equal", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "hstack", params: &["tup", "dtype", "casting"], max_positional: Some(1), any_keyword: false },
    Signature { name: "invert", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "isfinite", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "isinf", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "isnan", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "left_shift", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "less", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "less_equal", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "linspace", params: &["start", "stop", "num", "endpoint", "retstep", "dtype", "axis", "device"], max_positional: Some(7), any_keyword: false },
    Signature { name: "log", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "log10", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "log1p", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "log2", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "logaddexp", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "logical_and", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "logical_not", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "logical_or", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "logical_xor", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "matmul", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature", "axes", "axis", "keepdims"], max_positional: Some(3), any_keyword: false },
    Signature { name: "max", params: &["a", "axis", "out", "keepdims", "initial", "where"], max_positional: Some(6), any_keyword: false },
    Signature { name: "maximum", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "mean", params: &["a", "axis", "dtype", "out", "keepdims", "where"], max_positional: Some(5), any_keyword: false },
    Signature { name: "min", params: &["a", "axis", "out", "keepdims", "initial", "where"], max_positional: Some(6), any_keyword: false },
    Signature { name: "minimum", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "mod", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "moveaxis", params: &["a", "source", "destination"], max_positional: Some(3), any_keyword: false },
    Signature { name: "multiply", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "nan_to_num", params: &["x", "copy", "nan", "posinf", "neginf"], max_positional: Some(5), any_keyword: false },
    Signature { name: "ndim", params: &["a"], max_positional: Some(1), any_keyword: false },
    Signature { name: "negative", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "not_equal", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "ones", params: &["shape", "dtype", "order", "device", "like"], max_positional: Some(3), any_keyword: false },
    Signature { name: "ones_like", params: &["a", "dtype", "order", "subok", "shape", "device"], max_positional: Some(5), any_keyword: false },
    Signature { name: "outer", params: &["a", "b", "out"], max_positional: Some(3), any_keyword: false },
    Signature { name: "pad", params: &["array", "pad_width", "mode"], max_positional: Some(3), any_keyword: true },
    Signature { name: "power", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "prod", params: &["a", "axis", "dtype", "out", "keepdims", "initial", "where"], max_positional: Some(7), any_keyword: false },
    Signature { name: "ravel", params: &["a", "order"], max_positional: Some(2), any_keyword: false },
    Signature { name: "reciprocal", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "remainder", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "repeat", params: &["a", "repeats", "axis"], max_positional: Some(3), any_keyword: false },
    Signature { name: "reshape", params: &["shape", "order", "copy"], max_positional: Some(3), any_keyword: false },
    Signature { name: "right_shift", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "roll", params: &["a", "shift", "axis"], max_positional: Some(3), any_keyword: false },
    Signature { name: "round", params: &["a", "decimals", "out"], max_positional: Some(3), any_keyword: false },
    Signature { name: "shape", params: &["a"], max_positional: Some(1), any_keyword: false },
    Signature { name: "sign", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "sin", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "sinh", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "size", params: &["a", "axis"], max_positional: Some(2), any_keyword: false },
    Signature { name: "sort", params: &["a", "axis", "kind", "order", "stable"], max_positional: Some(4), any_keyword: false },
    Signature { name: "split", params: &["ary", "indices_or_sections", "axis"], max_positional: Some(3), any_keyword: false },
    Signature { name: "sqrt", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "square", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "squeeze", params: &["a", "axis"], max_positional: Some(2), any_keyword: false },
    Signature { name: "stack", params: &["arrays", "axis", "out", "dtype", "casting"], max_positional: Some(3), any_keyword: false },
    Signature { name: "std", params: &["a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"], max_positional: Some(6), any_keyword: false },
    Signature { name: "subtract", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "sum", params: &["a", "axis", "dtype", "out", "keepdims", "initial", "where"], max_positional: Some(7), any_keyword: false },
    Signature { name: "swapaxes", params: &["a", "axis1", "axis2"], max_positional: Some(3), any_keyword: false },
    Signature { name: "take", params: &["a", "indices", "axis", "out", "mode"], max_positional: Some(5), any_keyword: false },
    Signature { name: "tanh", params: &["x", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(2), any_keyword: false },
    Signature { name: "tensordot", params: &["a", "b", "axes"], max_positional: Some(3), any_keyword: false },
    Signature { name: "tile", params: &["A", "reps"], max_positional: Some(2), any_keyword: false },
    Signature { name: "trace", params: &["a", "offset", "axis1", "axis2", "dtype", "out"], max_positional: Some(6), any_keyword: false },
    Signature { name: "transpose", params: &["a", "axes"], max_positional: Some(2), any_keyword: false },
    Signature { name: "tril", params: &["m", "k"], max_positional: Some(2), any_keyword: false },
    Signature { name: "triu", params: &["m", "k"], max_positional: Some(2), any_keyword: false },
    Signature { name: "true_divide", params: &["x1", "x2", "out", "where", "casting", "order", "dtype", "subok", "signature"], max_positional: Some(3), any_keyword: false },
    Signature { name: "var", params: &["a", "axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"], max_positional: Some(6), any_keyword: false },
    Signature { name: "vstack", params: &["tup", "dtype", "casting"], max_positional: Some(1), any_keyword: false },
    Signature { name: "where", params: &[], max_positional: Some(3), any_keyword: false },
    Signature { name: "zeros", params: &["shape", "dtype", "order", "device", "like"], max_positional: Some(3), any_keyword: false },
    Signature { name: "zeros_like", params: &["a", "dtype", "order", "subok", "shape", "device"], max_positional: Some(5), any_keyword: false },
];

/// The signature of `np.<name>`, if numpy's could be read.
pub fn of(name: &str) -> Option<&'static Signature> {
    SIGNATURES
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &SIGNATURES[i])
}

#[cfg(test)]
mod tests {
    use super::{of, SIGNATURES};

    #[test]
    fn the_table_is_sorted_for_its_binary_search() {
        for pair in SIGNATURES.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} before {}",
                pair[0].name,
                pair[1].name
            );
        }
        assert!(of("exp").is_some() && of("bitwise_and").is_some() && of("no_such").is_none());
    }
}
