/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mergejit: merge-path sorting primitives generated, compiled and launched at run time.
 *
 * Contents (each section starts with a "=====" banner; search for its title)
 *
 *   The contract (this comment)
 *   1. Status codes and versions
 *   2. Context
 *   3. Key types, primitives and descriptions
 *   4. Sorters: build once, run many (create, temporary storage, what every run returns)
 *   5. Sort: mergesort and locality sort
 *   6. Merge
 *   7. Segmented sort
 *   8. Reduce and scan
 *   9. Select and unique
 *  10. Reduce by key
 *  11. Segmented reduce
 *  12. Sorted search
 *  13. Load-balancing search, interval expand and interval move
 *  14. Bulk remove and bulk insert
 *  15. Set operations
 *  16. Joins
 *  17. One-call functions
 *  ADVANCED (for tools, tuning and deployment; the same ABI and stability as the rest)
 *  18. Tiles and tuning
 *  19. Build introspection
 *  20. Pass profiling
 *  21. Deployment bundles
 *  22. Sorting across GPUs (NCCL)
 *  23. Cache management
 *
 * The advanced sections are plain sections, not hidden behind a macro (zstd's
 * ZSTD_STATIC_LINKING_ONLY): they were declared unconditionally before, the tool, the tests,
 * the benchmarks and programs built against 0.1 call them, and their ABI is kept like the rest,
 * so a macro would only break existing builds. docs/c-api.md walks through every section;
 * build scheduling and the environment's experiment switches are in docs/deployment.md
 * ("Build time") and docs/TUNING.md ("Environment switches"), not part of this contract.
 *
 * Doc comments follow zstd's skeleton: "name() :", what it does, the arguments that are not
 * obvious, and "@return" with MJ_OK or the statuses a caller can expect and when.
 *
 * ---------------------------------------------------------------------------------------------
 * The contract
 *
 * One header, no CUDA header needed. Device pointers and streams cross the API as `void *`
 * (a CUdeviceptr or a pointer from cudaMalloc; a CUstream or cudaStream_t, NULL for the legacy
 * default stream). The library works in the device's primary context, so memory and streams
 * made with the CUDA runtime API work as they are.
 *
 * Contract shared by every function:
 *  - it returns an mj_status; MJ_OK is 0;
 *  - on failure the context's last-error message (mj_context_last_error) says what happened
 *    in words, with NVRTC's log when generated code did not compile;
 *  - on failure the caller's data is left as it was: sorts only write to the caller's buffers
 *    after every check has passed and every kernel is loaded;
 *  - the library never aborts or exits, and prints one line only: a warning on stderr, once
 *    per process, when its disk cache cannot be written (every process would otherwise pay
 *    the kernels' compile again without a word; MJ_CONTEXT_NO_DISK_CACHE, or a writable
 *    MERGEJIT_CACHE_DIR, avoids it).
 *
 * Sorts are stable and asynchronous on the caller's stream. Counts are 64-bit.
 *
 * Thread safety: a context may be used from several host threads at once (its module table
 * and error message are guarded; the last-error message is the last one written by any
 * thread). A sorter is immutable after creation and may be run concurrently on different
 * streams. Contexts are independent of one another.
 */
#ifndef MERGEJIT_H
#define MERGEJIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MJ_VERSION_MAJOR 0
#define MJ_VERSION_MINOR 1
#define MJ_VERSION_PATCH 0
#define MJ_VERSION_STRING "0.1.0"

#if defined(_WIN32)
#define MJ_API
#else
#define MJ_API __attribute__((visibility("default")))
#endif

/* =============================================================================================
 * 1. Status codes and versions
 * ============================================================================================= */

typedef enum mj_status {
    MJ_OK = 0,
    MJ_ERR_INVALID_ARGUMENT = 1, /* a NULL, misaligned or out-of-range argument */
    MJ_ERR_HOST_MEMORY = 2,      /* host allocation failed */
    MJ_ERR_NO_DRIVER = 3,        /* libcuda could not be loaded or initialised */
    MJ_ERR_NO_DEVICE = 4,        /* no CUDA device, or the ordinal is out of range */
    MJ_ERR_NO_COMPILER = 5,      /* libnvrtc could not be loaded */
    MJ_ERR_COMPILE = 6,          /* NVRTC rejected the generated source; the log is in the message */
    MJ_ERR_DEVICE_MEMORY = 7,    /* device allocation failed */
    MJ_ERR_CUDA = 8,             /* another driver call failed; its name is in the message */
    MJ_ERR_CACHE = 9,            /* the disk cache could not be used (cache functions), or its
                                    directory is unsafe: another user's, or writable by group
                                    or everyone (context creation) */
    MJ_ERR_UNSUPPORTED = 10,     /* the request is valid but this build or device cannot do it */
    MJ_ERR_TOO_LARGE = 11,       /* a count whose byte size does not fit in size_t */
    MJ_ERR_FILE = 12,            /* a tuning file or bundle is missing, unreadable, damaged, or
                                    not one; the message names the file and the problem */
    MJ_ERR_NOT_IN_BUNDLE = 13,   /* the context's bundle lacks the kernels asked for, and the
                                    context may not compile them */
    MJ_ERR_TIMEOUT = 14          /* a sort across GPUs waited longer than its timeout for
                                    another rank; the communicator was aborted (section 22) */
} mj_status;

/*! mj_status_name() :
 *  @return the status's name, e.g. "MJ_ERR_COMPILE"; "MJ_ERR_UNKNOWN" for a value that is no
 *          mj_status. Never NULL. */
MJ_API const char *mj_status_name(mj_status status);

/*! mj_version() :
 *  @return the library's version, MJ_VERSION_STRING of the build that was linked. */
MJ_API const char *mj_version(void);

/*! mj_driver_version(), mj_nvrtc_version() :
 *  No context needed.
 *  @return the driver's version (e.g. 13000), or 0 when libcuda is absent;
 *          NVRTC's version as major*1000 + minor*10, or 0 when it is absent. */
MJ_API int mj_driver_version(void);
MJ_API int mj_nvrtc_version(void);
/*! mj_nccl_version() :
 *  @return NCCL's version as ncclGetVersion gives it (22805 for 2.28.5; 2708 for 2.7.8), or 0
 *          when it cannot be loaded (section 22 says where it is looked up). */
MJ_API int mj_nccl_version(void);

/* =============================================================================================
 * 2. Context
 *
 * A context holds a device, its compiled modules, the disk cache's place, and optionally a
 * tuning file and a deployment bundle. Everything else is made from one.
 * ============================================================================================= */

typedef struct mj_context mj_context;

enum {
    /* Do not read or write the disk cache (modules are still kept in memory). */
    MJ_CONTEXT_NO_DISK_CACHE = 1u << 0,
    /* Compile only: no driver and no device are needed; sorters can be built (their kernels
     * are compiled for options.target_sm: every kernel their runs may launch) but not run. For
     * tools and deployment. */
    MJ_CONTEXT_COMPILE_ONLY = 1u << 1,
    /* With a bundle: compile (NVRTC, disk cache) what the bundle lacks instead of failing with
     * MJ_ERR_NOT_IN_BUNDLE. */
    MJ_CONTEXT_BUNDLE_FALLBACK = 1u << 2
    /* 1u << 3 was MJ_CONTEXT_BUILD_ALL; every sorter now builds all its kernels at create. */
};

typedef struct mj_context_options {
    int device;            /* CUDA device ordinal; default 0 */
    const char *cache_dir; /* NULL: $MERGEJIT_CACHE_DIR, else $XDG_CACHE_HOME/mergejit,
                              else ~/.cache/mergejit. Created with mode 0700; an existing one
                              that another user could write to is refused (MJ_ERR_CACHE), and
                              entries not owned by this user are never loaded. */
    unsigned flags;        /* MJ_CONTEXT_* */
    int target_sm;         /* compile-only contexts: e.g. 90 for sm_90; default 90 */
    /* Tile shapes measured by `mergejit tune` (see mj_context_tile). NULL: $MERGEJIT_TUNING,
     * else $XDG_CONFIG_HOME/mergejit/tuning, else ~/.config/mergejit/tuning, each used when it
     * exists; "": none, built-in defaults only. A file that is named (here or by
     * $MERGEJIT_TUNING) but missing, or any file that does not parse, fails context creation
     * with MJ_ERR_FILE. The context keeps the records of its device name and sm; a
     * compile-only context those of the first device in the file with its target sm. */
    const char *tuning_file;
    /* A deployment bundle written by `mergejit gen` / mj_bundle_builder_write. NULL:
     * $MERGEJIT_BUNDLE when set; "": none. With a bundle, sorters are built from it (a cubin
     * for the device, else PTX the driver compiles: see mj_bundle_builder_add_ptx) and never
     * call NVRTC; what it lacks fails with MJ_ERR_NOT_IN_BUNDLE unless flags has
     * MJ_CONTEXT_BUNDLE_FALLBACK. A bundle that cannot be read fails creation (MJ_ERR_FILE). */
    const char *bundle;
} mj_context_options;

/*! mj_context_options_init() :
 *  Fills `options` with the defaults above (device 0, target_sm 90, everything else 0/NULL). */
MJ_API void mj_context_options_init(mj_context_options *options);

/*! mj_context_create() :
 *  Creates a context on the device (retaining its primary context). `options` may be NULL
 *  (the defaults). As in SQLite's open, *out receives a context even when creation fails
 *  (unless host memory ran out, then *out is NULL): read mj_context_last_error from it, then
 *  destroy it.
 *  @return MJ_OK; MJ_ERR_NO_DRIVER or MJ_ERR_NO_DEVICE without a driver or with an ordinal out
 *          of range (not for compile-only contexts); MJ_ERR_CACHE for an unsafe cache
 *          directory; MJ_ERR_FILE for a tuning file or bundle that is named but missing, or
 *          damaged; MJ_ERR_INVALID_ARGUMENT for a bad option or MERGEJIT_CACHE_MAX;
 *          MJ_ERR_HOST_MEMORY. */
MJ_API mj_status mj_context_create(const mj_context_options *options, mj_context **out);

/*! mj_context_destroy() :
 *  Releases every module and the primary context. NULL is accepted. The caller must have
 *  finished (synchronized) the work it launched through this context. Unloading modules waits
 *  for the device, as loading them does (mj_sorter_create). */
MJ_API void mj_context_destroy(mj_context *ctx);

/*! mj_context_last_error() :
 *  @return the message of the last failure in this context ("" when none), valid until the
 *          next call on the context; a fixed message for a NULL ctx. */
MJ_API const char *mj_context_last_error(const mj_context *ctx);

/*! mj_context_target_sm(), mj_context_cache_dir(), mj_context_device_name() :
 *  @return the sm the context compiles for (e.g. 90); its cache directory ("" when the disk
 *          cache is off); the device's name ("" for compile-only contexts). */
MJ_API int mj_context_target_sm(const mj_context *ctx);
MJ_API const char *mj_context_cache_dir(const mj_context *ctx);
MJ_API const char *mj_context_device_name(const mj_context *ctx);
/*! mj_context_tuning_file(), mj_context_bundle() :
 *  @return the tuning file and the bundle the context read ("" when none). */
MJ_API const char *mj_context_tuning_file(const mj_context *ctx);
MJ_API const char *mj_context_bundle(const mj_context *ctx);

/* =============================================================================================
 * 3. Key types, primitives and descriptions
 *
 * An mj_sort_desc says what to build: the primitive, the key type (built-in or a CUDA struct),
 * its order (built-in or a `less` expression), the values carried, and for the combining
 * primitives an operator. Zero it (or mj_sort_desc_init) before filling it.
 * ============================================================================================= */

