/* SPDX-License-Identifier: Apache-2.0 */
/* The code generator's template lists (gen/catalog.h): each primitive's list holds what its
 * templates include, in an order that satisfies it, and the check that says so catches a missing
 * file, a wrong order, a conditional include and a missing prelude; and no kernel file includes
 * another but the listed exceptions. CPU only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "templates_embedded.h"
#include "test_support.h"

/* ---------------------------------------------------------------- template lists */

/* The generator pastes each template with its #include "..." lines blanked, so what it emits
 * (the prelude, the spec, the primitive's list) must hold every file a template includes,
 * before that template. spec_default.cuh, which gives a template compiled on its own the
 * spec's definitions, stands for the spec the generator writes in its place. Includes under
 * `#if MJ_SEGMENTED` (or its #else) count as the primitive defines it; under any other
 * condition the check cannot tell and fails, so that it is taught the new condition. */
#define MAX_ORDER 48

/* What a conditional means for the #include lines inside it, for one primitive. */
enum cond { COND_GUARD, COND_TRUE, COND_FALSE, COND_UNKNOWN };

static const char *skip_blanks(const char *p) {
    while (*p == ' ' || *p == '\t') ++p;
    return p;
}

/* 1 when line is the directive `#word`; *rest is what follows it. */
static int directive(const char *line, const char *word, const char **rest) {
    const char *p = skip_blanks(line);
    if (*p++ != '#') return 0;
    p = skip_blanks(p);
    size_t n = strlen(word);
    if (strncmp(p, word, n) != 0 || (p[n] && !strchr(" \t\n", p[n]))) return 0;
    *rest = skip_blanks(p + n);
    return 1;
}

/* 1 when p starts with the identifier id, alone up to the end of the line. */
static int is_only(const char *p, const char *id) {
    size_t n = strlen(id);
    return strncmp(p, id, n) == 0 && *skip_blanks(p + n) == '\n';
}

static int find_name(const char *const *order, int n, const char *name) {
    for (int i = 0; i < n; ++i)
        if (strcmp(order[i], name) == 0) return i;
    return -1;
}

/* 0 when every file of order[0, n) is embedded, listed once, and every file it includes (for a
 * primitive whose MJ_SEGMENTED is segmented) comes before it; else -1 with why. */
