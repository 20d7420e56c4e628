"""The seed's beam-search-style loop: a staged loop over decoding steps that keeps the two best partial
scores and breaks out early once the best score exceeds a threshold (data-dependent trip count)."""
import agc
import agc.numpy as np

VOCAB = 5
NEG = -1e9


def top2(flat):
    i1 = np.argmax(flat)
    masked = np.where(np.arange(flat.shape[0]) == i1, NEG, flat)
    i2 = np.argmax(masked)
    return i1, i2


@agc.export
def beam_search(step_scores: agc.f32["T", 5], threshold: agc.f32[()]):
    beams = np.array([0.0, NEG], dtype=np.float32)        # one live beam at the start
    last = np.zeros(2, dtype=np.int64)
    best_tokens = []
    steps = 0
    for t in range(step_scores.shape[0]):
        cand = beams[:, None] + step_scores[t][None, :]      # (2, VOCAB)
        flat = np.reshape(cand, (2 * VOCAB,))
        i1, i2 = top2(flat)
        beams = np.stack([flat[i1], flat[i2]])
        last = np.stack([i1 % VOCAB, i2 % VOCAB])
        best_tokens.append(last[0])
        steps += 1
        if beams[0] > threshold:
            break
    return beams, last, np.stack(best_tokens), np.asarray(steps)


def agc_test_inputs(export_name, rng, dims):
    t = dims["T"]
    scores = rng.uniform(0.0, 1.0, size=(t, VOCAB)).astype(np.float32)
    # first call: the threshold is passed after a few steps; second call: never (runs all T steps)
    threshold = np.float32(2.5 if t % 2 else 1000.0)
    return [scores, threshold]


AGC_TEST_DIMS = {"T": 9}