typedef enum mj_key_kind {
    MJ_KEY_U8, MJ_KEY_I8, MJ_KEY_U16, MJ_KEY_I16, MJ_KEY_U32, MJ_KEY_I32,
    MJ_KEY_U64, MJ_KEY_I64,
    MJ_KEY_F16,  /* IEEE binary16, passed as 16-bit patterns */
    MJ_KEY_BF16, /* bfloat16, passed as 16-bit patterns */
    MJ_KEY_F32, MJ_KEY_F64,
    MJ_KEY_CUSTOM, /* a type given as CUDA source: see mj_sort_desc */
    MJ_KEY_KIND_COUNT
} mj_key_kind;

/*! mj_key_kind_name() :
 *  @return "u32", "f16", ..., "custom"; NULL for an unknown kind. */
MJ_API const char *mj_key_kind_name(mj_key_kind kind);
/*! mj_key_kind_parse() :
 *  @return the kind of a name mj_key_kind_name gives; MJ_KEY_KIND_COUNT for an unknown name. */
MJ_API mj_key_kind mj_key_kind_parse(const char *name);
/*! mj_key_kind_size() :
 *  @return the size in bytes of a built-in kind; 0 for MJ_KEY_CUSTOM. */
MJ_API size_t mj_key_kind_size(mj_key_kind kind);

typedef enum mj_order {
    /* Built-in orders. Floating-point keys (f16, bf16, f32, f64) use a total order:
     * -inf < negative < -0 < +0 < positive < +inf < NaNs. The NaNs sort last in both
     * ascending and descending order (descending reverses the non-NaN values only), ordered
     * among themselves by their bits: first the positive NaNs by increasing payload, then
     * the negative NaNs by decreasing payload. Keys are equivalent only when their bits are
     * equal (-0 and +0 are not, nor are two NaNs of different bits), and every primitive
     * (sorts, merge, search, joins, set operations) uses this one order. */
    MJ_ASCENDING = 0,
    MJ_DESCENDING = 1
} mj_order;

/* The primitives a sorter can be built for. */
typedef enum mj_primitive {
    MJ_MERGESORT = 0,      /* mj_sorter_sort, mj_sorter_sort_indices, _sort_with_indices */
    MJ_MERGE = 1,          /* mj_sorter_merge: two sorted arrays into one */
    MJ_SEGMENTED_SORT = 2, /* mj_sorter_segmented_sort: many segments, each sorted alone */
    MJ_LOCALITY_SORT = 3,  /* mj_sorter_sort: a mergesort that skips the work over data that
                              is already in order; for nearly sorted input */
    MJ_REDUCE = 4,         /* mj_sorter_reduce: all elements combined with an operator */
    MJ_SCAN = 5,           /* mj_sorter_scan: inclusive or exclusive prefix combinations */
    MJ_LOAD_BALANCE = 6,   /* mj_sorter_load_balance: the object of every work item */
    MJ_INTERVAL_EXPAND = 7, /* mj_sorter_interval_expand: each object's value, count times */
    MJ_SORTED_SEARCH = 8,  /* mj_sorter_sorted_search: where each key of one sorted array falls
                              in another, and which keys the two share */
    MJ_BULK_REMOVE = 9,    /* mj_sorter_bulk_remove: a copy without the elements at indices */
    MJ_BULK_INSERT = 10,   /* mj_sorter_bulk_insert: one array's elements put into another at
                              positions */
    MJ_INTERVAL_MOVE = 11, /* mj_sorter_interval_move: many variable-length copies at once */
    MJ_JOIN = 12,          /* mj_sorter_join: the relational join of two sorted key columns */
    MJ_SET_OPS = 13,       /* mj_sorter_set_op: intersection, union, difference or symmetric
                              difference of two sorted multisets */
    MJ_SELECT = 14,        /* mj_sorter_select: the elements a predicate keeps, or the first of
                              each run of equivalent keys (unique), in order */
    MJ_SEGMENTED_REDUCE = 15, /* mj_sorter_segmented_reduce: each segment combined with an
                                 operator */
    MJ_REDUCE_BY_KEY = 16, /* mj_sorter_reduce_by_key: each run of equivalent adjacent keys to
                              one key and its values combined with an operator */
    MJ_PRIMITIVE_COUNT
} mj_primitive;

/*! mj_primitive_name() :
 *  @return "mergesort", "merge", "segsort", "locality", "reduce", "scan", "lbs", "expand",
 *          "search", "remove", "insert", "move", "join", "setops", "select", "segreduce",
 *          "reducebykey"; NULL for an unknown primitive. */
MJ_API const char *mj_primitive_name(mj_primitive primitive);
/*! mj_primitive_parse() :
 *  @return the primitive of a name mj_primitive_name gives; MJ_PRIMITIVE_COUNT for an unknown
 *          name. */
MJ_API mj_primitive mj_primitive_parse(const char *name);

/* What a primitive's value_size may be. */
typedef enum mj_values_rule {
    MJ_VALUES_ANY = 0,     /* 0 (keys only) to 64 bytes */
    MJ_VALUES_NONE = 1,    /* 0 only */
    MJ_VALUES_REQUIRED = 2 /* 1 to 64 bytes: the primitive moves values */
} mj_values_rule;

/* What a primitive's sorter takes from mj_sort_desc, so that a tool or a binding can build
 * requests for every primitive without a list of its own. */
typedef struct mj_primitive_info {
    int comparator;        /* keys are ordered: order, or less for a custom key */
    int op;                /* keys are combined: op and identity (built-ins default to a + b);
                              0 for reduce by key, whose operator combines values (value_type) */
    int index_keys;        /* the keys are offsets or indices: MJ_KEY_I32 or MJ_KEY_I64 only */
    mj_values_rule values; /* what value_size may be */
} mj_primitive_info;

/*! mj_primitive_query() :
 *  Fills `info` with what the primitive's sorter takes from a description.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for an unknown primitive or a NULL info. */
MJ_API mj_status mj_primitive_query(mj_primitive primitive, mj_primitive_info *info);

/* What to sort. Strings are copied by mj_sorter_create; they need not outlive the call. */
typedef struct mj_sort_desc {
    mj_primitive primitive;  /* MJ_MERGESORT unless set */
    mj_key_kind key;
    mj_order order;          /* used when `less` is NULL */
    const char *less;        /* optional: a CUDA boolean expression over `a` and `b`, both
                                `const KEY &`, true when a must come before b (a strict weak
                                order). Required for MJ_KEY_CUSTOM. One expression with
                                balanced brackets: ';', '#', comments, string literals and line
                                continuations are refused (MJ_ERR_INVALID_ARGUMENT). */
    /* MJ_KEY_CUSTOM only. Every primitive but reduce and scan moves a custom key as its
     * type_size bytes, padding included: an output key equals, byte for byte, the input key
     * it comes from (records compare with memcmp). The type must be trivially copyable
     * (checked by a static_assert); `less` sees a bit copy of the bytes as the type. Reduce
     * and scan build keys with the operator: padding bytes of their outputs are
     * unspecified. */
    const char *type_name;   /* the type's name as used in type_source, e.g. "rec" */
    const char *type_source; /* CUDA source defining it (no #include of toolkit headers) */
    size_t type_size;        /* its sizeof, checked by a static_assert in the generated code */
    size_t type_align;       /* its alignof, likewise */
    size_t value_size;       /* bytes per value: 0 for keys only, else 1..64 */
    /* The tile, for tuning experiments (section 18): all 0 (the default) lets the context
     * choose (bundle, tuning file, built-in default; see mj_context_tile); otherwise the merge
     * kernel runs nt threads with vt keys each and the blocksort bs_nt threads (0: nt). */
    int nt, vt, bs_nt;
    /* MJ_REDUCE and MJ_SCAN (the key is then the element type; order, less and value_size are
     * not used and value_size must be 0): the operator, a CUDA expression over `a` and `b`,
     * both `const KEY &`, giving a KEY, e.g. "a + b" or "max(a, b)"; it must be associative
     * (floating-point addition is treated as if it were: results may differ from a sequential
     * sum in the last bits, and from run to run); it need not be commutative (elements are
     * combined in their order, except that reduce may combine a + b over built-in keys, which
     * commutes, in another). NULL: a + b, for built-in keys other than f16 and bf16
     * (those are 16-bit patterns here, `a.bits`, with no arithmetic: give op and identity);
     * integer sums wrap as in C. Same rules as `less`. Custom types for reduce and scan need
     * no `less`; they must be copyable as bytes (they move through shared memory and warp
     * shuffles). MJ_REDUCE_BY_KEY: the same rules over its values (value_type, below). */
    const char *op;
    /* MJ_SELECT reads op as its selection operator instead: a CUDA boolean expression over
     * `a` (`const KEY &`), true for the elements to keep, e.g. "a > 10" or "a.weight != 0"
     * (custom keys); same rules as `less`. NULL: the sorter runs MJ_SELECT_UNIQUE only.
     * identity must then be NULL. A custom key with op may leave `less` NULL: the sorter
     * then runs MJ_SELECT_IF only. */
    /* The operator's identity, a CUDA expression giving a KEY (op(identity, x) == op(x,
     * identity) == x), e.g. "0", "-INFINITY" (defined for these expressions) or "rec{0, 0}"
     * (custom keys name their type): an exclusive scan's first output, the reduction of no
     * elements, and what a partial tile is padded with. NULL: KEY(0) for built-in keys;
     * required with op and for custom keys. */
    const char *identity;
    /* MJ_MERGESORT: the input size, as a power of two of bytes of keys and values, from which
     * its merge passes merge four lists rather than two. 0 (the default): the context's
     * choice, its tuning file's record (mj_tile.merge4_log2) or else 25 (32 MiB); 1 to 62 sets
     * it (62: no input is that large, so every pass merges two). Other primitives: 0. */
    int merge4_log2;
    /* MJ_REDUCE_BY_KEY only (NULL for every other primitive, which refuses them): the type of
     * the values, which op and identity combine (for this primitive they are expressions over
     * `a` and `b`, both `const VALUE &`, giving a VALUE; NULL op and identity: a + b and 0).
     * value_type is a CUDA type name, a built-in one such as "float" or
     * "unsigned long long", or one defined in value_type_source (CUDA source, no #include;
     * NULL when none is needed). value_size must be its sizeof (1 to 64) and its alignof at
     * most the alignment of the value arrays, which is what value_size allows (16 for 16, 8
     * for multiples of 8, 4, 2, else 1): static_asserts in the generated code check both,
     * and that it is trivially copyable; it also lives in shared memory, so it must have no
     * constructor of its own (a plain struct). Output values are built by the operator, so the
     * padding bytes of a struct value are unspecified (keys are moved as bytes, padding
     * included). Appended fields: a description zeroed before it is filled (memset, `= {0}`,
     * mj_sort_desc_init) keeps them NULL. */
    const char *value_type;
    const char *value_type_source;
} mj_sort_desc;

/*! mj_sort_desc_init() :
 *  Zeroes `desc` and sets it to keys of `kind` (not custom) in `order`, no values, for
 *  mergesort. */
MJ_API void mj_sort_desc_init(mj_sort_desc *desc, mj_key_kind kind, mj_order order);

