/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the tuning-file reader (mj__tuning_parse), and the round trip through the
 * writer: whatever parses, written with mj__tuning_write and read back, gives the same entries
 * (gkeys as the writer's two decimals give it back). */
#include "fuzz_util.h"

#include "store/tuning_file.h"
#include "store/tuning_parse.h"
#include "store/tuning_write.h"

#include <math.h>

/* gkeys as a file written with "%.2f" gives it back. */
static double two_decimals(double v)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.2f", v);
    return strtod(buf, NULL);
}

static void check_same(const mj_tuning *a, const mj_tuning *b, const char *msg)
{
    FUZZ_CHECK(a->count == b->count, "%zu entries parsed, %zu read back", a->count, b->count);
    for (size_t i = 0; i < a->count; i++) {
        const mj_tuning_entry *e = &a->entries[i];
        const mj_tuning_entry *f =
            mj__tuning_find(b, e->device, e->sm, e->primitive, e->key_size, e->value_size);
        FUZZ_CHECK(f != NULL, "entry %zu (%s sm %d) missing after the round trip (%s)", i,
                   e->device, e->sm, msg);
        FUZZ_CHECK(strcmp(e->device, f->device) == 0 && e->nt == f->nt && e->vt == f->vt &&
                       e->bs_nt == f->bs_nt,
                   "entry %zu changed in the round trip", i);
        FUZZ_CHECK(two_decimals(e->gkeys) == f->gkeys, "entry %zu: gkeys %.17g read back as %.17g",
                   i, e->gkeys, f->gkeys);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    mj_tuning t;
    if (mj__tuning_parse((const char *)data, size, "fuzz", &t, err, sizeof err) != 0) {
        FUZZ_CHECK(t.count == 0 && t.entries == NULL, "a failed parse left entries behind");
        mj__tuning_free(&t);
        return 0;
    }
    const char *path = fuzz_path(0, "tuning");
    int rc = mj__tuning_write(path, &t, err, sizeof err);
    FUZZ_CHECK(rc == 0, "what parsed does not write: %s", err);
    mj_tuning back;
    rc = mj__tuning_read(path, &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "what was written does not read back: %s", err);
    check_same(&t, &back, "parsed vs read back");
    mj__tuning_free(&back);
    mj__tuning_free(&t);
    return 0;
}
