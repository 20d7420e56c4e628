"""sgemm as agc exports: one per benchmarked size (static shapes), and one with run-time sizes."""
import agc
import agc.numpy as np


@agc.export
def mm(a: agc.f32["M", "K"], b: agc.f32["K", "N"]):
    return a @ b


@agc.export
def mm256(a: agc.f32[256, 256], b: agc.f32[256, 256]):
    return a @ b


@agc.export
def mm512(a: agc.f32[512, 512], b: agc.f32[512, 512]):
    return a @ b


@agc.export
def mm1000(a: agc.f32[1000, 1000], b: agc.f32[1000, 1000]):
    return a @ b


@agc.export
def mm1024(a: agc.f32[1024, 1024], b: agc.f32[1024, 1024]):
    return a @ b


@agc.export
def mm2048(a: agc.f32[2048, 2048], b: agc.f32[2048, 2048]):
    return a @ b