/* =============================================================================================
 * 4. Sorters: build once, run many
 *
 * A sorter is one primitive compiled for one description. mj_sorter_create builds (or loads)
 * every kernel its runs may launch; the run functions of sections 5 to 16 then only queue
 * work. The one-call functions (section 17) do both, keeping the sorter in the context.
 *
 * Temporary storage, for every run function: `temp` is device memory of at least
 * mj_sorter_temp_size bytes, aligned to 256, with its size in temp_bytes; or NULL with
 * temp_bytes 0, and the library allocates and frees it in stream order. A NULL temp is not a
 * size query as in CUB: ask the size with mj_sorter_temp_size. A NULL temp with temp_bytes
 * other than 0 (a CUB-style call) is refused, so that no run happens by mistake.
 *
 * What every run function returns (each function's @return adds its own cases):
 *   MJ_OK once the work is queued on `stream` (the run has not finished);
 *   MJ_ERR_INVALID_ARGUMENT for a sorter built for another primitive, a required pointer that
 *     is NULL, misaligned or not device memory, outputs that overlap what they must not,
 *     temp smaller than mj_sorter_temp_size or not aligned to 256, or a NULL temp with
 *     temp_bytes other than 0;
 *   MJ_ERR_TOO_LARGE for a count whose byte size does not fit in size_t;
 *   MJ_ERR_UNSUPPORTED in a compile-only context;
 *   MJ_ERR_DEVICE_MEMORY when temp is NULL and the library's allocation fails;
 *   MJ_ERR_CUDA when a launch or another driver call fails.
 * ============================================================================================= */

typedef struct mj_sorter mj_sorter;

/*! mj_sorter_create() :
 *  Generates, compiles (or loads from the bundle, the disk cache or the context's memory) and
 *  loads the kernels of desc->primitive for `desc`: every kernel the sorter's runs may launch,
 *  so that no run builds or loads anything and every run returns once its work is queued.
 *
 *  This is the call that may wait for the device: loading a module (cuModuleLoadDataEx) waits
 *  until the work already queued on the device, on any stream, has finished, and holds up
 *  launches from the process's other threads meanwhile. Create sorters before queueing work
 *  that they must not wait for (the one-call functions create theirs on first use, and so may
 *  wait then; later calls find the sorter in the context's memory). How a build is scheduled
 *  and which kernels a sorter holds: docs/deployment.md, "Build time".
 *  @return MJ_OK with the sorter in *out;
 *          MJ_ERR_INVALID_ARGUMENT for a description its primitive does not take (the message
 *          names the field), or a bad experiment switch in the environment (docs/TUNING.md);
 *          MJ_ERR_COMPILE when the comparator, operator or type does not compile (NVRTC's log
 *          in the message); MJ_ERR_NO_COMPILER without NVRTC; MJ_ERR_NOT_IN_BUNDLE when the
 *          context's bundle lacks the kernels and may not compile them; MJ_ERR_CUDA when the
 *          module does not load; MJ_ERR_HOST_MEMORY. */
MJ_API mj_status mj_sorter_create(mj_context *ctx, const mj_sort_desc *desc, mj_sorter **out);
/*! mj_sorter_destroy() :
 *  Frees the sorter (its modules stay in the context). NULL is accepted. */
MJ_API void mj_sorter_destroy(mj_sorter *sorter);

/*! mj_sorter_temp_size() :
 *  Bytes of temporary device storage that a run of the sorter needs for n elements, where n
 *  is: the output count for merges; num_items + num_objects for lbs, expand and move;
 *  a_count + b_count for sorted searches, bulk inserts, joins and set operations;
 *  n + segments->count for segmented reductions; the input count otherwise. indices != 0 asks
 *  for mj_sorter_sort_indices.
 *  @return MJ_OK with the size in *bytes; MJ_ERR_INVALID_ARGUMENT for a NULL sorter or bytes;
 *          MJ_ERR_TOO_LARGE when the size does not fit in size_t. */
MJ_API mj_status mj_sorter_temp_size(const mj_sorter *sorter, size_t n, int indices,
                                     size_t *bytes);

/* =============================================================================================
 * 5. Sort: mergesort and locality sort
 * ============================================================================================= */

/*! mj_sorter_sort() :
 *  Sorts n keys (and their values, when the sorter has value_size > 0; `values` is then
 *  required) in place, stably. For sorters built for MJ_MERGESORT or MJ_LOCALITY_SORT (a
 *  mergesort that skips the work over data already in order). Temporary storage: section 4.
 *  @return as every run (section 4). */
MJ_API mj_status mj_sorter_sort(mj_sorter *sorter, void *keys, void *values, size_t n,
                                void *temp, size_t temp_bytes, void *stream);

/*! mj_sorter_sort_indices() :
 *  Writes to `indices` the stable permutation that sorts `keys`, leaving the keys as they are:
 *  keys[indices[0]], keys[indices[1]], ... is sorted. The sorter's value_size is the index
 *  width: 4 (uint32_t, n <= 2^32) or 8 (uint64_t). Temporary storage:
 *  mj_sorter_temp_size(sorter, n, 1).
 *  For sorters built for MJ_MERGESORT.
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also for a value_size other than
 *          4 or 8; MJ_ERR_TOO_LARGE for n above 2^32 with 4-byte indices. */
MJ_API mj_status mj_sorter_sort_indices(mj_sorter *sorter, const void *keys, void *indices,
                                        size_t n, void *temp, size_t temp_bytes, void *stream);
/*! mj_sorter_sort_with_indices() :
 *  Sorts n keys in place, stably, and writes to `indices` each sorted key's position in the
 *  input, as torch.sort returns values and indices: one sort, no index array to fill first.
 *  Index width, sorters and statuses as mj_sorter_sort_indices'; temporary storage:
 *  mj_sorter_temp_size(sorter, n, 0). indices must not overlap keys. */
MJ_API mj_status mj_sorter_sort_with_indices(mj_sorter *sorter, void *keys, void *indices,
                                             size_t n, void *temp, size_t temp_bytes,
                                             void *stream);

/* =============================================================================================
 * 6. Merge
 * ============================================================================================= */

/*! mj_sorter_merge() :
 *  Merges sorted a (a_count keys, with a_values) and sorted b into out (a_count + b_count
 *  keys, with out_values), stably: on equal keys a's come first. For sorters built for
 *  MJ_MERGE; values are required exactly when the sorter has value_size > 0. out must not
 *  overlap the inputs. The temporary storage is mj_sorter_temp_size(sorter, a_count + b_count,
 *  0).
 *  @return as every run (section 4). */
MJ_API mj_status mj_sorter_merge(mj_sorter *sorter, const void *a_keys, const void *a_values,
                                 size_t a_count, const void *b_keys, const void *b_values,
                                 size_t b_count, void *out_keys, void *out_values, void *temp,
                                 size_t temp_bytes, void *stream);

/* =============================================================================================
 * 7. Segmented sort
 *
 * (Locality sort, for nearly sorted input, runs through mj_sorter_sort: section 5.)
 * ============================================================================================= */

/* How a segmented sort is told where its segments begin (device memory). Element 0 always
 * begins a segment; empty segments (repeated indices or offsets) change nothing. Segmented
 * reduce (section 11) takes offsets only. */
typedef enum mj_segments_kind {
    /* One byte per element (n bytes), non-zero where a segment begins. */
    MJ_SEGMENTS_FLAGS = 0,
    /* One bit per element: bit i % 32 of the 32-bit word i / 32 ((n + 31) / 32 words). */
    MJ_SEGMENTS_FLAG_BITS = 1,
    /* `count` head indices, the first element of each segment, as in Modern GPU: a segment
     * runs to the next head. Any order; repeats (empty segments) and indices outside [0, n)
     * are ignored. */
    MJ_SEGMENTS_HEADS = 2,
    /* `count` = segments + 1 offsets, CSR style as in CUB: segment i is
     * [offsets[i], offsets[i + 1]). Elements before offsets[0] or from offsets[count - 1] on
     * are sorted as segments of their own (unlike CUB, which leaves them alone). */
    MJ_SEGMENTS_OFFSETS = 3
} mj_segments_kind;

typedef struct mj_segments {
    mj_segments_kind kind;
    const void *data;  /* device memory in the form above */
    size_t count;      /* entries of data (HEADS and OFFSETS only) */
    size_t index_size; /* HEADS and OFFSETS: 4 (uint32_t) or 8 (int64_t) */
} mj_segments;

/*! mj_sorter_segmented_sort() :
 *  Sorts each segment of keys (and values, as in mj_sorter_sort) in place, stably. For
 *  sorters built for MJ_SEGMENTED_SORT; the temporary storage is mj_sorter_temp_size(sorter,
 *  n, 0). Segment data is only read, and indices outside [0, n) are ignored, so no segment
 *  description can make the sort read or write outside the arrays.
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also for a bad segment kind or
 *          index_size. */
MJ_API mj_status mj_sorter_segmented_sort(mj_sorter *sorter, void *keys, void *values,
                                          size_t n, const mj_segments *segments, void *temp,
                                          size_t temp_bytes, void *stream);

/* =============================================================================================
 * 8. Reduce and scan
 *
 * The key is the element type; mj_sort_desc's op and identity combine elements (associative,
 * not assumed commutative). order, less and value_size are not used.
 * ============================================================================================= */

/*! mj_sorter_reduce() :
 *  Combines the n elements of `in` with the sorter's operator and writes the one result to
 *  `out` (device memory, one KEY); n == 0 writes the identity. For sorters built for
 *  MJ_REDUCE; the temporary storage is mj_sorter_temp_size(sorter, n, 0) (0 when one block
 *  covers the input): one pass writes a partial per block, a second block combines them.
 *  @return as every run (section 4). */
MJ_API mj_status mj_sorter_reduce(mj_sorter *sorter, const void *in, size_t n, void *out,
                                  void *temp, size_t temp_bytes, void *stream);

typedef enum mj_scan_kind {
    MJ_SCAN_EXCLUSIVE = 0, /* out[0] = identity, out[i] = in[0] op ... op in[i - 1] */
    MJ_SCAN_INCLUSIVE = 1  /* out[i] = in[0] op ... op in[i] */
} mj_scan_kind;

/*! mj_sorter_scan() :
 *  Scans the n elements of `in` into `out` (n elements; out == in scans in place, any other
 *  overlap is refused). `total` (device memory, one KEY, may be NULL, not inside in or out)
 *  receives the combination of all n elements (the identity for n == 0). For sorters built
 *  for MJ_SCAN; the temporary storage is mj_sorter_temp_size(sorter, n, 0): a few bytes per
 *  tile (0 for n == 0), cleared in stream order by every run, so one buffer serves any number
 *  of runs. One pass over the data (decoupled look-back).
 *  @return as every run (section 4). */
MJ_API mj_status mj_sorter_scan(mj_sorter *sorter, const void *in, size_t n, void *out,
                                mj_scan_kind kind, void *total, void *temp, size_t temp_bytes,
                                void *stream);

/* =============================================================================================
 * 9. Select and unique
 *
 * Sorters built for MJ_SELECT; any key, including custom keys, whose order or less decides
 * what unique takes as equivalent (a custom key needs less for unique only); values of 0 to 64
 * bytes, moved with their keys. What to keep is chosen per call.
 * ============================================================================================= */

typedef enum mj_select_kind {
    MJ_SELECT_IF = 0,    /* the elements whose key satisfies the sorter's op (mj_sort_desc.op,
                            a predicate over `a`), as CUB's DeviceSelect::If */
    MJ_SELECT_UNIQUE = 1 /* the first element of each run of adjacent equivalent keys (neither
                            ordered before the other by order or less; built-in float keys are
                            equivalent only with equal bits: -0 and +0 differ, a NaN is
                            equivalent to a NaN of the same bits), as DeviceSelect::Unique */
} mj_select_kind;

