/* SPDX-License-Identifier: Apache-2.0 */
/* A program that uses the installed mergejit as a user's program would; run.sh builds it with
 * find_package(mergejit) and with pkg-config. It needs no GPU: a compile-only context says which
 * tile it would use, and a device context opens or says why it cannot. */
#include <mergejit.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    /* The header and the library must come from the same installation. */
    if (strcmp(mj_version(), MJ_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: header %s, library %s\n", MJ_VERSION_STRING, mj_version());
        return 1;
    }
    printf("mergejit %s\n", mj_version());

    mj_context_options opt;
    mj_context_options_init(&opt);
    opt.flags = MJ_CONTEXT_COMPILE_ONLY | MJ_CONTEXT_NO_DISK_CACHE;
    opt.tuning_file = ""; /* the built-in tiles, whatever the user's config holds */
    opt.bundle = "";
    mj_context *ctx;
    mj_status st = mj_context_create(&opt, &ctx);
    if (st != MJ_OK) {
        fprintf(stderr, "consumer: compile-only context: %s: %s\n", mj_status_name(st),
                mj_context_last_error(ctx));
        mj_context_destroy(ctx);
        return 1;
    }
    mj_tile tile;
    st = mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &tile);
    if (st != MJ_OK) {
        fprintf(stderr, "consumer: mj_context_tile: %s: %s\n", mj_status_name(st),
                mj_context_last_error(ctx));
        mj_context_destroy(ctx);
        return 1;
    }
    printf("compile-only context, sm_%d: u32 mergesort tile %dx%d\n", mj_context_target_sm(ctx),
           tile.nt, tile.vt);
    mj_context_destroy(ctx);

    /* Without a GPU or driver this fails with a status and a reason, which is fine here. */
    opt.flags = MJ_CONTEXT_NO_DISK_CACHE;
    st = mj_context_create(&opt, &ctx);
    if (!ctx) {
        fprintf(stderr, "consumer: out of host memory\n");
        return 1;
    }
    printf("device context: %s (%s)\n", mj_status_name(st),
           st == MJ_OK ? mj_context_device_name(ctx) : mj_context_last_error(ctx));
    mj_context_destroy(ctx);
    return 0;
}
