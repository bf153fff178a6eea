/*
 * tensor_zip.c — .npz files: a zip archive of .npy members, as np.savez
 * (stored) and np.savez_compressed (deflate) write them.
 *
 * Zip layout (PKWARE APPNOTE.TXT 6.3.x, sections 4.3 and 4.5):
 *   per member: local header (signature 0x04034b50, 30 bytes + name +
 *               extra), then the member's bytes (stored or raw deflate);
 *   central directory: one entry per member (0x02014b50, 46 bytes + name
 *               + extra + comment) with CRC-32, sizes and the local
 *               header's offset; this reader trusts the directory for
 *               sizes and checks the local header's name and method;
 *   end records: ZIP64 end of central directory (0x06064b50) and its
 *               locator (0x07064b50) when counts or offsets overflow the
 *               classic fields, then the classic end record (0x06054b50,
 *               22 bytes + comment).
 * ZIP64 extra field (id 0x0001): the 64-bit uncompressed size, compressed
 * size, local header offset and disk number, each present only when the
 * classic field holds its all-ones sentinel.  numpy opens every member
 * with force_zip64=True, so its local headers always carry one.
 *
 * Every size read from the file is checked against the bytes really there
 * before it is used; a deflated member may claim at most 1032 times its
 * compressed size (deflate's largest expansion), so no claim can make the
 * reader allocate more than about a thousand times the file's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tensor_impl.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define U32_ALL 0xFFFFFFFFu
#define U16_ALL 0xFFFFu

static int rdf(tensor_file *tf, uint64_t off, void *dst, size_t n, char *err,
               size_t errlen, const char *what)
{
    int io;
    if (tsrc_read(&tf->src, off, dst, n, &io) == 0)
        return 0;
    if (io)
        return terr(err, errlen, "%s: read error: %s", tf->name,
                    strerror(errno));
    return terr(err, errlen, "%s: truncated zip: %s at offset %llu needs %zu "
                "bytes, the file has %llu", tf->name, what,
                (unsigned long long)off, n, (unsigned long long)tf->src.size);
}

/* Apply a ZIP64 extra field (id 1) to the sentinel-valued fields. */
static int zip64_extra(const unsigned char *ex, size_t el, uint64_t *usize,
                       uint64_t *csize, uint64_t *off, int disk_sentinel,
                       const char *name, const char *member, char *err,
                       size_t errlen)
{
    int need_u = *usize == U32_ALL, need_c = *csize == U32_ALL,
        need_o = off && *off == U32_ALL;
    size_t p = 0;
    while (p + 4 <= el) {
        unsigned id = rd16(ex + p), sz = rd16(ex + p + 2);
        if (p + 4 + sz > el)
            return terr(err, errlen, "%s: member '%s': extra field 0x%04x "
                        "runs past the end of its record", name, member, id);
        if (id == 1) {
            const unsigned char *q = ex + p + 4;
            size_t k = 0, want = 8 * (size_t)(need_u + need_c + need_o) +
                                 (disk_sentinel ? 4 : 0);
            if (sz < want)
                return terr(err, errlen, "%s: member '%s': ZIP64 extra field "
                            "has %u bytes, the sentinel fields need %zu",
                            name, member, sz, want);
            if (need_u) { *usize = rd64(q + k); k += 8; }
            if (need_c) { *csize = rd64(q + k); k += 8; }
            if (need_o) { *off = rd64(q + k); k += 8; }
            return 0;
        }
        p += 4 + sz;
    }
    if (need_u || need_c || need_o)
        return terr(err, errlen, "%s: member '%s': sizes say ZIP64 (0xffffffff) "
                    "but there is no ZIP64 extra field", name, member);
    return 0;
}

static char *member_key(const char *zname)
{
    size_t n = strlen(zname);
    if (n > 4 && !strcmp(zname + n - 4, ".npy"))
        n -= 4;
    char *k = malloc(n + 1);
    if (k) {
        memcpy(k, zname, n);
        k[n] = 0;
    }
    return k;
}