/*! mj_sorter_select() :
 *  Copies the n elements of keys (and values) that `kind` keeps to out_keys (and out_values),
 *  in their order, and writes how many to *out_count, one uint64_t in device memory, in
 *  stream order (no host synchronization). out_keys (and out_values) must hold n elements (the
 *  most that can be kept); nothing is written past the count. Keys move as their bytes,
 *  padding included. Values are given exactly when the sorter has value_size > 0 (NULL
 *  allowed for n == 0). Outputs must not overlap the inputs or one another. The temporary
 *  storage is mj_sorter_temp_size(s, n, 0): one 8-byte word a tile of the input.
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also for MJ_SELECT_IF on a
 *          sorter built without op, and for MJ_SELECT_UNIQUE on one of a custom key built
 *          without less. */
MJ_API mj_status mj_sorter_select(mj_sorter *s, mj_select_kind kind, const void *keys,
                                  const void *values, size_t n, void *out_keys,
                                  void *out_values, void *out_count, void *temp,
                                  size_t temp_bytes, void *stream);

/* =============================================================================================
 * 10. Reduce by key
 * ============================================================================================= */

/*! mj_sorter_reduce_by_key() :
 *  Reduce by key (sorters built for MJ_REDUCE_BY_KEY; any key, including custom keys, with the
 *  order or less of a merge; values of value_type, value_size bytes, combined with op and
 *  identity: see mj_sort_desc.value_type). Two keys are equivalent when neither is ordered
 *  before the other: for the built-in orders, when their bits are equal (floats compare by
 *  the total order of mj_order, so -0 and +0 are not equivalent, and NaNs are when their bits
 *  are equal). Each run of adjacent equivalent keys of keys[0, n) gives one output, in order:
 *  its first key, moved as its bytes (padding included, as in every primitive but reduce and
 *  scan), to out_keys[r], and its values combined in order, v_first op ... op v_last (op must
 *  be associative; it need not be commutative), to out_values[r]. The input need not be
 *  sorted (equal keys apart make runs apart), as in CUB's DeviceReduce::ReduceByKey. The
 *  number of runs goes to *out_count, one uint64_t in device memory, in stream order (no host
 *  synchronization); out_keys and out_values hold n entries (the most there can be) and only
 *  the first *out_count are written. n == 0 writes 0 to out_count only. Outputs must not
 *  overlap the inputs or one another. One pass over the input (decoupled look-back over the
 *  tiles' run counts and open runs); the temporary storage is mj_sorter_temp_size(s, n, 0),
 *  cleared in stream order by every run.
 *  @return as every run (section 4); MJ_ERR_TOO_LARGE also for n of 2^62 or more. */
MJ_API mj_status mj_sorter_reduce_by_key(mj_sorter *s, const void *keys, const void *values,
                                         size_t n, void *out_keys, void *out_values,
                                         void *out_count, void *temp, size_t temp_bytes,
                                         void *stream);

/* =============================================================================================
 * 11. Segmented reduce
 * ============================================================================================= */

/*! mj_sorter_segmented_reduce() :
 *  Combines each segment of `in` (n elements) with the sorter's operator, in order, into
 *  out[i] for segment i (device memory, one KEY a segment): the same operator and identity as
 *  mj_sorter_reduce (associative, not assumed commutative; any key type, custom structs too).
 *  Segments are CSR offsets (MJ_SEGMENTS_OFFSETS, index_size 4 or 8, count = segments + 1):
 *  segment i is in[offsets[i], offsets[i + 1]), and an empty one gives the identity (there is
 *  no initial value, unlike CUB's: combine one into out afterwards if needed); count 0 or 1 is
 *  no segments (nothing written, out may be NULL). Elements before offsets[0] or from
 *  offsets[count - 1] on belong to no segment (as in CUB). Offsets that decrease or pass n
 *  break the contract: the results are then unspecified, but no read or write leaves in,
 *  offsets and out. The work is balanced over elements and segments together (Modern GPU's
 *  segmented reduction): one giant segment and millions of empty ones cost alike.
 *  Floating-point results follow the operator's association, not a serial one, and may differ
 *  from a serial sum by rounding; NaNs reach a result as the operator takes them: a + b
 *  propagates them, fmaxf(a, b) with identity -INFINITY ignores them (a segment of NaNs alone
 *  gives -inf). out must not overlap in or the offsets. For sorters built for
 *  MJ_SEGMENTED_REDUCE; the temporary storage is mj_sorter_temp_size(sorter, n +
 *  segments->count, 0).
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also for segment kinds other
 *          than MJ_SEGMENTS_OFFSETS (flags, heads). */
MJ_API mj_status mj_sorter_segmented_reduce(mj_sorter *sorter, const void *in, size_t n,
                                            const mj_segments *segments, void *out, void *temp,
                                            size_t temp_bytes, void *stream);

/* =============================================================================================
 * 12. Sorted search
 *
 * Vectorized sorted search (sorters built for MJ_SORTED_SEARCH; any key, including custom
 * keys, with the order or less of a merge; value_size 0). Two keys are equivalent when
 * neither is ordered before the other.
 * ============================================================================================= */

typedef enum mj_bound {
    MJ_BOUND_LOWER = 0, /* the first position in the other array whose key is not ordered before
                           the key */
    MJ_BOUND_UPPER = 1  /* the first position whose key is ordered after the key */
} mj_bound;

/* What a sorted search writes (device memory); every pointer may be NULL (not written), at
 * least one is set. */
typedef struct mj_search_outputs {
    mj_bound bound;     /* for a's indices; b's indices get the other bound (one merge serves
                           both) */
    size_t index_size;  /* 4 (uint32_t) or 8 (uint64_t) for a_indices, b_indices, a_counts */
    void *a_indices;    /* a_count entries: the bound of a[i] in b */
    void *a_matches;    /* a_count bytes: 1 when b holds a key equivalent to a[i], else 0 */
    void *a_counts;     /* a_count entries: how many keys of b are equivalent to a[i] */
    void *b_indices;    /* b_count entries: the other bound of b[j] in a */
    void *b_matches;    /* b_count bytes: 1 when a holds a key equivalent to b[j], else 0 */
    void *match_counts; /* two uint64_t: how many a[i] and how many b[j] have a match */
} mj_search_outputs;

/*! mj_sorter_sorted_search() :
 *  Searches every key of a (a_count keys) in b and every key of b in a, both sorted by the
 *  sorter's order, with one merge of the two (a_counts come from the merge for lower bounds,
 *  so with MJ_BOUND_UPPER and other outputs they take a second one), and writes the outputs
 *  that `out` asks for. Unsorted input gives unspecified
 *  results, but every write stays inside the output arrays. Either count may be 0: the other
 *  side's outputs are then bound 0, no match, count 0. Outputs must not overlap the inputs or
 *  one another. The temporary storage is mj_sorter_temp_size(sorter, a_count + b_count, 0).
 *  @return as every run (section 4); MJ_ERR_TOO_LARGE also when index_size is 4, an index
 *          output is set and a_count or b_count is above 2^32 - 1. */
MJ_API mj_status mj_sorter_sorted_search(mj_sorter *s, const void *a, size_t a_count,
                                         const void *b, size_t b_count,
                                         const mj_search_outputs *out, void *temp,
                                         size_t temp_bytes, void *stream);

/* =============================================================================================
 * 13. Load-balancing search, interval expand and interval move
 *
 * Sorters built for MJ_LOAD_BALANCE, MJ_INTERVAL_EXPAND and MJ_INTERVAL_MOVE: the key is the
 * index type, MJ_KEY_I32 or MJ_KEY_I64, of the offsets and of the object indices and ranks
 * written (order and less are not used). I32 sorters refuse num_objects or num_items above
 * 2^31 - 1 (MJ_ERR_TOO_LARGE). For expand and move, value_size is the bytes of a value, 1..64
 * (moved as bytes); load balance takes value_size 0. All merge the work items
 * 0..num_items-1 with the offsets (merge path), so the temporary storage is
 * mj_sorter_temp_size(sorter, num_items + num_objects, 0): one 8-byte entry per tile of the
 * merged length, plus one. num_items == 0 does nothing; num_objects == 0 with num_items > 0
 * is refused (no object owns the items).
 * ============================================================================================= */

/*! mj_sorter_load_balance() :
 *  For each of the num_items work items i, the object it belongs to: the last j with
 *  offsets[j] <= i (offsets: num_objects ascending, offsets[0] == 0: the exclusive scan of
 *  the objects' counts, num_items their total), written to objects[i]; and, when ranks is not
 *  NULL, i - offsets[objects[i]] to ranks[i]. Both arrays of the key type. Unsorted offsets
 *  are the caller's contract: the result is then unspecified but every write stays inside
 *  objects[0, num_items) and ranks[0, num_items). MJ_LOAD_BALANCE.
 *  @return as every run (section 4), and the refusals of the section's introduction. */
MJ_API mj_status mj_sorter_load_balance(mj_sorter *s, const void *offsets, size_t num_objects,
                                        size_t num_items, void *objects, void *ranks,
                                        void *temp, size_t temp_bytes, void *stream);
/*! mj_sorter_interval_expand() :
 *  out[i] = values[objects[i]] for the load-balancing search above: each object's value
 *  repeated its count times. MJ_INTERVAL_EXPAND; value_size bytes per value.
 *  @return as every run (section 4), and the refusals of the section's introduction. */
MJ_API mj_status mj_sorter_interval_expand(mj_sorter *s, const void *offsets,
                                           size_t num_objects, size_t num_items,
                                           const void *values, void *out, void *temp,
                                           size_t temp_bytes, void *stream);

/*! mj_sorter_interval_move() :
 *  Interval gather, scatter and move (MJ_INTERVAL_MOVE; value_size bytes per element, 1..64,
 *  moved as bytes; the temporary storage is mj_sorter_temp_size(sorter, num_items +
 *  num_intervals, 0)). For each interval j < num_intervals, covering the work items
 *  [offsets[j], offsets[j + 1]) (offsets as for load balance: ascending, offsets[0] == 0, the
 *  end of the last is num_items), item i with rank r = i - offsets[j] copies one element:
 *      out[scatter ? scatter[j] + r : i] = in[gather ? gather[j] + r : i]
 *  gather only is the seed's IntervalGather, scatter only IntervalScatter, both IntervalMove,
 *  neither a copy of the first num_items elements. gather and scatter: num_intervals entries
 *  of the index type in device memory, or NULL. Sources and destinations are computed exactly
 *  (in 64 bits, also for i32); an item whose source is outside [0, in_count) or whose
 *  destination is outside [0, out_count) is skipped, so no description (nor unsorted offsets,
 *  whose result is otherwise unspecified) makes the run read or write outside in and out.
 *  Where intervals write one destination twice, which write wins is unspecified. Each item's
 *  element is read and written once, contiguously within an interval.
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also when out overlaps in,
 *          offsets, gather or scatter; MJ_ERR_TOO_LARGE for in_count or out_count above
 *          2^63 - 1. */
MJ_API mj_status mj_sorter_interval_move(mj_sorter *s, const void *offsets,
                                         size_t num_intervals, size_t num_items,
                                         const void *gather, const void *scatter,
                                         const void *in, size_t in_count, void *out,
                                         size_t out_count, void *temp, size_t temp_bytes,
                                         void *stream);

