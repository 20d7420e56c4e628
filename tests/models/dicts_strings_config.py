"""Dict configs with string keys, strings selecting activations, dict iteration."""
import agc
import agc.numpy as np

CONFIG = {"activation": "tanh", "scale": 2.0, "layers": 2, "name": "demo"}


def relu(x):
    return np.maximum(x, 0)


ACTIVATIONS = {"relu": relu, "tanh": np.tanh, "identity": lambda x: x}


@agc.export
def configured(x: agc.f32[3, 3], w: agc.f32[3, 3]):
    act = ACTIVATIONS[CONFIG["activation"]]
    h = x
    for _ in range(CONFIG["layers"]):
        h = act(h @ w) * CONFIG["scale"]
    if CONFIG.get("missing") is None and CONFIG["name"] == "demo":
        h = h + len(CONFIG["name"])
    return h


@agc.export
def dict_items(x: agc.f32[4]):
    terms = {"a": 1.0, "b": -2.0, "c": 0.5}
    out = x * 0
    for i, (key, coef) in enumerate(terms.items()):
        out = out + x * coef * (i + len(key))
    named = {k: x * v for k, v in terms.items()}
    return out, named["b"] + named["c"]
