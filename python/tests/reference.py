# SPDX-License-Identifier: Apache-2.0
"""CPU references for the GPU tests, over numpy: the library's orders as stable numpy sorts, the
C++ standard's multiset operations and a merge-join."""
import numpy as np

# A record and the comparator the tests sort it with: x ascending, then id descending.
REC = np.dtype([("x", "f4"), ("id", "u4")])
LESS = "a.x < b.x || (a.x == b.x && a.id > b.id)"


def records(rng, n):
    """n records of REC: x with many ties, id mostly distinct."""
    rec = np.zeros(n, REC)
    rec["x"] = rng.integers(0, 100, n).astype(np.float32)
    rec["id"] = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return rec


def record_order(rec):
    """The stable permutation of LESS; np.lexsort is stable, its last key the primary one."""
    return np.lexsort((np.uint32(0xFFFFFFFF) - rec["id"], rec["x"]))


FLOAT_BITS = {2: (np.uint16, 10), 4: (np.uint32, 23), 8: (np.uint64, 52)}   # type, mantissa


def ordinals(keys, descending=False):
    """Keys as integers in the library's order, equal exactly where the library finds them
    equivalent. Floats, written by cases: the non-NaN values by value, -0 before +0 (reversed
    when descending); then, in both orders, the NaNs by their bits: the positive ones by
    increasing payload, then the negative ones by decreasing payload."""
    if keys.dtype.kind != "f":
        return keys.astype(np.int64)
    uint, mantissa = FLOAT_BITS[keys.dtype.itemsize]
    width = 8 * keys.dtype.itemsize
    bits = keys.view(uint).astype(np.uint64)
    one, nans = np.uint64(1), np.uint64((1 << mantissa) - 1)
    mask, sign = np.uint64((1 << width) - 1), np.uint64(1 << (width - 1))
    first_nan = mask - np.uint64(2) * nans + one     # the 2 * nans NaN patterns come last
    negative = (bits & sign) != 0
    with np.errstate(over="ignore"):                 # NaNs' lanes wrap in `value`: not used
        value = np.where(negative, ~bits & mask, bits | sign) - nans
        if descending:
            value = first_nan - one - value
        payload = bits & nans
        nan = np.where(negative, mask - (payload - one), first_nan + payload - one)
    return np.where(np.isnan(keys), nan, value)


def stable_order(keys, descending=False):
    """The stable permutation of the library's order."""
    if keys.dtype.kind == "f":
        return np.argsort(ordinals(keys, descending), kind="stable")
    if not descending:
        return np.argsort(keys, kind="stable")
    return np.argsort(~keys, kind="stable")          # ~ reverses any integer order


def same_bits(a, b):
    return a.tobytes() == b.tobytes()


def float_mix(rng, n, dtype, distinct=None):
    """Floats of dtype with ties (integers below `distinct` in magnitude, else normal ones),
    -0 and +0, infinities and NaNs (np.nan only: one bit pattern, so numpy's stable order is
    the reference however the library orders NaNs of different bits among themselves)."""
    if distinct is None:
        k = (rng.standard_normal(n) * 1000).astype(dtype)
    else:
        k = rng.integers(-distinct, distinct, n).astype(dtype)
    if n:
        k[rng.integers(0, n, n // 20 + 1)] = -0.0
        k[rng.integers(0, n, n // 20 + 1)] = 0.0
        k[rng.integers(0, n, n // 50 + 1)] = np.nan
        k[rng.integers(0, n, n // 100 + 1)] = -np.inf
        k[rng.integers(0, n, n // 100 + 1)] = np.inf
    return k


def random_keys(rng, dtype, n):
    """n keys of a numeric dtype: floats from float_mix; integers over the whole range, with
    few distinct values beyond 1000 keys (so that stability shows) and both extremes."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return float_mix(rng, n, dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(dt)
    info = np.iinfo(dt)
    k = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if n > 1000:
        k %= 97
        if info.min < 0:
            k -= 48                         # negatives too
    k[:2] = [info.min, info.max][:n]
    return k


def sorted_floats(rng, n, distinct):
    """float32 keys in the library's order, with ties, -0 and +0, infinities and NaNs."""
    k = rng.integers(-distinct, distinct, n).astype(np.float32)
    k[rng.integers(0, n, n // 20)] = -0.0
    k[rng.integers(0, n, n // 50)] = np.nan
    k[rng.integers(0, n, n // 50)] = -np.inf
    return k[stable_order(k)]


def set_reference(op, oa, ob):
    """The C++ standard's set algorithm over sorted ordinals: the (side, index) of each output
    element, side 0 for a, 1 for b; a matched pair gives a's element."""
    keep_a = op in ("union", "difference", "symmetric_difference")
    keep_b = op in ("union", "symmetric_difference")
    out, i, j = [], 0, 0
    while i < len(oa) and j < len(ob):
        if oa[i] < ob[j]:
            if keep_a:
                out.append((0, i))
            i += 1
        elif ob[j] < oa[i]:
            if keep_b:
                out.append((1, j))
            j += 1
        else:
            if op in ("intersection", "union"):
                out.append((0, i))
            i, j = i + 1, j + 1
    if keep_a:
        out += [(0, x) for x in range(i, len(oa))]
    if keep_b:
        out += [(1, x) for x in range(j, len(ob))]
    return out


def pick(ref, a, b):
    """The elements set_reference names, from a and b."""
    if not ref:
        return a[:0]
    return np.stack([a[i] if side == 0 else b[i] for side, i in ref])


def merge_join(kind, oa, ob, null):
    """A merge-join of sorted ordinals: the (a row, b row) pairs in the library's order."""
    rows, matched, j = [], np.zeros(len(ob), bool), 0
    for i in range(len(oa)):
        while j < len(ob) and ob[j] < oa[i]:
            j += 1
        k = j
        while k < len(ob) and ob[k] == oa[i]:
            rows.append((i, k))
            matched[k] = True
            k += 1
        if k == j and kind in ("left", "outer"):
            rows.append((i, null))
    if kind in ("right", "outer"):
        rows += [(null, int(k)) for k in np.flatnonzero(~matched)]
    return rows
