"""When ptxas 13.0.88's sm_90 code for `div.rn.f32` and `sqrt.rn.f32` leaves its fast
path, as an H200 showed (tools/gpu/slowpath/run.py, 2026-11-30;
sim-core/data/calibration/h200/slowpath/).

- `div.rn.f32 d, a, b` (no `.ftz`): `FCHK P0, a, b` sends the lane to
  `__cuda_sm3x_div_rn_noftz_f32_slowpath` unless both exponent fields are in range and
  close enough: a's biased exponent in [25, 254], b's in [2, 251], and a's minus b's in
  [-124, 126]. Neither sign nor mantissa matters (262,144 sets over every exponent pair
  and the mantissas 0 and 0x7fffff, and 11,664 in all four sign pairs: no exception).
- `sqrt.rn.f32 d, x`: ptxas's own test, `x + 0xf3000000 > 0x727fffff` unsigned on the
  bits (sign included), sends the lane to `__cuda_sm20_sqrt_rn_f32_slowpath`: fast for
  positive x from 2^-101 (0x0d000000) to the largest finite value (1,024 sets agree).
"""


def div_rn_f32_slow(a, b):
    """Whether a lane dividing f32 bits `a` by `b` takes the slow path."""
    ea, eb = (a >> 23) & 0xFF, (b >> 23) & 0xFF
    return not (25 <= ea <= 254 and 2 <= eb <= 251 and -124 <= ea - eb <= 126)


def sqrt_rn_f32_slow(x):
    """Whether a lane taking the root of f32 bits `x` takes the slow path."""
    return ((x + 0xF3000000) & 0xFFFFFFFF) > 0x727FFFFF