/* =============================================================================================
 * 14. Bulk remove and bulk insert
 *
 * Sorters built for MJ_BULK_REMOVE and MJ_BULK_INSERT: array surgery by index. The key is the
 * element type, any kind including MJ_KEY_CUSTOM (moved as bytes, padding included: order and
 * less are not used), with values of value_size 0..64 bytes moved alongside; values are given
 * exactly when the sorter has value_size > 0. Indices and positions are device memory of
 * index_size 4 (uint32_t) or 8 (uint64_t) bytes each. Outputs must not overlap inputs.
 * ============================================================================================= */

/*! mj_sorter_bulk_remove() :
 *  Copies the n elements of keys (and values) to out_keys (out_values) without the ones at
 *  the num_indices positions in `indices`, ascending, distinct, each below n: out gets
 *  n - num_indices elements, in order. Indices that break that contract give unspecified
 *  output, but every write stays inside out_keys[0, n - num_indices) (and out_values). The
 *  temporary storage is mj_sorter_temp_size(s, n, 0): one 8-byte entry per tile of the
 *  source, plus one. MJ_BULK_REMOVE.
 *  @return as every run (section 4); MJ_ERR_INVALID_ARGUMENT also for num_indices > n. */
MJ_API mj_status mj_sorter_bulk_remove(mj_sorter *s, const void *keys, const void *values,
                                       size_t n, const void *indices, size_t num_indices,
                                       size_t index_size, void *out_keys, void *out_values,
                                       void *temp, size_t temp_bytes, void *stream);
/*! mj_sorter_bulk_insert() :
 *  Inserts a (a_count keys and a_values) into b (b_count keys and b_values): a[i] goes just
 *  before b[positions[i]] (positions: a_count entries, ascending, each in [0, b_count];
 *  b_count appends), a's elements of equal position in their order. out gets a_count +
 *  b_count elements. Bad positions: unspecified order, writes stay inside out. The temporary
 *  storage is mj_sorter_temp_size(s, a_count + b_count, 0). MJ_BULK_INSERT.
 *  @return as every run (section 4). */
MJ_API mj_status mj_sorter_bulk_insert(mj_sorter *s, const void *a_keys, const void *a_values,
                                       const void *positions, size_t a_count, size_t index_size,
                                       const void *b_keys, const void *b_values, size_t b_count,
                                       void *out_keys, void *out_values, void *temp,
                                       size_t temp_bytes, void *stream);

/* =============================================================================================
 * 15. Set operations
 *
 * Multiset operations (sorters built for MJ_SET_OPS; any key, including custom keys, with the
 * order or less of a merge; values of 0 to 64 bytes). The operation is chosen per call.
 * ============================================================================================= */

typedef enum mj_set_op {
    MJ_SET_INTERSECTION = 0,        /* std::set_intersection */
    MJ_SET_UNION = 1,               /* std::set_union */
    MJ_SET_DIFFERENCE = 2,          /* std::set_difference: a - b */
    MJ_SET_SYMMETRIC_DIFFERENCE = 3 /* std::set_symmetric_difference */
} mj_set_op;

/*! mj_set_op_bound() :
 *  @return the most elements op can produce from a_count and b_count, what out_keys and
 *          out_values must hold: min(a_count, b_count) for the intersection, a_count for the
 *          difference, a_count + b_count (saturated) for the others; 0 for an unknown op. */
MJ_API size_t mj_set_op_bound(mj_set_op op, size_t a_count, size_t b_count);

/*! mj_sorter_set_op() :
 *  Runs op over a (a_count keys, with a_values) and b (b_count keys, with b_values), both
 *  sorted by the sorter's order, with the semantics of the C++ standard's set algorithms over
 *  multisets: keys are equivalent when neither is ordered before the other, and the i-th copy
 *  of a key in a matches the i-th copy in b. The output is sorted and stable; each element
 *  keeps its value: an element of a (or of b) its own, a matched pair (intersection, union)
 *  a's key and value. Values are given exactly when the sorter has value_size > 0 (NULL
 *  allowed for an empty side). out_keys (and out_values) hold mj_set_op_bound(op, a_count,
 *  b_count) elements; how many were written goes to *out_count, one uint64_t in device
 *  memory, in stream order (no host synchronization). Unsorted input gives unspecified
 *  output, but every write stays inside those arrays and *out_count is at most the bound.
 *  Outputs must not overlap the inputs or one another. The temporary storage is
 *  mj_sorter_temp_size(s, a_count + b_count, 0).
 *  @return as every run (section 4); MJ_ERR_TOO_LARGE also when a_count + b_count reaches
 *          2^62. */
MJ_API mj_status mj_sorter_set_op(mj_sorter *s, mj_set_op op, const void *a_keys,
                                  const void *a_values, size_t a_count, const void *b_keys,
                                  const void *b_values, size_t b_count, void *out_keys,
                                  void *out_values, void *out_count, void *temp,
                                  size_t temp_bytes, void *stream);

/* =============================================================================================
 * 16. Joins
 *
 * Relational join (sorters built for MJ_JOIN; any key, including custom keys, with the order
 * or less of a merge; value_size 0): a merge-join of two key columns a and b, each sorted by
 * the sorter's order. Keys are equivalent when neither is ordered before the other; each run
 * of equivalent keys joins as the Cartesian product of its rows in a and its rows in b. The
 * output is a table of row pairs (a_rows[k], b_rows[k]), in this order:
 *   - for each row i of a, ascending: (i, j) for each row j of b equivalent to it, ascending;
 *     left and outer joins give (i, NULL) to a row i that has none;
 *   - then, right and outer joins only: (NULL, j) for each row j of b that no row of a is
 *     equivalent to, ascending.
 * NULL is all ones: UINT32_MAX or UINT64_MAX for index_size 4 or 8.
 * ============================================================================================= */

typedef enum mj_join_kind {
    MJ_JOIN_INNER = 0, /* matched pairs only */
    MJ_JOIN_LEFT = 1,  /* and every row of a without a match */
    MJ_JOIN_RIGHT = 2, /* and every row of b without a match, at the end */
    MJ_JOIN_OUTER = 3  /* both (full outer join) */
} mj_join_kind;

/*! mj_sorter_join_count() :
 *  Counts the rows of the join and writes the count (one uint64_t, device memory) in stream
 *  order: no host synchronisation; read it back to size the outputs of mj_sorter_join. The
 *  temporary storage is mj_sorter_temp_size(sorter, a_count + b_count, 0), for both calls.
 *  Every row count the inputs allow is exact. Unsorted input gives an unspecified count (and
 *  rows), but every write stays inside out_count (and the row arrays).
 *  @return as every run (section 4); MJ_ERR_TOO_LARGE also for inputs whose largest possible
 *          join (a_count * b_count + a_count + b_count rows) reaches 2^63. */
MJ_API mj_status mj_sorter_join_count(mj_sorter *s, mj_join_kind kind, const void *a,
                                      size_t a_count, const void *b, size_t b_count,
                                      void *out_count, void *temp, size_t temp_bytes,
                                      void *stream);
/*! mj_sorter_join() :
 *  Writes the join's rows k < capacity to a_rows[k] and b_rows[k] (device memory, capacity
 *  entries of index_size 4 (uint32_t) or 8 (uint64_t) each) and the full row count to
 *  out_count, as mj_sorter_join_count does: a count above capacity means the rows from
 *  capacity on were not written. Nothing is written past capacity. The count of rows may
 *  exceed 2^32 with either index size. The work grows with min(capacity, the largest possible
 *  join): give the room the count asked for. Outputs must not overlap the inputs or one
 *  another.
 *  @return as mj_sorter_join_count; MJ_ERR_TOO_LARGE also with index_size 4 and a_count or
 *          b_count above 2^32 - 1 (all ones is NULL), known before the run. */
MJ_API mj_status mj_sorter_join(mj_sorter *s, mj_join_kind kind, const void *a, size_t a_count,
                                const void *b, size_t b_count, size_t index_size, void *a_rows,
                                void *b_rows, size_t capacity, void *out_count, void *temp,
                                size_t temp_bytes, void *stream);

/* A join counted once and written later without a second search. mj_sorter_join_count then
 * mj_sorter_join search the keys twice when the row count is not known beforehand;
 * mj_sorter_join_plan counts the rows and keeps, in the temporary storage, what the rows are
 * written from, and mj_sorter_join_rows writes them from it: the pair costs about what
 * mj_sorter_join alone does. A plan is this host record and the temporary storage it names,
 * which nothing else may use (another run, a copy, a free) from the plan's call until the last
 * mj_sorter_join_rows that reads it has run. Only mj_sorter_join_plan fills a plan; its fields
 * may be read. */
typedef struct mj_join_plan {
    const mj_sorter *sorter; /* the sorter that planned the join */
    mj_join_kind kind;
    size_t a_count, b_count;
    const void *temp;        /* the temporary storage that holds the plan, and its size */
    size_t temp_bytes;
    unsigned stamp;          /* set by a successful mj_sorter_join_plan, checked by the rows */
} mj_join_plan;

/*! mj_sorter_join_plan() :
 *  Counts the rows as mj_sorter_join_count does (the count to out_count) and fills *plan for
 *  mj_sorter_join_rows. temp is the caller's (not NULL): the plan lives there. A plan costs
 *  more than a count alone (it also keeps each row of a's bound in b and first output row).
 *  @return as mj_sorter_join_count; MJ_ERR_INVALID_ARGUMENT also for a NULL plan or temp.
 *          *plan is filled on MJ_OK only (and its stamp cleared otherwise). */
MJ_API mj_status mj_sorter_join_plan(mj_sorter *s, mj_join_kind kind, const void *a,
                                     size_t a_count, const void *b, size_t b_count,
                                     void *out_count, void *temp, size_t temp_bytes,
                                     void *stream, mj_join_plan *plan);
/*! mj_sorter_join_rows() :
 *  Writes the rows k < capacity of the join that `plan` counted to a_rows[k] and b_rows[k]:
 *  the rows mj_sorter_join writes for the plan's kind and keys, nothing past capacity; the
 *  count is the plan's (this call writes none). The keys are not read again: the rows are
 *  those of the keys as they were planned. The plan stays valid, so the rows may be written
 *  again (into larger arrays, say). temp and temp_bytes are the plan's; queue the call after
 *  the plan's, in stream order. The rows must not overlap one another or temp.
 *  @return as mj_sorter_join; MJ_ERR_INVALID_ARGUMENT also for a NULL plan, one that
 *          mj_sorter_join_plan did not fill or filled for another sorter, and a temp or
 *          temp_bytes other than the plan's. */
MJ_API mj_status mj_sorter_join_rows(mj_sorter *s, const mj_join_plan *plan, size_t index_size,
                                     void *a_rows, void *b_rows, size_t capacity, void *temp,
                                     size_t temp_bytes, void *stream);

/* =============================================================================================
 * 17. One-call functions
 *
 * Each builds (or finds in the context) the sorter for `desc` (value_size taken from the
 * call, and the primitive too where the function's comment says so) and runs it with
 * library-allocated temporary storage. The first call for a description creates its sorter,
 * and so may compile and wait for the device as mj_sorter_create does; a call for a
 * description the context has seen returns once the work is queued. Each is the run function
 * named in its comment; its arguments mean the same and come in the same order (temp and
 * temp_bytes left out), then the sizes the sorter's description would hold (value_size,
 * index_size of an index sort), last before the stream.
 *
 * @return, for every one-call function: what mj_sorter_create returns for the description
 *         (first call), then what its run function returns.
 * ============================================================================================= */

