/* store_chunks.c: reading many rows of a compressed dataset by decoding its
 * chunks here, on every thread, instead of through H5Dread.
 *
 * H5Dread decodes a chunk on the calling thread only, and converts each row
 * from the packed file layout to the struct's (H5T's compound conversion,
 * member by member through a conversion buffer).  For `tavreli tune`, which
 * reads every /positions row before it resolves them, that read was a
 * serial fifth of the wall clock on 2 threads: on the quick store (17,058
 * positions, 3.6 MB of rows, 0.67 MB compressed) H5Dread of /positions took
 * 29 ms, of which the conversion 10 ms and zlib's inflate 14 ms.  Here the
 * raw chunks are fetched with H5Dread_chunk (HDF5 calls stay on the calling
 * thread), then each thread inflates chunks with libdeflate (3.2 ms for the
 * same rows on one thread) and undoes the shuffle filter straight into the
 * struct layout (one pass, the bytes of members the caller did not ask for
 * never touched).  docs/tuning.md has the timings.
 *
 * Only the layouts this program writes are decoded: a chunked 1-D dataset
 * whose filters are shuffle (of the row's size) and deflate, in that order
 * (either may be absent), a compound file type each of whose members the
 * memory type asks for has the same HDF5 type in the file.  Anything else,
 * and a chunk that cannot be fetched (one never written: its rows are fill
 * values), reads the rows with H5Dread as before.  A chunk this decoder
 * finds damaged is an error of the store, never handed on to H5Dread: one
 * stored larger than the file or than deflate can make of a chunk (an
 * edited chunk index: H5Dread allocated its 2 GB), or one that does not
 * inflate to a whole chunk (one row short: H5Dread read past its buffer).
 * The error is pushed on HDF5's error stack, where the caller's message
 * (store_h5_fail) finds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <omp.h>

#include "store_internal.h"

#define MAX_FILTERS 2

/* How the chunks of a dataset are decoded into rows of a memory type. */
typedef struct {
    hsize_t chunk;             /* rows per chunk */
    size_t fsize, msize;       /* bytes of a row in the file and in memory */
    int nfilters;              /* filters in the order they were applied on writing */
    bool shuffle[MAX_FILTERS]; /* else deflate */
    /* the members the memory type takes: run_len bytes at run_from of a
     * file row go to run_to of the memory row */
    int nruns;
    uint32_t *run_from, *run_to, *run_len;
} ChunkPlan;

static void plan_free(ChunkPlan *p)
{
    free(p->run_from);
    free(p->run_to);
    free(p->run_len);
}

/* The member runs of memory type mt in file type ft; false when a
 * member of mt is not in ft with the same HDF5 type. */
static bool plan_members(ChunkPlan *p, hid_t ft, hid_t mt)
{
    int nm = H5Tget_nmembers(mt);
    if (nm <= 0)
        return false;
    p->run_from = malloc(sizeof *p->run_from * (size_t)nm);
    p->run_to = malloc(sizeof *p->run_to * (size_t)nm);
    p->run_len = malloc(sizeof *p->run_len * (size_t)nm);
    if (!p->run_from || !p->run_to || !p->run_len)
        return false;
    bool ok = true;
    for (int i = 0; ok && i < nm; i++) {
        char *name = H5Tget_member_name(mt, (unsigned)i);
        int j = name ? H5Tget_member_index(ft, name) : -1;
        H5free_memory(name);
        hid_t a = H5Tget_member_type(mt, (unsigned)i);
        hid_t b = j >= 0 ? H5Tget_member_type(ft, (unsigned)j) : H5I_INVALID_HID;
        size_t len = a >= 0 ? H5Tget_size(a) : 0;
        size_t mo = H5Tget_member_offset(mt, (unsigned)i);
        size_t fo = j >= 0 ? H5Tget_member_offset(ft, (unsigned)j) : 0;
        ok = j >= 0 && a >= 0 && b >= 0 && H5Tequal(a, b) > 0 && len > 0 && fo + len <= p->fsize &&
             mo + len <= p->msize;
        if (ok) {
            p->run_from[p->nruns] = (uint32_t)fo;
            p->run_to[p->nruns] = (uint32_t)mo;
            p->run_len[p->nruns++] = (uint32_t)len;
        }
        if (a >= 0)
            H5Tclose(a);
        if (b >= 0)
            H5Tclose(b);
    }
    return ok;
}