const char *tzip_pytorch(const struct fl_tensor_file *tf)
{
    /* torch.save's zip format: ARCHIVE/data.pkl (the pickled object),
     * ARCHIVE/data/N (storages), ARCHIVE/version */
    for (size_t i = 0; i < tf->count; i++) {
        const char *z = tf->m[i].zname;
        const size_t n = strlen(z);
        if (!strcmp(z, "data.pkl") ||
            (n > 9 && !strcmp(z + n - 9, "/data.pkl")))
            return z;
    }
    return NULL;
}

int tzip_open(tensor_file *tf, char *err, size_t errlen)
{
    uint64_t size = tf->src.size;
    if (size < 22)
        return terr(err, errlen, "%s: truncated zip: %llu bytes, too short "
                    "for the 22-byte end-of-central-directory record",
                    tf->name, (unsigned long long)size);
    /* the end record is in the last 22 + 65535 (comment) bytes */
    size_t tail = size < 22 + 65535 ? (size_t)size : 22 + 65535;
    uint64_t tail_off = size - tail;
    unsigned char *tb = malloc(tail);
    if (!tb)
        return terr(err, errlen, "%s: out of memory", tf->name);
    if (rdf(tf, tail_off, tb, tail, err, errlen, "the end record")) {
        free(tb);
        return -1;
    }
    long pos = -1;
    for (long i = (long)tail - 22; i >= 0; i--)
        if (rd32(tb + i) == SIG_EOCD &&
            (uint64_t)i + 22 + rd16(tb + i + 20) == tail) {
            pos = i;
            break;
        }
    if (pos < 0) {
        free(tb);
        return terr(err, errlen, "%s: truncated or corrupt zip: no "
                    "end-of-central-directory record (signature PK\\5\\6) at "
                    "the end of the file", tf->name);
    }
    const unsigned char *e = tb + pos;
    uint64_t eocd = tail_off + (uint64_t)pos;
    unsigned disk = rd16(e + 4), cd_disk = rd16(e + 6);
    uint64_t n_this = rd16(e + 8), n_total = rd16(e + 10);
    uint64_t cd_size = rd32(e + 12), cd_off = rd32(e + 16);
    free(tb);
    uint64_t cd_end_limit = eocd;
    int z64 = 0;
    unsigned char loc[20];
    if (eocd >= 20 && tsrc_read(&tf->src, eocd - 20, loc, 20, NULL) == 0 &&
        rd32(loc) == SIG_LOC64) {
        uint64_t z = rd64(loc + 8);
        unsigned char r[56];
        if (rd32(loc + 16) > 1)
            return terr(err, errlen, "%s: a multi-disk zip (%u disks) is not "
                        "supported", tf->name, rd32(loc + 16));
        if (z > eocd - 20 || eocd - 20 - z < 56)
            return terr(err, errlen, "%s: ZIP64 locator points at offset %llu, "
                        "where no ZIP64 end record fits", tf->name,
                        (unsigned long long)z);
        if (rdf(tf, z, r, 56, err, errlen, "the ZIP64 end record"))
            return -1;
        if (rd32(r) != SIG_EOCD64)
            return terr(err, errlen, "%s: ZIP64 end record at offset %llu has "
                        "a bad signature 0x%08x", tf->name,
                        (unsigned long long)z, rd32(r));
        disk = rd32(r + 16);
        cd_disk = rd32(r + 20);
        n_this = rd64(r + 24);
        n_total = rd64(r + 32);
        cd_size = rd64(r + 40);
        cd_off = rd64(r + 48);
        cd_end_limit = z;
        z64 = 1;
    } else if (n_total == U16_ALL || cd_size == U32_ALL || cd_off == U32_ALL) {
        return terr(err, errlen, "%s: the end record says ZIP64 (all-ones "
                    "fields) but there is no ZIP64 locator before it",
                    tf->name);
    }
    if (disk != 0 || cd_disk != 0 || n_this != n_total)
        return terr(err, errlen, "%s: a multi-disk (split) zip is not "
                    "supported", tf->name);
    if (cd_off > cd_end_limit || cd_size > cd_end_limit - cd_off)
        return terr(err, errlen, "%s: central directory (offset %llu, %llu "
                    "bytes) runs past the %s end record at %llu: truncated or "
                    "corrupt", tf->name, (unsigned long long)cd_off,
                    (unsigned long long)cd_size, z64 ? "ZIP64" : "",
                    (unsigned long long)cd_end_limit);
    if (n_total > cd_size / 46)
        return terr(err, errlen, "%s: the end record claims %llu members, more "
                    "than the %llu-byte central directory can hold", tf->name,
                    (unsigned long long)n_total, (unsigned long long)cd_size);
    unsigned char *cd = malloc(cd_size ? (size_t)cd_size : 1);
    tf->m = calloc(n_total ? (size_t)n_total : 1, sizeof *tf->m);
    if (!cd || !tf->m) {
        free(cd);
        return terr(err, errlen, "%s: out of memory", tf->name);
    }
    if (rdf(tf, cd_off, cd, (size_t)cd_size, err, errlen,
            "the central directory")) {
        free(cd);
        return -1;
    }
    size_t p = 0;
    int r = 0;
    for (uint64_t i = 0; i < n_total && !r; i++) {
        if (cd_size - p < 46 || rd32(cd + p) != SIG_CENTRAL) {
            r = terr(err, errlen, "%s: central directory entry %llu (offset "
                     "%llu) is %s", tf->name, (unsigned long long)i,
                     (unsigned long long)(cd_off + p),
                     cd_size - p < 46 ? "cut short" : "missing its signature");
            break;
        }
        const unsigned char *c = cd + p;
        unsigned flags = rd16(c + 8), method = rd16(c + 10);
        size_t nl = rd16(c + 28), el = rd16(c + 30), cl = rd16(c + 32);
        if (cd_size - p - 46 < nl + el + cl) {
            r = terr(err, errlen, "%s: central directory entry %llu runs past "
                     "the directory's end", tf->name, (unsigned long long)i);
            break;
        }
        tmember *m = &tf->m[tf->count];
        m->zname = malloc(nl + 1);
        if (!m->zname) {
            r = terr(err, errlen, "%s: out of memory", tf->name);
            break;
        }
        memcpy(m->zname, c + 46, nl);
        m->zname[nl] = 0;
        m->key = NULL;
        tf->count++;
        if (memchr(c + 46, 0, nl) || nl == 0) {
            r = terr(err, errlen, "%s: central directory entry %llu has %s",
                     tf->name, (unsigned long long)i,
                     nl ? "a NUL byte in its name" : "an empty name");
            break;
        }
        if (!(m->key = member_key(m->zname))) {
            r = terr(err, errlen, "%s: out of memory", tf->name);
            break;
        }
        if (flags & 1) {
            r = terr(err, errlen, "%s: member '%s' is encrypted", tf->name,
                     m->key);
            break;
        }
        m->method = (int)method;
        m->crc = rd32(c + 16);
        m->csize = rd32(c + 20);
        m->usize = rd32(c + 24);
        m->local_off = rd32(c + 42);
        if (zip64_extra(c + 46 + nl, el, &m->usize, &m->csize, &m->local_off,
                        rd16(c + 34) == U16_ALL, tf->name, m->key, err, errlen)) {
            r = -1;
            break;
        }
        if (m->local_off > cd_off || cd_off - m->local_off < 30 ||
            m->csize > cd_off - m->local_off - 30) {
            r = terr(err, errlen, "%s: member '%s': local header at %llu and "
                     "%llu data bytes do not fit before the central directory "
                     "at %llu", tf->name, m->key,
                     (unsigned long long)m->local_off,
                     (unsigned long long)m->csize, (unsigned long long)cd_off);
            break;
        }
        for (size_t j = 0; j + 1 < tf->count; j++)
            if (!strcmp(tf->m[j].key, m->key)) {
                r = terr(err, errlen, "%s: two members named '%s'", tf->name,
                         m->zname);
                break;
            }
        p += 46 + nl + el + cl;
    }
    free(cd);
    return r;
}