static int check_order(const char *const *order, int n, int segmented, char *why, size_t cap) {
    for (int i = 0; i < n; ++i) {
        const mj_template *t = mj__template_find(order[i]);
        if (!t) {
            snprintf(why, cap, "%s is not an embedded template", order[i]);
            return -1;
        }
        if (find_name(order, i, order[i]) >= 0) {
            snprintf(why, cap, "%s is listed twice", order[i]);
            return -1;
        }
        enum cond stack[32];
        int depth = 0, line_no = 0;
        for (const char *line = t->text, *next; *line; line = next) {
            const char *nl = strchr(line, '\n');
            next = nl ? nl + 1 : line + strlen(line);
            const char *rest;
            ++line_no;
            if (directive(line, "if", &rest) || directive(line, "ifdef", &rest) ||
                directive(line, "ifndef", &rest)) {
                enum cond c = COND_UNKNOWN;
                if (directive(line, "if", &rest) && is_only(rest, "MJ_SEGMENTED"))
                    c = segmented ? COND_TRUE : COND_FALSE;
                else if (directive(line, "if", &rest) && is_only(rest, "!MJ_SEGMENTED"))
                    c = segmented ? COND_FALSE : COND_TRUE;
                else if (depth == 0 && directive(line, "ifndef", &rest)) {
                    /* An include guard: #ifndef X followed by #define X. */
                    size_t id = strspn(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
                    const char *def;
                    if (id && directive(next, "define", &def) && strncmp(def, rest, id) == 0 &&
                        strchr(" \t\n", def[id]))
                        c = COND_GUARD;
                }
                ck_assert_int_lt(depth, (int)(sizeof stack / sizeof *stack));
                stack[depth++] = c;
            } else if (directive(line, "elif", &rest)) {
                if (depth) stack[depth - 1] = COND_UNKNOWN;
            } else if (directive(line, "else", &rest)) {
                if (depth && stack[depth - 1] == COND_TRUE) stack[depth - 1] = COND_FALSE;
                else if (depth && stack[depth - 1] == COND_FALSE) stack[depth - 1] = COND_TRUE;
            } else if (directive(line, "endif", &rest)) {
                if (depth) --depth;
            } else if (directive(line, "include", &rest)) {
                if (strncmp(line, "#include \"", 10) != 0) {
                    snprintf(why, cap, "%s:%d: the generator blanks only the lines that start "
                                       "with #include \"", order[i], line_no);
                    return -1;
                }
                const char *path = line + 10, *close = strchr(path, '"');
                ck_assert_ptr_nonnull(close);
                const char *base = path;
                for (const char *q = path; q < close; ++q)
                    if (*q == '/') base = q + 1;
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(close - base), base);
                int off = 0, unknown = 0;
                for (int k = 0; k < depth; ++k) {
                    off |= stack[k] == COND_FALSE;
                    unknown |= stack[k] == COND_UNKNOWN;
                }
                if (off) continue;
                if (unknown) {
                    snprintf(why, cap, "%s:%d: an #include under a condition this check does "
                                       "not evaluate", order[i], line_no);
                    return -1;
                }
                if (find_name(order, i, name) < 0) {
                    snprintf(why, cap, "%s includes %s, which %s", order[i], name,
                             find_name(order, n, name) < 0 ? "is not in the list"
                                                           : "comes after it");
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* The templates the generator emits for p, in order, with the spec's stand-in. */
static int emitted_order(mj_primitive p, const char **order) {
    int n = 0;
    for (const char *const *name = mj__prelude_templates(); *name; ++name) {
        ck_assert_int_lt(n, MAX_ORDER);
        order[n++] = *name;
    }
    order[n++] = "spec_default.cuh";
    const char *const *list = mj__primitive_templates(p);
    ck_assert_ptr_nonnull(list);
    for (const char *const *name = list; *name; ++name) {
        ck_assert_int_lt(n, MAX_ORDER);
        order[n++] = *name;
    }
    return n;
}

/* order without name; returns the new count. */
static int drop_name(const char **order, int n, const char *name) {
    int at = find_name(order, n, name);
    ck_assert_int_ge(at, 0);
    memmove(&order[at], &order[at + 1], (size_t)(n - at - 1) * sizeof *order);
    return n - 1;
}

/* Moves name to just after `after`. */
static void move_after(const char **order, int n, const char *name, const char *after) {
    n = drop_name(order, n, name);
    int at = find_name(order, n, after) + 1;
    ck_assert_int_gt(at, 0);
    memmove(&order[at + 1], &order[at], (size_t)(n - at) * sizeof *order);
    order[at] = name;
}

/* Every primitive's list holds what its templates include, in an order that satisfies it. */
START_TEST(template_lists_closed)
{
    mj_primitive p = (mj_primitive)_i;
    const char *order[MAX_ORDER];
    char why[256] = "";
    int n = emitted_order(p, order);
    ck_assert_msg(check_order(order, n, p == MJ_SEGMENTED_SORT, why, sizeof why) == 0, "%s: %s",
                  mj_primitive_name(p), why);
    ck_assert_ptr_null(mj__primitive_templates(MJ_PRIMITIVE_COUNT));
}
END_TEST

/* The check above fails for a list missing a file, a list out of order, a conditional include
 * that holds for the primitive, and a source without the prelude. */
START_TEST(template_lists_check_faults)
{
    const char *order[MAX_ORDER];
    char why[256] = "";
    int n = emitted_order(MJ_MERGESORT, order);
    n = drop_name(order, n, "tile_io.cuh");
    ck_assert_int_ne(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "includes tile_io.cuh, which is not in the list"));

    n = emitted_order(MJ_MERGE, order);
    move_after(order, n, "merge_path.cuh", "cta_merge.cuh");
    ck_assert_int_ne(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "includes merge_path.cuh, which comes after it"));

    /* kernel_blocksort.cuh includes work_queue.h under #if MJ_SEGMENTED only. */
    n = emitted_order(MJ_SEGMENTED_SORT, order);
    move_after(order, n, "work_queue.h", "kernel_blocksort.cuh");
    ck_assert_int_eq(check_order(order, n, 0, why, sizeof why), 0);
    ck_assert_int_ne(check_order(order, n, 1, why, sizeof why), 0);
    ck_assert_ptr_nonnull(strstr(why, "kernel_blocksort.cuh includes work_queue.h"));

    /* Without the prelude, the first template misses what the prelude defines. */
    n = emitted_order(MJ_LOCALITY_SORT, order);
    int prelude = 0;
    while (mj__prelude_templates()[prelude]) ++prelude;
    ck_assert_int_ne(check_order(order + prelude, n - prelude, 0, why, sizeof why), 0);
    ck_assert_msg(strstr(why, "includes mj_common.cuh") != NULL, "%s", why);
}
END_TEST

/* No kernel file includes another (DESIGN.md: a file's level is its folder, and what kernels
 * share lives in block/): 0 when the kernel file `name` (text) has no #include "kernels/..."
 * line, else -1 with the first in why. */
static int check_kernel_includes(const char *name, const char *text, char *why, size_t cap) {
    static const char prefix[] = "#include \"kernels/";
    for (const char *p = strstr(text, prefix); p; p = strstr(p + 1, prefix)) {
        if (p != text && p[-1] != '\n') continue;
        const char *start = p + sizeof prefix - 1 - strlen("kernels/");
        const char *end = strchr(start, '"');
        if (!end) end = start + strlen(start);
        snprintf(why, cap, "%s includes %.*s: a kernel file includes another", name,
                 (int)(end - start), start);
        return -1;
    }
    return 0;
}

START_TEST(kernels_include_no_kernel)
{
    char why[256] = "";
    int kernel_files = 0;
    for (size_t t = 0; t < mj__template_count; ++t) {
        const mj_template *tp = &mj__templates[t];
        if (strncmp(tp->name, "kernel_", 7) != 0) continue;
        ++kernel_files;
        ck_assert_msg(check_kernel_includes(tp->name, tp->text, why, sizeof why) == 0, "%s",
                      why);
    }
    ck_assert_int_gt(kernel_files, 20);
    /* The check itself catches one, at the text's start or on a later line. */
    ck_assert_int_ne(check_kernel_includes("kernel_new.cuh",
                                           "#include \"block/tile_io.cuh\"\n"
                                           "#include \"kernels/kernel_merge.cuh\"\n",
                                           why, sizeof why),
                     0);
    ck_assert_ptr_nonnull(strstr(why, "kernel_new.cuh includes kernels/kernel_merge.cuh"));
    ck_assert_int_ne(check_kernel_includes("kernel_new.cuh",
                                           "#include \"kernels/kernel_merge.cuh\"\n", why,
                                           sizeof why),
                     0);
    ck_assert_int_eq(check_kernel_includes("kernel_new.cuh", "#include \"block/tile_io.cuh\"\n",
                                           why, sizeof why),
                     0);
}
END_TEST

static Suite *gen_templates_suite(void) {
    Suite *s = suite_create("gen_templates");
    TCase *tct = tcase_create("templates");
    tcase_add_loop_test(tct, template_lists_closed, MJ_MERGESORT, MJ_PRIMITIVE_COUNT);
    tcase_add_test(tct, template_lists_check_faults);
    tcase_add_test(tct, kernels_include_no_kernel);
    suite_add_tcase(s, tct);
    return s;
}

int main(void) { return mjt_run(gen_templates_suite(), 1); }
