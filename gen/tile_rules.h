/* SPDX-License-Identifier: Apache-2.0 */
/* The rules a primitive's tile follows, which its row in the catalogue names (catalog.c): the
 * static shared memory a tile declares, and the default tile shape on an sm where no tuned one
 * is listed. Pure arithmetic over sizes; several primitives share a rule. Internal. */
#ifndef MJ_TILE_RULES_H
#define MJ_TILE_RULES_H

#include <stddef.h>

/* What a kernel may declare statically (without the dynamic-shared-memory opt-in). */
#define MJ_STATIC_SMEM_LIMIT (48 * 1024)

/* Static shared memory a kernel of nt threads declares for a tile of VT vt. */
typedef size_t mj_smem_rule(int nt, int vt, size_t key_size, size_t value_size);

/* mergesort, merge, locality sort */
size_t mj__smem_sort(int nt, int vt, size_t key_size, size_t value_size);
/* segmented sort */
size_t mj__smem_segsort(int nt, int vt, size_t key_size, size_t value_size);
/* reduce, scan */
size_t mj__smem_op(int nt, int vt, size_t key_size, size_t value_size);
/* load-balancing search, interval expand */
size_t mj__smem_lbs(int nt, int vt, size_t key_size, size_t value_size);
/* segmented reduce */
size_t mj__smem_segreduce(int nt, int vt, size_t key_size, size_t value_size);
/* interval move */
size_t mj__smem_move(int nt, int vt, size_t key_size, size_t value_size);
/* sorted search */
size_t mj__smem_search(int nt, int vt, size_t key_size, size_t value_size);
/* join */
size_t mj__smem_join(int nt, int vt, size_t key_size, size_t value_size);
/* set operations */
size_t mj__smem_setops(int nt, int vt, size_t key_size, size_t value_size);
/* reduce by key */
size_t mj__smem_reduce_by_key(int nt, int vt, size_t key_size, size_t value_size);
/* bulk remove */
size_t mj__smem_remove(int nt, int vt, size_t key_size, size_t value_size);
/* bulk insert */
size_t mj__smem_insert(int nt, int vt, size_t key_size, size_t value_size);
/* select */
size_t mj__smem_select(int nt, int vt, size_t key_size, size_t value_size);

/* The default tile for a key size and value size on an sm: the merge tile (*nt x *vt) and the
 * blocksort's threads (*bs_nt), within the static shared memory that smem (the primitive's
 * rule) counts. */
typedef void mj_tile_rule(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size,
                          int *nt, int *vt, int *bs_nt);

void mj__tile_mergesort(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                        int *vt, int *bs_nt);
void mj__tile_merge(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                    int *vt, int *bs_nt);
void mj__tile_segsort(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                      int *vt, int *bs_nt);
void mj__tile_locality(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                       int *vt, int *bs_nt);
/* reduce, scan */
void mj__tile_op(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                 int *vt, int *bs_nt);
/* load-balancing search, interval expand and move */
void mj__tile_lbs(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                  int *vt, int *bs_nt);
/* sorted search, join */
void mj__tile_search(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt);
/* set operations, reduce by key */
void mj__tile_setops(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt);
void mj__tile_remove(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt);
void mj__tile_insert(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt);
void mj__tile_select(mj_smem_rule *smem, int sm, size_t key_size, size_t value_size, int *nt,
                     int *vt, int *bs_nt);

#endif