/* CRC-32 of bytes [0, n) of a source, in chunks. */
static int crc_of(tsrc *s, uint64_t n, uint32_t *crc)
{
    unsigned char buf[1 << 16];
    uLong c = crc32(0, Z_NULL, 0);
    for (uint64_t o = 0; o < n;) {
        size_t k = n - o < sizeof buf ? (size_t)(n - o) : sizeof buf;
        if (tsrc_read(s, o, buf, k, NULL))
            return -1;
        c = crc32(c, buf, (uInt)k);
        o += k;
    }
    *crc = (uint32_t)c;
    return 0;
}

/* Inflate a raw deflate stream of csize bytes at src offset 0 into exactly
 * usize bytes. */
static int inflate_member(tsrc *s, const tmember *m, unsigned char *out,
                          const char *name, char *err, size_t errlen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK)
        return terr(err, errlen, "%s: zlib inflateInit2 failed", name);
    unsigned char in[1 << 16];
    uint64_t done_in = 0;
    uint64_t usize = m->usize;
    int zr, r = 0;
    z.next_out = out;
    uint64_t out_left = usize;
    unsigned char spare[1];
    for (;;) {
        if (z.avail_in == 0 && done_in < m->csize) {
            size_t k = m->csize - done_in < sizeof in
                           ? (size_t)(m->csize - done_in) : sizeof in;
            if (tsrc_read(s, done_in, in, k, NULL)) {
                r = terr(err, errlen, "%s: read error: %s", name,
                         strerror(errno));
                break;
            }
            done_in += k;
            z.next_in = in;
            z.avail_in = (uInt)k;
        }
        if (z.avail_out == 0) {
            if (out_left == 0) {
                /* room for one more byte tells "more data" from "done" */
                z.next_out = spare;
                z.avail_out = 1;
            } else {
                uInt k = out_left > (1u << 30) ? (1u << 30) : (uInt)out_left;
                z.avail_out = k;
                out_left -= k;
            }
        }
        zr = inflate(&z, Z_NO_FLUSH);
        if (z.next_out == spare + 1) {
            r = terr(err, errlen, "%s: inflates to more than the %llu bytes "
                     "the zip directory says", name,
                     (unsigned long long)usize);
            break;
        }
        if (zr == Z_STREAM_END)
            break;
        if (zr == Z_BUF_ERROR && z.avail_in == 0 && done_in == m->csize) {
            /* no progress and no input left */
            r = terr(err, errlen, "%s: the %llu compressed bytes end before "
                     "the deflate stream does (truncated member)", name,
                     (unsigned long long)m->csize);
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            r = terr(err, errlen, "%s: corrupt deflate data (zlib: %s)", name,
                     z.msg ? z.msg : zError(zr));
            break;
        }
    }
    if (!r) {
        uint64_t got = z.total_out;
        if (got != usize)
            r = terr(err, errlen, "%s: inflates to %llu bytes, the zip "
                     "directory says %llu", name, (unsigned long long)got,
                     (unsigned long long)usize);
        else if (z.avail_in != 0 || done_in != m->csize)
            r = terr(err, errlen, "%s: %llu bytes after the end of the "
                     "deflate stream", name,
                     (unsigned long long)(m->csize - done_in + z.avail_in));
    }
    inflateEnd(&z);
    return r;
}

