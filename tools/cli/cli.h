/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mergejit_cli: the command-line tool's library (tools/cli/), linked by the tool and by the
 * tests. Each section names the file that implements it. It uses the public API (mergejit.h),
 * the runtime's file reader and atomic writer (base/file_io.h, privately) and libc; the commands
 * (tools/cmd_*.c) add the device-memory bridge (devmem.h).
 */
#ifndef MERGEJIT_TOOLS_CLI_H
#define MERGEJIT_TOOLS_CLI_H

#include <stdarg.h>
#include <stddef.h> /* offsetof, for the option tables */
#include <stdint.h>
#include <stdio.h>

#include "mergejit.h"

/* Exit statuses of every command. */
enum {
    CLI_OK = 0,      /* success */
    CLI_FAILURE = 1, /* a runtime failure, or a demo/verification that did not pass */
    CLI_USAGE = 2    /* bad command line */
};

/* ---------------------------------------------------------------- options (args.c) */

/* 1 when "--help" or "-h" appears in argv[1..] before a "--". */
int cli_wants_help(int argc, char **argv);

/* One entry of a command's option table. A value is written "--name VALUE" or
 * "--name=VALUE"; a flag matches only itself. */
typedef enum cli_option_kind {
    CLI_FLAG,   /* sets the int at offset to 1 */
    CLI_STRING, /* stores the value in the const char * at offset */
    CLI_DEVICE, /* stores a device ordinal (0 .. 2^20) in the int at offset */
    CLI_ORDER,  /* stores "asc" or "desc" in the mj_order at offset */
    CLI_TYPE,   /* stores a built-in key type (cli_key_type) in the mj_key_kind at offset */
    CLI_PARSED, /* hands the value to parse */
    CLI_OPERANDS /* the end of a table (CLI_OPT_END_OPERANDS): where operands are kept */
} cli_option_kind;

typedef struct cli_option {
    const char *name;  /* "--output"; NULL ends the table */
    const char *alias; /* another spelling ("-o"), or NULL */
    cli_option_kind kind;
    size_t offset;     /* CLI_FLAG, CLI_STRING: the field in the command's options struct */
    /* CLI_PARSED: checks and stores the value; CLI_OK, or CLI_USAGE after printing why. */
    int (*parse)(void *opts, const char *value);
} cli_option;

#define CLI_OPT_FLAG(name, type, field) {name, NULL, CLI_FLAG, offsetof(type, field), NULL}
#define CLI_OPT_STRING(name, alias, type, field)                                              \
    {name, alias, CLI_STRING, offsetof(type, field), NULL}
#define CLI_OPT_PARSED(name, parse) {name, NULL, CLI_PARSED, 0, parse}
/* "--device N", as every command that runs on a GPU takes it. */
#define CLI_OPT_DEVICE(type, field) {"--device", NULL, CLI_DEVICE, offsetof(type, field), NULL}
/* "--order asc|desc", as every command that orders keys takes it. */
#define CLI_OPT_ORDER(type, field) {"--order", NULL, CLI_ORDER, offsetof(type, field), NULL}
/* "--type KIND", a built-in key type, as the file commands take it. It never stores
 * MJ_KEY_CUSTOM, which a command can start from to tell "not given". */
#define CLI_OPT_TYPE(type, field) {"--type", NULL, CLI_TYPE, offsetof(type, field), NULL}
#define CLI_OPT_END {NULL, NULL, CLI_FLAG, 0, NULL}
/* The end of the table of a command whose syntax has no operand function: up to
 * CLI_MAX_OPERANDS operands are kept, in order, in its cli_operands `field`; one more is an
 * "unexpected argument". */
#define CLI_OPT_END_OPERANDS(type, field)                                                     \
    {NULL, NULL, CLI_OPERANDS, offsetof(type, field), NULL}

/* Operands kept as given, in order (CLI_OPT_END_OPERANDS). */
#define CLI_MAX_OPERANDS 3
typedef struct cli_operands {
    const char *arg[CLI_MAX_OPERANDS];
    int count;
} cli_operands;

/* A command's command line: its options and what it does with other arguments. */
typedef struct cli_syntax {
    const char *cmd;            /* "demo": messages read "mergejit demo: ..." */
    const cli_option *options;  /* ends with CLI_OPT_END */
    /* Takes each operand (an argument that is not an option), in order: CLI_OK, or CLI_USAGE
     * after printing why. NULL: the command takes none. */
    int (*operand)(void *opts, const char *arg);
    int dashdash;     /* 1: "--" ends the options, and what follows are operands */
    int say_argument; /* 1: anything unmatched is an "unknown argument '...'"; 0: an "unknown
                       * option '...'", or an "unexpected argument '...'" for an operand */
} cli_syntax;

/* Parses argv[1..] into opts along the syntax, in order. CLI_OK, or CLI_USAGE after printing
 * the message ("option '--type' needs a value", ...) and the --help hint. */
int cli_parse_args(const cli_syntax *syntax, int argc, char **argv, void *opts);

