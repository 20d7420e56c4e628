"""AutoGraph's `dynamic_rnn` without sequence lengths: the loop runs over the whole run-time time axis,
`outputs.append` then `np.stack` and transposes back to batch-major."""
import agc
import agc.numpy as np


def rnn_cell(x, state, w, u, b):
    out = np.tanh(x @ w + state @ u + b)
    return out, out


def dynamic_rnn(input_data, initial_state, w, u, b):
    input_data = np.transpose(input_data, (1, 0, 2))
    outputs = []
    state = initial_state
    for i in range(input_data.shape[0]):
        output, state = rnn_cell(input_data[i], state, w, u, b)
        outputs.append(output)
    outputs = np.stack(outputs)
    return np.transpose(outputs, (1, 0, 2)), state


@agc.export
def rnn(x: agc.f32["B", "T", 3], h0: agc.f32["B", 4], w: agc.f32[3, 4], u: agc.f32[4, 4], b: agc.f32[4]):
    return dynamic_rnn(x, h0, w, u, b)


AGC_TEST_DIMS = {"B": 3, "T": 6}