/*! mj_sort_keys(), mj_sort_pairs() :
 *  mj_sorter_sort of desc->primitive, MJ_MERGESORT or MJ_LOCALITY_SORT. */
MJ_API mj_status mj_sort_keys(mj_context *ctx, const mj_sort_desc *desc, void *keys, size_t n,
                              void *stream);
MJ_API mj_status mj_sort_pairs(mj_context *ctx, const mj_sort_desc *desc, void *keys,
                               void *values, size_t n, size_t value_size, void *stream);
/*! mj_sort_indices() :
 *  mj_sorter_sort_indices; it sets the primitive (MJ_MERGESORT), and index_size (4 or 8) is
 *  the sorter's value_size. */
MJ_API mj_status mj_sort_indices(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                                 void *indices, size_t n, size_t index_size, void *stream);

/*! mj_merge_keys(), mj_merge_pairs() :
 *  mj_sorter_merge; they set the primitive (MJ_MERGE). */
MJ_API mj_status mj_merge_keys(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                               size_t a_count, const void *b_keys, size_t b_count,
                               void *out_keys, void *stream);
MJ_API mj_status mj_merge_pairs(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                                const void *a_values, size_t a_count, const void *b_keys,
                                const void *b_values, size_t b_count, void *out_keys,
                                void *out_values, size_t value_size, void *stream);
/*! mj_segmented_sort_keys(), mj_segmented_sort_pairs() :
 *  mj_sorter_segmented_sort; they set the primitive (MJ_SEGMENTED_SORT). */
MJ_API mj_status mj_segmented_sort_keys(mj_context *ctx, const mj_sort_desc *desc, void *keys,
                                        size_t n, const mj_segments *segments, void *stream);
MJ_API mj_status mj_segmented_sort_pairs(mj_context *ctx, const mj_sort_desc *desc, void *keys,
                                         void *values, size_t n, const mj_segments *segments,
                                         size_t value_size, void *stream);

/*! mj_reduce(), mj_scan() :
 *  mj_sorter_reduce and mj_sorter_scan; they set the primitive (MJ_REDUCE, MJ_SCAN). */
MJ_API mj_status mj_reduce(mj_context *ctx, const mj_sort_desc *desc, const void *in, size_t n,
                           void *out, void *stream);
MJ_API mj_status mj_scan(mj_context *ctx, const mj_sort_desc *desc, const void *in, size_t n,
                         void *out, mj_scan_kind kind, void *total, void *stream);
/*! mj_segmented_reduce() :
 *  mj_sorter_segmented_reduce; it sets the primitive (MJ_SEGMENTED_REDUCE). */
MJ_API mj_status mj_segmented_reduce(mj_context *ctx, const mj_sort_desc *desc, const void *in,
                                     size_t n, const mj_segments *segments, void *out,
                                     void *stream);

/*! mj_load_balance(), mj_interval_expand(), mj_interval_move() :
 *  mj_sorter_load_balance, mj_sorter_interval_expand, mj_sorter_interval_move; they set the
 *  primitive (MJ_LOAD_BALANCE, MJ_INTERVAL_EXPAND, MJ_INTERVAL_MOVE) and value_size. */
MJ_API mj_status mj_load_balance(mj_context *ctx, const mj_sort_desc *desc, const void *offsets,
                                 size_t num_objects, size_t num_items, void *objects,
                                 void *ranks, void *stream);
MJ_API mj_status mj_interval_expand(mj_context *ctx, const mj_sort_desc *desc,
                                    const void *offsets, size_t num_objects, size_t num_items,
                                    const void *values, void *out, size_t value_size,
                                    void *stream);
MJ_API mj_status mj_interval_move(mj_context *ctx, const mj_sort_desc *desc, const void *offsets,
                                  size_t num_intervals, size_t num_items, const void *gather,
                                  const void *scatter, const void *in, size_t in_count,
                                  void *out, size_t out_count, size_t value_size, void *stream);

/*! mj_sorted_search() :
 *  mj_sorter_sorted_search; it sets the primitive (MJ_SORTED_SEARCH). */
MJ_API mj_status mj_sorted_search(mj_context *ctx, const mj_sort_desc *desc, const void *a,
                                  size_t a_count, const void *b, size_t b_count,
                                  const mj_search_outputs *out, void *stream);
/*! mj_bulk_remove(), mj_bulk_insert() :
 *  mj_sorter_bulk_remove and mj_sorter_bulk_insert; they set the primitive (MJ_BULK_REMOVE,
 *  MJ_BULK_INSERT) and value_size (0 with NULL values). */
MJ_API mj_status mj_bulk_remove(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                                const void *values, size_t n, const void *indices,
                                size_t num_indices, size_t index_size, void *out_keys,
                                void *out_values, size_t value_size, void *stream);
MJ_API mj_status mj_bulk_insert(mj_context *ctx, const mj_sort_desc *desc, const void *a_keys,
                                const void *a_values, const void *positions, size_t a_count,
                                size_t index_size, const void *b_keys, const void *b_values,
                                size_t b_count, void *out_keys, void *out_values,
                                size_t value_size, void *stream);
/*! mj_set_op_run() :
 *  mj_sorter_set_op; it sets the primitive (MJ_SET_OPS) and value_size (0 with NULL
 *  values). */
MJ_API mj_status mj_set_op_run(mj_context *ctx, const mj_sort_desc *desc, mj_set_op op,
                               const void *a_keys, const void *a_values, size_t a_count,
                               const void *b_keys, const void *b_values, size_t b_count,
                               void *out_keys, void *out_values, void *out_count,
                               size_t value_size, void *stream);

/*! mj_select() :
 *  mj_sorter_select; it sets the primitive (MJ_SELECT) and value_size (0 with NULL values). */
MJ_API mj_status mj_select(mj_context *ctx, const mj_sort_desc *desc, mj_select_kind kind,
                           const void *keys, const void *values, size_t n, void *out_keys,
                           void *out_values, void *out_count, size_t value_size, void *stream);

/*! mj_reduce_by_key() :
 *  mj_sorter_reduce_by_key; it sets the primitive (MJ_REDUCE_BY_KEY) and value_size, with
 *  value_type from desc. */
MJ_API mj_status mj_reduce_by_key(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                                  const void *values, size_t n, void *out_keys, void *out_values,
                                  void *out_count, size_t value_size, void *stream);

/*! mj_join() :
 *  mj_sorter_join over caller buffers; it sets the primitive (MJ_JOIN). a_rows and b_rows may
 *  be NULL with capacity 0 (a count only, as mj_sorter_join_count). No host synchronisation:
 *  out_count says whether capacity was enough. */
MJ_API mj_status mj_join(mj_context *ctx, const mj_sort_desc *desc, mj_join_kind kind,
                         const void *a, size_t a_count, const void *b, size_t b_count,
                         size_t index_size, void *a_rows, void *b_rows, size_t capacity,
                         void *out_count, void *stream);

/* #############################################################################################
 * ADVANCED
 *
 * Everything below is for tools, tuning and deployment. It is as stable, and its ABI as kept,
 * as the sections above; a program that only sorts needs none of it.
 * ############################################################################################# */

/* =============================================================================================
 * 18. Tiles and tuning (ADVANCED)
 *
 * A sorter's tile is NT threads with VT keys each for the merge kernels, and the blocksort's
 * threads. It comes from the description (mj_sort_desc.nt, vt, bs_nt), else the context's
 * bundle, tuning file or built-in default. The tuner (`mergejit tune`) measures tiles and saves
 * them with mj_tuning_save. docs/deployment.md, "Tiles and the autotuner".
 * ============================================================================================= */

/* A tile shape for one primitive and key and value size. */
typedef struct mj_tile {
    mj_primitive primitive;
    size_t key_size, value_size;
    int nt, vt;     /* the merge tile: nt threads with vt keys each */
    int bs_nt;      /* the blocksort's threads (nt times a power of two; nt for merge, reduce
                     * and scan, which have none) */
    double gkeys;   /* the throughput the tuner measured, Gkeys/s; 0 unknown */
    int tuned;      /* mj_context_tile: 1 from the tuning file, 0 the built-in default */
    int merge4_log2; /* mergesort: its passes merge four lists from 2^merge4_log2 bytes of keys
                      * and values on (mj_sort_desc.merge4_log2); mj_context_tile gives the
                      * tuning file's, 0 where it has none (the built-in rule, 2^25 bytes)
                      * and for other primitives; mj_tuning_save takes 0 for the built-in
                      * rule or 1 to 62 */
} mj_tile;

/*! mj_context_tile() :
 *  The tile the context chooses for a primitive, key size and value size when a description
 *  gives none and no bundle entry sets it: its tuning file's record for the device, else the
 *  built-in default for its sm. (An experiment switch in the environment may override both:
 *  docs/TUNING.md, "Environment switches".)
 *  @return MJ_OK with the tile in *out; MJ_ERR_INVALID_ARGUMENT for a NULL ctx or out, an
 *          unknown primitive, or key_size 0. */
MJ_API mj_status mj_context_tile(mj_context *ctx, mj_primitive primitive, size_t key_size,
                                 size_t value_size, mj_tile *out);

/*! mj_tile_check() :
 *  Whether a tile shape can be generated for the primitive, key size and value size (thread
 *  counts, VT range, static shared memory), with a merge4_log2 of 0 or, for mergesort, 1 to
 *  62. Registers and spills are only known after compiling: mj_sorter_resources.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT with the reason in why (may be NULL; why_cap bytes,
 *          NUL-terminated). */
MJ_API mj_status mj_tile_check(const mj_tile *tile, char *why, size_t why_cap);

/*! mj_tuning_save() :
 *  Writes tiles (their primitive, sizes, shape, gkeys and merge4_log2) as the records of the
 *  context's device and sm into the tuning file at path (NULL: the default path described at
 *  mj_context_options.tuning_file), replacing the records with the same primitive, key size
 *  and value size and keeping every other record. The file is replaced atomically.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a tile mj_tile_check refuses (or NULL tiles
 *          with count > 0); MJ_ERR_FILE when no path can be found, when the file at path does
 *          not parse (it is then not overwritten) or cannot be written. */
MJ_API mj_status mj_tuning_save(mj_context *ctx, const char *path, const mj_tile *tiles,
                                size_t count);

/*! mj_sorter_tile() :
 *  The merge tile in use: threads per block (*nt) and values per thread (*vt). (The blocksort
 *  pass may run a power-of-two multiple of those threads with the same values per thread.) */
MJ_API void mj_sorter_tile(const mj_sorter *sorter, int *nt, int *vt);

/* =============================================================================================
 * 19. Build introspection (ADVANCED)
 *
 * How a sorter got its kernels and what that cost. How builds are scheduled (a program per
 * kernel, on up to one host thread per CPU): docs/deployment.md, "Build time".
 * ============================================================================================= */

/*! mj_sorter_source() :
 *  @return how the sorter got its binary at create: 0 compiled with NVRTC (some of its kernels
 *          may have come from the disk cache's program entries), 1 from the disk cache (its
 *          module's entry, or every kernel's program entry), 2 from the context's memory, 3
 *          from the context's bundle (a cubin), 4 from the context's bundle as PTX, which the
 *          driver compiled for the device (one newer than the bundle's cubins). */
MJ_API int mj_sorter_source(const mj_sorter *sorter);
/*! mj_sorter_build_ms() :
 *  @return how long getting the binary at create took, in milliseconds. */
