"""One k-means step: assign points to the nearest centroid (argmax of negative distance), recompute centroids."""
import agc
import numpy as np

K = 4


@agc.export
def assign(points: agc.f32["N", 2], centroids: agc.f32[K, 2]):
    d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return np.argmax(-d2, axis=1)


@agc.export
def update(points: agc.f32["N", 2], centroids: agc.f32[K, 2]):
    d2 = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    labels = np.argmax(-d2, axis=1)
    onehot = (labels[:, None] == np.arange(K)[None, :]).astype(np.float32)
    counts = np.sum(onehot, axis=0)
    sums = onehot.T @ points
    return sums / np.maximum(counts, 1.0)[:, None], counts


AGC_TEST_DIMS = {"N": 40}
