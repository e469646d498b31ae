"""The enqueue calls on PyOpenCL objects against float64 formulas: the
fused call with presets, padding, explicit positions, views inside wider
buffers, Buffers with element offsets, wait lists, the unfused pair,
prepared calls, timesteps and table rows; and sinpe's errors with outputs
left untouched.  Outputs are poisoned with NaN before every call."""

import math

import numpy as np
import pytest

import reference as ref
import sinpe
from reference import poisoned

DIM = 96


def bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def test_fused_fairseq_left_padded(cl_env, rng):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("fairseq", DIM, rows=64)
    vocab, pad, n_seqs, seq_len = 500, 1, 4, 24
    ids = rng.integers(2, vocab, (n_seqs, seq_len), dtype=np.int32)
    for b in range(n_seqs):
        ids[b, : int(rng.integers(0, seq_len // 2))] = pad  # left padding
    w = rng.standard_normal((vocab, DIM)).astype(np.float32)
    out = poisoned(cla, q, (n_seqs, seq_len, DIM))
    ev = table.embed(q, cla.to_device(q, ids), cla.to_device(q, w), out, preset="fairseq",
                     pad_id=pad)
    assert isinstance(ev, cl.Event)
    ev.wait()
    pos = ref.make_positions(ids, pad).astype(np.float64).reshape(-1)
    pe = ref.fairseq(pos, DIM)
    pe[ids.reshape(-1) == pad] = 0.0  # fairseq's zero padding row
    want = ref.embed(ids, w, np.float32(math.sqrt(DIM)), pe).reshape(out.shape)
    ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, "fairseq fused")


def test_view_inside_wider_buffer(cl_env, rng):
    """out is a view of columns 8..8+DIM of rows 3.. of a wider activation
    buffer: the dim columns of each row are written, nothing else."""
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("vaswani", DIM, rows=128)
    n_seqs, seq_len, width, vocab = 2, 10, DIM + 40, 64
    act = poisoned(cla, q, (3 + n_seqs * seq_len + 2, width))
    view = act[3:3 + n_seqs * seq_len, 8:8 + DIM]
    ids = rng.integers(0, vocab, (n_seqs, seq_len), dtype=np.int32)
    # weights as a view too: rows 5.. of a wider table
    wbig = rng.standard_normal((vocab + 5, DIM + 4)).astype(np.float32)
    wdev = cla.to_device(q, wbig)[5:, :DIM]
    start = 60  # crosses the table's end at 128? no: 60..69; positions broadcast below
    table.embed(q, cla.to_device(q, ids), wdev, view, start=start, token_scale=2.5).wait()
    got = act.get()
    pe = ref.vaswani(np.tile(np.arange(start, start + seq_len, dtype=np.float64), n_seqs), DIM)
    want = ref.embed(ids, wbig[5:, :DIM], 2.5, pe)
    ref.assert_close(got[3:3 + n_seqs * seq_len, 8:8 + DIM], want, ref.EMBED_TOL,
                     ref.EMBED_TOL, "view")
    untouched = np.ones(got.shape, bool)
    untouched[3:3 + n_seqs * seq_len, 8:8 + DIM] = False
    assert np.isnan(got[untouched]).all()


def test_positions_seq_starts_and_buffers(cl_env, rng):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("marian_hf", DIM, rows=32)
    mf = cl.mem_flags
    n_seqs, seq_len, vocab = 3, 7, 40
    ids = rng.integers(0, vocab, n_seqs * seq_len + 5, dtype=np.int32)
    positions = rng.integers(0, 3000, seq_len, dtype=np.int32)  # broadcast (1, S)
    starts = rng.integers(0, 100, n_seqs, dtype=np.int32)
    w = rng.standard_normal((vocab, DIM)).astype(np.float32)
    ids_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=ids)
    w_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=w)
    out_host = np.full(n_seqs * seq_len * DIM + 11, np.nan, np.float32)
    out_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out_host)
    ev = table.embed(q, ids_buf, w_buf, out_buf, n_seqs=n_seqs, seq_len=seq_len, vocab=vocab,
                     ids_offset=5, out_offset=11, start=-4,
                     positions=cla.to_device(q, positions), positions_broadcast=1,
                     seq_starts=cla.to_device(q, starts))
    cl.enqueue_copy(q, out_host, out_buf, wait_for=[ev])
    q.finish()
    assert np.isnan(out_host[:11]).all()
    pos = (-4 + positions[None, :] + starts[:, None]).astype(np.float64).reshape(-1)
    want = ref.embed(ids[5:], w, 1.0, ref.marian_hf(pos, DIM))
    ref.assert_close(out_host[11:].reshape(-1, DIM), want, ref.EMBED_TOL, ref.EMBED_TOL,
                     "buffers")