MJ_API double mj_sorter_build_ms(const mj_sorter *sorter);

/* Where a build with NVRTC spent its time. A primitive's kernels compile as separate NVRTC
 * programs, several at once, so a build costs about its slowest program. frontend_ms is
 * NVRTC's front end (C++ to PTX) and ptxas_ms ptxas (PTX to cubin, as ptxas reports it), each
 * summed over the programs, so their sum exceeds the build's wall time when the programs ran
 * at once. ptxas_ms is -1 for PTX targets (the driver finishes them at load), and both are -1
 * with a ptxas that does not report its time. */
typedef struct mj_build_times {
    int programs, threads;  /* programs compiled (not those found in the disk cache); host
                               threads they ran on */
    double frontend_ms, ptxas_ms;
    double slowest_ms;      /* the longest program, wall time */
} mj_build_times;

/*! mj_sorter_build_times() :
 *  Fills *out with the sorter's build times at create when it was compiled with NVRTC
 *  (mj_sorter_source 0); otherwise programs and threads 0 and the times -1. */
MJ_API void mj_sorter_build_times(const mj_sorter *sorter, mj_build_times *out);

/*! mj_sorter_resources() :
 *  What ptxas reported for the sorter's kernels: the largest register count (*registers) and
 *  the spill stores plus loads summed over them (*spill_bytes). -1 each when unknown (PTX
 *  targets finished by the driver). Kept with the binary in the disk cache and in bundles. */
MJ_API void mj_sorter_resources(const mj_sorter *sorter, int *registers, long *spill_bytes);

/* =============================================================================================
 * 20. Pass profiling (ADVANCED)
 *
 * A mergesort's passes over device memory, for profiling. A sort of n > 0 elements runs one
 * blocksort pass, then merge passes of two or four lists (four from mj_sort_desc.merge4_log2's
 * size on); n == 0 runs none.
 * ============================================================================================= */

typedef enum mj_pass_kind {
    MJ_PASS_BLOCKSORT = 0, /* each block sorts its tile (or its run of tiles) */
    MJ_PASS_MERGE2 = 1,    /* 2-way merge pass: the sorted lists double in length */
    MJ_PASS_MERGE4 = 2     /* 4-way merge pass: they grow fourfold */
} mj_pass_kind;

typedef struct mj_sort_pass {
    mj_pass_kind kind;
    int launches;  /* kernels the pass launches: 1 for the blocksort and a 2-way pass whose
                      partition is fused into its merge (the default), 2 for a partition and a
                      merge kernel */
    double ms;     /* GPU time between the events recorded before and after the pass
                      (mj_sorter_sort_profiled); 0 from mj_sorter_sort_passes */
    size_t bytes;  /* bytes the pass reads plus writes at least: every key and value once
                      each way, n * (key size + value size) * 2 (partition searches and
                      scattered reads come on top) */
} mj_sort_pass;

/*! mj_sorter_sort_passes() :
 *  The passes a sort of n elements runs with this sorter, without running it (no device is
 *  needed: compile-only contexts answer too): *count gets their number and passes[0 ..
 *  min(*count, capacity)) their kind, launches and bytes (ms 0). passes may be NULL when
 *  capacity is 0 (a count only).
 *  @return MJ_OK for MJ_MERGESORT sorters; MJ_ERR_UNSUPPORTED for MJ_LOCALITY_SORT sorters
 *          (their queued passes are not profiled); MJ_ERR_INVALID_ARGUMENT for other
 *          primitives. */
MJ_API mj_status mj_sorter_sort_passes(const mj_sorter *sorter, size_t n, mj_sort_pass *passes,
                                       int capacity, int *count);

/*! mj_sorter_sort_profiled() :
 *  mj_sorter_sort (same arguments, checks and result) with a profile of its passes: records a
 *  CUDA event on `stream` before the blocksort and after each pass, waits for the stream
 *  (unlike mj_sorter_sort, it returns once the sort is done) and fills passes[0 .. *count) as
 *  mj_sorter_sort_passes does, with each pass's GPU time. Give capacity of at least the count
 *  mj_sorter_sort_passes reports for n. The unprofiled mj_sorter_sort launches the same
 *  kernels without the events; the events may add a few microseconds a pass, and may keep
 *  overlapped launches (programmatic dependent launch: docs/TUNING.md) from overlapping across
 *  passes.
 *  @return as mj_sorter_sort and mj_sorter_sort_passes; MJ_ERR_INVALID_ARGUMENT with *count
 *          set to the number needed, and nothing sorted, when capacity is less. */
MJ_API mj_status mj_sorter_sort_profiled(mj_sorter *sorter, void *keys, void *values, size_t n,
                                         void *temp, size_t temp_bytes, void *stream,
                                         mj_sort_pass *passes, int capacity, int *count);

/*! mj_sort_passes_text() :
 *  The passes for people, e.g. "bs+11x2" or "bs+1x2+5x4": "bs" for the blocksort, then each
 *  run of merge passes of one kind in order, as count x lists; "none" for no pass. Writes at
 *  most cap bytes (NUL-terminated when cap > 0) to text.
 *  @return the length of the whole text, as snprintf does. */
MJ_API int mj_sort_passes_text(const mj_sort_pass *passes, int count, char *text, size_t cap);

/*! mj_sort_passes_gbs() :
 *  @return the bandwidth of the passes of one kind in GB/s: their bytes over their GPU time,
 *          each summed over passes[0 .. count) of that kind; -1 when none of them has a time
 *          (none of that kind, or passes from mj_sorter_sort_passes). */
MJ_API double mj_sort_passes_gbs(const mj_sort_pass *passes, int count, mj_pass_kind kind);

/* =============================================================================================
 * 21. Deployment bundles (ADVANCED)
 *
 * A builder collects compiled kernels and writes them as one bundle file: versioned, with an
 * index, a SHA-256 per entry, and the tile each entry was built with. A context reads one
 * (mj_context_options.bundle) and needs no NVRTC. A builder is used by one thread at a time.
 * docs/deployment.md.
 * ============================================================================================= */

typedef struct mj_bundle_builder mj_bundle_builder;

/*! mj_bundle_builder_create() :
 *  @return MJ_OK with an empty builder in *out; MJ_ERR_INVALID_ARGUMENT for a NULL out;
 *          MJ_ERR_HOST_MEMORY. */
MJ_API mj_status mj_bundle_builder_create(mj_bundle_builder **out);
/*! mj_bundle_builder_destroy() :
 *  NULL is accepted. */
MJ_API void mj_bundle_builder_destroy(mj_bundle_builder *builder);
/*! mj_bundle_builder_last_error() :
 *  @return the message of the builder's last failure ("" when none). */
MJ_API const char *mj_bundle_builder_last_error(const mj_bundle_builder *builder);
/*! mj_bundle_builder_add() :
 *  Compiles (or takes from ctx's disk cache) the kernels of `desc` for ctx's target sm, with
 *  the tile ctx would choose for it (see mj_context_tile; a compile-only context serves any
 *  target), and adds them. Adding what is already there (same request and sm) changes
 *  nothing. Failures are reported by the builder (mj_bundle_builder_last_error, with NVRTC's
 *  log for a compile error).
 *  @return MJ_OK; otherwise what mj_sorter_create returns for desc. */
MJ_API mj_status mj_bundle_builder_add(mj_bundle_builder *builder, mj_context *ctx,
                                       const mj_sort_desc *desc);
/*! mj_bundle_builder_add_ptx() :
 *  mj_bundle_builder_add, but PTX for compute_<ctx's target sm> rather than a cubin: the
 *  driver compiles it when a context loads it, on a GPU of that compute capability or any
 *  newer one (as the PTX in a fat binary). A context prefers a cubin for its device's sm, then
 *  one of the same major version and a lower minor, then the newest PTX not above its sm. The
 *  PTX entry and a cubin of one request and sm are two entries.
 *  @return as mj_bundle_builder_add. */
MJ_API mj_status mj_bundle_builder_add_ptx(mj_bundle_builder *builder, mj_context *ctx,
                                           const mj_sort_desc *desc);
/*! mj_bundle_builder_count() :
 *  @return the entries added so far (0 for NULL). */
MJ_API size_t mj_bundle_builder_count(const mj_bundle_builder *builder);
/*! mj_bundle_builder_write() :
 *  Writes the bundle to path atomically.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL builder or path; MJ_ERR_FILE (or
 *          MJ_ERR_HOST_MEMORY) when it cannot be written, with the reason in the builder's
 *          message. */
MJ_API mj_status mj_bundle_builder_write(mj_bundle_builder *builder, const char *path);

/* One entry of a bundle, for listing. */
typedef struct mj_bundle_info {
    int sm;
    mj_primitive primitive;
    mj_key_kind key;
    const char *label;      /* the key type and order for people, e.g. "u32 asc" */
    size_t key_size, value_size;
    int nt, vt, bs_nt;
    int registers;          /* as in mj_sorter_resources */
    long spill_bytes;
    size_t bytes;           /* the binary's size */
    int ptx;                /* 1: PTX for compute_<sm> (runs there and on newer GPUs, compiled
                               by the driver); 0: a cubin for sm_<sm> */
} mj_bundle_info;

/*! mj_bundle_list() :
 *  Reads a bundle's index and calls fn for each entry in order (the entry and its label are
 *  valid during that call only).
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL path or fn; MJ_ERR_FILE with the reason
 *          in err (may be NULL; err_cap bytes) when the file cannot be read or is not an
 *          intact bundle. */
MJ_API mj_status mj_bundle_list(const char *path,
                                void (*fn)(void *arg, const mj_bundle_info *entry), void *arg,
                                char *err, size_t err_cap);

/* =============================================================================================
 * 22. Sorting across GPUs (NCCL) (ADVANCED)
 *
 * A sample sort of keys (and values) spread over the GPUs of an NCCL communicator that the
 * caller owns, one rank per GPU, in one process or several: any key type and order a mergesort
 * sorter takes, custom comparators included. Each rank sorts its shard with mergejit, a regular
 * sample of every shard picks the splitters, the shards are exchanged with grouped ncclSend and
 * ncclRecv, and each rank merges the runs it received. Afterwards rank r holds a sorted run,
 * every key of rank r is ordered before every key of rank r + 1 (ties split by position, so
 * many equal keys spread over ranks), and the sort is stable across ranks: equal keys keep
 * their order in the concatenation of the inputs in rank order. Every rank receives fewer than
 * N / P + N / 1024 + n_max / 1024 + P + 1 keys (N keys in all over P ranks, n_max the largest
 * shard), whatever the keys.
 *
 * NCCL is opened at run time: $MERGEJIT_NCCL names the library file (it must be the NCCL that
 * made the communicator), else libnccl.so.2, then libnccl.so are looked up as dlopen does. A
 * missing NCCL (2.7 or newer) makes mj_multi_sorter_create fail with MJ_ERR_UNSUPPORTED.
 *
 * Collectives. Plan, finish and the one-call sort are collective: every rank of the
 * communicator calls them, each from its own host thread (or process), as with NCCL itself,
 * with the same sorter description. Every collective step carries each rank's status, so a
 * failure on one rank (a bad argument, device memory that could not be had) makes every rank
 * return the same error; the rank that failed keeps its own message, the others say which rank
 * failed. Bad arguments and failed allocations, on any rank, are found before any rank touches
 * its data, which is then left as it was (phase 2's: before anything is exchanged; phase 1 has
 * sorted each shard in place by then). A rank that does not call at all leaves the others
 * waiting until their timeout (below), and so does one whose sorter could not be created:
 * create is local, so check that it succeeded everywhere first.
 * The calls return once the work is queued on `stream` (plan waits for the counts). Streams
 * are cudaStream_t / CUstream on the rank's device; ctx must be on the communicator's device.
 *
 * Timeouts. Every step at which a rank waits for the others gives up after the sorter's
 * timeout (mj_multi_sorter_set_timeout; default 600 s, or $MERGEJIT_MULTI_TIMEOUT seconds,
 * 0 waiting for ever; the wait includes the work queued on the stream before the call), and
 * after an asynchronous NCCL error at once: the call then aborts the
 * communicator (ncclCommAbort, which ends its pending work and frees it) and returns
 * MJ_ERR_TIMEOUT (MJ_ERR_CUDA for NCCL's error); the sorter refuses further calls. Destroy
 * the sorter and make a new communicator; do not use or destroy the aborted one. The exchange
 * and merges that finish queues are not waited for; a rank lost during them is NCCL's to
 * report (ncclCommGetAsyncError).
 *
 * Processes. A program of one process per GPU (on one node or several) makes its
 * communicators as NCCL's ncclGetUniqueId and ncclCommInitRank do, through the library's own
 * NCCL when it does not link NCCL: one process calls mj_multi_id_create and hands the id to
 * the others (a file, a socket, MPI_Bcast, torch.distributed), then every process calls
 * mj_multi_comm_create with its rank (examples/c/multi_process_sort.c).
 *
 * Memory. The sorter keeps its temporary device memory between calls (about the largest
 * shard's size in phase 1, twice the output's in phase 2) and frees it when destroyed: a sort
 * that allocated on every call spent more time mapping memory than merging at 2^30 keys.
 * ============================================================================================= */

