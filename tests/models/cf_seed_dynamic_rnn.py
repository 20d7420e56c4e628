"""The seed's AutoGraph `dynamic_rnn`, written as a Python loop: `outputs.append` in a staged loop, then
`np.stack`; with per-example sequence lengths the trip count is `max(sequence_len)`, a run-time value."""
import agc
import agc.numpy as np

HIDDEN = 5


def make_cell(w, u, b):
    def rnn_cell(x, state):
        out = np.tanh(x @ w + state @ u + b)
        return out, out
    return rnn_cell


def dynamic_rnn(rnn_cell, input_data, initial_state, sequence_len=None):
    input_data = np.transpose(input_data, (1, 0, 2))
    outputs = []
    state = initial_state
    if sequence_len is None:
        max_len = input_data.shape[0]
    else:
        max_len = np.max(sequence_len)
    for i in range(max_len):
        prev_state = state
        output, state = rnn_cell(input_data[i], state)
        if sequence_len is not None:
            state = np.where((i < sequence_len)[:, None], state, prev_state)
        outputs.append(output)
    outputs = np.stack(outputs)
    outputs = np.transpose(outputs, (1, 0, 2))
    return outputs, state


@agc.export
def rnn_full(x: agc.f32["B", "T", 3], h0: agc.f32["B", 5], w: agc.f32[3, 5], u: agc.f32[5, 5], b: agc.f32[5]):
    return dynamic_rnn(make_cell(w, u, b), x, h0)


@agc.export
def rnn_lengths(x: agc.f32["B", "T", 3], h0: agc.f32["B", 5], w: agc.f32[3, 5], u: agc.f32[5, 5], b: agc.f32[5],
                sequence_len: agc.i64["B"]):
    return dynamic_rnn(make_cell(w, u, b), x, h0, sequence_len)


def agc_test_inputs(export_name, rng, dims):
    bsz, t = dims["B"], dims["T"]
    f = lambda *s: (rng.standard_normal(s) * 0.5).astype(np.float32)  # noqa: E731
    args = [f(bsz, t, 3), f(bsz, HIDDEN), f(3, HIDDEN), f(HIDDEN, HIDDEN), f(HIDDEN)]
    if export_name == "rnn_lengths":
        # the longest sequence is shorter than T on the first call, exactly T on the second
        top = t - 2 if bsz % 2 else t
        lens = rng.integers(1, top + 1, size=bsz)
        lens[0] = top
        args.append(lens.astype(np.int64))
    return args


AGC_TEST_DIMS = {"B": 3, "T": 7}
