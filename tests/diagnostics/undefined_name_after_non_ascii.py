"""An undefined name after a tab and non-ASCII text on its line: columns count characters, not bytes."""
import agc
import agc.numpy as np


@agc.export
def f(x: agc.f32[3]):
	return x * {"é": 2.0, "ü": 3.0}["ü"] + bias  # ERROR: NameError: name 'bias' is not defined
