// SPDX-License-Identifier: GPL-2.0
/*
 * Debian trixie's static libelf.a (elfutils 0.192) calls four functions of
 * elfutils' internal libeu (lib/eu-search.c) that only its shared library
 * carries, so a static link of libbpf fails with "undefined reference to
 * eu_search_tree_init". These are the same functions for a libelf built
 * without thread safety (trixie's: its libelf.a uses no pthread_rwlock),
 * where search_tree is only its root pointer. Linked into the static
 * loader only (Makefile).
 */
#define _GNU_SOURCE
#include <search.h>
#include <stddef.h>

typedef struct {
	void *root;
} search_tree;

void *eu_tsearch(const void *key, search_tree *tree,
		 int (*compare)(const void *, const void *));
void *eu_tfind(const void *key, search_tree *tree,
	       int (*compare)(const void *, const void *));
void *eu_tdelete(const void *key, search_tree *tree,
		 int (*compare)(const void *, const void *));
void eu_search_tree_fini(search_tree *tree, void (*free_node)(void *));
int eu_search_tree_init(search_tree *tree);

void *eu_tsearch(const void *key, search_tree *tree,
		 int (*compare)(const void *, const void *))
{
	return tsearch(key, &tree->root, compare);
}

void *eu_tfind(const void *key, search_tree *tree,
	       int (*compare)(const void *, const void *))
{
	return tfind(key, &tree->root, compare);
}

void *eu_tdelete(const void *key, search_tree *tree,
		 int (*compare)(const void *, const void *))
{
	return tdelete(key, &tree->root, compare);
}

void eu_search_tree_fini(search_tree *tree, void (*free_node)(void *))
{
	tdestroy(tree->root, free_node);
}

int eu_search_tree_init(search_tree *tree)
{
	tree->root = NULL;
	return 0;
}