/* Whether the chunks of ds can be decoded here into rows of mt (a plan
 * made), false to read with H5Dread. */
static bool plan_make(hid_t ds, hid_t mt, ChunkPlan *p)
{
    memset(p, 0, sizeof *p);
    hid_t dcpl = H5Dget_create_plist(ds), ft = H5Dget_type(ds);
    bool ok = dcpl >= 0 && ft >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &p->chunk) == 1 &&
              p->chunk > 0 && H5Tget_class(ft) == H5T_COMPOUND && H5Tget_class(mt) == H5T_COMPOUND;
    if (ok) {
        p->fsize = H5Tget_size(ft);
        p->msize = H5Tget_size(mt);
        int nf = H5Pget_nfilters(dcpl);
        ok = p->fsize > 0 && p->msize > 0 && nf >= 0 && nf <= MAX_FILTERS;
        for (int i = 0; ok && i < nf; i++) {
            unsigned flags, cd[8];
            size_t ncd = 8;
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
            if (id == H5Z_FILTER_SHUFFLE)
                ok = i == 0 && ncd >= 1 && cd[0] == p->fsize; /* shuffled rows, before any deflate */
            else
                ok = id == H5Z_FILTER_DEFLATE;
            p->shuffle[i] = id == H5Z_FILTER_SHUFFLE;
        }
        p->nfilters = nf;
    }
    ok = ok && plan_members(p, ft, mt);
    if (ft >= 0)
        H5Tclose(ft);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (!ok)
        plan_free(p);
    return ok;
}

#if defined(__SSE2__)
/* Eight bytes of each of eight byte planes (src[q * stride], q = 0..7: byte
 * q of eight rows) written as eight bytes of each of eight rows (dst[r *
 * pitch], r = 0..7): an 8 x 8 byte transpose. */
static inline void transpose8(const uint8_t *src, size_t stride, uint8_t *dst, size_t pitch)
{
    __m128i a[8];
    for (int q = 0; q < 8; q++)
        a[q] = _mm_loadl_epi64((const __m128i *)(src + (size_t)q * stride));
    __m128i x0 = _mm_unpacklo_epi8(a[0], a[1]), x1 = _mm_unpacklo_epi8(a[2], a[3]);
    __m128i x2 = _mm_unpacklo_epi8(a[4], a[5]), x3 = _mm_unpacklo_epi8(a[6], a[7]);
    __m128i y0 = _mm_unpacklo_epi16(x0, x1), y1 = _mm_unpackhi_epi16(x0, x1);
    __m128i y2 = _mm_unpacklo_epi16(x2, x3), y3 = _mm_unpackhi_epi16(x2, x3);
    __m128i z[4] = {_mm_unpacklo_epi32(y0, y2), _mm_unpackhi_epi32(y0, y2), _mm_unpacklo_epi32(y1, y3),
                    _mm_unpackhi_epi32(y1, y3)};
    for (int r = 0; r < 4; r++) {
        _mm_storel_epi64((__m128i *)(dst + (size_t)(2 * r) * pitch), z[r]);
        _mm_storel_epi64((__m128i *)(dst + (size_t)(2 * r + 1) * pitch), _mm_srli_si128(z[r], 8));
    }
}
#endif

/* Rows [r0, r1) of a shuffled chunk (byte j of row i at data[j * chunk +
 * i]) into out (row r0 first), the plan's bytes only.  Blocks of 64 rows
 * keep the rows written to (64 x row size) in the first-level cache; eight
 * bytes of a member by eight rows go at once (transpose8), which took this
 * function from 5.7 ms to 2.8 ms of a read of the quick store on one thread
 * (perf's samples over 50 reads); byte by byte does the rest. */
