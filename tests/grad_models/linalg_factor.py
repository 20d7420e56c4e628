"""Gradients through np.linalg.slogdet and np.linalg.cholesky (float64) of a positive-definite
matrix built from the input: the Gaussian log-likelihood's two terms. autograd's cholesky has no
`upper`: its oracle transposes the lower factor."""
import agc
import agc.numpy as np


def log_likelihood(a, w):
    cov = a @ a.T + 3.0 * np.eye(4)
    low = np.linalg.cholesky(cov)
    sign, logdet = np.linalg.slogdet(cov)
    return sign * logdet + np.sum(low * w) + np.sum(np.linalg.cholesky(cov, upper=True) ** 2)


@agc.export
def factor_grad(a: agc.f64[4, 4], w: agc.f64[4, 4]):
    return agc.grad(log_likelihood, argnums=(0, 1))(a, w)


def log_likelihood_lower_only(a, w):
    cov = a @ a.T + 3.0 * np.eye(4)
    low = np.linalg.cholesky(cov)
    sign, logdet = np.linalg.slogdet(cov)
    return sign * logdet + np.sum(low * w) + np.sum(low.T ** 2)


def factor_eager(a, w):
    return agc.grad(log_likelihood_lower_only, argnums=(0, 1))(a, w)


AGC_GRAD_CHECKS = {
    "factor_grad": ("log_likelihood", (0, 1), {"eager": "factor_eager"}),
}