def test_unfused_pair_equals_fused(cl_env, rng):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("tensor2tensor", DIM, rows=64)
    vocab = 70
    ids = cla.to_device(q, rng.integers(0, vocab, (2, 33), dtype=np.int32))
    w = cla.to_device(q, rng.standard_normal((vocab, DIM)).astype(np.float32))
    fused = poisoned(cla, q, (2, 33, DIM))
    pair = poisoned(cla, q, (2, 33, DIM))
    e1 = table.embed(q, ids, w, fused, preset="tensor2tensor", start=50)
    e2 = table.gather(q, ids, w, pair, preset="tensor2tensor", wait_for=[e1])
    e3 = table.add_positions(q, pair, ids=ids, preset="tensor2tensor", start=50, wait_for=[e2])
    e3.wait()
    assert np.array_equal(bits(fused.get()), bits(pair.get()))
    # add_positions alone, shape from a 3-D out
    pe_only = cla.zeros(q, (2, 5, DIM), np.float32)
    table.add_positions(q, pe_only, start=7).wait()
    ref.assert_close(pe_only.get().reshape(-1, DIM),
                     ref.tensor2tensor(np.tile(np.arange(7.0, 12.0), 2), DIM), ref.PE_TOL,
                     what="add_positions")


def test_prepared_call_decode_loop(cl_env, rng):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("vaswani", DIM, rows=256)
    vocab, n_seqs = 90, 8
    w_host = rng.standard_normal((vocab, DIM)).astype(np.float32)
    ids = cla.to_device(q, rng.integers(0, vocab, (n_seqs, 1), dtype=np.int32))
    out = poisoned(cla, q, (n_seqs, 1, DIM))
    call = table.embed_call(ids, cla.to_device(q, w_host), out, token_scale=3.0)
    assert isinstance(call, sinpe.EmbedCall) and call.args.n_seqs == n_seqs
    for step in (0, 1, 200, 255, 300):
        out.fill(np.nan)
        call.args.start = step
        ev = call(q)
        ev.wait()
        want = ref.embed(ids.get(), w_host, 3.0,
                         ref.vaswani(np.full(n_seqs, float(step)), DIM)).reshape(out.shape)
        ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, f"step {step}")
    assert call(q, event=False) is None
    q.finish()


def test_timesteps_and_rows_on_device(cl_env, rng):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("ggml_timestep", 64)
    ts = rng.uniform(0, 1000, 9).astype(np.float32)
    out = poisoned(cla, q, (9, 64))
    table.timesteps(q, cla.to_device(q, ts), out).wait()
    ref.assert_close(out.get(), ref.ggml_timestep(ts.astype(np.float64), 64), ref.PE_TOL,
                     what="timesteps")
    rows = poisoned(cla, q, (20, 80), np.float16)
    table.enqueue_rows(q, 1000, 20, rows[:, 8:72]).wait()
    got = rows.get()
    assert np.isnan(got[:, :8].astype(np.float32)).all()
    assert np.isnan(got[:, 72:].astype(np.float32)).all()
    ref.assert_close(got[:, 8:72], ref.ggml_timestep(np.arange(1000.0, 1020.0), 64),
                     ref.PE_TOL + 2.0 ** -25, 2.0 ** -11, "fp16 rows")
    assert table.borrow() == (None, 0)  # made with rows 0
    table.reserve(40)
    buf, n = table.borrow()
    assert isinstance(buf, cl.Buffer) and n == table.rows >= 40 and buf.size >= n * 64 * 4
    host = np.empty((n, 64), np.float32)
    cl.enqueue_copy(q, host, buf)
    ref.assert_close(host, ref.ggml_timestep(np.arange(float(n)), 64), ref.PE_TOL,
                     what="borrowed rows")


