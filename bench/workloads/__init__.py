"""The benchmark workloads, one folder each.

Each folder holds `workload.py` (what is computed: title, unit, cases, the
seeded input data shared by every framework, the check tolerance),
`agc_model.py` (the agc model, an ordinary agc program), `agc_peer.py` (how
the benchmark calls the built library) and one `<framework>_peer.py` per peer
framework. A peer module has `setup(case, data, variant) -> impl`, where
`impl.result()` returns the numpy arrays checked against the reference
(computed once, from the initial state) and `impl.run()` is one timed call.
"""

ALL = ("sgemm", "lstm", "sgd", "tree_lstm", "host_call")

# framework name in the table -> (peer module in the workload folder, variant)
FRAMEWORKS = {
    "agc": ("agc_peer", None),
    "numpy": ("numpy_peer", None),
    "torch": ("torch_peer", "eager"),
    "torch.compile": ("torch_peer", "compile"),
    "jax": ("jax_peer", None),
    "tf": ("tf_peer", None),
}

# The result agc is checked against: the first of these that ran.
REFERENCE_ORDER = ("numpy", "torch", "jax", "tf", "torch.compile")
