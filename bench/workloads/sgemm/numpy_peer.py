"""numpy's sgemm (its BLAS, OpenBLAS in the wheel)."""


def setup(case, data, variant):
    a, b = data["a"], data["b"]

    class Impl:
        def result(self):
            return [a @ b]

        def run(self):
            a @ b

    return Impl()
