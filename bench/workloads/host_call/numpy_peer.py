"""numpy: x + y on 4 floats."""


def setup(case, data, variant):
    x, y = data["x"], data["y"]

    class Impl:
        def result(self):
            return [x + y]

        def run(self):
            x + y

    return Impl()