/* 1 when `arg` looks like an option ("-x", "--xyz"); "-" alone is an operand. */
int cli_is_option(const char *arg);

/* ---------------------------------------------------------------- values (parse.c) */

/* Counts: "16777216", "1e6", "1.5e6", "2^24", "16M", "1G", "64K", "1T" (K/M/G/T binary,
 * optionally followed by "i" or "iB"), with '_' allowed between digits. 0 on success. */
int cli_parse_size(const char *s, uint64_t *out);
/* A decimal integer in [lo, hi]. 0 on success. */
int cli_parse_int(const char *s, long lo, long hi, long *out);
/* A comma-separated list of decimal integers in [lo, hi], at most cap of them: the count, or
 * -1 for an empty, malformed or too long list. */
int cli_parse_int_list(const char *s, long lo, long hi, long *out, int cap);
/* A comma-separated list of primitive names (cli_primitive_names), each at most once: the
 * count written to out (room for MJ_PRIMITIVE_COUNT), or -1. */
int cli_parse_primitives(const char *s, mj_primitive *out);
/* Every primitive's name, "mergesort, merge, ..., insert", for messages. */
const char *cli_primitive_names(void);
/* A decimal or 0x-hexadecimal 64-bit unsigned integer. 0 on success. */
int cli_parse_u64(const char *s, uint64_t *out);
/* "asc"/"ascending" or "desc"/"descending". 0 on success. */
int cli_parse_order(const char *s, mj_order *out);
/* A built-in key type name (u8 ... f64); "custom" and unknown names fail. 0 on success. */
int cli_parse_builtin_kind(const char *s, mj_key_kind *out);
/* A command's --type: a built-in kind into *out (CLI_OK), else the usage error for `cmd`
 * (custom types need CUDA source, which the file commands do not take). */
int cli_key_type(const char *cmd, const char *s, mj_key_kind *out);
/* A target: "90", "sm_90", "sm90" or "9.0". 0 on success. */
int cli_parse_sm(const char *s, int *out);

/* "u8 i8 u16 ... f64": the built-in key type names, for messages. */
const char *cli_builtin_kind_list(void);
/* "asc"/"desc". */
const char *cli_order_name(mj_order order);

/* ---------------------------------------------------------------- messages (diag.c) */

/* Prints "mergejit CMD: <message>" and "Try 'mergejit CMD --help'." to stderr; returns
 * CLI_USAGE. cmd may be NULL for the top level. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "mergejit: <mj_status_name>: <context message>" to stderr; returns CLI_FAILURE.
 * ctx may be NULL (the library's fixed message is used). */
int cli_status_error(const mj_context *ctx, mj_status status);

/* Prints "mergejit: <mj_status_name>: <message>" for a failure found by the tool itself
 * (bad input file size, host memory, ...); returns CLI_FAILURE. */