static void unshuffle_rows(const ChunkPlan *p, const uint8_t *data, hsize_t r0, hsize_t r1, uint8_t *out)
{
    for (hsize_t i0 = r0; i0 < r1; i0 += 64) {
        const hsize_t i1 = i0 + 64 < r1 ? i0 + 64 : r1;
        for (int r = 0; r < p->nruns; r++) {
            uint32_t b = 0;
#if defined(__SSE2__)
            const hsize_t i8 = i0 + ((i1 - i0) & ~(hsize_t)7);
            for (; b + 8 <= p->run_len[r]; b += 8) {
                const uint8_t *s = data + (size_t)(p->run_from[r] + b) * p->chunk;
                uint8_t *d = out + (size_t)(i0 - r0) * p->msize + p->run_to[r] + b;
                hsize_t i = i0;
                for (; i < i8; i += 8, d += 8 * p->msize)
                    transpose8(s + i, p->chunk, d, p->msize);
                for (; i < i1; i++, d += p->msize)
                    for (int q = 0; q < 8; q++)
                        d[q] = s[(size_t)q * p->chunk + i];
            }
#endif
            for (; b < p->run_len[r]; b++) {
                const uint8_t *s = data + (size_t)(p->run_from[r] + b) * p->chunk;
                uint8_t *d = out + (size_t)(i0 - r0) * p->msize + p->run_to[r] + b;
                for (hsize_t i = i0; i < i1; i++, d += p->msize)
                    *d = s[i];
            }
        }
    }
}

/* Rows [r0, r1) of a chunk stored row by row into out. */
static void copy_rows(const ChunkPlan *p, const uint8_t *data, hsize_t r0, hsize_t r1, uint8_t *out)
{
    for (hsize_t i = r0; i < r1; i++) {
        const uint8_t *s = data + (size_t)i * p->fsize;
        uint8_t *d = out + (size_t)(i - r0) * p->msize;
        for (int r = 0; r < p->nruns; r++)
            memcpy(d + p->run_to[r], s + p->run_from[r], p->run_len[r]);
    }
}

/* Pushes "damaged chunk at row R of DATASET: WHY" on HDF5's error stack
 * (from the calling thread; HDF5 keeps a stack per thread). */
static void push_damaged(hid_t ds, hsize_t row, const char *why)
{
    char name[64] = "";
    if (H5Iget_name(ds, name, sizeof name) <= 0)
        snprintf(name, sizeof name, "a dataset");
    H5Eclear2(H5E_DEFAULT);
    H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_DATASET, H5E_READERROR,
             "damaged chunk at row %llu of %s: %s; the store is damaged", (unsigned long long)row, name, why);
}

/* The most a chunk of `whole` bytes takes on disk through these filters:
 * deflate's stored blocks (5 bytes a block of at most 65,535) and zlib's 6
 * bytes of header and check, or the chunk itself without deflate. */
static size_t stored_bound(const ChunkPlan *p, size_t whole)
{
    for (int f = 0; f < p->nfilters; f++)
        if (!p->shuffle[f])
            return whole + 5 * (whole / 65535 + 1) + 6;
    return whole;
}

/* Decodes one raw chunk (filters applied but those masked) and writes its
 * rows [r0, r1) to out; false when it does not decode to a whole chunk
 * (*why says how). */
static bool decode_chunk(const ChunkPlan *p, struct libdeflate_decompressor *z, const uint8_t *raw, size_t len,
                         uint32_t mask, uint8_t *scratch, hsize_t r0, hsize_t r1, uint8_t *out, char *why,
                         size_t nwhy)
{
    const size_t whole = (size_t)p->chunk * p->fsize;
    const uint8_t *data = raw;
    bool shuffled = false;
    for (int f = p->nfilters - 1; f >= 0; f--) {
        if (mask & (1u << f))
            continue; /* the filter was not applied to this chunk */
        if (p->shuffle[f])
            shuffled = true;
        else {
            size_t got = 0;
            enum libdeflate_result r = libdeflate_zlib_decompress(z, data, len, scratch, whole, &got);
            if (r != LIBDEFLATE_SUCCESS) {
                snprintf(why, nwhy, "%s", r == LIBDEFLATE_INSUFFICIENT_SPACE ? "it inflates to more than a chunk"
                                                                               : "its deflate stream is bad");
                return false;
            }
            data = scratch;
            len = got;
        }
    }
    if (len != whole) {
        snprintf(why, nwhy, "it holds %zu bytes, not the %zu of a chunk (%llu rows of %zu bytes)", len, whole,
                 (unsigned long long)p->chunk, p->fsize);
        return false;
    }
    if (shuffled)
        unshuffle_rows(p, data, r0, r1, out);
    else
        copy_rows(p, data, r0, r1, out);
    return true;
}

