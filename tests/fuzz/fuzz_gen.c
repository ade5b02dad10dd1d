/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the code generator's inputs. Input layout:
 *   byte 0   type size and alignment: align = 1 << (b % 4), size = 1 + b % 64 rounded up to
 *            a multiple of align
 *   byte 1   primitive (b % 4), order (bit 2), value size (bits 3..5 pick one of 8 sizes)
 *   rest     type_name NUL type_source NUL less; a part the input lacks is NULL
 * A custom-key spec is checked (mj__spec_check) and generated (mj__gen_source); then a u32 spec
 * with only `less` from the input. Properties: the generator succeeds exactly when the check
 * does, and its output is one NUL-terminated string of the length it reports that holds the
 * caller's comparator and type source. No NVRTC. */
#include "fuzz_util.h"

#include "gen.h"

static const size_t value_sizes[8] = {0, 1, 2, 4, 8, 16, 12, 64};

static void gen(const mj_kernel_spec *spec)
{
    char err[256], err2[256];
    int check = mj__spec_check(spec, err, sizeof err);
    char *out = (char *)1;
    size_t len = 0;
    int rc = mj__gen_source(spec, &out, &len, err2, sizeof err2);
    FUZZ_CHECK(rc == check, "mj__spec_check says %d, mj__gen_source %d (%s)", check, rc,
               rc ? err2 : "");
    if (rc != 0) {
        FUZZ_CHECK(out == NULL, "a failed generation left output");
        FUZZ_CHECK(strcmp(err, err2) == 0, "different messages: '%s' and '%s'", err, err2);
        return;
    }
    FUZZ_CHECK(out != NULL && strlen(out) == len, "output length %zu, strlen %zu", len,
               out ? strlen(out) : 0);
    if (spec->less)
        FUZZ_CHECK(strstr(out, spec->less) != NULL, "the comparator is not in the output");
    if (spec->key == MJ_KEY_CUSTOM && spec->type_source[0])
        FUZZ_CHECK(strstr(out, spec->type_source) != NULL, "the type source is not in the output");
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t b0 = data[0], b1 = data[1];
    /* One NUL-terminated copy of the rest, split at its first two NULs. */
    size_t n = size - 2;
    char *text = malloc(n + 1);
    FUZZ_CHECK(text != NULL, "out of memory");
    memcpy(text, data + 2, n);
    text[n] = '\0';
    const char *parts[3] = {text, NULL, NULL};
    const char *end = text + n;
    for (int i = 1; i < 3; i++) {
        const char *nul = parts[i - 1] + strlen(parts[i - 1]);
        if (nul >= end)
            break;
        parts[i] = nul + 1;
    }

    size_t align = (size_t)1 << (b0 % 4);
    size_t tsize = 1 + b0 % 64;
    tsize = (tsize + align - 1) / align * align;

    mj_kernel_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.primitive = (mj_primitive)(b1 % 4);
    spec.key = MJ_KEY_CUSTOM;
    spec.order = (b1 >> 2) & 1 ? MJ_DESCENDING : MJ_ASCENDING;
    spec.type_name = parts[0];
    spec.type_source = parts[1];
    spec.less = parts[2];
    spec.type_size = tsize;
    spec.type_align = align;
    spec.value_size = value_sizes[(b1 >> 3) & 7];
    spec.nt = 128;
    spec.vt = 7;
    spec.sm = 90;
    gen(&spec);

    /* A built-in key with the input's comparator (or, without one, the built-in order). */
    spec.key = MJ_KEY_U32;
    spec.type_name = spec.type_source = NULL;
    spec.type_size = spec.type_align = 0;
    spec.less = parts[2] ? parts[2] : parts[1];
    gen(&spec);

    free(text);
    return 0;
}