int cli_tool_error(mj_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "mergejit: <message>" (I/O failures and the like) to stderr; returns CLI_FAILURE. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Writes `msg` to `f` on one line: newlines and tabs become spaces, runs of spaces and
 * trailing spaces are dropped. */
void cli_put_one_line(FILE *f, const char *msg);

/* One character of a JSON string as JSON writes it: itself, or escaped (\" \\ \u00XX for
 * control characters); buf holds at least 8 bytes. */
const char *cli_json_char(unsigned char c, char *buf);
/* s as a JSON string on f ("null" for NULL). */
void cli_put_json_string(FILE *f, const char *s);
/* The cache's facts after its "dir" member, as `info --json` and `cache stats --json` print
 * them: , "entries": N, "bytes": N, "max_bytes": N or null (no cap), "writable": bool. */
void cli_put_cache_json(FILE *f, mj_context *ctx, size_t entries, uint64_t bytes);

/* "13.0" from 13000 (driver and NVRTC versions); "not found" for 0. */
const char *cli_format_version(int version, char *buf, size_t len);
/* "2.28.5" from mj_nccl_version's 22805 (2708 for 2.7.8); "not found" for 0. */
const char *cli_format_nccl_version(int version, char *buf, size_t len);
/* "123 B", "4.0 KiB", "1.5 MiB", ... */
const char *cli_format_bytes(uint64_t bytes, char *buf, size_t len);
/* How a sorter got its binary, as a phrase: "compiled with NVRTC", ... */
const char *cli_source_phrase(int source);
/* Sorts n floats (timings in ms) ascending, for their median, minimum and maximum. */
void cli_sort_floats(float *v, size_t n);
/* Prints the sorter's JIT cost and tile on one line of stdout:
 * "build: compiled with NVRTC in 812.3 ms; tile 256 threads x 15 values". */
void cli_print_build(const mj_sorter *sorter);
/* Creates the sorter for desc a second time in ctx, as an application that asks again does
 * (it comes from the context's memory), and prints "again: <source> in N us" (the whole
 * mj_sorter_create); nothing when that fails. */
void cli_print_again(mj_context *ctx, const mj_sort_desc *desc);

/* ---------------------------------------------------------------- files (files.c) */

/* Reads a whole file into a malloc'ed buffer (*data never NULL on success, even when empty).
 * Prints the error and returns -1 on failure. */
int cli_read_file(const char *path, void **data, size_t *size);

/* Reads a file of raw keys of a built-in kind (the machine's byte order) into a malloc'ed
 * buffer: *n keys. Prints the error and returns -1 when it cannot be read or does not hold a
 * whole number of keys. */
int cli_read_keys(const char *path, mj_key_kind kind, void **keys, size_t *n);

/* An output file written next to its destination and renamed into place on commit, so that
 * a command replaces several outputs only when all of them were written. */
typedef struct cli_staged {
    const char *path; /* destination */
    char dir[4096];   /* the directory that holds it */
    char tmp[4096];   /* the temporary file; "" when nothing is staged */
} cli_staged;

/* Writes `data` to a new temporary file in the directory of `path` (mode 0666 & ~umask),
 * flushed to disk. Prints the error and returns -1 on failure (nothing is left behind). */
int cli_stage_file(const char *path, const void *data, size_t size, cli_staged *staged);
/* Renames the staged file onto its destination. Prints the error and returns -1 on failure
 * (the temporary file is then removed). */
int cli_commit_file(cli_staged *staged);
/* Stages and commits one file. */
int cli_write_file(const char *path, const void *data, size_t size);
/* Before the work a command writes out: path's folder takes a new file (one is made and
 * removed) and path is not a folder. 0, or -1 with "cannot write 'path': why" printed. NULL
 * paths (an output not asked for) pass. */
int cli_check_output(const char *path);
/* Removes a staged file that is not to be committed. Safe on an empty or committed one. */
void cli_discard_file(cli_staged *staged);
/* 1 when both paths name the same existing file (same device and inode; `b` is not followed
 * when it is a symbolic link, as rename() replaces the link itself). */
int cli_same_file(const char *a, const char *b);

/* ---------------------------------------------------------------- keys (keygen.c) */

/* Fills n keys of `kind` (built-in) from `seed`: integers are random, with about a quarter
 * drawn from a small pool so that equal keys are common; f32/f64 add NaNs (quiet, signalling,
 * negative), -0.0, +0.0, infinities, subnormals and extremes to random bit patterns; f16/bf16
 * are random 16-bit patterns (which hold every class of value). Deterministic per seed. */
void kg_fill_keys(mj_key_kind kind, void *keys, size_t n, uint64_t seed);

/* Fills n values of value_size bytes: value i holds i in its first min(value_size, 8) bytes
 * (little-endian) and bytes derived from i after that, so that moves and stability can be
 * checked exactly. */
void kg_fill_values(void *values, size_t value_size, size_t n);

/* The rank of a key in the built-in order of `kind` and `order` (mj_order's rules): a key
 * sorts before another exactly when its rank is smaller; equal ranks are equivalent keys.
 * Floats use the total order -inf < ... < -0 < +0 < ... < +inf < NaNs, in both orders the NaNs
 * last and ordered by their bits (positive ones by increasing payload, then negative ones by
 * decreasing payload; only equal bits are equivalent); descending reverses the non-NaN values
 * only. */
/* splitmix64: the next pseudo-random number of *state. */
uint64_t kg_splitmix(uint64_t *state);
uint64_t kg_rank(mj_key_kind kind, mj_order order, const void *key);
/* kg_rank(a) < kg_rank(b). */
int kg_less(mj_key_kind kind, mj_order order, const void *a, const void *b);
/* 1 when the key is a floating-point NaN. */
int kg_is_nan(mj_key_kind kind, const void *key);

/* The stable sorting permutation of n keys: keys[perm[0]], keys[perm[1]], ... is sorted and
 * equal keys keep their input order. perm has room for n entries. Returns MJ_OK or
 * MJ_ERR_HOST_MEMORY / MJ_ERR_TOO_LARGE. */
mj_status kg_reference_sort(mj_key_kind kind, mj_order order, const void *keys, size_t n,
                            uint64_t *perm);

/* The same for a segmented sort: heads[i] non-zero where a segment begins (element 0 always
 * begins one); each segment is sorted alone. */
mj_status kg_reference_segmented_sort(mj_key_kind kind, mj_order order, const void *keys,
                                      size_t n, const uint8_t *heads, uint64_t *perm);

/* Compares a result with the reference: out_keys[i] must equal in_keys[perm[i]] byte for byte
 * and, when value_size > 0, out_values[i] must equal in_values[perm[i]]. Returns the number of
 * mismatching positions (0: exact) and the first one in *first (n when none). */
size_t kg_compare(size_t key_size, size_t value_size, const void *in_keys, const void *in_values,
                  const void *out_keys, const void *out_values, const uint64_t *perm, size_t n,
                  size_t *first);

/* Writes a key for people: "-1.5 (0xbfc0)", "nan (0x7fc00000)", "42". */
const char *kg_format_key(mj_key_kind kind, const void *key, char *buf, size_t len);

#endif /* MERGEJIT_TOOLS_CLI_H */