typedef struct mj_multi_sorter mj_multi_sorter;

/*! mj_multi_sorter_create() :
 *  Builds, for desc (primitive MJ_MERGESORT, keys of any kind, value_size 0..64), every sorter
 *  the sort needs (local sort, sample sort, sorted search, merge), so that no compile can fail
 *  once ranks talk. comm is the caller's ncclComm_t; ctx must be on its device. Not a
 *  collective. The sorter is used by one thread at a time.
 *  @return MJ_OK; MJ_ERR_UNSUPPORTED without NCCL or in a compile-only context;
 *          MJ_ERR_INVALID_ARGUMENT for a description that is not a mergesort's, a NULL or
 *          unusable comm, or one whose rank is on another device than ctx; otherwise what
 *          mj_sorter_create returns for desc. */
MJ_API mj_status mj_multi_sorter_create(mj_context *ctx, const mj_sort_desc *desc, void *comm,
                                        mj_multi_sorter **out);
/*! mj_multi_sorter_destroy() :
 *  Frees the sorter (and a plan not finished); the caller must have finished (synchronized)
 *  its work. NULL is accepted. The communicator stays the caller's. */
MJ_API void mj_multi_sorter_destroy(mj_multi_sorter *m);
/*! mj_multi_sorter_rank() :
 *  This rank's number (*rank) and the number of ranks (*ranks); either pointer may be NULL. */
MJ_API void mj_multi_sorter_rank(const mj_multi_sorter *m, int *rank, int *ranks);

/*! mj_multi_sort_plan() :
 *  Collective, phase 1: sorts this rank's n keys (and values: required exactly when value_size
 *  > 0) in place, gathers a regular sample of every shard, picks the splitters and agrees with
 *  every rank how many keys each receives: *out_count is how many this rank will hold. Blocks
 *  until the counts are known. keys and values must stay as they are until phase 2. A new plan
 *  replaces one not finished. It needs temporary device memory of about the shard's size (the
 *  local sort's), which the sorter keeps (the section's introduction).
 *  @return MJ_OK on every rank, or the same status on every rank (the section's
 *          introduction): MJ_ERR_INVALID_ARGUMENT, MJ_ERR_TOO_LARGE, MJ_ERR_DEVICE_MEMORY,
 *          MJ_ERR_CUDA (a failed NCCL or driver call); MJ_ERR_TIMEOUT when this rank waited
 *          past its timeout for the others (MJ_ERR_CUDA at NCCL's asynchronous error), the
 *          communicator then aborted. */
MJ_API mj_status mj_multi_sort_plan(mj_multi_sorter *m, void *keys, void *values, size_t n,
                                    size_t *out_count, void *stream);
/*! mj_multi_sort_finish() :
 *  Collective, phase 2: exchanges the shards and merges what this rank receives into out_keys
 *  (and out_values), *out_count entries of phase 1, not overlapping the inputs. Give plan's
 *  stream or one ordered after it. It needs temporary device memory of twice the output's
 *  size, which the sorter keeps. Ends the plan, whatever the outcome.
 *  @return as mj_multi_sort_plan; MJ_ERR_INVALID_ARGUMENT on every rank, nothing exchanged,
 *          when a rank calls it with NULL outputs (when its *out_count > 0): a rank that could
 *          not get its outputs does so. */
MJ_API mj_status mj_multi_sort_finish(mj_multi_sorter *m, void *out_keys, void *out_values,
                                      void *stream);
/*! mj_multi_sort() :
 *  Both phases in one call, with outputs of `capacity` entries on each rank. out_count may not
 *  be NULL.
 *  @return as mj_multi_sort_plan and mj_multi_sort_finish; MJ_ERR_TOO_LARGE on every rank,
 *          with *out_count set to what this rank needed and nothing exchanged (each rank's
 *          keys are then sorted in place, as phase 1 leaves them), when any rank would receive
 *          more than its capacity. */
MJ_API mj_status mj_multi_sort(mj_multi_sorter *m, void *keys, void *values, size_t n,
                               void *out_keys, void *out_values, size_t capacity,
                               size_t *out_count, void *stream);

/*! mj_multi_sorter_set_timeout() :
 *  How long, in seconds, each collective step waits for the other ranks before it aborts the
 *  communicator (0: for ever; the section's introduction). Local: each rank sets its own.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a negative or non-finite time. */
MJ_API mj_status mj_multi_sorter_set_timeout(mj_multi_sorter *m, double seconds);

/* An NCCL unique id (ncclUniqueId): 128 opaque bytes that one process makes and every rank
 * needs, to be passed between processes as plain bytes. */
typedef struct mj_multi_id {
    unsigned char bytes[128];
} mj_multi_id;

/*! mj_multi_id_create() :
 *  A new id (ncclGetUniqueId), made once, by one process, for one communicator.
 *  @return MJ_OK; MJ_ERR_UNSUPPORTED without NCCL, MJ_ERR_CUDA for NCCL's failure (e.g. no
 *          network interface), the reason in err (may be NULL; err_cap bytes). */
MJ_API mj_status mj_multi_id_create(mj_multi_id *id, char *err, size_t err_cap);

/*! mj_multi_comm_create() :
 *  This process's rank `rank` of `ranks` in the communicator of id (ncclCommInitRank), on
 *  ctx's device, into *comm. Collective: it returns when every rank has called it (NCCL waits
 *  for ranks that are late, and has no timeout of its own here). Destroy the communicator with
 *  mj_multi_comms_destroy(1, &comm) after the sorters that use it.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL argument or a rank out of range;
 *          MJ_ERR_UNSUPPORTED without NCCL or in a compile-only context; MJ_ERR_CUDA for
 *          NCCL's failure (its message in ctx). */
MJ_API mj_status mj_multi_comm_create(mj_context *ctx, const mj_multi_id *id, int ranks,
                                      int rank, void **comm);

/*! mj_multi_comms_create() :
 *  For programs that do not link NCCL (tests, tools, bindings): one communicator per device of
 *  devices[0 .. count - 1] (NULL: devices 0 .. count - 1), all in this process
 *  (ncclCommInitAll), written to comms[0 .. count - 1], rank i on devices[i].
 *  @return MJ_OK; the reason for a failure goes to err (may be NULL; err_cap bytes):
 *          MJ_ERR_UNSUPPORTED without NCCL, MJ_ERR_NO_DRIVER or MJ_ERR_NO_DEVICE without a
 *          driver or with a device out of range, MJ_ERR_CUDA for NCCL's own failures. */
MJ_API mj_status mj_multi_comms_create(int count, const int *devices, void **comms, char *err,
                                       size_t err_cap);
/*! mj_multi_comms_destroy() :
 *  Destroys count communicators (NULL entries are skipped), made by mj_multi_comms_create or
 *  mj_multi_comm_create. */
MJ_API void mj_multi_comms_destroy(int count, void **comms);

/* =============================================================================================
 * 23. Cache management (ADVANCED)
 *
 * The disk cache of compiled kernels (mj_context_options.cache_dir; docs/deployment.md, "The
 * cache"). The functions that take a context work on its cache directory; with the disk
 * cache off (MJ_CONTEXT_NO_DISK_CACHE) clear, stats, prune and check_writable do nothing (no
 * entries, 0 bytes) and return MJ_OK.
 * ============================================================================================= */

/*! mj_cache_clear() :
 *  Removes every cache entry in the context's cache directory; *removed gets the count (may
 *  be NULL).
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL ctx; MJ_ERR_CACHE with the reason. */
MJ_API mj_status mj_cache_clear(mj_context *ctx, size_t *removed);
/*! mj_cache_stats() :
 *  The number of entries (*entries) and their total size in bytes (*bytes).
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL argument; MJ_ERR_CACHE with the
 *          reason. */
MJ_API mj_status mj_cache_stats(mj_context *ctx, size_t *entries, uint64_t *bytes);

/*! mj_context_cache_max() :
 *  The cache's size cap in bytes: $MERGEJIT_CACHE_MAX when set (bytes, optionally with K, M, G
 *  or T, powers of 1024; 0 for no cap, given as UINT64_MAX here), else 1 GiB. A context that
 *  compiles kernels removes the least recently used entries (stored or loaded longest ago)
 *  after each store that takes the cache over its cap; a bad MERGEJIT_CACHE_MAX fails
 *  mj_context_create.
 *  @return the cap; 0 without a context. */
MJ_API uint64_t mj_context_cache_max(const mj_context *ctx);
/*! mj_cache_prune() :
 *  Removes the least recently used entries until the cache holds at most max_bytes (0: the
 *  context's cap, mj_context_cache_max). *removed and *kept_bytes (either may be NULL) get how
 *  many entries went and the bytes left.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for a NULL ctx; MJ_ERR_CACHE with the reason. */
MJ_API mj_status mj_cache_prune(mj_context *ctx, uint64_t max_bytes, size_t *removed,
                                uint64_t *kept_bytes);
/*! mj_cache_check_writable() :
 *  Whether an entry can be stored in the context's cache directory (creating it when missing,
 *  as the first store would, and a file in it, removed again). A cache that cannot be written
 *  is not an error for sorts: each process compiles its kernels again (and warns once on
 *  stderr).
 *  @return MJ_OK when it can, and when the cache is off; MJ_ERR_CACHE with the reason
 *          otherwise; MJ_ERR_INVALID_ARGUMENT for a NULL ctx. */
MJ_API mj_status mj_cache_check_writable(mj_context *ctx);
/*! mj_cache_parse_size() :
 *  Reads a cache size as MERGEJIT_CACHE_MAX takes it ("0" gives UINT64_MAX, no cap) into
 *  *bytes. No context needed.
 *  @return MJ_OK; MJ_ERR_INVALID_ARGUMENT for anything else, *bytes untouched. */
MJ_API mj_status mj_cache_parse_size(const char *text, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* MERGEJIT_H */
