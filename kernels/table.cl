/*
 * table.cl -- fills rows [row0, row0 + nrows) of the encoding table.
 * One work-item per element: global size (dim, nrows) rounded up to the
 * work-group size, hence the guard.
 */
kernel void sinpe_table_fill(global float *restrict table, uint dim, int row0, uint nrows,
                             global const float8 *restrict desc)
{
    size_t c = get_global_id(0);
    size_t r = get_global_id(1);
    if (c >= dim || r >= nrows)
        return;
    int p = row0 + (int)r;
    table[(size_t)p * dim + c] = sinpe_pe(p, desc[c]);
}
