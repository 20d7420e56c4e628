"""Parameters named like C keywords, reserved identifiers, standard macros and the header's own
types: the header renames them (trailing `_`, or a leading `p` for `_Capital`/`__` names)."""
import agc
import agc.numpy as np


@agc.export
def mix(NULL: agc.f32[3], errno: agc.f32[3], DLTensor: agc.f32[3], _Bool: agc.f32[3], _Atomic: agc.f32[3],
        int32_t: agc.f32["B"], assert_: agc.f32[3], AGC_STATUS_OK: agc.f32[3], int: agc.f32[3]):
    return NULL + errno + DLTensor + _Bool + _Atomic + assert_ + AGC_STATUS_OK + int, int32_t * 2.0
