// SPDX-License-Identifier: GPL-2.0-or-later
#include "xarray.h"

#include <stdlib.h>
#include <string.h>

/* An xarray indexes at most 64 bits: 64 / 4-bit chunks is the deepest tree. */
#define XA_MAX_DEPTH 16
#define XA_MAX_NODES 100000

struct xa_walk {
	struct mmc_kernel *k;
	mmc_xa_visit_fn visit;
	void *arg;
	uint64_t nodes;
	uint32_t chunk_size;
	uint32_t chunk_shift;
	uint8_t *buf;
};

static struct mmc_error *walk_node(struct xa_walk *w, uint64_t node_addr,
				   uint64_t base_index, int depth,
				   int expect_shift)
{
	const struct mmc_layout *l = w->k->layout;
	const struct mmc_member *shift_m = &l->member[MMC_XA_NODE_SHIFT];
	const struct mmc_member *slots_m = &l->member[MMC_XA_NODE_SLOTS];
	uint64_t node_size = l->size[MMC_SIZE_XA_NODE];
	struct mmc_error *err;
	uint8_t *node;
	unsigned int shift, i;

	if (depth > XA_MAX_DEPTH || ++w->nodes > XA_MAX_NODES)
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xarray too deep or too large (corrupt tree or cycle)");
	node = malloc(node_size);
	if (!node)
		return mmc_error_nomem();
	err = mmc_mem_read(w->k->mem, MMC_KVADDR, node_addr, node, node_size);
	if (err) {
		free(node);
		return mmc_error_prefix(err, "reading xa_node");
	}
	shift = node[shift_m->offset];
	if (shift % w->chunk_shift || shift >= 64 ||
	    (expect_shift >= 0 && (int)shift != expect_shift)) {
		free(node);
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xa_node shift %u is impossible here", shift);
	}
	for (i = 0; i < w->chunk_size; i++) {
		uint64_t entry, index;

		memcpy(&entry, node + slots_m->offset + 8 * i, 8);
		index = base_index + ((uint64_t)i << shift);
		if (!entry)
			continue;
		if (mmc_xa_is_node(entry)) {
			if (shift == 0) {
				err = mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path,
						   node_addr,
						   "xa_node at shift 0 has a child node in slot %u",
						   i);
				break;
			}
			err = walk_node(w, entry - 2, index, depth + 1,
					(int)(shift - w->chunk_shift));
			if (err)
				break;
			continue;
		}
		/* siblings (< chunk), retry (256) and zero (257) entries */
		if (mmc_xa_is_internal(entry) && entry < 4096)
			continue;
		err = w->visit(w->arg, index, entry);
		if (err)
			break;
	}
	free(node);
	return err;
}

struct mmc_error *mmc_xarray_walk(struct mmc_kernel *k, uint64_t xa_addr,
				  mmc_xa_visit_fn visit, void *arg)
{
	const struct mmc_layout *l = k->layout;
	struct xa_walk w = { .k = k, .visit = visit, .arg = arg };
	struct mmc_error *err;
	uint64_t head;

	w.chunk_size = l->member[MMC_XA_NODE_SLOTS].count;
	if (w.chunk_size != 16 && w.chunk_size != 64)
		return mmc_error_create(MMC_ERR_LAYOUT, l->source,
					"xa_node.slots has %u entries; expected 16 or 64",
					w.chunk_size);
	w.chunk_shift = w.chunk_size == 64 ? 6 : 4;
	err = mmc_mem_read_u64(k->mem, MMC_KVADDR,
			       xa_addr + l->member[MMC_XARRAY_HEAD].offset, &head);
	if (err)
		return mmc_error_prefix(err, "reading xarray head");
	if (!head)
		return NULL;
	if (mmc_xa_is_node(head))
		return walk_node(&w, head - 2, 0, 0, -1);
	if (mmc_xa_is_internal(head))
		return NULL;
	return visit(arg, 0, head);
}