int tzip_get(const tensor_file *tfc, const tmember *m, tensor *t, char *err,
             size_t errlen)
{
    tensor_file *tf = (tensor_file *)tfc;   /* reads move the file position */
    size_t nl0 = strlen(tf->name) + strlen(m->key) + 2;
    char *name = malloc(nl0);
    if (!name)
        return terr(err, errlen, "%s: out of memory", tf->name);
    snprintf(name, nl0, "%s:%s", tf->name, m->key);
    unsigned char lh[30];
    int r = 0;
    unsigned char *buf = NULL;
    if (rdf(tf, m->local_off, lh, 30, err, errlen, "a local header")) {
        r = -1;
        goto out;
    }
    if (rd32(lh) != SIG_LOCAL) {
        r = terr(err, errlen, "%s: the local header at offset %llu has a bad "
                 "signature 0x%08x", name, (unsigned long long)m->local_off,
                 rd32(lh));
        goto out;
    }
    size_t nl = rd16(lh + 26), el = rd16(lh + 28);
    uint64_t data = m->local_off + 30 + nl + el;
    if (nl != strlen(m->zname)) {
        r = terr(err, errlen, "%s: the local header's name differs from the "
                 "central directory's", name);
        goto out;
    }
    char lname[65536];
    if (rdf(tf, m->local_off + 30, lname, nl, err, errlen, "a member name")) {
        r = -1;
        goto out;
    }
    if (memcmp(lname, m->zname, nl)) {
        r = terr(err, errlen, "%s: the local header's name differs from the "
                 "central directory's", name);
        goto out;
    }
    if (rd16(lh + 8) != (unsigned)m->method) {
        r = terr(err, errlen, "%s: local header says compression method %u, "
                 "the central directory %d", name, rd16(lh + 8), m->method);
        goto out;
    }
    if (data > tf->src.size || m->csize > tf->src.size - data) {
        r = terr(err, errlen, "%s: truncated: %llu data bytes at offset %llu "
                 "run past the end of the file (%llu bytes)", name,
                 (unsigned long long)m->csize, (unsigned long long)data,
                 (unsigned long long)tf->src.size);
        goto out;
    }
    tsrc view = tf->src;
    view.base = tf->src.base + data;
    view.size = m->csize;
    if (m->method == 0) {
        if (m->csize != m->usize) {
            r = terr(err, errlen, "%s: stored member with compressed size %llu "
                     "but uncompressed size %llu", name,
                     (unsigned long long)m->csize, (unsigned long long)m->usize);
            goto out;
        }
        view.crc_on = 1;
        view.crc = (uint32_t)crc32(0, Z_NULL, 0);
        tensor_npy_info h;
        r = tnpy_info(&view, name, &h, err, errlen);
        if (!r)
            r = tnpy_load(&view, name, &h, t, err, errlen);
        if (r) {
            /* a damaged member: the CRC says so, whatever the parser saw */
            char first[512];
            uint32_t c;
            view.crc_on = 0;
            snprintf(first, sizeof first, "%s", err);
            if (crc_of(&view, view.size, &c) == 0 && c != m->crc)
                terr(err, errlen, "%s: CRC mismatch: stored 0x%08x, computed "
                     "0x%08x (and: %s)", name, m->crc, c, first);
            goto out;
        }
        if (view.crc_broken || view.crc_pos != m->usize) {
            /* not read in one sweep: checksum the member again */
            view.crc_on = 0;
            if (crc_of(&view, view.size, &view.crc)) {
                r = terr(err, errlen, "%s: read error", name);
                goto out;
            }
        }
        if (view.crc != m->crc) {
            r = terr(err, errlen, "%s: CRC mismatch: stored 0x%08x, computed "
                     "0x%08x (the member is corrupt)", name, m->crc, view.crc);
            goto out;
        }
    } else if (m->method == 8) {
        /* deflate expands at most 1032:1 (zlib's technical notes) */
        if (m->usize / 1032 > m->csize + 64) {
            r = terr(err, errlen, "%s: claims %llu bytes uncompressed from %llu "
                     "compressed: more than deflate can expand to", name,
                     (unsigned long long)m->usize,
                     (unsigned long long)m->csize);
            goto out;
        }
        if (m->usize > SIZE_MAX - 1 ||
            !(buf = malloc(m->usize ? (size_t)m->usize : 1))) {
            r = terr(err, errlen, "%s: out of memory for %llu bytes", name,
                     (unsigned long long)m->usize);
            goto out;
        }
        if ((r = inflate_member(&view, m, buf, name, err, errlen)))
            goto out;
        uint32_t c = (uint32_t)crc32(0, Z_NULL, 0);
        for (uint64_t o = 0; o < m->usize;) {
            uInt k = m->usize - o > (1u << 30) ? (1u << 30) : (uInt)(m->usize - o);
            c = (uint32_t)crc32(c, buf + o, k);
            o += k;
        }
        if (c != m->crc) {
            r = terr(err, errlen, "%s: CRC mismatch: stored 0x%08x, computed "
                     "0x%08x (the member is corrupt)", name, m->crc, c);
            goto out;
        }
        tsrc ms = {0};
        ms.mem = buf;
        ms.size = m->usize;
        tensor_npy_info h;
        r = tnpy_info(&ms, name, &h, err, errlen);
        if (!r)
            r = tnpy_load(&ms, name, &h, t, err, errlen);
    } else {
        r = terr(err, errlen, "%s: compression method %d is not supported "
                 "(numpy writes 0, stored, and 8, deflate)", name, m->method);
    }
out:
    free(buf);
    if (!r) {
        t->source = name;
        return 0;
    }
    free(name);
    return -1;
}

