/* SPDX-License-Identifier: Apache-2.0 */
/* Whole-file reads and atomic writes for the commands: the runtime's reader and writer
 * (base/file_io.h), with the tool's error messages. */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* lstat */
#endif

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "base/file_io.h"

int cli_read_file(const char *path, void **data, size_t *size)
{
    char err[1024];
    mj_status st = mj__read_file(path, data, size, err, sizeof err);
    if (st == MJ_OK)
        return 0;
    if (st == MJ_ERR_FILE)
        cli_error("%s", err);
    else
        cli_tool_error(st, "%s", err);
    return -1;
}

int cli_read_keys(const char *path, mj_key_kind kind, void **keys, size_t *n)
{
    size_t bytes, key_size = mj_key_kind_size(kind);
    if (cli_read_file(path, keys, &bytes) != 0)
        return -1;
    if (bytes % key_size != 0) {
        cli_tool_error(MJ_ERR_INVALID_ARGUMENT,
                       "'%s' holds %zu bytes, not a whole number of %zu-byte %s keys", path,
                       bytes, key_size, mj_key_kind_name(kind));
        free(*keys);
        *keys = NULL;
        return -1;
    }
    *n = bytes / key_size;
    return 0;
}

int cli_stage_file(const char *path, const void *data, size_t size, cli_staged *staged)
{
    char err[1024];
    const char *base;
    staged->path = path;
    staged->tmp[0] = '\0';
    if (mj__path_split(path, staged->dir, sizeof staged->dir, &base, err, sizeof err) != 0) {
        cli_error("cannot write '%s': %s", path, err);
        return -1;
    }
    mode_t mask = umask(0); /* read the umask: new outputs get 0666 less it, as open() does */
    umask(mask);
    mj_span part = {data, size};
    if (mj__file_stage(staged->dir, base, &part, 1, (mode_t)0666 & ~mask, MJ_SYNC_FILE,
                       staged->tmp, sizeof staged->tmp, err, sizeof err) != 0) {
        staged->tmp[0] = '\0';
        cli_error("cannot write '%s': %s", path, err);
        return -1;
    }
    return 0;
}

int cli_commit_file(cli_staged *staged)
{
    char err[1024];
    if (staged->tmp[0] == '\0')
        return -1;
    int rc = mj__file_commit(staged->tmp, staged->path, staged->dir, MJ_SYNC_DIR, err,
                             sizeof err);
    staged->tmp[0] = '\0'; /* renamed, or removed by mj__file_commit */
    if (rc != 0) {
        cli_error("cannot write '%s': %s", staged->path, err);
        return -1;
    }
    return 0;
}

int cli_check_output(const char *path)
{
    if (path == NULL)
        return 0;
    cli_staged probe;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': it is a directory", path);
        return -1;
    }
    /* A staged empty file in the output's folder, discarded: what the write will need. */
    if (cli_stage_file(path, "", 0, &probe) != 0)
        return -1;
    cli_discard_file(&probe);
    return 0;
}

int cli_write_file(const char *path, const void *data, size_t size)
{
    cli_staged staged;
    if (cli_stage_file(path, data, size, &staged) != 0)
        return -1;
    return cli_commit_file(&staged);
}

void cli_discard_file(cli_staged *staged)
{
    if (staged->tmp[0] != '\0') {
        unlink(staged->tmp);
        staged->tmp[0] = '\0';
    }
}

int cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || lstat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
