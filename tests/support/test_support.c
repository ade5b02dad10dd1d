#include "test_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

mj_context *mjt_gpu_context_or_skip(const char *program) {
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(NULL, &ctx);
    if (st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE) {
        printf("SKIP %s: no GPU here (%s: %s)\n", program, mj_status_name(st),
               mj_context_last_error(ctx));
        mj_context_destroy(ctx);
        exit(MJT_SKIP);
    }
    if (st != MJ_OK) {
        fprintf(stderr, "%s: cannot create a context: %s: %s\n", program, mj_status_name(st),
                mj_context_last_error(ctx));
        exit(1);
    }
    return ctx;
}

mj_context *mjt_compile_context(int sm, const char *dir) {
    mj_context_options o;
    mj_context_options_init(&o);
    o.flags = MJ_CONTEXT_COMPILE_ONLY;
    o.target_sm = sm;
    o.cache_dir = dir;
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(&o, &ctx);
    ck_assert_msg(st == MJ_OK, "compile-only context: %s: %s", mj_status_name(st),
                  mj_context_last_error(ctx));
    return ctx;
}

char *mjt_tmpdir(void) {
    char *path = strdup("/tmp/mergejit-test-XXXXXX");
    ck_assert_ptr_nonnull(path);
    ck_assert_ptr_nonnull(mkdtemp(path));
    return path;
}

void mjt_rmtree(const char *path) {
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
                mjt_rmtree(child);
            else
                unlink(child);
        }
        closedir(d);
    }
    rmdir(path);
}

int mjt_run(Suite *s, int fork) {
    SRunner *sr = srunner_create(s);
    if (!fork) srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

uint64_t mjt_rand(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