/* ---------------------------------------------------------------------
 * Writing (np.savez / np.savez_compressed layout).
 * ------------------------------------------------------------------- */

typedef struct zentry {
    uint64_t off, csize, usize;
    uint32_t crc;
    int method;
    int z64local;
} zentry;

/* DOS date of 1980-01-01, time 00:00: a fixed stamp, so the same tensors
 * give the same bytes. */
#define DOS_DATE 0x0021
#define DOS_TIME 0x0000

static int put(FILE *fp, const void *b, size_t n)
{
    return n && fwrite(b, 1, n, fp) != n ? -1 : 0;
}

static int write_local(FILE *fp, const char *zname, const zentry *z)
{
    unsigned char h[30 + 20];
    size_t nl = strlen(zname);
    wr32(h, SIG_LOCAL);
    wr16(h + 4, z->z64local ? 45 : 20);
    wr16(h + 6, 0);
    wr16(h + 8, (uint32_t)z->method);
    wr16(h + 10, DOS_TIME);
    wr16(h + 12, DOS_DATE);
    wr32(h + 14, z->crc);
    wr32(h + 18, z->z64local ? U32_ALL : (uint32_t)z->csize);
    wr32(h + 22, z->z64local ? U32_ALL : (uint32_t)z->usize);
    wr16(h + 26, (uint32_t)nl);
    wr16(h + 28, z->z64local ? 20 : 0);
    if (put(fp, h, 30) || put(fp, zname, nl))
        return -1;
    if (z->z64local) {
        unsigned char x[20];
        wr16(x, 1);
        wr16(x + 2, 16);
        wr64(x + 4, z->usize);
        wr64(x + 12, z->csize);
        return put(fp, x, 20);
    }
    return 0;
}