bool store_read_rows_decoded(hid_t ds, hid_t memtype, int64_t start, int64_t n, void *buf)
{
    if (n <= 0)
        return true;
    ChunkPlan p;
    int64_t rows = store_dataset_rows(ds);
    if (rows < 0 || start < 0 || start + n > rows || !plan_make(ds, memtype, &p))
        return store_read_rows(ds, memtype, start, n, buf);
    const hsize_t c0 = (hsize_t)start / p.chunk, c1 = (hsize_t)(start + n - 1) / p.chunk;
    const int64_t nc = (int64_t)(c1 - c0 + 1);
    uint8_t **raw = calloc((size_t)nc, sizeof *raw);
    size_t *len = calloc((size_t)nc, sizeof *len);
    uint32_t *mask = calloc((size_t)nc, sizeof *mask);
    bool ok = raw && len && mask, damaged = false;
    /* the raw chunks, on this thread (HDF5 is called from one thread);
     * none is taken larger than the file or than a chunk can be stored */
    hid_t file = H5Iget_file_id(ds);
    hsize_t file_size = 0;
    if (file < 0 || H5Fget_filesize(file, &file_size) < 0)
        file_size = 0;
    if (file >= 0)
        H5Fclose(file);
    const size_t bound = stored_bound(&p, (size_t)p.chunk * p.fsize);
    for (int64_t c = 0; ok && c < nc; c++) {
        hsize_t off = (c0 + (hsize_t)c) * p.chunk, size = 0;
        ok = H5Dget_chunk_storage_size(ds, &off, &size) >= 0 && size > 0;
        if (ok && (size > bound || (file_size > 0 && size > file_size))) {
            char why[160];
            snprintf(why, sizeof why, "its index says %llu bytes, more than %s (%llu)", (unsigned long long)size,
                     size > bound ? "a chunk can take" : "the file holds",
                     (unsigned long long)(size > bound ? bound : file_size));
            push_damaged(ds, off, why);
            ok = false;
            damaged = true;
            break;
        }
        ok = ok && (raw[c] = malloc(size)) && H5Dread_chunk(ds, H5P_DEFAULT, &off, &mask[c], raw[c]) >= 0;
        len[c] = (size_t)size;
    }
    int64_t bad_chunk = -1; /* the first chunk found damaged */
    char bad_why[160] = "";
    if (ok) {
        int bad = 0;
#pragma omp parallel if (nc > 1) reduction(| : bad)
        {
            struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
            uint8_t *scratch = malloc((size_t)p.chunk * p.fsize);
            if (!z || !scratch)
                bad = 1;
#pragma omp for schedule(dynamic, 1)
            for (int64_t c = 0; c < nc; c++) {
                if (bad)
                    continue;
                const hsize_t first = (c0 + (hsize_t)c) * p.chunk;
                const hsize_t lo = (hsize_t)start > first ? (hsize_t)start - first : 0;
                const hsize_t end = (hsize_t)(start + n) - first, hi = end < p.chunk ? end : p.chunk;
                uint8_t *out = (uint8_t *)buf + (size_t)(first + lo - (hsize_t)start) * p.msize;
                char why[160];
                if (!decode_chunk(&p, z, raw[c], len[c], mask[c], scratch, lo, hi, out, why, sizeof why)) {
                    bad = 1;
#pragma omp critical(bad_chunk)
                    if (bad_chunk < 0 || c < bad_chunk) {
                        bad_chunk = c;
                        snprintf(bad_why, sizeof bad_why, "%s", why);
                    }
                }
            }
            free(scratch);
            if (z)
                libdeflate_free_decompressor(z);
        }
        ok = !bad;
        if (bad_chunk >= 0) {
            push_damaged(ds, (c0 + (hsize_t)bad_chunk) * p.chunk, bad_why);
            damaged = true;
        }
    }
    for (int64_t c = 0; raw && c < nc; c++)
        free(raw[c]);
    free(raw);
    free(len);
    free(mask);
    plan_free(&p);
    if (damaged) /* an error of the store, never handed on to H5Dread */
        return false;
    if (!ok) /* H5Dread reads what it can, or says what is wrong */
        return store_read_rows(ds, memtype, start, n, buf);
    return true;
}

bool store_rows_decodable(hid_t ds, hid_t memtype)
{
    ChunkPlan p;
    if (!plan_make(ds, memtype, &p))
        return false;
    plan_free(&p);
    return true;
}
