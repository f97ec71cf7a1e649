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

static uint64_t member_uint(const uint8_t *node, const struct mmc_member *m)
{
	uint64_t v = 0;

	memcpy(&v, node + m->offset, m->size < 8 ? m->size : 8);
	if (m->size < 8)
		v &= (1ULL << (8 * m->size)) - 1;
	return v;
}

/*
 * What the kernel keeps true of every node in a tree (lib/xarray.c:
 * xas_store() counts every non-NULL slot, siblings included, in `count`;
 * a node knows its parent and its slot there; an empty node is freed).
 * A node that breaks them was not written by the kernel: a damaged dump,
 * or memory that is not an xa_node.
 */
static struct mmc_error *check_node(struct xa_walk *w, uint64_t node_addr,
				    const uint8_t *node, uint64_t parent,
				    unsigned int slot)
{
	const struct mmc_layout *l = w->k->layout;
	const struct mmc_member *count_m = &l->member[MMC_XA_NODE_COUNT];
	const struct mmc_member *parent_m = &l->member[MMC_XA_NODE_PARENT];
	const struct mmc_member *offset_m = &l->member[MMC_XA_NODE_OFFSET];
	const struct mmc_member *slots_m = &l->member[MMC_XA_NODE_SLOTS];
	unsigned int i, used = 0;
	uint64_t v;

	for (i = 0; i < w->chunk_size; i++) {
		memcpy(&v, node + slots_m->offset + 8 * i, 8);
		used += v != 0;
	}
	if (count_m->found && (v = member_uint(node, count_m)) != used)
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xa_node count %llu, but %u of its slots are used: not a node the kernel wrote",
				    (unsigned long long)v, used);
	if (!used)
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xa_node with no entries in the tree (the kernel frees empty nodes)");
	if (parent_m->found && (v = member_uint(node, parent_m)) != parent)
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xa_node parent 0x%llx, but it hangs from 0x%llx",
				    (unsigned long long)v, (unsigned long long)parent);
	if (offset_m->found && parent && (v = member_uint(node, offset_m)) != slot)
		return mmc_error_at(MMC_ERR_CORRUPT, w->k->dump_path, node_addr,
				    "xa_node offset %llu, but it is in slot %u of its parent",
				    (unsigned long long)v, slot);
	return NULL;
}

static struct mmc_error *walk_node(struct xa_walk *w, uint64_t node_addr,
				   uint64_t base_index, int depth,
				   int expect_shift, uint64_t parent,
				   unsigned int slot)
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
	err = check_node(w, node_addr, node, parent, slot);
	if (err) {
		free(node);
		return err;
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
					(int)(shift - w->chunk_shift), node_addr, i);
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
		return walk_node(&w, head - 2, 0, 0, -1, 0, 0);
	if (mmc_xa_is_internal(head))
		return NULL;
	return visit(arg, 0, head);
}