/* Stream bytes into the member: stored as they are, or through deflate. */
typedef struct zsink {
    FILE *fp;
    z_stream z;
    int deflate;
    uLong crc;
    uint64_t in, out;
    unsigned char buf[1 << 16];
} zsink;

static int sink_write(zsink *s, const unsigned char *p, size_t n, int finish)
{
    s->in += n;
    for (size_t o = 0; o < n;) {
        uInt k = n - o > (1u << 30) ? (1u << 30) : (uInt)(n - o);
        s->crc = crc32(s->crc, p + o, k);
        o += k;
    }
    if (!s->deflate) {
        s->out += n;
        return put(s->fp, p, n);
    }
    size_t o = 0;
    do {
        uInt k = n - o > (1u << 30) ? (1u << 30) : (uInt)(n - o);
        s->z.next_in = (unsigned char *)p + o;
        s->z.avail_in = k;
        o += k;
        int last = finish && o == n;
        int zr;
        do {
            s->z.next_out = s->buf;
            s->z.avail_out = sizeof s->buf;
            zr = deflate(&s->z, last ? Z_FINISH : Z_NO_FLUSH);
            if (zr == Z_STREAM_ERROR)
                return -1;
            size_t got = sizeof s->buf - s->z.avail_out;
            s->out += got;
            if (put(s->fp, s->buf, got))
                return -1;
        } while (s->z.avail_out == 0 || (last && zr != Z_STREAM_END));
    } while (o < n);
    return 0;
}

