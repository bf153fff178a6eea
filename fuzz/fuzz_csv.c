/*
 * fuzz_csv.c — the labelled CSV reader of the training lab
 * (amp_dataset_parse_csv on an in-memory text).
 *
 * Input: byte 0 picks the label column (first/last) and the feature scale
 * (0 = by the maximum, 1, 16, 255); the rest is the CSV text.
 * Properties: no crash, no sanitizer report, no leak; on success every
 * label is in 0..classes-1, classes <= 1024, n * dim features are there
 * and finite; on failure the message starts with the file name.
 */
#include <math.h>

#include "fuzz_common.h"
#include "amp_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double scales[4] = {0, 1, 16, 255};
    fz_in in = {data, size};
    unsigned opt = fz_u8(&in);
    int label_pos = (opt & 1) ? AMP_LABEL_FIRST : AMP_LABEL_LAST;
    double scale = scales[(opt >> 1) & 3];
    amp_dataset d;
    char err[512] = "";
    memset(&d, 0, sizeof d);
    if (amp_dataset_parse_csv(&d, "fuzz.csv", (const char *)in.p, in.n,
                              label_pos, scale, err, sizeof err) != 0) {
        if (strncmp(err, "fuzz.csv", 8) != 0)
            FZ_FAIL("csv error message does not name the file: '%s'", err);
        amp_dataset_free(&d);
        return 0;
    }
    if (d.classes < 1 || d.classes > 1024)
        FZ_FAIL("csv: %d classes", d.classes);
    for (size_t i = 0; i < d.n; i++)
        if (d.y[i] < 0 || d.y[i] >= d.classes)
            FZ_FAIL("csv: row %zu label %d of %d classes", i, d.y[i],
                    d.classes);
    for (size_t i = 0; i < d.n * d.dim; i++)
        if (!isfinite(d.x[i]))
            FZ_FAIL("csv: feature %zu is not finite (%g)", i, d.x[i]);
    amp_dataset_free(&d);
    return 0;
}