def test_bad_ids_counted(cl_env):
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("vaswani", DIM, rows=16)
    ids = cla.to_device(q, np.array([[0, 5, -1, 9, 3]], np.int32))
    w = cla.to_device(q, np.ones((5, DIM), np.float32))
    out = poisoned(cla, q, (1, 5, DIM))
    bad = cla.zeros(q, 1, np.int32)
    table.embed(q, ids, w, out, bad_ids=bad).wait()
    assert bad.get()[0] == 3
    got = out.get()[0]
    pe = ref.vaswani(np.arange(5.0), DIM)
    ref.assert_close(got[[1, 2, 3]], pe[[1, 2, 3]], ref.EMBED_TOL, ref.EMBED_TOL, "bad ids")


def test_errors(cl_env):
    """Bad arguments give sinpe's status, and the output stays poisoned."""
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("vaswani", DIM, rows=16)
    ids = cla.to_device(q, np.zeros((2, 3), np.int32))
    w = cla.to_device(q, np.ones((10, DIM), np.float32))
    out = poisoned(cla, q, (2, 3, DIM))
    mf = cl.mem_flags
    small = cl.Buffer(ctx, mf.READ_WRITE, 16)
    other_ctx = cl.Context([ctx.devices[0]])
    other_q = cl.CommandQueue(other_ctx)

    def status(fn):
        with pytest.raises(sinpe.SinpeError) as e:
            fn()
        q.finish()
        assert np.isnan(out.get()).all(), "an output was written by a failed call"
        return e.value.name, e.value.detail

    name, detail = status(lambda: table.embed(q, None, w, out, n_seqs=2, seq_len=3))
    assert name == "NULL_ARGUMENT" and "ids" in detail
    name, detail = status(lambda: table.embed(q, ids, w, out, n_seqs=0))
    assert name == "INVALID_SHAPE" and "n_seqs" in detail
    name, detail = status(lambda: table.embed(q, ids, w.base_data, out, vocab=10,
                                              weights_stride=DIM - 1))
    assert name == "INVALID_SHAPE" and "stride" in detail
    # A view narrower than dim: sinpe sees only the whole buffer, so the
    # package refuses it.
    assert status(lambda: table.embed(q, ids, w[:, :DIM - 1], out))[0] == "INVALID_SHAPE"
    assert status(lambda: table.embed(q, ids, w, small, out_stride=DIM))[0] == \
        "BUFFER_TOO_SMALL"
    assert status(lambda: table.embed(q, ids, w, out, out_dtype=9))[0] == "INVALID_DTYPE"
    assert status(lambda: table.embed(q, ids, w, out, weights_dtype="q8_0"))[0] == \
        "INVALID_DTYPE"  # a float32 array cannot hold Q8_0 blocks
    assert status(lambda: table.embed(q, ids, w, out, pad_policy="zero_pe", pad_id=10))[0] == \
        "INVALID_PAD"
    assert status(lambda: table.embed(q, ids, w, out, position_rule="fairseq",
                                      positions=ids))[0] == "INVALID_OPTION"
    assert status(lambda: table.embed(other_q, ids, w, out))[0] == "CONTEXT_MISMATCH"
    ev_other = cl.enqueue_marker(other_q)
    assert status(lambda: table.embed(q, ids, w, out, wait_for=[ev_other]))[0] == \
        "CONTEXT_MISMATCH"
    assert status(lambda: table.embed(q, ids, w, out[:1]))[0] == "BUFFER_TOO_SMALL"
    assert status(lambda: table.embed(q, ids, w, out, preset="nope"))[0] == "UNKNOWN_PRESET"
    with pytest.raises(TypeError):
        table.embed(q, ids, w, out, no_such_field=1)
    with pytest.raises(TypeError):
        table.embed(q, np.zeros((2, 3), np.int32), w, out)
    name, detail = status(lambda: table.embed(q, cla.to_device(q, np.zeros(6, np.int64)),
                                              w, out))
    assert name == "INVALID_DTYPE" and "ids" in detail