int tzip_write(FILE *fp, const tensor *const *ts, const char *const *keys,
               size_t count, int flags, const char *path, char *err,
               size_t errlen)
{
    int force64 = (flags & TENSOR_WRITE_ZIP64) != 0;
    int method = (flags & TENSOR_WRITE_DEFLATE) ? 8 : 0;
    zentry *z = calloc(count ? count : 1, sizeof *z);
    char **names = calloc(count ? count : 1, sizeof *names);
    zsink *s = malloc(sizeof *s);
    int r = 0;
    if (!z || !names || !s) {
        r = terr(err, errlen, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < count && !r; i++) {
        size_t kl = strlen(keys[i]);
        if (kl > 65535 - 4) {
            r = terr(err, errlen, "%s: key '%.40s...' is too long for a zip "
                     "member name", path, keys[i]);
            break;
        }
        names[i] = malloc(kl + 5);
        if (!names[i]) {
            r = terr(err, errlen, "%s: out of memory", path);
            break;
        }
        snprintf(names[i], kl + 5, "%s.npy", keys[i]);
        unsigned char *h;
        size_t hl;
        if (tnpy_header(ts[i], &h, &hl)) {
            r = terr(err, errlen, "%s: out of memory", path);
            break;
        }
        size_t db = ts[i]->n * tensor_dtype_size(ts[i]->dtype);
        off_t pos = ftello(fp);
        z[i].off = (uint64_t)pos;
        z[i].usize = hl + db;
        z[i].method = method;
        /* deflate may grow incompressible data by 5 bytes per 16 KiB block */
        z[i].z64local = force64 || z[i].usize + z[i].usize / 1024 + 1024 >= U32_ALL;
        memset(s, 0, sizeof *s);
        s->fp = fp;
        s->deflate = method == 8;
        s->crc = crc32(0, Z_NULL, 0);
        if (pos < 0 || write_local(fp, names[i], &z[i]) ||
            (s->deflate && deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                                        -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)) {
            free(h);
            r = terr(err, errlen, "%s: write error: %s", path,
                     strerror(errno ? errno : EIO));
            break;
        }
        int bad = sink_write(s, h, hl, db == 0) ||
                  (db && sink_write(s, ts[i]->data, db, 1));
        free(h);
        if (s->deflate)
            deflateEnd(&s->z);
        if (bad) {
            r = terr(err, errlen, "%s: write error: %s", path,
                     strerror(errno ? errno : EIO));
            break;
        }
        z[i].crc = (uint32_t)s->crc;
        z[i].csize = s->out;
        if (!z[i].z64local && z[i].csize >= U32_ALL) {
            r = terr(err, errlen, "%s: member '%s' grew past 4 GiB when "
                     "compressed", path, keys[i]);
            break;
        }
        off_t end = ftello(fp);
        if (end < 0 || fseeko(fp, (off_t)z[i].off, SEEK_SET) ||
            write_local(fp, names[i], &z[i]) || fseeko(fp, end, SEEK_SET)) {
            r = terr(err, errlen, "%s: write error: %s", path,
                     strerror(errno ? errno : EIO));
            break;
        }
    }
    if (r)
        goto out;
    off_t cdpos = ftello(fp);
    if (cdpos < 0) {
        r = terr(err, errlen, "%s: ftell failed: %s", path, strerror(errno));
        goto out;
    }
    uint64_t cd_off = (uint64_t)cdpos, cd_size = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned char c[46], x[28];
        size_t nl = strlen(names[i]), xl = 0;
        int bu = force64 || z[i].usize >= U32_ALL,
            bc = force64 || z[i].csize >= U32_ALL,
            bo = force64 || z[i].off >= U32_ALL;
        if (bu || bc || bo) {
            xl = 4;
            if (bu) { wr64(x + xl, z[i].usize); xl += 8; }
            if (bc) { wr64(x + xl, z[i].csize); xl += 8; }
            if (bo) { wr64(x + xl, z[i].off); xl += 8; }
            wr16(x, 1);
            wr16(x + 2, (uint32_t)(xl - 4));
        }
        int need = xl ? 45 : 20;
        wr32(c, SIG_CENTRAL);
        wr16(c + 4, (3u << 8) | (uint32_t)need);   /* made by: UNIX */
        wr16(c + 6, (uint32_t)need);
        wr16(c + 8, 0);
        wr16(c + 10, (uint32_t)z[i].method);
        wr16(c + 12, DOS_TIME);
        wr16(c + 14, DOS_DATE);
        wr32(c + 16, z[i].crc);
        wr32(c + 20, bc ? U32_ALL : (uint32_t)z[i].csize);
        wr32(c + 24, bu ? U32_ALL : (uint32_t)z[i].usize);
        wr16(c + 28, (uint32_t)nl);
        wr16(c + 30, (uint32_t)xl);
        wr16(c + 32, 0);
        wr16(c + 34, 0);
        wr16(c + 36, 0);
        wr32(c + 38, 0600u << 16);   /* -rw------- as Python's zipfile */
        wr32(c + 42, bo ? U32_ALL : (uint32_t)z[i].off);
        if (put(fp, c, 46) || put(fp, names[i], nl) || put(fp, x, xl)) {
            r = terr(err, errlen, "%s: write error: %s", path,
                     strerror(errno ? errno : EIO));
            goto out;
        }
        cd_size += 46 + nl + xl;
    }
    int e64 = force64 || count >= U16_ALL || cd_off >= U32_ALL ||
              cd_size >= U32_ALL;
    if (e64) {
        unsigned char a[56], l[20];
        uint64_t z64pos = cd_off + cd_size;
        wr32(a, SIG_EOCD64);
        wr64(a + 4, 44);
        wr16(a + 12, (3u << 8) | 45);
        wr16(a + 14, 45);
        wr32(a + 16, 0);
        wr32(a + 20, 0);
        wr64(a + 24, count);
        wr64(a + 32, count);
        wr64(a + 40, cd_size);
        wr64(a + 48, cd_off);
        wr32(l, SIG_LOC64);
        wr32(l + 4, 0);
        wr64(l + 8, z64pos);
        wr32(l + 16, 1);
        if (put(fp, a, 56) || put(fp, l, 20)) {
            r = terr(err, errlen, "%s: write error", path);
            goto out;
        }
    }
    unsigned char e[22];
    wr32(e, SIG_EOCD);
    wr16(e + 4, 0);
    wr16(e + 6, 0);
    wr16(e + 8, e64 ? U16_ALL : (uint32_t)count);
    wr16(e + 10, e64 ? U16_ALL : (uint32_t)count);
    wr32(e + 12, e64 ? U32_ALL : (uint32_t)cd_size);
    wr32(e + 16, e64 ? U32_ALL : (uint32_t)cd_off);
    wr16(e + 20, 0);
    if (put(fp, e, 22))
        r = terr(err, errlen, "%s: write error", path);
out:
    if (names)
        for (size_t i = 0; i < count; i++)
            free(names[i]);
    free(names);
    free(z);
    free(s);
    return r;
}