def test_device_functions_in_own_kernel(cl_env):
    """sinpe's device functions inside a PyOpenCL kernel of our own read the
    table's bits, inside the table and past it."""
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("fairseq", 40, rows=32)
    src = sctx.device_source() + """
    kernel void pe(global const float *table, int rows, global const float *consts,
                   uint dim, int p0, global float *out)
    {
        uint c = get_global_id(0), r = get_global_id(1);
        out[r * dim + c] = sinpe_pe_value(table, rows, consts, dim, p0 + (int)r, c);
    }
    """
    prg = cl.Program(ctx, src).build()
    buf, rows = table.borrow()
    out = poisoned(cla, q, (64, 40))
    prg.pe(q, (40, 64), None, buf, np.int32(rows), table.constants(), np.uint32(40),
           np.int32(0), out.data)
    got = out.get()
    assert np.array_equal(bits(got), bits(table.read_rows(0, 64)))
    ref.assert_close(got, ref.fairseq(np.arange(64.0), 40), ref.PE_TOL, what="device functions")


def test_repeated_calls_follow_their_arrays(cl_env, rng):
    """A table remembers its last call's arrays to resolve them faster: calls
    that change arrays, shapes or dtypes between them still get their own."""
    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("vaswani", DIM, rows=64)
    w32 = rng.standard_normal((30, DIM)).astype(np.float32)
    w = cla.to_device(q, w32)
    w16 = cla.to_device(q, w32.astype(np.float16))
    for n_seqs, seq_len, weights, wref in [(2, 3, w, w32), (2, 3, w, w32), (5, 1, w, w32),
                                           (5, 1, w16, w32.astype(np.float16)),
                                           (5, 1, w, w32)]:
        ids_host = rng.integers(0, 30, (n_seqs, seq_len), dtype=np.int32)
        ids = cla.to_device(q, ids_host)
        out = poisoned(cla, q, (n_seqs, seq_len, DIM))
        table.embed(q, ids, weights, out, start=4).wait()
        pe = ref.vaswani(np.tile(np.arange(4.0, 4.0 + seq_len), n_seqs), DIM)
        want = ref.embed(ids_host, np.asarray(wref, np.float64), 1.0, pe).reshape(out.shape)
        ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, f"{n_seqs}x{seq_len}")
        # The same arrays again, with explicit shapes: a smaller call passes,
        # a larger one than out holds is refused, and then the plain call works.
        out.fill(np.nan)
        table.embed(q, ids, weights, out, n_seqs=1, seq_len=seq_len, start=4).wait()
        got = out.get().reshape(-1, DIM)
        assert np.isfinite(got[:seq_len]).all() and np.isnan(got[seq_len:]).all()
        with pytest.raises(sinpe.SinpeError) as e:
            table.embed(q, ids, weights, out, n_seqs=n_seqs + 1, seq_len=seq_len)
        assert e.value.name == "BUFFER_TOO_SMALL"
        table.embed(q, ids, weights, out, start=4).wait()
        ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, "again")
    # An out too small is refused every time, not only the first.
    small = poisoned(cla, q, (1, DIM))
    for _ in range(2):
        with pytest.raises(sinpe.SinpeError) as e:
            table.embed(q, ids, w, small)
        assert e.value.name == "BUFFER_TOO_SMALL"
    assert np.isnan(small.get()).all()


def test_threads_share_a_table(cl_env, rng):
    """Four Python threads, each with its own queue, arrays and start, call
    one table in turn (the GIL is released inside every call)."""
    import threading

    cl, cla, ctx, q, sctx = cl_env
    table = sctx.table("fairseq", DIM, rows=64)
    w_host = rng.standard_normal((40, DIM)).astype(np.float32)
    w = cla.to_device(q, w_host)
    q.finish()
    jobs = []
    for k in range(4):
        tq = cl.CommandQueue(ctx)
        ids_host = rng.integers(0, 40, (k + 1, 5), dtype=np.int32)
        jobs.append((tq, ids_host, cla.to_device(tq, ids_host), poisoned(cla, tq, (k + 1, 5, DIM)),
                     10 * k))
    errors = []

    def work(tq, ids_host, ids, out, start):
        try:
            for _ in range(20):
                table.embed(tq, ids, w, out, start=start).wait()
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for tq, ids_host, ids, out, start in jobs:
        pe = ref.fairseq(np.tile(np.arange(start, start + 5.0), len(ids_host)), DIM)
        want = ref.embed(ids_host, w_host, 1.0, pe).reshape(out.shape)
        ref.assert_close(out.get(), want, ref.EMBED_TOL, ref.EMBED_TOL, f"thread start {start}")
